"""Voters' audience display: follows the journal read-only, shows views.public only; no number
before the open (V2), every number with the unique ones at the open (V3), DOBON (V4)."""
from __future__ import annotations

import pytest

from companion import views
from tui.voters.display import Bets, VotersDisplayApp

from screens_helpers import (assert_display_speaks, assert_snapshot, drive, settle, speaking,  # noqa: F401
                             steady, text_of)
from screens_voters import NAMES, STEPS, night, play

BIG_DIGIT_STROKES = set("┏┓┗┛┃━╺╸╻╹┣┫╶╮╰╯│┌┐└┘─╭╴┴")    # what Textual's big digits are drawn with


def caught_up(session):
    return lambda app: app.view == views.public(session.state)


def bets_text(app) -> str:
    """The text of the bets pane alone (the pot, the stake and the ledger have digits of their own)."""
    region = app.query_one(Bets).region
    lines = text_of(app).splitlines()[region.y:region.bottom]
    return "\n".join(line[region.x:region.right] for line in lines)


def test_before_the_open_no_number_shows_then_the_open_shows_every_number(tmp_path):
    """V2: while betting and after the close the audience sees who has bet, never a number;
    V3: at the open every number, the lowest unique one's player the winner."""
    session, clock = night(tmp_path / "v.db", "ready")
    seen = {}

    async def body(pilot):
        for step in ("betting", "closed", "won"):
            play(session, step)
            await settle(pilot, caught_up(session))
            await pilot.pause(0.05)
            seen[step] = bets_text(pilot.app), text_of(pilot.app)

    drive(VotersDisplayApp(tmp_path / "v.db", poll=0.02, clock=clock.now), body)
    for step in ("betting", "closed"):
        pane, screen = seen[step]
        assert "✔ Aki Tanaka" in pane and "Fumi Ito" not in pane, step      # the dealer does not bet
        assert not set(pane) & (set("0123456789") | BIG_DIGIT_STROKES), f"{step}: a number shows:\n{pane}"
    assert "✔ Dana Smith" in seen["closed"][0] and "· Dana Smith" in seen["betting"][0]
    pane, screen = seen["won"]
    assert set(pane) & BIG_DIGIT_STROKES, "the open shows the numbers (or the test above proves nothing)"
    assert pane.count("unique") == 2 and pane.count("duplicated") == 2 and "WINNER" in pane   # 0 (won), 2, 3; 1 twice
    assert f"{NAMES[4]} WINS" in screen and "takes 5,000" in screen
    assert "+4,000" in screen and screen.count("−1,000") == 4                # the ledger (V5, V8)


def test_dobon_in_big_type_and_the_invalid_card(tmp_path):
    session, clock = night(tmp_path / "v.db", "dobon")

    async def body(pilot):
        await settle(pilot, caught_up(session))
        screen = text_of(pilot.app)
        assert "█   █  █   █  ████   █   █  █ █ █" in screen                  # D O B O N, row 3
        assert "the dealer Aki Tanaka takes 2,500" in screen and "invalid card" in bets_text(pilot.app)

    drive(VotersDisplayApp(tmp_path / "v.db", poll=0.02, clock=clock.now), body)


@pytest.mark.parametrize("step, size", [("betting", (120, 34)), ("won", (120, 34)), ("dobon", (80, 24))])
def test_snapshot(tmp_path, step, size):
    session, clock = night(tmp_path / "v.db", step)

    async def body(pilot):
        await settle(pilot, caught_up(session))
        await steady(pilot)
        assert_snapshot(f"voters/display-{step}-{size[0]}x{size[1]}", pilot.app)

    drive(VotersDisplayApp(tmp_path / "v.db", poll=0.02, clock=clock.now), body, size)


def test_the_screens_are_those_of_the_journals_game(tmp_path):
    from companion.cli.screens import game_of, screen_for
    from screens_game import game
    from tui.bingo.console import ConsoleApp
    from tui.bingo.display import DisplayApp
    from tui.voters.console import VotersConsoleApp
    night(tmp_path / "v.db", "ready")
    game(tmp_path / "b.db", "ready")
    assert [screen_for(screens, game_of(tmp_path / "v.db")) for screens in ("console", "display")] == \
        [VotersConsoleApp, VotersDisplayApp]
    assert [screen_for(screens, game_of(tmp_path / "b.db")) for screens in ("console", "display")] == \
        [ConsoleApp, DisplayApp]
    assert game_of(tmp_path / "not-yet.db") == "bingo"        # a display may wait for its journal


def test_a_display_that_finds_another_game_hands_over_to_it(tmp_path):
    """`companion display` may start before the journal exists (Plunder Bingo's display, the
    default): when a Voters night is set up in it, that display ends naming the game."""
    from tui.bingo.display import DisplayApp
    path = tmp_path / "later.db"
    app = DisplayApp(path, poll=0.02)

    async def body(pilot):
        await settle(pilot, lambda app: "waiting for the journal" in text_of(app))
        night(path, "ready")
        await settle(pilot, lambda app: app._exit, timeout=5)

    drive(app, body)
    assert app.return_value == "voters"


@pytest.mark.parametrize("language", ["ja", "en", "ja+en"])
def test_the_display_speaks_the_chosen_language_and_no_other(tmp_path, speaking, language):
    """Every word of Voters' display is in the catalogue of the chosen language."""
    speaking(language)
    session, clock = night(tmp_path / "v.db", "ready")
    assert_display_speaks(language, VotersDisplayApp(tmp_path / "v.db", poll=0.02, clock=clock.now), session,
                          list(STEPS)[1:], play, caught_up, said=("WINNER",))
