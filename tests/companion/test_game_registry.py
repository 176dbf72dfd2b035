"""ARCHITECTURE.md law 10: a game registers itself once, in its own package. The games are found
(companion.core.games.GAMES: every subpackage of companion defining GAME), so a fifth game is a new
package and touches no shared file."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import companion
from companion.cli import build_parser, main
from companion.core import event_file, games

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FIFTH = '''
from copy import copy
from dataclasses import replace

from companion.jail import GAME as JAIL

schema = copy(JAIL.schema)          # the jail card game's rules under another name
schema.enums = {**schema.enums, ("Setup", "game"): ("chess",)}
GAME = replace(JAIL, name="chess", title="Chess", schema=schema, order=4)
'''


@pytest.fixture
def fifth_game(tmp_path, monkeypatch):
    """A game package "chess" in a folder of its own, added to companion's path: no shared file edited."""
    (tmp_path / "chess").mkdir()
    (tmp_path / "chess" / "__init__.py").write_text(FIFTH, encoding="utf-8")
    monkeypatch.setattr(companion, "__path__", [*companion.__path__, str(tmp_path)])
    games.discover.cache_clear()
    yield games.rules("chess")
    sys.modules.pop("companion.chess", None)
    games.discover.cache_clear()


def test_the_games_are_found_in_their_order():
    assert list(games.GAMES) == ["bingo", "voters", "bluff", "jail"]
    assert games.DEFAULT in games.GAMES
    assert all(games.GAMES[name].name == name for name in games.GAMES)


def test_a_fifth_game_package_is_listed_and_chosen_like_the_others(fifth_game, tmp_path, capsys):
    assert list(games.GAMES) == ["bingo", "voters", "bluff", "jail", "chess"]
    assert fifth_game.title == "Chess" and games.of_setup({"do": "setup", "game": "chess"}) is fifth_game
    assert event_file.fault("event", "game", "chess") is None
    init = build_parser()._subparsers._group_actions[0].choices["init"]
    assert "{bingo,voters,bluff,jail,chess}" in init.format_help()
    with pytest.raises(games.Malformed, match="games: bingo, voters, bluff, jail, chess$"):
        games.rules("go")
    setup, *rest = EXAMPLES.joinpath("jail-round.jsonl").read_text(encoding="utf-8").splitlines()
    script = tmp_path / "chess.jsonl"
    script.write_text("\n".join([json.dumps({**json.loads(setup), "game": "chess"}), *rest]), encoding="utf-8")
    assert main(["replay", "--json", str(script)]) == 0
    assert json.loads(capsys.readouterr().out)["players"]


def test_without_the_package_the_fifth_game_is_unknown(capsys):
    assert "chess" not in games.GAMES
    assert event_file.fault("event", "game", "chess") == \
        "[event] game must be one of 'bingo', 'voters', 'bluff', 'jail', not 'chess'"
