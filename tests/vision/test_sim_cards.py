"""The card test world (vision.sim): printed cards cut from the rasterised PDF, marks as people
make them, photos, and the bench's verdict."""
import math
import shutil
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from vision import layouts as L
from vision.layouts import bingo
from vision.sim import card_bench as B, card_deck as D, cards as C, shadow_cards as S

pytestmark = pytest.mark.skipif(not shutil.which("pdftoppm"), reason="needs poppler-utils (pdftoppm)")
cv2.setNumThreads(1)


@pytest.fixture(scope="session")
def deck(tmp_path_factory):
    """Printed once per session (two players: a smaller PDF), rasterised and cut."""
    return D.deck(tmp_path_factory.mktemp("cache"), players=2)


def _head_on(card: np.ndarray, px_per_mm: float = 8.0) -> np.ndarray:
    """A cut card photographed straight from above on a dark table."""
    scale = px_per_mm / D.RES
    small = cv2.resize(cv2.cvtColor(card, cv2.COLOR_GRAY2BGR), None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return cv2.copyMakeBorder(small, 120, 120, 160, 160, cv2.BORDER_CONSTANT, value=(60, 80, 100))


@pytest.mark.slow
def test_every_printed_card_is_cut_to_the_layout_size_and_named_by_its_code(deck):
    assert {c.kind for c in deck.cards} == set(L.kinds_of("bingo"))       # a Plunder Bingo event's cards
    assert {c.code for c in deck.cards} == {"ok", "forged", "other event"}
    assert len({(c.serial, c.code) for c in deck.cards}) == len(deck.cards)
    for card in deck.of("vote")[:3] + deck.of("robbery", "forged")[:2]:
        h, w = deck.raster(card).shape
        assert abs(w / D.RES - L.CARD_W) < 0.5 and abs(h / D.RES - L.CARD_H) < 0.5, (card, w, h)
    assert set(deck.bubbles) == {k for k in L.kinds_of("bingo") if L.layout(k).fields}
    assert max(deck.offsets.values()) < 0.3, deck.offsets


@pytest.mark.parametrize("kind", ["vote", "robbery", "exclusion"])
def test_an_unmarked_printed_card_photographed_head_on_is_found_and_reads_blank(deck, kind):
    from vision.cards import Scanner
    card = deck.of(kind)[0]
    result = Scanner(deck.event, D.SECRET).scan_image(_head_on(deck.raster(card)))
    assert result.serial == card.serial, result
    assert result.fields == {f.name: [] for f in L.layout(kind).fields}, result
    assert result.decision == ("invalid" if kind == "vote" else "review"), result


def test_a_card_printed_at_the_wrong_size_is_caught_when_it_is_cut(deck, tmp_path):
    """Cutting along the page's own marks is what lets a printing error show: a page printed 3% too
    big is refused, not quietly re-scaled to the layout."""
    pdf = tmp_path / "one.pdf"
    from vision import printing
    printing.print_cards([L.Card("vote", deck.event, "V0101", 1, 1)], D.SECRET, pdf)
    page = next(D._rasterise(pdf, tmp_path))
    assert len(D.cut_cards(page, "page 1")) == 1
    bigger = cv2.resize(page, None, fx=1.03, fy=1.03, interpolation=cv2.INTER_LINEAR)
    with pytest.raises(D.DeckError, match="layout says 96 x 90 mm"):
        D.cut_cards(bigger, "page 1")


def test_a_ring_missing_from_the_print_is_reported_with_its_bubble(deck):
    card = deck.raster(deck.of("vote")[0]).copy()
    x, y, r = deck.bubbles["vote"]["mark"]["Y"]
    cv2.circle(card, (round(x * D.RES), round(y * D.RES)), round((r + 1) * D.RES), 255, -1)
    with pytest.raises(D.DeckError, match="mark Y"):
        D.find_rings(card, "vote")


# --- marks ----------------------------------------------------------------------------------------------
def _ink_of(style, seed, bubble, others, width=0.5):
    pen = C.Pen((30, 30, 30), width, 1.0)
    ink, info = C.draw_mark(np.random.default_rng(seed), style, bubble, others, pen)
    return C.coverage(ink, (round(L.CARD_H * D.RES), round(L.CARD_W * D.RES))) > 0.3, info


def _distance(bubble):
    yy, xx = np.mgrid[0:round(L.CARD_H * D.RES), 0:round(L.CARD_W * D.RES)]
    return np.hypot((xx + 0.5) / D.RES - bubble[0], (yy + 0.5) / D.RES - bubble[1])


def _bubbles(deck, kind):
    return [xyr for values in deck.bubbles[kind].values() for xyr in values.values()]


@pytest.mark.parametrize("kind", ["vote", "robbery"])
@pytest.mark.parametrize("style", ["circle", "ellipse", "open circle"])
def test_a_circle_goes_round_the_label_and_leaves_it_clear(deck, kind, style):
    every = _bubbles(deck, kind)
    for seed in range(12):
        b = every[seed % len(every)]
        ink, info = _ink_of(style, seed, b, [o for o in every if o != b])
        d = _distance(b)
        assert not ink[d < 0.55 * b[2]].any(), (style, seed, info)          # the label stays readable
        if info["radius"] > 1.1:
            assert ink[d > b[2] + 0.6].any(), (style, seed, info)          # ink outside the printed ring
        if style == "open circle":
            assert _largest_gap(ink, info["centre"]) > 0.1 * 2 * math.pi, (seed, info)
        else:
            assert _largest_gap(ink, (b[0], b[1])) < 0.05 * 2 * math.pi, (style, seed, info)


def _largest_gap(ink, centre) -> float:
    """The widest angle (radians) round a centre with no ink."""
    yy, xx = np.nonzero(ink)
    angles = np.sort(np.arctan2((yy + 0.5) / D.RES - centre[1], (xx + 0.5) / D.RES - centre[0]))
    gaps = np.diff(np.concatenate([angles, angles[:1] + 2 * math.pi]))
    return float(gaps.max())


@pytest.mark.parametrize("kind", ["vote", "robbery"])
def test_a_circle_over_a_neighbour_crosses_its_ring_but_not_its_label(deck, kind):
    every = _bubbles(deck, kind)
    for seed in range(12):
        b = every[seed % len(every)]
        ink, info = _ink_of("circle over neighbour", seed, b, [o for o in every if o != b])
        nx, ny, nr = info["neighbour"]
        near = _distance((nx, ny))
        assert ink[near < nr].any(), (seed, info)                       # inside the neighbour's ring
        assert not ink[near < 0.4 * nr].any(), (seed, info)             # never through its label
        assert not ink[_distance(b) < 0.55 * b[2]].any(), (seed, info)
        assert _largest_gap(ink, (b[0], b[1])) < 0.05 * 2 * math.pi, (seed, info)


@pytest.mark.parametrize("style,least", [("fill", 0.3), ("scribble", 0.4)])
def test_a_fill_or_a_scribble_inks_most_of_the_bubble(deck, style, least):
    every = _bubbles(deck, "robbery")
    for seed in range(8):
        b = every[seed]
        ink, info = _ink_of(style, seed, b, [])
        inside = _distance(b) < b[2]
        assert ink[inside].mean() > least, (style, seed, info, ink[inside].mean())


@pytest.mark.parametrize("style", ["tick", "cross"])
def test_a_tick_or_a_cross_lies_on_its_bubble(deck, style):
    every = _bubbles(deck, "vote")
    for seed in range(8):
        b = every[seed % 3]
        ink, info = _ink_of(style, seed, b, [])
        d = _distance(b)
        assert ink[d < 1.6 * b[2]].sum() > 0.95 * ink.sum() and ink[d < b[2]].sum() > 0.5 * ink.sum(), (style, seed, info)


def test_marks_are_drawn_where_the_bubbles_are_printed_not_where_the_layout_says(deck):
    """Moved rings (as a printer with a geometry error would print them) carry the ink with them."""
    rings = {name: {v: (x + 6.0, y + 4.0, r) for v, (x, y, r) in values.items()}
             for name, values in deck.bubbles["vote"].items()}
    picture = np.full((round(L.CARD_H * D.RES), round(L.CARD_W * D.RES), 3), 255, np.float32)
    fields, drawn, _ = C.mark_card(np.random.default_rng(3), picture, "vote", rings, "fill")
    (value,) = fields["mark"]
    x, y, r = rings["mark"][value]
    dark = picture.min(axis=2) < 128
    assert dark[_distance((x, y)) < 0.4 * r].mean() > 0.5
    lx, ly, lr = deck.bubbles["vote"]["mark"][value]
    assert dark[_distance((lx, ly)) < 0.3 * lr].mean() < 0.5


@pytest.mark.parametrize("style,kind,want", [("two marks", "vote", "invalid"), ("blank", "vote", "invalid"),
                                             ("scribble + correction", "vote", "invalid"), ("tick", "vote", "counted"),
                                             ("blank", "robbery", "held"), ("two marks", "change", "held"),
                                             ("stray line", "robbery", "counted")])
def test_each_style_says_what_the_scanner_should_decide(deck, style, kind, want):
    s = next(C.generate(deck, 1, "clean", 5, kinds=(kind,), styles=(style,)))
    assert (s.truth["style"], s.truth["expected"]) == (style, want), s.truth
    marked = sum(len(v) for v in s.truth["fields"].values())
    fields = len(deck.bubbles[kind])
    assert marked == {"counted": fields, "invalid": 0 if style == "blank" else 2}.get(want, marked)


def test_a_robbery_card_names_player_numbers_in_its_digit_rows(deck):
    """Whatever the layout's fields, a player number 1..MAX_PLAYERS is marked as its tens and units."""
    numbers = []
    for index in range(12):
        rng = np.random.default_rng([3, index])
        picture = np.full((round(L.CARD_H * D.RES), round(L.CARD_W * D.RES), 3), 255, np.float32)
        fields, _, _ = C.mark_card(rng, picture, "robbery", deck.bubbles["robbery"], "tick")
        for role in ("robber", "victim"):
            tens, units = bingo.digit_fields(role)
            numbers.append(int(fields[tens][0] + fields[units][0]))
    assert all(1 <= n <= bingo.MAX_PLAYERS for n in numbers) and any(n >= 10 for n in numbers), numbers


def test_the_corpus_is_the_same_for_a_seed_and_differs_between_seeds(deck):
    first = list(C.generate(deck, 3, "hard", seed=4))
    again = list(C.generate(deck, 3, "hard", seed=4))
    other = list(C.generate(deck, 3, "hard", seed=5))
    assert all(a.truth == b.truth and np.array_equal(a.image, b.image) for a, b in zip(first, again))
    assert any(not np.array_equal(a.image, b.image) for a, b in zip(first, other))


def test_cached_corpus_is_the_generated_one(deck, tmp_path):
    paths = C.cached(deck, 2, "hard", 594, tmp_path, workers=1)
    assert paths == C.cached(deck, 2, "hard", 594, tmp_path, workers=1)
    image, truth = C.load(paths[1])
    s = next(C.generate(deck, 1, "hard", 594, start=1))
    assert truth == s.truth and np.array_equal(image, C.decoded(s))


def test_hard_photos_are_blurred_curled_and_compressed_like_a_phone_over_a_table(deck):
    captures = [s.truth["capture"] for s in C.generate(deck, 12, "hard", seed=8)]
    assert all(c["how"] == "photo" for c in captures)
    assert max(c["motion"] for c in captures) > 1.5 and max(c["defocus"] for c in captures) > 0.7
    assert any(c["curl"] for c in captures) and min(c["jpeg"] for c in captures) < 70


# --- the bench's verdict --------------------------------------------------------------------------------
def _result(decision, fields):
    return SimpleNamespace(decision=decision, fields=fields, reason=None, reason_code=None, ms=1.0)


@pytest.mark.parametrize("decision,fields,truth_fields,expected,want", [
    ("counted", {"mark": ["Y"]}, {"mark": ["Y"]}, "counted", "counted right"),
    ("counted", {"mark": ["Z"]}, {"mark": ["Y"]}, "counted", "silent error"),           # a wrong value
    ("invalid", {"mark": []}, {"mark": ["Y"]}, "counted", "silent error"),              # a vote thrown away
    ("counted", {"mark": ["Y"]}, {"mark": ["X", "Y"]}, "invalid", "silent error"),      # two marks counted as one
    ("invalid", {"mark": ["X", "Y"]}, {"mark": ["X", "Y"]}, "invalid", "invalid right"),
    ("invalid", {"mark": []}, {"mark": ["X", "Y"]}, "invalid", "silent error"),         # invalid, for the wrong reason
    ("review", {"mark": ["Y"]}, {"mark": ["Y"]}, "counted", "review"),
    ("review", {"robber": []}, {"robber": []}, "held", "held right"),
    ("counted", {"robber": ["1"]}, {"robber": []}, "held", "silent error"),             # an invented value
    ("rejected", {}, {"mark": ["Y"]}, "counted", "unread"),
])
def test_the_verdict_counts_a_wrong_value_as_a_silent_error(decision, fields, truth_fields, expected, want):
    truth = {"expected": expected, "fields": truth_fields, "kind": "vote", "style": "circle"}
    assert B.verdict(_result(decision, fields), truth) == want


@pytest.mark.parametrize("decision,want", [("rejected", "rejected right"), ("counted", "silent error"),
                                           ("review", "silent error")])
def test_a_forged_card_must_be_rejected(decision, want):
    truth = {"expected": "rejected", "fields": {"mark": ["X"]}, "kind": "vote", "style": "tick"}
    assert B.verdict(_result(decision, {"mark": ["X"]}), truth) == want


def test_the_per_style_table_counts_each_style_and_the_silent_errors():
    tally = B.Tally()
    truth = {"expected": "counted", "fields": {"mark": ["X"]}, "kind": "vote", "style": "circle"}
    tally.add(_result("counted", {"mark": ["X"]}), truth, 0, photo=True)
    tally.add(_result("counted", {"mark": ["Z"]}), truth, 1, photo=True)
    tally.add(_result("review", {"mark": ["X"]}), truth | {"style": "tick"}, 2, photo=False)
    lines = B.table("clean", tally)
    circle = next(line for line in lines if line.startswith("circle "))
    assert circle.split()[1:] == ["2", "1", "0", "0", "0", "0", "0", "1"]
    assert tally.circled == [1, 2] and len(tally.errors) == 1 and len(tally.times) == 2


@pytest.mark.parametrize("circled,said,missed", [([0, 0], "circled votes counted: none in this corpus", False),
                                                 ([95, 100], "circled votes counted: 95/100 = 95.00% (target 97%)", True)])
def test_the_circled_votes_target_is_judged_only_over_circled_votes(circled, said, missed):
    tally, lines = B.Tally(), []
    tally.circled = circled
    failed = B._report("clean", tally, lines.append)
    assert f"  {said}" in lines and any("circled" in f for f in failed) == missed


@pytest.mark.slow
def test_the_bench_prints_every_style_row_the_bad_input_and_the_watched_folder(deck, tmp_path, monkeypatch):
    monkeypatch.setattr(D, "deck", lambda cache=None: deck)
    said = []
    worst = B.bench(8, B.REPORTING_SEED, 2, said.append, tmp_path, workers=1)
    text = "\n".join(said)
    assert f"seed {B.REPORTING_SEED} (the reporting seed" in text and worst in (0, 1)
    for tier in ("clean", "hard"):
        rows = [line for line in said[said.index(f"{tier} tier"):] if line.startswith("all ")]
        assert rows and rows[0].split()[1] == "4", rows
    assert "forged.png       rejected: forged" in text and "other-event.png  rejected: other event" in text
    assert "watched folder: 2 files read" in text


@pytest.mark.parametrize("style,kind,want", [("hand shadow", "vote", "counted"), ("phone shadow", "robbery", "counted"),
                                             ("light circle beside fill", "vote", "invalid"),
                                             ("light circle beside fill", "change", "held"),
                                             ("blank under shadow", "vote", "invalid"), ("scribble loop", "vote", "counted")])
def test_each_class_of_the_shadow_corpus_says_what_the_scanner_should_decide(deck, style, kind, want):
    s = next(C.generate(deck, 1, "clean", 5, kinds=(kind,), styles=(style,), corpus="shadows"))
    assert (s.truth["style"], s.truth["expected"]) == (style, want), s.truth
    if style in S.SHADED:       # the shadow lies over bubbles left blank
        over = {tuple(b) for b in s.truth["events"]["shadow"]["over"]}
        inked = {tuple(deck.bubbles[kind][f][v]) for f, values in s.truth["fields"].items() for v in values}
        assert over and not over & {tuple(round(x, 3) for x in b) for b in inked}, s.truth


def test_the_shadow_corpus_is_its_own_and_the_bench_names_its_seeds(deck, tmp_path, monkeypatch):
    marked, shaded = (next(C.generate(deck, 1, "hard", 7, corpus=c)) for c in ("marked", "shadows"))
    assert shaded.truth["style"] in S.STYLES and not np.array_equal(marked.image, shaded.image)
    assert not set(S.SHADOW_TUNING) & set(S.SHADOW_REPORTING)
    with pytest.raises(ValueError, match="corpus must be one of marked, shadows"):
        next(C.generate(deck, 1, "hard", 7, corpus="shade"))
    monkeypatch.setattr(D, "deck", lambda cache=None: deck)
    said = []
    B.bench(4, S.SHADOW_TUNING[0], 0, said.append, tmp_path, workers=1, corpus="shadows")   # (1031 stays unseen)
    assert "shadows corpus, seed 1 (the tuning seed; tune on 1-9, report from 1031)" in said[0], said[0]
    assert [line for line in said[said.index("hard tier"):] if line.startswith(tuple(S.STYLES))], said


@pytest.mark.parametrize("name", ["card_deck", "cards", "card_photo", "number_cards", "shadow_cards"])
def test_the_printed_card_world_never_draws_with_the_code_printer_and_scanner_share(name):
    """Law 8: its cards come from the PDF; the renderer and the printer's drawing code stay out."""
    import ast
    import importlib
    import inspect
    tree = ast.parse(inspect.getsource(importlib.import_module(f"vision.sim.{name}")))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported |= {f"{node.module or ''}.{alias.name}".strip(".") for alias in node.names}
        elif isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
    shared = {n for n in imported if {"render", "printing"} & set(n.split("."))}
    assert not shared, shared
