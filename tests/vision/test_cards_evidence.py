"""The card scanner's evidence is typed: what one module hands another is a frozen dataclass with named
fields (no positional tuples), and no module reaches for another's private names."""
import ast
from dataclasses import FrozenInstanceError, fields
from pathlib import Path

import numpy as np
import pytest

from vision import layouts as L
from vision.cards import measure as M, strokes as St
from vision.cards.measure import BubbleGeometry, BubbleInk, Cut

CARDS = Path(M.__file__).parent


def test_no_module_of_the_scanner_imports_another_ones_private_names():
    private = []
    for path in CARDS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                private += [f"{path.name}: {alias.name}" for alias in node.names if alias.name.startswith("_")]
    assert private == []


def test_each_bubbles_ink_and_regions_are_named_and_frozen():
    geometry = M.bubble_geometry("vote")
    assert set(geometry) == {(name, b.value) for name, b in L.layout("vote").bubbles()}
    assert all(isinstance(g, BubbleGeometry) for g in geometry.values())
    amount = np.zeros(M.blank_card("vote").shape, np.float32)
    ink = M.score_bubbles(M.measured(amount, "vote"), "vote", 0.6, 0.35)
    assert isinstance(ink, BubbleInk) and [f.name for f in fields(ink)] == ["scores", "around", "filled", "own", "band"]
    assert all(v == 0.0 for v in ink.scores.values())
    with pytest.raises(FrozenInstanceError):
        ink.scores = {}


def test_ink_taken_from_other_numbers_is_those_bubbles_alone():
    keys = [("mark", "X"), ("mark", "Y")]
    a = BubbleInk(*({k: 0.0 for k in keys} for _ in range(5)))
    b = BubbleInk(*({k: 1.0 for k in keys} for _ in range(5)))
    taken = a.taking(b, [("mark", "Y")])
    assert all(getattr(taken, f.name) == {("mark", "X"): 0.0, ("mark", "Y"): 1.0} for f in fields(taken))
    assert a.scores == {k: 0.0 for k in keys}           # a itself is unchanged


def test_a_cut_leaves_its_pixels_out_of_its_bubbles_only():
    amount = np.zeros(M.blank_card("vote").shape, np.float32)
    (name, x), (_, y) = L.layout("vote").bubbles()[:2]
    for b in (x, y):        # a dark dot in each of the first two bubbles
        amount[round(b.y * M.PX) - 8:round(b.y * M.PX) + 8, round(b.x * M.PX) - 8:round(b.x * M.PX) + 8] = 0.9
    m = M.measured(amount, "vote")
    whole = M.score_bubbles(m, "vote", 0.6, 0.35).scores
    out_of_x = np.array([n == 0 for n in range(len(L.layout("vote").bubbles()))])
    cut = M.score_bubbles(m, "vote", 0.6, 0.35, [Cut(m.new.ravel() > 0, out_of_x)]).scores
    assert whole[name, x.value] > 0 < whole[name, y.value] and cut[name, x.value] == 0.0 and cut[name, y.value] == whole[name, y.value]
    assert {f.name for f in fields(St.StrokeCut)} == {"covered", "crossed", "touched", "expected", "leaving"}
