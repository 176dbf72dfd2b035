"""The words that present the companion say "the table games it hosts"; `companion --help` names
each game the registry finds, so a new game is named there with no shared file edited."""
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

import companion
from companion.cli import build_parser
from companion.core import games
from companion.core.games import GAMES, rules

ROOT = Path(__file__).resolve().parents[1]
TITLES = [rules(name).title for name in GAMES]


def package_description() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["description"]


GENERAL = {
    "pyproject.toml's description": package_description,
    "companion's docstring": lambda: companion.__doc__,
}


@pytest.mark.parametrize("where", GENERAL)
def test_the_package_s_words_say_the_games_it_hosts_and_name_none(where):
    flat = " ".join(GENERAL[where]().split())
    assert "the table games it hosts" in flat
    named = [title for name in GAMES for title in (rules(name).title, rules(name).title_ja) if title in flat]
    assert not named, f"{where} names {named}: a new game would have to edit it"


def test_help_names_every_game_the_registry_finds(monkeypatch):
    monkeypatch.setitem(games.discover(), "chess", replace(rules("jail"), name="chess", title="Chess", title_ja="チェス"))
    flat = " ".join(build_parser().format_help().split())       # --help wraps its lines
    assert "the table games it hosts: Plunder Bingo (強奪ビンゴ), Voters (ボーター), Auction Bluff (オークションブラフ), " \
           "the jail card game (ならず者の脱獄) and Chess (チェス)." in flat


def test_the_readme_s_title_names_every_game_or_none():
    title = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()[0]
    named = [game for game in TITLES if game in title]
    assert named in ([], TITLES), f"README's title {title!r} names {named} alone"
