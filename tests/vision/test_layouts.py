"""Card layouts: one definition per kind, sane geometry, the code signed and verified."""
import json
import math
from dataclasses import replace

import pytest

from companion.cli import main
from vision import layouts as L
from vision.layouts import bingo


@pytest.mark.parametrize("kind", L.kinds())
def test_bubbles_sit_on_the_card_clear_of_markers_code_and_each_other(kind):
    layout = L.layout(kind)
    bubbles = [b for _, b in layout.bubbles()]
    qx, qy, qs = L.QR_BOX
    for b in bubbles:
        assert L.FRAME_INSET + 1 < b.x - b.r and b.x + b.r < L.CARD_W - L.FRAME_INSET - 1
        assert L.FRAME_INSET + 1 < b.y - b.r and b.y + b.r < L.CARD_H - L.FRAME_INSET - 1
        for m in L.markers():
            assert not (m.x - b.r < b.x < m.x + m.size + b.r and m.y - b.r < b.y < m.y + m.size + b.r), (b, m)
        assert not (qx - b.r < b.x < qx + qs + b.r and qy - b.r < b.y < qy + qs + b.r), b
        assert b.r >= 3.4, "big enough for a circled letter or a filled dot"
    for i, a in enumerate(bubbles):
        for b in bubbles[i + 1:]:
            assert math.hypot(a.x - b.x, a.y - b.y) >= a.r + b.r + 1.0, (a, b)


def test_fields_per_kind_match_the_rules():
    values = {k: {f.name: [b.value for b in f.bubbles] for f in L.layout(k).fields} for k in L.kinds()}
    assert values["vote"] == {"mark": ["X", "Y", "Z"]}
    assert values["robbery"]["ordinal"] == [str(n) for n in range(1, 9)]
    for role in ("robber", "victim"):       # player numbers 1-26 as two digit rows
        tens, units = bingo.digit_fields(role)
        assert values["robbery"][tens] == ["0", "1", "2"] and values["robbery"][units] == [str(n) for n in range(10)]
    assert bingo.MAX_PLAYERS >= 26
    assert values["inout"] == {"dir": ["IN", "OUT"], "ball": [str(n) for n in range(1, 28)]}
    assert values["change"] == {"cell": [str(n) for n in range(1, 10)], "number": [str(n) for n in range(1, 28)]}
    assert values["exclusion"] == {"ball": [str(n) for n in range(1, 28)]}
    assert values["bingo"] == {}
    assert values["number"] == {"number": [str(n) for n in range(10)]}      # Voters V1: one integer 0-9


def test_layout_command_prints_the_single_source(capsys):
    assert main(["layout", "robbery", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["size"] == {"width": L.CARD_W, "height": L.CARD_H} and data["units"] == "mm"
    assert [m["corner"] for m in data["markers"]] == ["top-left", "top-right", "bottom-right", "bottom-left"]
    ordinal = next(f for f in data["fields"] if f["name"] == "ordinal")
    first = L.layout("robbery").field("ordinal").bubbles[0]
    assert ordinal["bubbles"][0] == {"value": "1", "x": first.x, "y": first.y, "r": first.r}


def test_layout_command_names_an_unknown_kind(capsys):
    assert main(["layout", "ballot"]) == 2
    assert "unknown card kind 'ballot'" in capsys.readouterr().err


def test_code_round_trip_and_each_failure_has_its_own_reason():
    card = L.Card("vote", "night-1", "V0103", 1, 3)
    text = L.payload(card, "s3cret")
    assert L.verify(text, "night-1", "s3cret") == card
    with pytest.raises(L.CodeError) as forged:
        L.verify(L.payload(card, "guess"), "night-1", "s3cret")
    assert forged.value.reason == "forged"
    with pytest.raises(L.CodeError) as tampered:       # turn changed by hand, signature kept
        L.verify(text.replace("|3|1|", "|4|1|"), "night-1", "s3cret")
    assert tampered.value.reason == "forged"
    with pytest.raises(L.CodeError) as other:
        L.verify(L.payload(L.Card("vote", "night-2", "V0103", 1, 3), "other"), "night-1", "s3cret")
    assert other.value.reason == "other event"
    with pytest.raises(L.CodeError) as junk:
        L.verify("https://example.com", "night-1", "s3cret")
    assert junk.value.reason == "unreadable"
    assert junk.value.detail == "the code 'https://example.com' is not a table companion card code"   # every game's


def test_every_kind_s_serial_comes_from_its_declared_format(monkeypatch):
    """No kind has a branch of its own in serial(): a new kind is a Kind its game declares."""
    assert [L.serial(kind, 7, 3, "ruby") for kind in L.kinds()] == \
        ["V0703", "R0703", "I07003", "C07003", "E07003", "B07", "N0703", "D0703ruby", "A0703"]
    chess = L.Kind(replace(L.layout("vote"), kind="chess"), "Q", "{code}{owner:02d}{number:04d}")
    monkeypatch.setitem(L.declared(), "chess", (chess,))
    assert L.serial("chess", 3, 12) == "Q030012"
    assert L.Card("bluff_dice", "e", L.serial("bluff_dice", 7, 3, "ruby"), 7, 3).values()["gem"] == "ruby"


def test_serials_are_unique_per_player_and_kind():
    serials = [L.serial("vote", p, t) for p in range(1, 13) for t in range(1, 16)]
    serials += [L.serial("robbery", p, k) for p in range(1, 13) for k in range(1, 9)]
    serials += [L.serial(k, p, n) for k in ("inout", "change", "exclusion") for p in range(1, 13) for n in range(1, 30)]
    serials += [L.serial("bingo", p, 0) for p in range(1, 13)]
    serials += [L.serial("number", p, g) for p in range(1, 100) for g in range(1, 100)]
    assert len(serials) == len(set(serials))
    assert L.serial("vote", 1, 1) == "V0101" and L.serial("number", 1, 3) == "N0103"


def test_a_number_card_prints_its_player_and_game_and_its_code_names_them():
    card = L.Card("number", "voters-1", L.serial("number", 7, 12), 7, 12, "Aki")
    texts = [i.text for i in L.items(card) if isinstance(i, L.Text)]
    assert {"第 12 ゲーム · Game 12", "プレイヤー 7 · Player 7", "N0712"} <= set(texts)
    assert L.verify(L.payload(card, "s"), "voters-1", "s") == L.Card("number", "voters-1", "N0712", 7, 12)
