"""Auction Bluff's audience display: follows the journal read-only, shows views.public only: what
the rulebook announces (D8): the declarations as accepted, per period the judged declaration and the
win or elimination (AB2), gem ownership (AB1); at the end the true counts, the dice held (AB5) and
the results (AB6); never a die's face."""
from __future__ import annotations

import pytest

from companion import views
from tui.bluff.display import BluffDisplayApp, Gems, Periods

from screens_bluff import FACES1, NAMES, STEPS, night, play
from screens_helpers import (assert_display_speaks, assert_snapshot, drive, settle, speaking,  # noqa: F401
                             steady, text_of)


def caught_up(session):
    return lambda app: app.view == views.public(session.state)


def pane_text(app, pane) -> str:
    region = app.query_one(pane).region
    lines = text_of(app).splitlines()[region.y:region.bottom]
    return "\n".join(line[region.x:region.right] for line in lines)


def test_a_period_shows_only_once_judged_and_never_a_face_or_another_declaration(tmp_path, speaking):
    speaking("en")
    session, clock = night(tmp_path / "b.db", "ready")
    seen = {}

    async def body(pilot):
        for step in ("dice", "declare", "eliminated", "won"):
            play(session, step)
            await settle(pilot, caught_up(session))
            await pilot.pause(0.05)
            seen[step] = text_of(pilot.app), pane_text(pilot.app, Periods), pane_text(pilot.app, Gems)

    drive(BluffDisplayApp(tmp_path / "b.db", poll=0.02, clock=clock.now), body, (120, 34))
    for step in ("dice", "declare"):
        screen, periods, gems = seen[step]
        assert "Chen Wei" not in periods and "ELIMINATED" not in screen, step      # nothing judged yet
        assert not any(faces in screen for faces in FACES1.values()), f"{step}: a die's faces show"
        assert "5 ruby" not in gems, f"{step}: D8: holdings before the end"
    assert "6 × 4" not in seen["dice"][0]
    assert "Period 1: Declarations" in seen["declare"][0] and "Period 1: Dice vote" in seen["dice"][0]
    shown = seen["declare"][0]
    chen = next(line for line in shown.splitlines() if "Chen Wei: 9 × 5" in line)
    aki = next(line for line in shown.splitlines() if "Aki Tanaka: 6 × 4" in line)
    assert "▶" in chen and "▶" not in aki and "× ★" not in shown        # D8: every valid one, the leader marked
    screen, periods, gems = seen["eliminated"]
    assert "Chen Wei: ELIMINATED" in screen and "declared 9 × 5; is ELIMINATED" in screen
    assert "true count" not in screen and " 8 " not in periods                  # D8: not the true count
    assert "Chen Wei (out)" in gems and "6 × 4" not in screen
    screen, periods, gems = seen["won"]
    assert "Dana Smith: WIN" in screen and "every garnet die pays its holder" in screen
    assert [line.split()[0] for line in periods.splitlines()[1:3]] == ["1", "2"]
    assert "4 garnet" in gems and "+¥300,000,000" in gems and "+¥100,000,000" in gems     # Emi holds 4 garnets
    assert "true count 7" in screen or " 7 " in periods                          # at the end, everything
    assert gems.count("−¥100,000,000") == 4 and NAMES[5] in gems


@pytest.mark.parametrize("step, size", [("declare", (120, 34)), ("won", (120, 34)), ("won", (80, 24))])
def test_snapshot(tmp_path, step, size):
    session, clock = night(tmp_path / "b.db", step)

    async def body(pilot):
        await settle(pilot, caught_up(session))
        await steady(pilot)
        assert_snapshot(f"bluff/display-{step}-{size[0]}x{size[1]}", pilot.app)

    drive(BluffDisplayApp(tmp_path / "b.db", poll=0.02, clock=clock.now), body, size)


def test_the_screens_are_those_of_the_journals_game(tmp_path):
    from companion.cli.screens import game_of, screen_for
    from tui.bluff.console import BluffConsoleApp
    night(tmp_path / "b.db", "ready")
    assert [screen_for(screens, game_of(tmp_path / "b.db")) for screens in ("console", "display")] == \
        [BluffConsoleApp, BluffDisplayApp]


@pytest.mark.parametrize("language", ["ja", "en", "ja+en"])
def test_the_display_speaks_the_chosen_language_and_no_other(tmp_path, speaking, language):
    """Every word of Auction Bluff's display is in the catalogue of the chosen language."""
    speaking(language)
    session, clock = night(tmp_path / "b.db", "ready")
    assert_display_speaks(language, BluffDisplayApp(tmp_path / "b.db", poll=0.02, clock=clock.now), session,
                          list(STEPS)[1:], play, caught_up, said=("GEMS", "ELIMINATED", "garnet"))


@pytest.mark.parametrize("language", ["ja", "ja+en"])
def test_japanese_names_keep_the_columns_in_line(tmp_path, monkeypatch, speaking, language):
    """A name in Japanese takes two terminal columns a character: the gems table's results still
    start in one column, whatever the names and the language of the gems' names."""
    import screens_bluff
    from companion.core.columns import display_width
    speaking(language)
    japanese = {1: "田中 明子", 5: "佐藤エミ"}
    setup = screens_bluff.setup()
    setup["players"] = [{**p, "name": japanese.get(p["no"], p["name"])} for p in setup["players"]]
    monkeypatch.setitem(screens_bluff.STEPS, "ready", [setup])
    session, clock = night(tmp_path / "b.db", "won")
    shown = {}

    async def body(pilot):
        await settle(pilot, caught_up(session))
        await steady(pilot)
        shown["gems"] = pane_text(pilot.app, Gems)

    drive(BluffDisplayApp(tmp_path / "b.db", poll=0.02, clock=clock.now), body, (120, 34))
    rows = [line for line in shown["gems"].splitlines() if "¥" in line]
    assert len(rows) == 6 and any("田中 明子" in row for row in rows) and any("佐藤エミ" in row for row in rows)
    assert len({display_width(row[:row.index("¥")]) for row in rows}) == 1, rows
