"""A fold across a card is no mark: a fold shadow's soft edge or a crease's thin shadow line crossing a
blank bubble once scored like ink (0.91, definite 0.6) and made a card with one clear fill read
`invalid: two marks` or go to review. Images from the printed PDF (tests/vision/printed_cards.py)."""
import cv2
import pytest

import printed_cards as P
from vision.cards import scanner as S

cv2.setNumThreads(1)
pytestmark = P.needs_poppler


def _filled_with(kind: str, name: str, marked: str):
    card = P.card(kind, 4, 6)
    picture = P.printed(card)
    P.dot(picture, P.bubble(kind, name, marked))
    return card, picture


@pytest.mark.parametrize("kind,name,marked,blank,angle,depth,soft", [
    ("vote", "mark", "X", "Z", 70, 0.35, 0.6),
    ("vote", "mark", "Y", "Z", 110, 0.3, 0.8),
    ("exclusion", "ball", "3", "18", 70, 0.31, 0.65),
    ("exclusion", "ball", "12", "27", 60, 0.4, 1.5)])
def test_a_fold_shadow_edge_across_a_blank_bubble_is_no_mark(scanner, kind, name, marked, blank, angle, depth, soft):
    """The shade's corner between its edge and the card's edge was closed over as ink."""
    card, picture = _filled_with(kind, name, marked)
    b = P.bubble(kind, name, blank)
    P.fold_shadow(picture, (b.x, b.y), angle, depth, soft)
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.fields) == ("counted", {name: [marked]}), result


@pytest.mark.parametrize("kind,name,marked,blank,angle", [
    ("vote", "mark", "Z", "X", 90), ("vote", "mark", "X", "Y", 120), ("exclusion", "ball", "3", "14", 0),
    ("exclusion", "ball", "3", "14", 75)])
def test_a_crease_line_across_a_blank_bubble_is_no_mark(scanner, kind, name, marked, blank, angle):
    """A crease's shadow line, too faint for a pen stroke, crosses the whole card: no mark (was faint ink, review)."""
    card, picture = _filled_with(kind, name, marked)
    b = P.bubble(kind, name, blank)
    P.crease(picture, (b.x + 0.2 * b.r, b.y), angle, dark=0.7, width_mm=0.3)
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.fields) == ("counted", {name: [marked]}), result


def _ticked_and_creased(dy: float, angle: float):
    """A light blue tick on X and a crease passing dy mm below X's centre."""
    picture = P.printed(P.card("vote", 2, 5))
    x = P.bubble("vote", "mark", "X")
    r = 0.7 * x.r
    P.pen(picture, [(x.x - 0.6 * r, x.y), (x.x - 0.15 * r, x.y + 0.5 * r), (x.x + 0.7 * r, x.y - 0.6 * r)], 0.35,
          (150, 60, 25))
    P.crease(picture, (x.x, x.y + dy), angle, dark=0.7)
    return P.photo(picture)


@pytest.mark.parametrize("dy,angle", [(3.0, 160), (4.5, 170), (4.5, 15)])
def test_a_tick_apart_from_a_crease_through_its_bubble_is_the_vote(scanner, dy, angle, monkeypatch):
    """Bench seed 2 clean #132, 3 clean #110 (R6): a crease through X's disc below its tick, taken out as
    a line, left the tick "a little ink beside it: the line's or a mark?". Nearly all of that ink lies a
    millimetre and more from the line: a mark of its own, not the line's edge; X counts."""
    photo = _ticked_and_creased(dy, angle)
    result = scanner.scan_image(photo)
    assert (result.decision, result.fields) == ("counted", {"mark": ["X"]}), result
    monkeypatch.setattr(S, "_apart", lambda *_: False)
    assert scanner.scan_image(photo).decision == "review"        # as it was


@pytest.mark.parametrize("dy,angle", [(1.0, 15), (0.0, 170)])
def test_a_tick_whose_arms_a_crease_crosses_is_the_vote(scanner, dy, angle, monkeypatch):
    """The crease across the tick's arms: most of the ink left beside the line lies apart from it (the
    one measure, scanner._apart, as for a tick the crease misses): the tick, X counts (was "a little ink beside it")."""
    photo = _ticked_and_creased(dy, angle)
    result = scanner.scan_image(photo)
    assert (result.decision, result.fields) == ("counted", {"mark": ["X"]}), result
    monkeypatch.setattr(S, "_apart", lambda *_: False)
    assert "a little ink beside it" in (scanner.scan_image(photo).reason or "")       # as it was


@pytest.mark.parametrize("dy", [0.0, 0.5])
def test_a_crease_along_a_ticks_long_arm_is_still_a_doubt(scanner, dy):
    """The crease right along the tick's long arm: the ink left beside it (the short arm) lies on one side
    of the line, the line's edge or a mark's."""
    result = scanner.scan_image(_ticked_and_creased(dy, 128))
    assert result.decision == "review" and "a little ink beside it" in result.reason, result
