"""Each game declares its own screens (companion/core/games.py, Screens): the CLI opens what the
journal's game names, and no list of games' screens is kept anywhere else."""
from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App

from companion.core import games

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", list(games.GAMES))
def test_every_game_declares_a_console_and_a_display_that_load(name):
    screens = games.rules(name).screens
    assert screens is not None
    for which in ("console", "display"):
        assert issubclass(screens.load(which), App)
        assert getattr(screens, which).startswith(f"tui.{name}.")     # each game's screens in its own folder
    assert screens.balls == (name == "bingo")          # only Plunder Bingo draws balls


def test_the_cli_names_no_game_s_screen_itself():
    cli = (ROOT / "companion" / "cli" / "screens.py").read_text(encoding="utf-8")
    for name in games.GAMES:
        assert f'"{name}"' not in cli and f"'{name}'" not in cli
    assert "tui.bingo" not in cli and "ConsoleApp" not in cli
