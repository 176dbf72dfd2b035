"""Voters' dealer console under Pilot: every action is a key, and lands in the journal as a command."""
from __future__ import annotations

import pytest

from tui.voters.console import VotersConsoleApp

from screens_helpers import drive, settle, text_of, english, speaking  # noqa: F401  (fixtures)
from screens_voters import night
from test_console import do, last_command

pytestmark = pytest.mark.usefixtures("english")     # the tests read the consoles' English


def console_on(tmp_path, upto):
    session, clock = night(tmp_path / "v.db", upto)
    return session, VotersConsoleApp(session, clock=clock.now)


@pytest.mark.slow
def test_a_game_from_the_keyboard(tmp_path):
    """V2 deal, bet, close, open; V7 a blank number is an invalid card; a rejected key says why."""
    session, app = console_on(tmp_path, "ready")

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await do(pilot, "o", expect="rejected")                       # nothing dealt yet
        assert session.state.phase == "ready" and "✖ open rejected:" in text_of(pilot.app)
        await do(pilot, "d", "enter", "1000", "enter")                # dealer: the selected row (player 1)
        assert last_command(session)["do"] == "deal" and session.state.game.dealer == 1
        await do(pilot, "b", "enter", "4", "enter", "enter", expect="rejected")   # player 1 deals
        assert "✖ bet rejected:" in text_of(pilot.app)
        await pilot.press("down")                                     # player 2
        await do(pilot, "b", "enter", "4", "enter", "enter")
        await pilot.press("down")
        await do(pilot, "b", "enter", "enter", "enter", expect="invalid")         # blank: unreadable card
        await pilot.press("down")
        await do(pilot, "b", "enter", "0", "enter", "enter")
        assert session.state.game.bets == {2: 4, 3: None, 4: 0}
        assert "invalid card" in text_of(pilot.app)                   # the staff see every number
        await do(pilot, "c")
        await do(pilot, "o")
        game = session.state.game
        assert (game.result, game.winner, game.number) == ("won", 4, 0)
        assert "wins with 0: takes 3,000" in text_of(pilot.app) and "+2,000" in text_of(pilot.app)
        await do(pilot, "d", "enter", "enter")                        # the stake: the last game's
        assert (session.state.game.no, session.state.game.stake) == (2, 1000)

    drive(app, body, (120, 36))


def test_undo_asks_then_takes_the_open_back(tmp_path):
    session, app = console_on(tmp_path, "won")

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await pilot.press("u")
        assert "Take back command" in text_of(pilot.app) and "open" in text_of(pilot.app)
        await do(pilot, "y")
        assert session.state.phase == "closed" and session.state.game.result is None

    drive(app, body, (120, 36))


def test_a_held_number_card_ruled_as_a_digit(tmp_path):
    """A scanned card the scanner was unsure of waits in the review queue; h then the digit rules it."""
    session, app = console_on(tmp_path, "betting")
    session.submit({"do": "hold", "card": {"do": "bet", "player": 4, "number": None, "serial": "N0401"},
                    "reason": "two bubbles half filled"})

    async def body(pilot):
        await settle(pilot, lambda app: app.ready and app.held)
        assert "N0401" in text_of(pilot.app) and "two bubbles half filled" in text_of(pilot.app)
        await do(pilot, "h", "12", "enter", expect="rejected")         # the rules' range, said in the bar
        await do(pilot, "h", "7", "enter")
        assert session.state.game.bets[4] == 7 and not session.state.held
        assert "Nothing waiting for review" in text_of(pilot.app)

    drive(app, body, (120, 36))
