"""Auction Bluff's dealer console under Pilot: every action is a key (period, dice vote,
transfer, close, declare, cancel, judge), and lands in the journal as a command."""
from __future__ import annotations

import pytest

from tui.bluff.console import BluffConsoleApp, faces

from screens_bluff import night
from screens_helpers import drive, settle, text_of, english, speaking  # noqa: F401  (fixtures)
from test_console import do, last_command

pytestmark = pytest.mark.usefixtures("english")     # the tests read the consoles' English


def console_on(tmp_path, upto):
    session, clock = night(tmp_path / "b.db", upto)
    return session, BluffConsoleApp(session, clock=clock.now)


def test_typed_faces_per_gem_the_players_own_gem_unnamed():
    assert faces("1123*", "ruby") == {"ruby": ["1", "1", "2", "3", "★"]}
    assert faces("ruby 11 23s sapphire ★5", None) == {"ruby": ["1", "1", "2", "3", "★"], "sapphire": ["★", "5"]}


@pytest.mark.slow
def test_a_period_from_the_keyboard(tmp_path):
    """AB2 period, dice vote, close, declare, judge; AB5 a transfer; D6 a cancellation needs every
    consent; a rejected key says why in the bar."""
    session, app = console_on(tmp_path, "ready")

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await do(pilot, "j", expect="rejected")                                  # no period yet
        assert "✖ judge rejected: not now: no period is open" in text_of(pilot.app)
        await do(pilot, "p")
        await do(pilot, "t", "enter", "2", "enter", "enter", "2", "enter")        # 2 rubies from Aki to Bruno
        assert last_command(session) == {"do": "transfer", "from": 1, "to": 2, "gem": "ruby", "count": 2}
        assert "Transfer: 2 ruby Aki Tanaka → Bruno Diaz" in text_of(pilot.app)
        await do(pilot, "f", "enter", "", "enter", expect="rejected")             # no faces
        assert "player 1 holds 3 ruby" in text_of(pilot.app)
        await pilot.press("escape")
        await do(pilot, "f", "enter", "555", "enter")                             # "ruby " is pre-filled
        assert session.state.period.votes[1] == {"ruby": ["5", "5", "5"]}
        await pilot.press("down")
        await do(pilot, "f", "enter", "sapphire ★5ss2 ruby s5", "enter")         # two gems: none pre-filled
        assert session.state.period.votes[2] == {"sapphire": ["★", "5", "★", "★", "2"], "ruby": ["★", "5"]}
        assert "sapphire ★5★★2 ruby ★5" in text_of(pilot.app)                   # the dealer sees every vote
        assert "dice player=2 faces=sapphire:★5★★2 ruby:★5" in text_of(pilot.app)   # its journal row
        await do(pilot, "c")
        await do(pilot, "d", "enter", "5", "enter", "8", "enter")                # Bruno: 8 fives
        await pilot.press("up")
        await do(pilot, "d", "enter", "2", "enter", "3", "enter")
        assert "8 × 5" in text_of(pilot.app) and "Declarations (2 valid)" in text_of(pilot.app)
        await do(pilot, "x", "enter", "ctrl+u", "1 2 3 4 5", "enter", expect="rejected")   # all but Fumi
        assert "missing: 6 (D6)" in text_of(pilot.app)
        await pilot.press("escape")
        await do(pilot, "x", "enter", "enter")                                   # every player consents
        assert [d.player for d in session.state.period.declarations] == [2]
        await do(pilot, "j")
        period = session.state.periods[-1]
        assert (period.true_count, period.result, session.state.winner) == (3 + 6, "won", 2)   # ★ wild
        screen = text_of(pilot.app)
        assert "Bruno Diaz declared 8 × 5; true count 9: WINS" in screen and "every sapphire die pays" in screen
        assert "+¥500,000,000" in screen

    drive(app, body, (160, 45))


def test_undo_asks_then_takes_the_judgement_back(tmp_path):
    session, app = console_on(tmp_path, "eliminated")

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        assert "Chen Wei declared 9 × 5; true count 8: is ELIMINATED" in text_of(pilot.app)
        await pilot.press("u")
        assert "Take back command" in text_of(pilot.app) and "judge" in text_of(pilot.app)
        await do(pilot, "y")
        assert session.state.phase == "declare" and not session.state.players[3].eliminated

    drive(app, body, (160, 45))


def test_a_held_dice_card_ruled_with_its_faces(tmp_path):
    """A dice-vote card the scanner was unsure of waits in the review queue; h rules it as typed."""
    session, app = console_on(tmp_path, "dice")
    session.submit({"do": "hold", "card": {"do": "dice", "player": 4, "faces": {"garnet": ["1", "2", "3", "4"]},
                                           "serial": "D0401"}, "reason": "die 5: 2 faces"})

    async def body(pilot):
        await settle(pilot, lambda app: app.ready and app.held)
        assert "D0401" in text_of(pilot.app) and "die 5: 2 faces" in text_of(pilot.app)
        await pilot.press("h")
        field = pilot.app.screen.query_one("#field-faces")
        assert field.value == "garnet 1234"                 # the faces read; the operator adds the fifth
        await pilot.press("enter", "end", "s")                    # s: ★
        await do(pilot, "enter")
        assert session.state.period.votes[4] == {"garnet": ["1", "2", "3", "4", "★"]} and not session.state.held
        assert "Nothing waiting for review" in text_of(pilot.app)

    drive(app, body, (160, 45))
