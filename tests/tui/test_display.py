"""The audience display: follows the journal read-only, shows views.public only."""
from __future__ import annotations

import hashlib
import re

import pytest

from companion import views
from companion.cli import main
from tui.bingo.display import DisplayApp
from tui.bingo.widgets import Ball

from screens_game import LETTERS, NAMES, ROBBERY_SERIALS, STEPS, game, play
from screens_helpers import (assert_display_speaks, assert_snapshot, drive, settle, speaking,  # noqa: F401
                             steady, text_of)


def caught_up(session):
    public = views.public   # taken now: the secrecy test replaces views.staff, not this
    return lambda app: app.view == public(session.state)


def test_follows_commits_made_by_another_writer(tmp_path):
    session, clock = game(tmp_path / "g.db", "ready")

    async def body(pilot):
        app = pilot.app
        await settle(pilot, lambda app: app.view is not None)
        assert app.view["phase"] == "ready"
        play(session, "turn1_voting")
        await settle(pilot, caught_up(session))
        assert app.query_one("#ball-2", Ball).has_class("-drawn")
        assert app.query_one("#ball-27", Ball).has_class("-machine")
        assert "Vote now!" in text_of(app)
        play(session, "turn1_counted")
        await settle(pilot, lambda app: app.view["phase"] == "resolve")
        assert all(app.query_one(f"#ball-{n}", Ball).has_class("-valid") for n in (1, 2, 3))
        assert "Valid: 1  2  3" in text_of(app)

    drive(DisplayApp(tmp_path / "g.db", poll=0.02, clock=clock.now), body)


def test_waits_for_a_journal_that_is_not_there_yet(tmp_path):
    path = tmp_path / "later.db"

    async def body(pilot):
        await settle(pilot, lambda app: "waiting for the journal" in text_of(app))
        game(path, "turn1_voting")
        await settle(pilot, lambda app: app.view is not None and app.view["turn"] == 1)
        assert "waiting for the journal" not in text_of(pilot.app)

    drive(DisplayApp(path, poll=0.02), body)


def test_never_writes_the_journal(tmp_path):
    path = tmp_path / "g.db"
    session, clock = game(path, "turn2_robbed")
    session.journal.close()          # closing checkpoints the WAL: all is in g.db now
    before = hashlib.sha256(path.read_bytes()).hexdigest()

    async def body(pilot):
        await settle(pilot, lambda app: app.view is not None)
        await pilot.pause(0.2)

    drive(DisplayApp(path, poll=0.02), body)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    wal = tmp_path / "g.db-wal"      # a WAL reader may create it, but writes no frame into it
    assert not wal.exists() or wal.stat().st_size == 0


def test_secrecy_no_name_beside_a_letter_and_no_robber_or_victim(tmp_path, monkeypatch):
    """R13: what the display shows, step by step through a game with robberies and a ranking."""
    def no_staff_view(state):
        raise AssertionError("the display asked for the staff view")
    monkeypatch.setattr(views, "staff", no_staff_view)
    session, clock = game(tmp_path / "g.db", "ready")
    names = set(NAMES.values()) | {part for name in NAMES.values() for part in name.split()}
    screens = {}

    async def body(pilot):
        for step in list(STEPS)[1:]:
            play(session, step)
            await settle(pilot, caught_up(session))
            await pilot.pause(0.05)
            screens[step] = text_of(pilot.app)

    drive(DisplayApp(tmp_path / "g.db", poll=0.02, clock=clock.now), body)
    assert "K" in screens["turn3_announced"] and "1,782,000" in screens["turn3_announced"], \
        "the test must see balances by letter, or it proves nothing"
    assert "Dana Smith" in screens["finished"], "the test must see the ranking, or it proves nothing"
    for step, text in screens.items():
        for serial in ROBBERY_SERIALS:
            assert serial not in text, f"{step}: robbery card {serial} shown"
        for line in text.splitlines():
            shown = [name for name in NAMES.values() if name in line]
            assert len(shown) <= 1, f"{step}: two players on one line: {line!r}"
            if step != "finished":
                assert not any(re.search(rf"\b{re.escape(n)}\b", line) for n in names), f"{step}: a name: {line!r}"
            if shown:
                letters = [letter for letter in LETTERS.values() if re.search(rf"(?<!\w){letter}(?!\w)", line)]
                assert not letters, f"{step}: name beside account letter {letters}: {line!r}"


@pytest.mark.parametrize("step, size", [("turn1_voting", (120, 34)), ("turn1_counted", (80, 24)),
                                        ("turn3_announced", (160, 45)), ("finished", (120, 34))])
def test_snapshot(tmp_path, step, size):
    session, clock = game(tmp_path / "g.db", step)

    async def body(pilot):
        await settle(pilot, caught_up(session))
        await steady(pilot)
        assert_snapshot(f"display-{step}-{size[0]}x{size[1]}", pilot.app)

    drive(DisplayApp(tmp_path / "g.db", poll=0.02, clock=clock.now), body, size)


def test_screenshot_command_writes_an_svg(tmp_path, capsys):
    game(tmp_path / "g.db", "turn1_voting")
    out = tmp_path / "d.svg"
    assert main(["screenshot", "display", "--journal", str(tmp_path / "g.db"), "--out", str(out), "--size", "100x30"]) == 0
    svg = out.read_text()
    assert svg.startswith("<svg") and "Vote" in svg
    assert main(["screenshot", "display", "--journal", str(tmp_path / "none.db"), "--out", str(out)]) == 1
    assert main(["screenshot", "display", "--journal", str(tmp_path / "g.db"), "--out", str(out), "--size", "big"]) == 2
    assert "WIDTHxHEIGHT" in capsys.readouterr().err


def test_a_served_display_whose_server_is_already_gone_ends_at_once(tmp_path, monkeypatch):
    """The server may die while its display is still starting: the display is told the
    server's pid, so it does not mistake whoever adopted it for its server."""
    from tui.game_display import SERVER_PID
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual_serve.web_driver:WebDriver")   # as textual-serve runs it
    monkeypatch.setenv(SERVER_PID, "999999999")                                   # no such process
    session, clock = game(tmp_path / "g.db", "turn1_voting")
    app = DisplayApp(tmp_path / "g.db", poll=0.02, clock=clock.now)

    async def body(pilot):
        await settle(pilot, lambda app: app._exit, timeout=5)

    drive(app, body, (80, 24))


def test_R2_the_ranking_marks_each_player_who_beat_the_secretariat_and_how_many_did():
    from textual.app import App
    from tui.bingo.widgets import Ranking

    class Shown(App):
        def compose(self):
            yield Ranking(id="ranking")

    ranking = [{"rank": 1, "name": "Aki", "final": 20_000, "beats_secretariat": True},
               {"rank": 2, "name": "Ben", "final": 0, "beats_secretariat": True},
               {"rank": 3, "name": "Chie", "final": -10_000, "beats_secretariat": False}]

    async def body(pilot):
        pilot.app.query_one(Ranking).show(ranking)
        await pilot.pause(0.05)
        text = text_of(pilot.app)
        lines = {name: next(line for line in text.splitlines() if name in line) for name in ("Aki", "Ben", "Chie")}
        assert "★" in lines["Aki"] and "★" in lines["Ben"] and "★" not in lines["Chie"]
        assert "beat the secretariat (no debt): 2 of 3" in text

    drive(Shown(), body, (80, 12))


@pytest.mark.parametrize("language", ["ja", "en", "ja+en"])
def test_the_display_speaks_the_chosen_language_and_no_other(tmp_path, speaking, language):
    """Every word of the display is in the catalogue of the chosen language."""
    speaking(language)
    session, clock = game(tmp_path / "g.db", "ready")
    assert_display_speaks(language, DisplayApp(tmp_path / "g.db", poll=0.02, clock=clock.now), session,
                          list(STEPS)[1:], play, caught_up, said=("Vote now!", "Rank"))   # the ranking last
