"""One failure boundary: an exception nobody expected — in a game's rules (decide, or the fold
of its events), in a listener of the session, in a worker — is one alert line on screen and in
the log, and the console goes on. The command that raised is not applied (the journal is as it
was); a listener that fails after its command was journaled is a warning on that command."""
from __future__ import annotations

import dataclasses
import logging

import pytest

from tui.console import ConsoleApp

from screens_game import game
from screens_helpers import drive, settle, text_of
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
