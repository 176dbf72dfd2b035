"""The words that present the companion name every game it hosts, not Plunder Bingo alone."""
import tomllib
from pathlib import Path

import pytest

import companion
from companion.cli import build_parser
from companion.core.games import GAMES, rules

ROOT = Path(__file__).resolve().parents[1]
TITLES = [rules(name).title for name in GAMES]


def package_description() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["description"]


WORDS = {
    "pyproject.toml's description": package_description,
    "companion's docstring": lambda: companion.__doc__,
    "`companion --help`": lambda: build_parser().format_help(),
}


@pytest.mark.parametrize("where", WORDS)
def test_every_game_is_named(where):
    flat = " ".join(WORDS[where]().split())       # --help wraps its lines
    missing = [title for title in TITLES if title not in flat]
    assert not missing, f"{where} does not name {missing}"


def test_the_readme_s_title_names_every_game_or_none():
    title = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()[0]
    named = [game for game in TITLES if game in title]
    assert named in ([], TITLES), f"README's title {title!r} names {named} alone"
