"""The jail card game's staff console under Pilot: each move a key and a short answer, journaled
as the script's command; an illegal move shows the rules' reason and changes nothing."""
from __future__ import annotations

import pytest

from tui.jail.console import JailConsoleApp

from screens_helpers import drive, settle, text_of, english, speaking  # noqa: F401  (fixtures)
from screens_jail import table
from test_console import do, last_command

pytestmark = pytest.mark.usefixtures("english")     # the tests read the consoles' English


def console_on(tmp_path, upto):
    session, clock = table(tmp_path / "j.db", upto)
    return session, JailConsoleApp(session, clock=clock.now)


def test_a_turn_from_the_keyboard(tmp_path):
    """J3: t 3l takes from row 3's left end, p C2 plays two C, f A refills; the turn passes."""
    session, app = console_on(tmp_path, 3)                       # set up, laid out, dealt

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        assert "ROUND 1" in text_of(pilot.app) and "Aki: Take a group".upper() in text_of(pilot.app)
        await do(pilot, "t", "3l", "enter")
        assert last_command(session) == {"do": "take", "player": 1, "row": 3, "end": "left"}
        await do(pilot, "p", "C2", "enter")
        assert last_command(session) == {"do": "play", "player": 1, "kind": "C", "count": 2}
        await do(pilot, "f", "A", "enter")
        assert last_command(session) == {"do": "refill", "player": 1, "kind": "A"}
        assert session.state.turn_player == 2 and "BEN: TAKE A GROUP" in text_of(pilot.app)

    drive(app, body, (120, 36))


def test_an_illegal_move_shows_its_reason_and_changes_nothing(tmp_path):
    session, app = console_on(tmp_path, 8)                       # Ben has taken; Aki shows C 2

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        before = session.state
        await do(pilot, "p", "C1", "enter", expect="rejected")
        assert "✖ play rejected: 2 C are shown already: play more than 2 (J3.3, D8)" in text_of(pilot.app)
        assert session.state == before
        await do(pilot, "t", "2l", "enter", expect="rejected")
        assert "after the take: play a group or refill" in text_of(pilot.app)

    drive(app, body, (120, 36))


def test_a_badly_typed_move_is_a_line_in_the_form(tmp_path):
    session, app = console_on(tmp_path, 3)

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await pilot.press("t", "4", "x", "enter")
        await pilot.pause(0.1)
        assert "'4x': a row 1-3 and an end, l or r: e.g. 2l" in text_of(pilot.app)
        await pilot.press("escape")
        assert session.journal.count() == 3

    drive(app, body, (120, 36))


def test_lay_out_deal_and_undo(tmp_path):
    session, app = console_on(tmp_path, 1)                       # only the setup

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await do(pilot, "l", "AABBBBBBCC", "enter", "DDEEEEEEFF", "enter", "GCGCGCGCGF", "enter")
        assert session.state.rows[1] == list("DDEEEEEEFF") and session.state.phase == "deal"
        await do(pilot, "d", "BCC", "enter", "EECG", "enter")
        assert last_command(session) == {"do": "deal", "hands": {"1": list("BCC"), "2": list("EECG")}}
        await pilot.press("u")
        await do(pilot, "y")
        assert session.state.phase == "deal"

    drive(app, body, (120, 36))
