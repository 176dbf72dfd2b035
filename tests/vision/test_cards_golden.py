"""The golden corpus (golden_cards.py): a few hundred printed cards of every kind, marking style and
tier, and what the scanner decided on each, kept in golden/cards.jsonl. Any change to a decision,
a reason, a field read or a score (rounded) fails here, listing what moved by class against the
simulator's truth (right→review, review→right, right→wrong: a silent error, other).
`UPDATE_GOLDEN=1 pytest tests/vision/test_cards_golden.py` writes the file again and prints the same list.
"""
import shutil

import pytest

import golden_cards as G

needs_poppler = pytest.mark.skipif(not shutil.which("pdftoppm"), reason="needs poppler-utils (pdftoppm)")


@pytest.mark.slow
@needs_poppler
def test_no_decision_reason_field_or_score_moves_on_the_golden_cards(capsys):
    old, new = G.read(), {r["card"]: r for r in G.run()}
    classes = G.moved(old, new)
    if G.update_asked():
        G.GOLDEN.parent.mkdir(exist_ok=True)
        G.GOLDEN.write_text(G.dump(list(new.values())), encoding="utf-8")
        with capsys.disabled():
            print(f"\n{G.GOLDEN.name} written: {len(new)} cards; " +
                  (f"what moved:\n{G.report(classes)}" if classes else "nothing moved"))
        return
    assert old, f"no golden file {G.GOLDEN}: make it with UPDATE_GOLDEN=1"
    assert not classes, f"the golden cards moved (UPDATE_GOLDEN=1 writes them again if meant):\n{G.report(classes)}"


def test_the_corpus_holds_every_kind_style_and_tier_and_its_truth_judges_a_move():
    cards = G.names()
    assert len(cards) == len({name for name, *_ in cards}) == 308
    kinds = {kind for _, _, kind, _, _ in cards}
    assert kinds == set(G.BINGO) | {"number", "bluff_dice", "bluff_declare"}
    for kind in kinds:
        assert {(tier, style) for _, _, k, tier, style in cards if k == kind} == \
            {(tier, style) for tier in ("clean", "hard") for style in range(len(G.C.STYLES))}
    right = {"card": "x", "expected": "counted", "truth": {"mark": ["X"]}, "decision": "counted", "reason": None,
             "fields": {"mark": ["X"]}, "scores": {"mark": {"X": 3.1}}}
    review = {**right, "decision": "review", "reason": "unclear mark"}
    wrong = {**right, "fields": {"mark": ["Y"]}}
    rescored = {**right, "scores": {"mark": {"X": 3.2}}}
    assert G.moved({"x": right}, {"x": review}) == {"right→review": ["x: decision \"counted\" → \"review\"; "
                                                                      "reason null → \"unclear mark\""]}
    assert list(G.moved({"x": review}, {"x": right})) == ["review→right"]
    assert list(G.moved({"x": right}, {"x": wrong})) == ["right→wrong"]
    assert list(G.moved({"x": right}, {"x": rescored})) == ["other"]
    assert G.moved({"x": right}, {"x": dict(right)}) == {}
    assert list(G.moved({}, {"x": right})) == ["absent→right"]


@needs_poppler
def test_a_golden_card_is_made_whole_where_no_cache_is_yet(tmp_path, monkeypatch):
    """A fresh machine has no cached corpus: the card is made, written with its truth, and read back
    as made (the path a warm cache never takes)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    name, game, kind, tier, style = G.names()[0]
    path = G.cached(name, game, kind, tier, style)
    assert path.is_relative_to(tmp_path)
    image, truth = G.C.load(path)
    assert truth == G.make(G.games()[game], kind, tier, style, name).truth and image.size
    assert G.cached(name, game, kind, tier, style) == path
