"""The jail card game's audience display: follows the journal read-only and draws views.public
only: the rows, the jail with its progress towards both end conditions (J4), the displays, hand
sizes (never a hand) and scores (J5)."""
from __future__ import annotations

import pytest

from companion import views
from tui.jail.display import JailDisplayApp

from screens_helpers import (assert_display_speaks, assert_snapshot, drive, settle, speaking,  # noqa: F401
                             steady, text_of)
from screens_jail import commands, table


def caught_up(session):
    return lambda app: app.view == views.public(session.state)


def test_mid_round_rows_jail_progress_displays_and_hand_sizes(tmp_path, speaking):
    speaking("en")
    session, clock = table(tmp_path / "j.db", 20)               # Aki's G 2 has beaten Ben's G 1

    async def body(pilot):
        await settle(pilot, caught_up(session))
        await steady(pilot)
        screen = text_of(pilot.app)
        assert "ROUND 1 / 3" in screen and "Aki: Refill the row" in screen and "DECK 21" in screen
        assert "1   A A  F" in screen and "2   D D  E E E E E E  F F" in screen   # a space between groups
        assert " B  6    C  2    G  2" in screen                                  # the jail, by kind
        assert "6+ of 2 kinds ██████░░░░░░ 1/2" in screen and "2+ of 6 kinds ██████░░░░░░ 3/6" in screen
        aki, ben = ([line for line in screen.splitlines() if name in line][-1] for name in ("Aki", "Ben"))
        assert "▶ Aki" in aki and " 2  B×1 C×2 G×2 " in aki       # hand size 2, Aki's display
        assert " 3  E×2 " in ben and "G×1" not in ben              # Ben's G 1 was beaten (J3.3)
        assert_snapshot("jail/display-mid-round-120x34", pilot.app)

    drive(JailDisplayApp(tmp_path / "j.db", poll=0.02, clock=clock.now), body, (120, 34))


def test_the_round_scored_and_then_the_winner(tmp_path, speaking):
    speaking("en")
    session, clock = table(tmp_path / "j.db")

    async def body(pilot):
        await settle(pilot, caught_up(session))
        screen = text_of(pilot.app)
        assert "Round over" in screen and "Round 1: Aki 30, Ben 6" in screen
        assert "empty" in screen and "0/2" in screen                 # the jail emptied (D3)
        assert "WINNER" not in screen

    drive(JailDisplayApp(tmp_path / "j.db", poll=0.02, clock=clock.now), body, (120, 34))


def test_the_display_never_has_a_hand():
    assert len(commands()) > 20
    session, _ = table(":memory:")
    view = views.public(session.state)
    assert all("hand" not in p for p in view["players"]) and "deck" not in view and "discard" not in view


@pytest.mark.parametrize("language", ["ja", "en", "ja+en"])
def test_the_display_speaks_the_chosen_language_and_no_other(tmp_path, speaking, language):
    """Every word of the jail game's display is in the catalogue of the chosen language."""
    speaking(language)
    session, clock = table(tmp_path / "j.db", 1)                  # the table set up
    steps = [commands()[1:20], commands()[20:]]                   # mid-round, then the round scored

    def play(session, chunk):
        for command in chunk:
            session.submit(command)

    assert_display_speaks(language, JailDisplayApp(tmp_path / "j.db", poll=0.02, clock=clock.now), session, steps,
                          play, caught_up, said=("JAIL", "PLAYERS", "empty"))
