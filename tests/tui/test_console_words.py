"""The staff consoles' labels (keys, panes, columns) in the event's language: Japanese, English or
both, from the catalogue; the key bar wraps by terminal columns, a Japanese word taking two."""
from __future__ import annotations

import pytest
from textual.binding import Binding

from companion.core import words
from companion.core.columns import display_width
from tui.bluff.console import BluffConsoleApp
from tui.bingo.console import ConsoleApp
from tui.game_console import KeyBar
from tui.jail.console import JailConsoleApp
from tui.voters.console import VotersConsoleApp

import screens_bluff
import screens_game
import screens_jail
import screens_voters
from screens_helpers import drive, settle, speaking, text_of  # noqa: F401  (a fixture)

CONSOLES = {      # a console on a journal of its game, and a column, a pane's title and a heading it shows
    "bingo": (lambda path: screens_game.game(path, "ready"), ConsoleApp, "Balance", "Robbery and moves",
              "No robbery rights now"),
    "voters": (lambda path: screens_voters.night(path, "ready"), VotersConsoleApp, "Games dealt", "Ledger",
               "No game yet: d deals the first"),
    "bluff": (lambda path: screens_bluff.night(path, "ready"), BluffConsoleApp, "Dice held", "Judged",
              "No period judged yet"),
    "jail": (lambda path: screens_jail.table(path, 20), JailConsoleApp, "Shows", "Players (turn order)",
             "The round ends at"),
}


@pytest.mark.parametrize("language", ["ja", "en", "ja+en"])
@pytest.mark.parametrize("game", list(CONSOLES))
def test_a_console_labels_its_keys_panes_and_columns_in_the_chosen_language(tmp_path, speaking, game, language):
    speaking(language)
    journal, console, column, pane, heading = CONSOLES[game]
    session, clock = journal(tmp_path / "g.db")
    shown = {}

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        shown["screen"] = text_of(pilot.app)

    drive(console(session, clock=clock.now), body, (200, 50))
    for msgid in ("Journal", column, pane, heading):
        assert words.say(msgid, language) in shown["screen"], msgid
    for msgid in ("undo", "quit"):          # the key bar speaks the first language only (room for the panes)
        assert words.say(msgid, language.split("+")[0]) in shown["screen"], msgid
    if language == "ja":
        assert "undo" not in shown["screen"] and "Journal" not in shown["screen"]


def test_the_key_bar_wraps_japanese_by_terminal_columns(speaking):
    """Each line of the key bar fits its width in terminal columns: a Japanese word takes two a character."""
    speaking("ja+en")
    bar = KeyBar([Binding(key, "undo", "undo") for key in "abcdefghij"])
    for width in (30, 45, 80):
        lines = bar.keys_text(width).plain.splitlines()
        assert len(lines) > 1 and all(display_width(line) <= width for line in lines), (width, lines)


@pytest.mark.parametrize("language", ["ja+en", "en"])
def test_the_rehearsal_sees_the_consoles_first_screen_in_the_event_files_language(tmp_path, speaking, language):
    """`./dev rehearse` knows the console is up by its pane titles (hardware/rehearse.py)."""
    import runpy
    from pathlib import Path
    panes = runpy.run_path(str(Path(__file__).parents[2] / "hardware" / "rehearse.py"))["CONSOLE_PANES"]
    speaking(language)
    session, clock = screens_game.game(tmp_path / "g.db", "ready")
    shown = {}

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        shown["screen"] = text_of(pilot.app)

    drive(ConsoleApp(session, clock=clock.now), body, (160, 45))
    assert [pane for pane in panes if pane not in shown["screen"]] == []


def test_a_finding_s_message_is_clipped_by_terminal_columns_not_characters():
    """A held card's findings are cut to fit the review pane: a Japanese message takes two columns a
    character, so 160 characters of it would be 320 columns."""
    from companion.core.columns import clipped
    japanese = "線が 丸 に触れている：印か、はみ出た線か？" * 20
    cut = clipped(japanese, 40)
    assert display_width(cut) <= 40 and cut.endswith("…") and japanese.startswith(cut[:-1])
    assert clipped("a [b]\n [/]  c", 40) == "a [b] [/] c"           # one line, the text as sent
