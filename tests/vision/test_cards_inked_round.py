"""Faint ink all round a bubble read blank (a light pencil circle, R6) against a shadow over it,
drawn on the printed PDF (tests/vision/printed_cards.py). Hard bench photos (tuning seeds 2, 3, 5,
9: fold shadows, a hand's shade) sent blank bubbles to review as "faint ink all round": a shade
narrower than the paper model's window darkens the paper round a bubble on every ray, as a circle
would. A pencil line stands out of the paper beside it on each ray; the shade does not."""
import cv2
import pytest

import printed_cards as P
from vision.cards import Scanner, Settings

cv2.setNumThreads(1)
pytestmark = P.needs_poppler


@pytest.fixture(scope="module")
def scanner():
    return Scanner(P.EVENT, P.SECRET, Settings(time_limit_ms=20000))     # what is read, not how fast


def shade_over(picture, b, half_mm: float = 6.0, depth: float = 0.5) -> None:
    """A band of shade across the card over a bubble (a fold's two sides lit, its middle not)."""
    P.fold_shadow(picture, (b.x - half_mm, b.y), 270, depth, 1.0)
    P.fold_shadow(picture, (b.x + half_mm, b.y), 90, depth, 1.0)


def vote(scanner, tick: str | None, pencil_k: float | None, grey: int = 215):
    """A vote card shaded over X, with a pen tick and a light pencil circle round X (k x its ring)."""
    picture = P.printed(P.card("vote", 2, 5))
    bubble = {v: P.bubble("vote", "mark", v) for v in "XYZ"}
    if tick:
        P.tick(picture, bubble[tick])
    if pencil_k:
        P.pencilled(picture, lambda canvas: P.ring(canvas, bubble["X"], pencil_k, width_mm=0.4, colour=(grey,) * 3))
    shade_over(picture, bubble["X"])
    return scanner.scan_image(P.photo(picture))


def test_a_shade_over_a_blank_bubble_is_no_pencil_circle(scanner):
    """Seed 2 hard #306, #342: the shade darkens X's paper all round, no line stands out of it."""
    result = vote(scanner, "Y", None)
    assert (result.decision, result.fields) == ("counted", {"mark": ["Y"]}), result


@pytest.mark.parametrize("k,grey", [(1.15, 228), (1.3, 215), (1.6, 228)])
def test_a_light_pencil_circle_under_the_shade_still_goes_to_review(scanner, k, grey):
    """The same shade with a light pencil circle round X, nothing else marked: read blank, the
    vote would be lost (R6)."""
    result = vote(scanner, None, k, grey)
    assert result.decision == "review", result
