"""A cross is one mark even where only part of it is seen as a line: a pencil cross whose darker arm
alone is long enough to be found as a straight stroke, and crosses in stacked rows of a robbery card,
whose arms line up or reach into each other's band. Images from the printed PDF
(tests/vision/printed_cards.py)."""
from dataclasses import replace

import cv2
import numpy as np
import pytest

import printed_cards as P
from vision.cards import measure as M, scanner as S

cv2.setNumThreads(1)
pytestmark = P.needs_poppler


def _arm(b, k: float, turn_deg: float, start, end) -> list:
    a = np.radians(turn_deg)
    return [(b.x + k * b.r * (u * np.cos(a) - v * np.sin(a)), b.y + k * b.r * (u * np.sin(a) + v * np.cos(a)))
            for u, v in (start, end)]


def _cross(picture, b, k: float = 1.0, turn_deg: float = 0.0, width_mm: float = 0.5, greys=(25, 25)) -> None:
    for (start, end), grey in zip((((-1, -1), (1, 1)), ((-1, 1), (1, -1))), greys):
        P.pen(picture, _arm(b, k, turn_deg, start, end), width_mm, (grey,) * 3)


@pytest.mark.parametrize("value", ["X", "Y", "Z"])
def test_a_pencil_cross_whose_one_arm_is_found_as_a_line_is_the_vote(scanner, value, monkeypatch):
    """Bench seeds 1, 2, 3, 12, 13, 15 (clean, pencil): a cross over a vote bubble, one arm darker. That arm
    (25 mm) is found as a straight stroke sitting on the bubble, the lighter one is not, and with the stroke
    taken out under a definite mark is left: "a line touches Y: mark or stray stroke?". The ink left lies
    apart from the stroke (scanner._apart): the cross's other arm, one mark with it (R6)."""
    picture = P.printed(P.card("vote", 2, 5))
    P.pencilled(picture, lambda canvas: _cross(canvas, P.bubble("vote", "mark", value), 1.05, -15, 0.4, (90, 180)))
    photo = P.photo(picture)
    result = scanner.scan_image(photo)
    assert (result.decision, result.fields) == ("counted", {"mark": [value]}), result
    monkeypatch.setattr(S, "_apart", lambda *_: False)
    assert "a line touches" in (scanner.scan_image(photo).reason or "")       # as it was


@pytest.mark.parametrize("where", [(0.0, 0.0), (0.0, 3.0)])
def test_a_line_sitting_on_a_blank_bubble_is_still_a_doubt(scanner, where):
    """A straight stroke 25 mm long on Y beside a vote on X: maybe a slash meant for Y, maybe a stray line.
    No ink crosses it: the operator rules (read as marked it would make the vote invalid)."""
    picture = P.printed(P.card("vote", 2, 5))
    P.dot(picture, P.bubble("vote", "mark", "X"))
    y = P.bubble("vote", "mark", "Y")
    P.pen(picture, [(y.x - 10 + where[0], y.y + 6 + where[1]), (y.x + 10 + where[0], y.y - 8 + where[1])], 0.4)
    result = scanner.scan_image(P.photo(picture))
    assert result.decision == "review" and "a line touches Y" in result.reason, result


ROBBERY = {"robber_tens": "1", "robber_units": "2", "victim_tens": "2", "victim_units": "2", "ordinal": "2"}


@pytest.mark.parametrize("k,turn", [(0.9, 0), (1.0, 8), (1.1, -8)])
def test_crosses_in_stacked_rows_are_each_their_rows_mark(scanner, k, turn, monkeypatch):
    """Bench seeds 3, 5, 8 and 14 (clean, cross): victim 22 crossed in both digit rows. Each cross reaches into
    the other's band, so each bubble looked like "a line runs through 2 (victim_tens)". Two bubbles marked in
    rows above and below each other leave each other's reach out of their bands (a line through either still
    shows on its other sides)."""
    picture = P.printed(P.card("robbery", 3, 2))
    for name, value in ROBBERY.items():
        _cross(picture, P.bubble("robbery", name, value), k, turn)
    photo = P.photo(picture)
    result = scanner.scan_image(photo)
    assert (result.decision, result.command) == ("counted", {"do": "rob", "serial": result.serial, "robber": 12,
                                                             "victim": 22, "ordinal": 2}), result
    regions = M.bubble_regions

    def as_before(kind):
        found = regions(kind)
        return replace(found, band_across=np.zeros_like(found.band_across))
    monkeypatch.setattr(M, "bubble_regions", as_before)
    assert "a line runs through" in (scanner.scan_image(photo).reason or "")     # as it was


def test_a_stray_line_through_a_blank_bubble_below_a_mark_is_still_a_doubt(scanner):
    """A short line (under D19's 20 mm: maybe a mark) down through the blank victim_units 3, its right-hand
    neighbour and the victim_tens 2 above it marked, shows in 3's band below it: still a doubt, not 3's mark."""
    picture = P.printed(P.card("robbery", 3, 2))
    for name, value in ROBBERY.items():
        if name != "victim_units":
            _cross(picture, P.bubble("robbery", name, value))
    P.dot(picture, P.bubble("robbery", "victim_units", "5"))
    three = P.bubble("robbery", "victim_units", "3")
    P.pen(picture, [(three.x - 1, three.y - 8), (three.x + 1, three.y + 8)], 0.5)
    result = scanner.scan_image(P.photo(picture))
    assert result.decision == "review", result


@pytest.mark.parametrize("k,turn", [(1.0, 6), (1.05, 7), (1.1, 7), (1.1, 8)])
def test_a_crosss_arm_pointing_at_the_code_is_no_line_in_pieces(scanner, k, turn, monkeypatch):
    """Bench seed 9 clean #79: a cross on OUT, one arm pointing up at the card's code, was followed on
    across the code's print as "a line in pieces runs through OUT". With that line taken out, the ink
    left lies apart from it (the other arm): OUT is marked either way, and the card counts."""
    picture = P.printed(P.card("inout", 3, 1))
    _cross(picture, P.bubble("inout", "dir", "OUT"), k, turn)
    _cross(picture, P.bubble("inout", "ball", "27"), 0.9, 0)
    photo = P.photo(picture)
    result = scanner.scan_image(photo)
    assert (result.decision, result.fields) == ("counted", {"dir": ["OUT"], "ball": ["27"]}), result
    monkeypatch.setattr(S, "_apart", lambda *_: False)
    assert "a line in pieces runs through OUT" in (scanner.scan_image(photo).reason or "")     # as it was
