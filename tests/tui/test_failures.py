"""One failure boundary: an exception nobody expected — in a game's rules (decide, or the fold
of its events), in a listener of the session, in a worker — is one alert line on screen and in
the log, and the console goes on. The command that raised is not applied (the journal is as it
was); a listener that fails after its command was journaled is a warning on that command."""
from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
import urllib.error
import urllib.request

import aiohttp
import pytest
from aiohttp import web

from companion import views
from tui.bluff.display import BluffDisplayApp
from tui.calibrate import CalibrateApp
from tui.bingo.console import ConsoleApp
from tui.bingo.display import DisplayApp
from tui.jail.display import JailDisplayApp
from tui.serve import DisplayServer, DisplaySession
from tui.voters.display import VotersDisplayApp
from tui.bluff import phone as P
from tui.web import server as web_server

import screens_bluff
from bluff_world import Clock, Server, bluff_night
import screens_jail
import screens_voters
from screens_chromium import free_port
from screens_game import game, play
from screens_helpers import drive, settle, text_of
from test_calibrate import rig  # noqa: F401  (a fixture)
from test_console import do


def broken(rules, name: str, command_kind: type):
    """The game's rules with `name` (decide or fold) raising on one kind of command or event."""
    real = getattr(rules, name)

    def boom(first, second):
        given = second if name == "decide" else first
        if name == "decide" and isinstance(given, command_kind) or \
                name == "fold" and any(type(event).__name__ == command_kind for event in given):
            raise ZeroDivisionError("injected")
        return real(first, second)
    return dataclasses.replace(rules, **{name: boom})


@pytest.mark.parametrize("part", ["decide", "fold"])
def test_a_rule_that_raises_is_one_alert_and_the_command_is_not_applied(tmp_path, caplog, part):
    session, clock = game(tmp_path / "g.db", "ready")
    from companion.bingo import commands as c
    session.game.rules = broken(session.rules, part, c.BeginTurn if part == "decide" else "TurnBegan")
    app, count = ConsoleApp(session, clock=clock.now), session.journal.count()

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        with caplog.at_level(logging.ERROR, "companion.console"):
            outcome = await do(pilot, "b", expect="rejected")
            await pilot.pause(0.1)
        assert outcome.reason.startswith("not applied: begin_turn failed: ZeroDivisionError: injected at ")
        assert session.journal.count() == count and session.state.phase == "ready"     # the journal as it was
        alerts = [line for _, line, level in pilot.app.alerts if level == "error"]
        assert len(alerts) == 1 and "ZeroDivisionError: injected" in alerts[0] and "\n" not in alerts[0]
        assert "begin_turn failed: ZeroDivisionError: injected" in text_of(pilot.app)
        assert [r.getMessage() for r in caplog.records] == alerts
        await do(pilot, "d", "1 2 3", "enter", expect="rejected")                     # the console goes on
        assert pilot.app.is_running

    drive(app, body, (160, 45))


def test_a_listener_that_raises_is_a_warning_and_the_command_stays_applied(tmp_path, caplog):
    session, clock = game(tmp_path / "g.db", "ready")
    heard = []

    def bad_listener(state, outcome):
        raise RuntimeError("listener broke")

    session.subscribe(bad_listener)
    session.subscribe(lambda state, outcome: heard.append(outcome.batch))      # later listeners still hear
    app = ConsoleApp(session, clock=clock.now)

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        with caplog.at_level(logging.WARNING, "companion.console"):
            outcome = await do(pilot, "b")
            await pilot.pause(0.1)
        assert session.state.phase == "draw" and heard == [outcome.batch]
        assert "bad_listener failed after command" in outcome.warning and "RuntimeError: listener broke" in outcome.warning
        assert [line for _, line, _ in pilot.app.alerts] == [outcome.warning]
        assert [r.getMessage() for r in caplog.records] == [outcome.warning]
        await do(pilot, "d", "1 2 3", "enter")
        assert pilot.app.is_running

    drive(app, body, (160, 45))


def test_a_worker_that_raises_is_one_alert_and_the_console_goes_on(tmp_path, caplog):
    session, clock = game(tmp_path / "g.db", "ready")
    app = ConsoleApp(session, clock=clock.now)

    def broken_crop(serial, path):
        raise OSError("disk gone")

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        with caplog.at_level(logging.ERROR, "companion.console"):
            pilot.app.run_worker(lambda: broken_crop("V0101", "x.png"), thread=True, name="crop", exit_on_error=False)
            await settle(pilot, lambda app: app.alerts)
        [(_, line, level)] = pilot.app.alerts
        assert level == "error" and line.startswith("the crop thread failed: OSError: disk gone")
        await do(pilot, "b")
        assert pilot.app.is_running

    drive(app, body, (160, 45))


# ---- the same boundary on every other screen: the console's views and keys, the displays, calibration

def test_a_staff_view_that_raises_is_one_alert_and_the_console_goes_on(tmp_path, caplog, monkeypatch):
    session, clock = game(tmp_path / "g.db", "ready")
    app = ConsoleApp(session, clock=clock.now)
    real = ConsoleApp.show_players

    def choking(self, view, valid):
        if view["phase"] == "draw":
            raise KeyError("strange state")
        real(self, view, valid)
    monkeypatch.setattr(ConsoleApp, "show_players", choking)

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        with caplog.at_level(logging.ERROR, "companion.console"):
            await do(pilot, "b")                                  # applied: the view only failed to draw
            await settle(pilot, lambda app: app.alerts)
        [(_, line, level)] = pilot.app.alerts
        assert level == "error" and line.startswith("drawing the staff view failed: KeyError: 'strange state' at ")
        assert [r.getMessage() for r in caplog.records] == [line]
        assert session.state.phase == "draw"
        await do(pilot, "d", "1 2 3", "enter")
        assert pilot.app.is_running

    drive(app, body, (160, 45))


def test_a_key_whose_action_raises_is_one_alert(tmp_path, monkeypatch):
    session, clock = game(tmp_path / "g.db", "ready")

    def broken_undo(self):
        raise IndexError("nothing there")
    monkeypatch.setattr(ConsoleApp, "action_undo", broken_undo)

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await pilot.press("u")
        await settle(pilot, lambda app: app.alerts)
        [(_, line, _)] = pilot.app.alerts
        assert line.startswith("the action undo failed: IndexError: nothing there at ")
        await do(pilot, "b")
        assert pilot.app.is_running

    drive(ConsoleApp(session, clock=clock.now), body, (160, 45))


def test_a_held_card_that_cannot_be_shown_is_one_alert(tmp_path, monkeypatch):
    session, clock = game(tmp_path / "g.db", "turn1_voting")
    held = session.submit({"do": "hold", "card": {"do": "vote", "serial": "V0301", "turn": 1, "marks": ["X"]},
                           "reason": "two marks"})
    assert held.status == "ok", held.reason

    def broken_crop(self, image, problem=""):
        raise ValueError("odd picture")
    monkeypatch.setattr(ConsoleApp, "show_crop", broken_crop)

    async def body(pilot):
        await settle(pilot, lambda app: app.alerts)
        [(_, line, _)] = pilot.app.alerts
        assert line.startswith("showing the held card's crop failed: ValueError: odd picture at test_failures.py:")
        assert "why held: two marks" in text_of(pilot.app)
        await do(pilot, "d", "4", "enter", expect="rejected")
        assert pilot.app.is_running

    drive(ConsoleApp(session, clock=clock.now), body, (160, 45))


def status_line(app) -> str:
    status = app.query_one("#status")
    return str(status.render()) if status.has_class("-shown") else ""


def public_of(session):
    public = views.public        # taken now: a test replaces views.public
    return lambda app: app.view == public(session.state)


DISPLAYS = {     # a display, a journal of its game, and two steps that change what the audience sees
    "bingo": (DisplayApp, lambda path: game(path, "ready")[0], lambda s: play(s, "turn1_voting"),
              lambda s: play(s, "turn1_counted")),
    "voters": (VotersDisplayApp, lambda path: screens_voters.night(path, "ready")[0],
               lambda s: screens_voters.play(s, "betting"), lambda s: screens_voters.play(s, "closed")),
    "bluff": (BluffDisplayApp, lambda path: screens_bluff.night(path, "ready")[0],
              lambda s: screens_bluff.play(s, "dice"), lambda s: screens_bluff.play(s, "declare")),
    "jail": (JailDisplayApp, lambda path: screens_jail.table(path, 1)[0],
             lambda s: [s.submit(c) for c in screens_jail.commands()[1:3]],
             lambda s: [s.submit(c) for c in screens_jail.commands()[3:]]),
}


@pytest.mark.parametrize("name", DISPLAYS)
def test_a_display_whose_drawing_raises_says_one_line_and_goes_on(tmp_path, caplog, monkeypatch, name):
    """Drawing a view raises: one line in the status line and the log, the display goes on and
    draws the next view whole."""
    display, start, first, second = DISPLAYS[name]
    session = start(tmp_path / "g.db")
    real, broken = display.show, {"on": False}

    def show(self, view, deadline=None):
        if broken["on"]:
            raise ZeroDivisionError("injected")
        real(self, view, deadline)
    monkeypatch.setattr(display, "show", show)

    async def body(pilot):
        app = pilot.app
        await settle(pilot, public_of(session))
        before = app.shown_batch
        broken["on"] = True
        with caplog.at_level(logging.ERROR, "companion.display"):
            first(session)
            await settle(pilot, lambda app: "failed" in status_line(app))
            await pilot.pause(0.3)
        line = status_line(app)
        assert line.startswith("drawing the audience view failed: ZeroDivisionError: injected at test_failures.py:")
        assert [r.getMessage() for r in caplog.records] == [line] and app.shown_batch == before   # once, for every batch
        broken["on"] = False
        second(session)
        await settle(pilot, public_of(session))
        assert status_line(app) == "" and app.is_running

    drive(display(tmp_path / "g.db", poll=0.02), body, (160, 45))


def test_a_view_that_raises_keeps_the_last_screen_and_says_one_line(tmp_path, caplog, monkeypatch):
    """Building the audience view raises on a state nobody foresaw: the display keeps the screen it
    had, says one line (once, though it polls on), and shows the next view that builds."""
    session, _ = game(tmp_path / "g.db", "ready")
    real, broken = views.public, {"on": False}
    monkeypatch.setattr(views, "public", lambda state: 1 / 0 if broken["on"] else real(state))

    async def body(pilot):
        app = pilot.app
        await settle(pilot, lambda app: app.view is not None)
        shown, ready = app.view, text_of(app)
        broken["on"] = True
        with caplog.at_level(logging.ERROR, "companion.display"):
            play(session, "turn1_voting")
            await settle(pilot, lambda app: "failed" in status_line(app))
            await pilot.pause(0.3)
        assert status_line(app).startswith("building the audience view failed: ZeroDivisionError: division by zero "
                                           "at test_failures.py:")
        assert [r.getMessage() for r in caplog.records] == [status_line(app)]
        assert app.view == shown and "Get ready" in text_of(app) and "Get ready" in ready
        broken["on"] = False
        play(session, "turn1_counted")
        await settle(pilot, lambda app: app.view != shown)
        assert app.view == real(session.state) and status_line(app) == ""

    drive(DisplayApp(tmp_path / "g.db", poll=0.02), body, (160, 45))


def test_calibration_a_frame_that_cannot_be_measured_is_one_line_and_the_camera_goes_on(rig, caplog, monkeypatch):
    real, broken = CalibrateApp.measure, {"on": True}

    def measure(self, *frame):
        if broken["on"]:
            raise ValueError("a frame nobody foresaw")
        return real(self, *frame)
    monkeypatch.setattr(CalibrateApp, "measure", measure)

    async def body(pilot):
        with caplog.at_level(logging.ERROR, "companion.calibrate"):
            await settle(pilot, lambda app: "failed" in text_of(app), timeout=20)
            await pilot.pause(1.0)                               # frames go on failing (4 a second)
        line = str(pilot.app.query_one("#outcome").render())
        assert line.startswith("measuring a frame failed: ValueError: a frame nobody foresaw at test_failures.py:")
        assert [r.getMessage() for r in caplog.records] == [line]       # said once
        broken["on"] = False
        await settle(pilot, lambda app: app.frames > 0, timeout=20)     # the camera thread went on
        assert pilot.app.is_running

    drive(CalibrateApp(rig), body, (150, 44))


def test_calibration_a_pane_or_key_that_raises_is_one_line_and_the_screen_goes_on(rig, caplog, monkeypatch):
    def broken_pane(self, reads):
        raise TypeError("odd read")

    def broken_key(self):
        raise RuntimeError("odd key")
    monkeypatch.setattr(CalibrateApp, "show_decoders", broken_pane)
    monkeypatch.setattr(CalibrateApp, "action_guided", broken_key)

    async def body(pilot):
        with caplog.at_level(logging.ERROR, "companion.calibrate"):
            await settle(pilot, lambda app: "failed" in text_of(app), timeout=20)
            await pilot.pause(1.0)
            outcome = str(pilot.app.query_one("#outcome").render())
            assert outcome.startswith("showing a frame failed: TypeError: odd read at test_failures.py:")
            await pilot.press("g")
            await settle(pilot, lambda app: "odd key" in text_of(app))
        assert [r.getMessage() for r in caplog.records] == [
            outcome, str(pilot.app.query_one("#outcome").render())]
        assert str(pilot.app.query_one("#outcome").render()).startswith(
            "the action guided failed: RuntimeError: odd key at test_failures.py:")
        assert pilot.app.frames > 0 and pilot.app.is_running

    drive(CalibrateApp(rig), body, (150, 44))


# ---- the page servers: a view or a request that raises is one logged line, never a traceback

@contextlib.contextmanager
def logged(caplog, name: str):
    """The records of one logger, whether or not it propagates (quiet_logging stops it)."""
    logger = logging.getLogger(name)
    propagate, logger.propagate = logger.propagate, True
    try:
        with caplog.at_level(logging.DEBUG):
            yield
    finally:
        logger.propagate = propagate


def tracebacks(caplog) -> list[str]:
    return [r.getMessage()[:200] for r in caplog.records if r.exc_info]


def test_the_page_server_keeps_its_last_view_when_a_view_raises(tmp_path, caplog, monkeypatch):
    session, _ = game(tmp_path / "g.db", "ready")
    real, broken = views.public, {"on": False}
    monkeypatch.setattr(views, "public", lambda state: 1 / 0 if broken["on"] else real(state))

    async def check():
        runner = web_server.app_runner(web_server.make_app(tmp_path / "g.db", poll=0.02))
        await runner.setup()
        port = free_port()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        try:
            async with aiohttp.ClientSession() as http:
                async def public() -> tuple[int, dict]:
                    async with http.get(f"http://127.0.0.1:{port}/public.json") as answer:
                        return answer.status, await answer.json()

                async def until(ready) -> tuple[int, dict]:
                    for _ in range(250):
                        answer = await public()
                        if ready(answer):
                            return answer
                        await asyncio.sleep(0.02)
                    raise AssertionError(f"never: {answer}")

                _, ready = await until(lambda answer: answer[0] == 200)
                broken["on"] = True
                play(session, "turn1_voting")
                await asyncio.sleep(0.5)                        # 25 polls of the journal
                assert await public() == (200, ready)           # the last view stays
                broken["on"] = False
                play(session, "turn1_counted")      # several batches: the server may show one between first
                final = real(session.state)
                assert (await until(lambda answer: answer[1] == final))[1] == final
        finally:
            await runner.cleanup()

    with logged(caplog, "companion.web"):
        asyncio.run(check())
    [said] = [r.getMessage() for r in caplog.records if r.name == "companion.web"]
    assert said.startswith("building the audience view failed: ZeroDivisionError: division by zero at test_failures.py:")
    assert not tracebacks(caplog)


def test_a_phone_page_that_raises_is_a_500_and_one_line_without_the_pass(tmp_path, caplog, monkeypatch):
    event, table = bluff_night(tmp_path)
    server = Server(event.journal, P.Phone.for_event(event, clock=Clock("20:00")))
    monkeypatch.setattr(P, "private_view", lambda state, no: {}["a key nobody foresaw"])
    token = P.token(event.id, event.secret, 1, 0)
    try:
        with logged(caplog, "companion.web"), logged(caplog, "aiohttp.server"):
            time.sleep(0.3)                                     # the follower has read the journal
            for _ in range(3):
                with urllib.request.urlopen(f"{server.url}/p/{token}/state.json", timeout=10) as answer:
                    raise AssertionError(f"answered {answer.status}")
    except urllib.error.HTTPError as error:
        assert error.code == 500, error.code
    finally:
        server.close()
        table.session.journal.close()
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1 and said[0].startswith("GET /p/{token}/state.json failed: KeyError: 'a key nobody foresaw' at ")
    assert token not in said[0] and not tracebacks(caplog)


def test_a_terminal_display_session_that_fails_is_one_line(tmp_path, caplog, monkeypatch):
    """`--terminal-serve`: a display process that cannot start is one line in the log, not a traceback."""
    async def failing_start(self, width, height):
        raise OSError("no processes left")
    monkeypatch.setattr(DisplaySession, "start", failing_start)

    async def check():
        port = free_port()
        server = DisplayServer(tmp_path / "g.db", "127.0.0.1", port)
        runner = web.AppRunner(await server._make_app())
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        try:
            async with aiohttp.ClientSession() as http:
                for _ in range(2):
                    async with http.ws_connect(f"http://127.0.0.1:{port}/ws") as socket:
                        await socket.receive(timeout=10)          # closed by the server
        finally:
            await runner.cleanup()

    with logged(caplog, "companion.serve"):
        asyncio.run(check())
    said = [r.getMessage() for r in caplog.records if r.name == "companion.serve"]
    assert len(said) == 1 and said[0].startswith("a display session failed: OSError: no processes left at ")
    assert not tracebacks(caplog)
