"""Light before ink: a soft shadow (a hand's fingers, a phone, light falling off steeply) across
bubbles left blank is never ink (measure.ink's paper level follows darkening softer than SHADE.edge
per mm), drawn on the printed PDF (tests/vision/printed_cards.py). The classes of the shadow corpus
(vision/sim/shadow_cards.py, `companion bench cards --corpus shadows`): each comes out right or goes
to review, never a silent miscount."""
import cv2
import numpy as np
import pytest

import printed_cards as P
from vision.cards import measure

cv2.setNumThreads(1)
pytestmark = P.needs_poppler
X, Y, Z = (P.bubble("vote", "mark", v) for v in "XYZ")


def _voted_x() -> np.ndarray:
    picture = P.printed(P.card("vote", 3, 4))
    P.ring(picture, X, 1.2)
    return picture


@pytest.mark.parametrize("over,angle,width", [((Z,), -60, 10), ((Z,), 90, 8), ((Y,), -100, 7)])
def test_a_hand_shadow_over_blank_bubbles_is_no_mark(scanner, over, angle, width):
    """Fingers narrower than the paper level's 20 mm window, reaching over blank bubbles beside a vote:
    once read as a mark there and sent to review (`a line runs through Z`), now light."""
    picture = _voted_x()
    for b in over:
        P.shadow(picture, P.finger((b.x, b.y), angle, width), depth=0.45, soft_mm=1.5)
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.fields) == ("counted", {"mark": ["X"]}), result


@pytest.mark.parametrize("corner,angle", [((Y.x + 3, Y.y - 2), 60), ((Z.x - 4, Z.y + 3), -30)])
def test_a_phone_shadow_over_blank_bubbles_is_no_mark(scanner, corner, angle):
    """A phone's corner in shade over Y or Z: once `invalid: two marks` (a vote thrown away) or review."""
    picture = _voted_x()
    P.shadow(picture, P.phone(corner, angle), depth=0.5, soft_mm=1.2)
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.fields) == ("counted", {"mark": ["X"]}), result


@pytest.mark.parametrize("over", [(Y,), (X, Y)])
def test_a_blank_card_in_a_hand_shadow_is_blank_or_reviewed(scanner, over):
    """R6: a blank vote card is invalid; a shadow over it is never a vote. (The scanner before light
    before ink passed these too; the bench's silent errors of this class are not reproduced here.)"""
    picture = P.printed(P.card("vote", 3, 4))
    for b in over:
        P.shadow(picture, P.finger((b.x, b.y), -70, 11), depth=0.45, soft_mm=1.5)
    result = scanner.scan_image(P.photo(picture))
    assert result.decision == "review" or (result.decision, result.fields) == ("invalid", {"mark": []}), result


def test_soft_darkening_is_light_and_a_pen_line_in_it_still_ink():
    """The measured edge quantity: a shadow's edge softer than SHADE.edge per mm leaves no ink, a pen
    line inside the shadow keeps its ink (compared with the same line on open paper)."""
    paper = np.full((300, 400), 220, np.uint8)
    yy, xx = np.mgrid[0:300, 0:400]
    finger = (np.abs(xx - 200) < 5 * measure.PX).astype(np.float32)             # a 10 mm strip
    shade = 1 - 0.45 * cv2.GaussianBlur(finger, (0, 0), 1.5 * measure.PX)
    shaded = np.clip(paper * shade, 0, 255).astype(np.uint8)
    assert measure.ink(shaded)[100:200, 150:250].max() < 0.1
    lined = []
    for picture in (paper.copy(), shaded.copy()):
        cv2.line(picture, (200, 50), (200, 250), int(picture[150, 200]) // 4, 3)
        lined.append(measure.ink(picture)[100:200, 198:203].max())
    assert lined[1] > 0.9 * lined[0] > 0.6, lined


def test_a_scribbles_loose_loop_into_a_neighbour_is_not_its_mark(scanner, depth=0.7, half=0.6, width=0.4):
    """A filled Z whose scribble runs on in one loop 0.7 of a radius into Y's disc: Z's vote, or review
    (the two bubbles' ink is one stroke: marks_joined; before it, `invalid: two marks`, a vote lost)."""
    picture = P.printed(P.card("vote", 3, 4))
    P.dot(picture, Z, 0.8)
    reach = Z.x - Y.x - (1 - depth) * Y.r
    t = np.linspace(0, 2 * np.pi * 0.9, 40)
    P.pen(picture, list(zip(Z.x - reach / 2 * (1 - np.cos(t)), Z.y + half * Z.r * np.sin(t))), width)
    result = scanner.scan_image(P.photo(picture))
    assert result.decision == "review" or (result.decision, result.fields) == ("counted", {"mark": ["Z"]}), result
    assert result.decision != "review" or result.reason_code == "marks_joined", result


def test_a_light_thin_circle_beside_a_fill_is_a_second_mark(scanner):
    """A filled X and a light, thin circle round Z: two marks (R6: invalid), or review; never X's vote
    (counted as X's before the faint circle was measured against the other bubbles read blank only)."""
    picture = P.printed(P.card("vote", 3, 4))
    P.dot(picture, X, 0.8)
    P.pencilled(picture, lambda canvas: P.ring(canvas, Z, 1.5, width_mm=0.25, colour=(150, 150, 150)))
    result = scanner.scan_image(P.photo(picture))
    assert result.decision == "review" or (result.decision, result.fields) == ("invalid", {"mark": ["X", "Z"]}), result
