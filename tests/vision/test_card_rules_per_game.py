"""Each game that prints cards says, in its own package (companion/<game>/cards.py), what its cards'
marks mean: which readings its rules make invalid or leave to a person (R6, V7, AB7, D2) and the
referee command a card becomes. The scanner (vision/cards) holds no game's rule: it asks the game."""
from __future__ import annotations

from pathlib import Path

import pytest

from companion.core import games
from companion.core.cards import CardRead
from vision import layouts as L
from vision.cards import decide as D
from vision.cards.reasons import Code

CARDS = Path(D.__file__).parent


def test_every_printed_kind_belongs_to_one_game_that_reads_it():
    for kind in L.kinds():
        owners = [name for name in games.GAMES if kind in L.kinds_of(name)]
        assert len(owners) == 1, kind
        if kind != "bingo":                    # the bingo card is printed, never scanned
            assert L.game_of(kind).card_rules is not None


@pytest.mark.parametrize("kind, fields, codes", [
    ("vote", {"mark": ["X"]}, []),
    ("vote", {"mark": []}, [Code.BLANK_VOTE]),                                 # R6
    ("vote", {"mark": ["X", "Z"]}, [Code.TWO_MARKS]),                           # R6, D18
    ("number", {"number": ["3", "4", "5"]}, [Code.MANY_NUMBERS]),               # V7
    ("bluff_dice", {"die1": [], "die2": []}, [Code.NO_FACE]),                   # AB7
    ("bluff_dice", {"die1": ["2"], "die2": []}, []),                            # AB7: a die not held stays blank
    ("robbery", {"robber_tens": ["0"], "robber_units": []}, [Code.FIELDS_NOT_ONE]),   # D2
])
def test_the_game_s_rule_on_the_marks_read_is_the_finding(kind, fields, codes):
    assert [f.code for f in D.rules(kind, fields)] == codes


def test_a_read_card_becomes_its_game_s_command():
    dice = L.Card("bluff_dice", "e", L.serial("bluff_dice", 3, 2, "ruby"), 3, 2)
    assert D.command_for(dice, {"die1": ["4"], "die2": [], "die3": ["6", "1"]}) == \
        {"do": "dice", "player": 3, "faces": {"ruby": ["4"]}, "serial": dice.serial}
    robbery = L.Card("robbery", "e", L.serial("robbery", 2, 1), 2)
    fields = {"robber_tens": ["0"], "robber_units": ["2"], "victim_tens": ["1"], "victim_units": [],
              "ordinal": ["1"]}
    assert D.command_for(robbery, fields) == {"do": "rob", "serial": robbery.serial, "robber": 2, "victim": None,
                                              "ordinal": 1}
    assert CardRead("number", {"number": ["7"]}, owner=4).number("number") == 7


def test_no_rule_of_a_game_is_written_in_the_scanner():
    source = "\n".join(path.read_text(encoding="utf-8") for path in CARDS.glob("*.py"))
    for command in ('"do": "vote"', '"do": "bet"', '"do": "dice"', '"do": "rob"', '"do": "declare"'):
        assert command not in source
    assert 'fields["mark"]' not in source and 'fields["number"]' not in source
