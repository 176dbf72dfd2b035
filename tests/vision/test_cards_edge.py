"""A felt tip's circle round one bubble leaves its soft edge in the neighbour it crosses: wider than the
path taken out, it scored as faint ink (0.15-0.25) or an unclear mark (0.3-0.5) there and sent the card to
review (bench seeds 9 and 14, clean, circle; seeds 1 and 5, a crease's and a fold's). Ink lying right
along what was taken out, in a field marked elsewhere, is that edge. Images from the printed PDF
(tests/vision/printed_cards.py)."""
import cv2
import pytest

import printed_cards as P
from vision.cards import decide as D

cv2.setNumThreads(1)
pytestmark = P.needs_poppler


def _circled_three(k: float, width_mm: float) -> tuple:
    picture = P.printed(P.card("exclusion", 4, 1))
    P.ring(picture, P.bubble("exclusion", "ball", "3"), k, width_mm=width_mm, colour=(40, 40, 40))
    return picture


@pytest.mark.parametrize("k,width_mm,blur", [(1.5, 1.0, 0.7), (1.7, 1.0, 1.2), (1.5, 1.2, 0.7), (1.7, 1.2, 1.2)])
def test_a_felt_tip_circles_edge_in_the_neighbour_is_no_mark(scanner, k, width_mm, blur, monkeypatch):
    photo = P.photo(_circled_three(k, width_mm), blur=blur)
    result = scanner.scan_image(photo)
    assert (result.decision, result.fields) == ("counted", {"ball": ["3"]}), result
    monkeypatch.setattr(D, "_edge", lambda *_: False)
    before = scanner.scan_image(photo)       # as it was
    assert before.decision == "review" and ("faint ink at" in before.reason or "unclear mark" in before.reason)


@pytest.mark.parametrize("grey", [150, 185])
@pytest.mark.parametrize("k", [1.5, 1.6])
def test_a_light_tick_in_the_neighbour_the_circle_crosses_is_still_a_doubt(scanner, grey, k):
    """A light pencil tick on 2 crosses the circle's path but lies mostly off it, across 2's middle:
    maybe a second mark. (Judged by all the ink in 2's disc, the circle's own included, it looked
    like the circle's edge and the card counted 3.)"""
    picture = _circled_three(k, 1.0)
    two = P.bubble("exclusion", "ball", "2")
    P.pencilled(picture, lambda canvas: P.pen(canvas, [(two.x - 1.5, two.y), (two.x - 0.4, two.y + 1.4),
                                                       (two.x + 1.8, two.y - 1.8)], 0.35, (grey,) * 3))
    result = scanner.scan_image(P.photo(picture))
    assert result.decision == "review", result
