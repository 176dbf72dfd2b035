"""The card scanner's one tuning table (vision/cards/tuning.py): every threshold with its unit, range and
reason; [cards] in event.toml overrides the decision stage's, and an override out of range or out of
order is one line naming the file, the line and the key; geometry follows from the bubbles' radii."""
from dataclasses import fields, replace

import numpy as np
import pytest

import thresholds
from companion.core import event_file
from companion.cli import main
from tui.sources import from_event
from vision import layouts as L
from vision.cards import Settings, TuningError, settings_for, tuning as T
from vision.cards.blank import PX
from vision.cards.measure import bubble_geometry

BEFORE = {"thresholds": 164, "lines": 3171}     # tests/vision/thresholds.py on vision/cards/ at 33ab807


def test_every_entry_has_a_unit_a_reason_and_a_range_holding_its_value():
    rows = T.table()
    assert len(rows) == len({(stage, key) for stage, key, *_ in rows}) > 100
    for stage, key, value, unit, (low, high), why in rows:
        assert unit and why and low <= value <= high, (stage, key)
    assert {row[1] for row in rows if row[0] == "cards"} == {f.name for f in fields(Settings)}


def _event_file(tmp_path, cards: str):
    path = tmp_path / "event.toml"
    assert main(["init", "--out", str(path), "--players", "3", "--seed", "1"]) == 0
    path.write_text(path.read_text() + "\n[cards]\ntime_limit_ms = 500\n" + cards)
    return path, path.read_text().splitlines().index(cards.splitlines()[-1]) + 1


@pytest.mark.parametrize("cards,message", [
    ("marginal = 5.0\n", "[cards] marginal must be 0.05 to 2 (score), not 5.0"),
    ("circled = 1.5\n", "[cards] circled must be 0.2 to 1 (share of rays), not 1.5"),
    ("definite = 0.25\n", "[cards] marginal (0.3) must be under definite (0.25)"),
    ("marginal = 0.4\ntrace = 0.5\n", "[cards] trace (0.5) must be under marginal (0.4)"),
    ("partial = 0.6\n", "[cards] partial (0.6) must be under circled (0.55)"),
])
def test_an_override_out_of_range_or_order_is_one_line_naming_the_file_line_and_key(tmp_path, capsys, cards, message):
    path, line = _event_file(tmp_path, cards)
    with pytest.raises(TuningError) as error:
        settings_for(event_file.load(path))
    assert str(error.value) == f"{path}:{line}: {message}"
    assert main(["scan", "--event", str(path), str(tmp_path / "card.png")]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert said == [f"companion: {path}:{line}: {message}"]
    # the console's card scanner says it as its one problem line, not a dead thread or a traceback
    event = event_file.load(path)
    sources, problems = from_event(event, dict, scan_folder=str(tmp_path))
    assert problems == [f"card scanner: {path}:{line}: {message}"] and "scanner" in sources


def test_overrides_in_range_and_order_are_taken(tmp_path):
    path, _ = _event_file(tmp_path, "marginal = 0.25\ndefinite = 0.7\ncircled = 0.6\n")
    assert settings_for(event_file.load(path)) == Settings(marginal=0.25, definite=0.7, circled=0.6, time_limit_ms=500)


def test_every_stage_checks_its_own_ranges_and_order():
    with pytest.raises(TuningError, match=r"^faded \(0.8\) must be under fading \(0.7\)$"):
        replace(T.GLARE, faded=0.8)
    with pytest.raises(TuningError, match=r"^disc must be 1 to 1.6 \(radii\), not 2.0$"):
        replace(T.SHAPE, disc=2.0)


def test_the_band_and_patch_follow_from_a_big_circles_reach_and_the_radii():
    """The band where a line through a bubble shows starts just beyond a big circle's reach; the patch
    measured round a bubble holds its band; neighbours are judged by the sum of their radii."""
    wider = replace(T.SHAPE, circle_reach=1.7, band_outer=2.4)
    assert (wider.band_inner, wider.patch) == (1.75, 2.5)
    assert T.SHAPE.band_inner == 1.65 and T.SHAPE.patch == 2.2
    name, b = L.layout("vote").bubbles()[0]
    g = bubble_geometry("vote")[name, b.value]
    y, x = np.mgrid[g.where]
    reach = np.hypot(x - b.x * PX, y - b.y * PX)[g.band] / (b.r * PX)
    assert T.SHAPE.band_inner <= reach.min() < 1.7 and 2.05 < reach.max() <= T.SHAPE.band_outer
    a, near = L.Bubble("1", 10.0, 10.0, 3.0), L.Bubble("2", 27.0, 10.0, 3.0)
    assert T.neighbours(a, near) and T.neighbours(near, a) and not T.neighbours(a, a)
    assert not T.neighbours(a, L.Bubble("3", 10.0 + 6.0 * 3.0 + 0.01, 10.0, 3.0))      # beyond 3 x (r + r)


def test_the_scanner_holds_fewer_thresholds_than_before_the_table():
    """Counted as tests/vision/thresholds.py says (named constants and entries, and numbers written into
    comparisons): one entry for one phenomenon (a stroke's ink, a line's soft edge, a dash's shape)."""
    now = thresholds.count(thresholds.ROOT / "vision" / "cards")
    assert now["thresholds"] < BEFORE["thresholds"], now
