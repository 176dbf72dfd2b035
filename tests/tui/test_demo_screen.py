"""The demo night on screen (test_demo.py's seed and turns): the demo console shows the night,
one key pauses and resumes the simulated players, each turn's line is logged as `companion demo
--headless` prints it, and ctrl+q quits once the players are done. (Apart from test_demo.py so that
the two files' nights run in parallel, one on each worker.)"""
from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from companion.core.words import languages, say
from tui.bingo.demo import Night, console_class

from screens_helpers import drive, settle, text_of
from test_demo import SEED, TURNS, set_up


@pytest.mark.slow
def test_on_screen_the_console_shows_the_night_and_one_key_pauses_the_players(tmp_path_factory, tmp_path):
    night = Night(set_up(tmp_path_factory, tmp_path), SEED, turns=TURNS, pace=0.1)
    app = console_class()(night, "http://127.0.0.1:8080")
    pending = night._pending

    async def body(pilot):
        await settle(pilot, lambda app: night.state.phase == "voting" and app.batches, timeout=120)
        assert "P  " + say("pause/resume demo players", languages()[0]) in text_of(pilot.app)   # the key bar's words
        await pilot.press("P")
        assert night.paused and "simulated players paused" in text_of(pilot.app)
        await pilot.pause(1.0)                                     # the command under way lands
        await settle(pilot, lambda app: not pending(), timeout=30)  # and the cards already dropped
        await pilot.pause(0.5)
        held = max(app.batches)
        await pilot.pause(1.5)
        assert max(app.batches) == held                            # nobody plays while paused
        await pilot.press("P")
        await settle(pilot, lambda app: max(app.batches) > held, timeout=60)
        await pilot.press("ctrl+q")                                 # the players leave before the screen

    try:
        drive(app, body, (160, 45))
    finally:
        night.stop()


@pytest.mark.slow
def test_resumed_after_the_staff_played_the_players_carry_on_from_where_the_staff_left(tmp_path_factory, tmp_path):
    """P, then the operator closes the voting themselves, then P: the players do not retry their
    stale close_voting (refused, and the players stopped); they end the turn and begin the next."""
    night = Night(set_up(tmp_path_factory, tmp_path), SEED, turns=TURNS, pace=0.1)
    app = console_class()(night, "http://127.0.0.1:8080")

    async def body(pilot):
        await settle(pilot, lambda app: night.state.phase == "voting" and app.batches, timeout=120)
        turn = night.state.turn
        await pilot.press("P")
        await pilot.pause(1.0)                                     # the command under way lands
        await settle(pilot, lambda app: not night._pending(), timeout=30)
        await pilot.press("t")                                     # the staff close the voting
        await settle(pilot, lambda app: night.state.phase == "resolve", timeout=30)
        await pilot.press("P")
        await settle(pilot, lambda app: night.state.turn == turn + 1, timeout=90)
        assert "demo players stopped" not in text_of(pilot.app)
        await pilot.press("ctrl+q")

    try:
        drive(app, body, (160, 45))
    finally:
        night.stop()


def test_the_audience_displays_address_stays_on_the_demo_console(tmp_path):
    """The message bar answers every key: the address is under the demo's turn log instead."""
    from test_small_terminal import TableOnly
    from screens_game import game
    session, _ = game(tmp_path / "d.db", "turn1_voting")
    app = console_class()(TableOnly(session), "http://127.0.0.1:8123")

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        assert "audience display http://127.0.0.1:8123" in text_of(pilot.app)
        await pilot.press("t")                                     # an answer in the message bar
        await settle(pilot, lambda app: app.handled)
        assert "✔ close_voting" in text_of(pilot.app)
        assert "audience display http://127.0.0.1:8123" in text_of(pilot.app)

    drive(app, body, (80, 24))


def test_on_a_terminal_the_demo_prints_the_displays_address_before_the_console_opens(tmp_path, capsys, monkeypatch):
    import types
    import tui.bingo.demo
    from companion.cli import main
    said_before = []
    night = types.SimpleNamespace(state=types.SimpleNamespace(turn=0, phase="ready"),
                                  event=types.SimpleNamespace(journal=tmp_path / "j.db"), stop=lambda: None)
    monkeypatch.setattr(tui.bingo.demo, "Night", lambda *args, **kwargs: night)
    monkeypatch.setattr(tui.bingo.demo, "run_on_screen", lambda night, port: said_before.append(capsys.readouterr().err))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["demo", "--folder", str(tmp_path), "--port", "8123"]) == 0
    assert len(said_before) == 1 and "audience display: http://127.0.0.1:8123" in said_before[0]


def headless_lines(folder: Path, turns: int) -> list[str]:
    """What `companion demo --headless` prints for the journal in folder."""
    lines: list[str] = []
    night = Night(folder, SEED, say=lines.append, turns=turns)
    night.tell()
    night.stop()
    return lines


async def quit_app(pilot) -> None:
    await pilot.press("ctrl+q")
    await settle(pilot, lambda app: app.return_code is not None)


def logged_on_screen(folder: Path) -> list[str]:
    """The demo console's log of lines once its players are done (the night played to its end),
    after ctrl+q, which must close the console within 5 s: the players' worker has finished, and
    Textual's wait_for_complete([]) would wait for every worker, the session's too, which never ends."""
    night = Night(folder, SEED, turns=1)
    app = console_class()(night)
    playing = lambda app: any(w.group == "demo players" for w in app.workers)      # noqa: E731

    async def body(pilot):
        await settle(pilot, lambda app: night.state.phase == "finished" and not playing(app), timeout=120)
        await settle(pilot, lambda app: "rank 6" in text_of(app))
        app.logged = [strip.text.rstrip() for strip in app.query_one("#turns").lines]
        try:
            await asyncio.wait_for(quit_app(pilot), 5)
        except TimeoutError:
            app.workers.cancel_all()      # ends the session's worker, or the app would never close
            pytest.fail("ctrl+q did not quit within 5 s of the players' end")

    try:
        drive(app, body, (200, 50))
    finally:
        night.stop()
    return app.logged


@pytest.mark.slow
def test_on_screen_each_turns_line_is_logged_and_ctrl_q_quits_once_the_players_are_done(tmp_path):
    played = logged_on_screen(tmp_path)
    resumed = logged_on_screen(tmp_path)          # the console opened again on the finished night
    told = headless_lines(tmp_path, 1)
    assert told[0].startswith("turn  1: X=") and len(told) == 1 + 1 + 6      # a turn, the final, the ranking
    assert played == told and resumed == told
