"""Long straight lines by a bubble (D19), drawn on the printed PDF (tests/vision/printed_cards.py),
each once sent to review on the bench (tuning seeds) though a person sees at once what it is: a
cross or tick on a vote bubble with an arm as long as a stray line, whole or broken by the label
(its other ink is a mark anyway); a bowed stray line found in two pieces, one sitting on the bubble;
a line passing a marked bubble outside its disc; a thick circle's ink in the band round its own
bubble; a mark's stroke followed across a corner marker. A line that could be the mark itself (a
short line across a bubble) still goes to a person."""
import cv2
import numpy as np
import pytest

import printed_cards as P
from vision.cards import decide as D
from vision.cards.blank import PX, print_everywhere
from vision.cards.measure import Measured
from vision.cards.strokes import _hidden, _Stroke, sits_on

cv2.setNumThreads(1)
pytestmark = P.needs_poppler


def _across(b, length_mm: float, angle_deg: float, shift_mm: float = 0.0) -> list:
    """The ends of a straight line length_mm long through a bubble's centre (shifted along itself)."""
    u = np.array([np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))])
    centre = np.array([b.x, b.y]) + shift_mm * u
    return [tuple(centre - u * length_mm / 2), tuple(centre + u * length_mm / 2)]


@pytest.mark.parametrize("angle", [-40, 35, 140])
def test_a_cross_with_an_arm_as_long_as_a_stray_line_is_a_vote(scanner, angle):
    """Bench seed 6 clean #225, seed 1 clean #144 (R6, D19): a cross on X whose one arm is 24 mm
    long, from just outside the bubble to just outside it again, went to review ("a line touches X");
    its other arm is a definite mark on its own, so the card counts X whatever the long arm is."""
    picture = P.printed(P.card("vote", 2, 5))
    x = P.bubble("vote", "mark", "X")
    P.pen(picture, _across(x, 24, angle), 0.6)
    P.pen(picture, _across(x, 15, angle + 90), 0.6)
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.fields) == ("counted", {"mark": ["X"]}), result


@pytest.mark.parametrize("value,angle,arms,width", [("Y", 60, (26, 24), 0.7), ("Z", 50, (27, 22), 0.6)])
def test_a_cross_whose_long_arm_the_label_breaks_is_a_vote(scanner, value, angle, arms, width):
    """Bench seed 2 clean #60, seed 9 hard #16 (R6, D19): a cross's 26 mm arm, broken where it crosses
    the printed label, was taken for a stray line in pieces ("a line in pieces runs through"); it
    sits on the bubble and the cross's other arm is a definite mark: the card counts."""
    picture = P.printed(P.card("vote", 2, 5))
    b = P.bubble("vote", "mark", value)
    P.pen(picture, _across(b, arms[0], angle), width)
    P.pen(picture, _across(b, arms[1], angle + 90), width)
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.fields) == ("counted", {"mark": [value]}), result


def test_a_tick_with_a_long_arm_under_a_stray_line_is_a_vote(scanner):
    """Bench seed 2 clean #153 (D19): a tick on X whose long arm is 23 mm, and a stray line across X
    and Y; the line's ink is taken out of Y, the tick's short arm is a definite mark: X counts."""
    picture = P.printed(P.card("vote", 2, 5))
    x, y = P.bubble("vote", "mark", "X"), P.bubble("vote", "mark", "Y")
    P.pen(picture, [(x.x - 6, x.y - 1), (x.x - 2.5, x.y + 5)], 0.9)
    P.pen(picture, [(x.x - 2.5, x.y + 5), (x.x + 12, x.y - 8)], 0.9)
    P.pen(picture, [(x.x - 14, x.y + 9), (y.x + 12, y.y - 9)], 0.9)
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.fields) == ("counted", {"mark": ["X"]}), result


def _bowed(b, length_mm: float, angle_deg: float, bow_mm: float, before: float) -> list:
    """A pen line bowed by bow_mm in its middle, length_mm long, `before` of it before a bubble's centre."""
    u = np.array([np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))])
    t = np.linspace(0, 1, 40)
    start = np.array([b.x, b.y]) - before * length_mm * u
    points = start + np.outer(t * length_mm, u) + np.outer(bow_mm * np.sin(np.pi * t), (-u[1], u[0]))
    return [tuple(p) for p in points]


@pytest.mark.parametrize("angle,before", [(66, 0.35), (66, 0.3), (70, 0.35)])
def test_a_bowed_stray_line_found_in_pieces_is_no_mark(scanner, angle, before):
    """Bench seed 1 clean #277 (D19, R6): a 45 mm line bowed a little, through Y and well beyond it
    on both sides, was found as two straight pieces; the one sitting on Y alone looked like a mark's
    arm ("a line touches Y"). Pieces in line with each other by a bubble are one line: Z counts."""
    picture = P.printed(P.card("vote", 2, 5))
    P.pen(picture, _bowed(P.bubble("vote", "mark", "Y"), 45, angle, 1.2, before), 0.6)
    P.tick(picture, P.bubble("vote", "mark", "Z"), 0.6)
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.fields) == ("counted", {"mark": ["Z"]}), result


@pytest.mark.parametrize("angle", [-40, 30])
def test_a_short_line_across_a_bubble_may_be_its_mark(scanner, angle):
    """D19 with R6: a 26 mm line across X that hardly leaves it (a slash? a stray stroke?), nothing
    else on X, a tick on Z: X blank (a vote for Z) or a slash through X (two marks) is for a person."""
    picture = P.printed(P.card("vote", 2, 5))
    P.pen(picture, _across(P.bubble("vote", "mark", "X"), 26, angle), 0.6)
    P.tick(picture, P.bubble("vote", "mark", "Z"), 0.6)
    result = scanner.scan_image(P.photo(picture))
    assert result.decision == "review", result


@pytest.mark.parametrize("size", [0.7, 0.8])
def test_a_stray_line_passing_a_marked_bubble_outside_it_leaves_its_mark_alone(scanner, size):
    """Bench seed 6 clean #90 (D19): a 33 mm line through cells 4 to 6 passing cell 3 outside its
    disc sent the card to review ("a line runs into 3 with a little ink beside it") though it takes
    none of cell 3's ink: cell 3's small tick (a definite mark) is judged as any mark; the card counts."""
    picture = P.printed(P.card("change", 1, 1))
    three, four, six = (P.bubble("change", "cell", v) for v in "346")
    r = size * three.r
    P.pen(picture, [(three.x - 0.6 * r, three.y), (three.x - 0.15 * r, three.y + 0.5 * r),
                    (three.x + 0.7 * r, three.y - 0.6 * r)], 0.4)
    P.tick(picture, P.bubble("change", "number", "11"), 0.5)
    P.pen(picture, [(four.x - 7, four.y - 3.5), (six.x + 8, six.y - 3.5)], 0.5)
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.fields) == ("counted", {"cell": ["3"], "number": ["11"]}), result


@pytest.mark.parametrize("k,width", [(1.55, 1.2), (1.65, 1.0)])
def test_a_thick_circle_round_a_bubble_is_no_line_through_it(scanner, k, width):
    """Bench seed 9 clean #325, seed 5 clean #304 (R6: ○で囲む): a thick pen circle well outside Y's
    ring left ink in the band round Y beyond its traced path, read as "a line runs through Y"; no
    straight line makes a circle's cover, so the circled Y counts."""
    picture = P.printed(P.card("vote", 2, 5))
    P.ring(picture, P.bubble("vote", "mark", "Y"), k, width_mm=width)
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.fields) == ("counted", {"mark": ["Y"]}), result


def test_a_stroke_followed_across_a_cards_marker_is_seen_only_where_its_ink_shows():
    """Bench seed 2 hard #365, seed 4 clean #182 (D19): a cross's arm on Line 1 was followed on across
    the card's corner marker (print hides ink there) and so taken for a line coming from well outside,
    its ink taken out of the cross ("a line runs into 1 with a little ink beside it"). What reaches
    beyond a bubble is the ink seen there: this one sits on the bubble; drawn on out, it does not.
    (Drawn as new ink on the rectified card: photos of the printed card do not make that stroke.)"""
    kind = "robbery"
    b = P.bubble(kind, "ordinal", "1")
    blank = print_everywhere(kind)
    start, end = np.array([b.x + 2.5, b.y - 2.5]), np.array([4.0, 86.0])        # end: on the marker
    assert _hidden(kind)[round(end[1] * PX), round(end[0] * PX)]
    u = (end - start) / np.linalg.norm(end - start)
    stroke = _Stroke(start * PX, u, 0.0, float(np.linalg.norm(end - start)) * PX, 0.5 * PX)
    for drawn_to, sits in ((start + 7.0 * u, True), (end, False)):       # ink in the bubble only / all along
        seen = np.zeros(blank.shape, np.float32)
        cv2.line(seen, tuple(np.rint(start * PX).astype(int)), tuple(np.rint(drawn_to * PX).astype(int)), 1.0, 3)
        m = Measured(seen, None, seen, seen)
        assert sits_on(stroke, b, m, kind) == sits, drawn_to


def _passing(b, off_r: float, angle_deg: float) -> list:
    """A 52 mm stray line passing off_r radii from a bubble's centre (most of it on one side)."""
    u = np.array([np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))])
    c = np.array([b.x, b.y]) + off_r * b.r * np.array([-u[1], u[0]])
    return [tuple(c - 40 * u), tuple(c + 12 * u)]


ROBBERY = {"robber_tens": "1", "robber_units": "4", "victim_tens": "1", "victim_units": "0", "ordinal": "6"}


@pytest.mark.parametrize("off,angle", [(0.2, 100), (0.5, 65), (0.5, 80), (0.8, 115)])
def test_a_stray_line_passing_a_blank_bubble_is_no_light_circle_round_it(scanner, off, angle):
    """Bench seed 5 clean #173, seed 4 clean #2 and 10 more (D19): a stray line passing a blank bubble
    crosses nearly half its rays; with a neighbour's circle on some more it read as faint ink all round,
    "a light pencil circle?". The line's rays are judged as those of a circle round another bubble:
    left out where enough others are free, on which there is no ink. Every row circled once: counted.
    (Since a faint circle is judged per ray by ink standing out of the paper on both sides, the line
    alone no longer reads as one even with those rays kept: `_drawn_round` may be redundant here.)"""
    picture = P.printed(P.card("robbery", 1, 3))
    for field, value in ROBBERY.items():
        P.ring(picture, P.bubble("robbery", field, value), 1.25)
    P.pen(picture, _passing(P.bubble("robbery", "ordinal", "5"), off, angle), 0.45)
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.fields) == ("counted", {f: [v] for f, v in ROBBERY.items()}), result


@pytest.mark.parametrize("off", [0.5, 0.8])
def test_a_light_pencil_circle_by_a_stray_line_is_still_seen(scanner, off, monkeypatch):
    """R6: a light pencil circle round Y (fainter than the noise the scores leave out) with a stray line
    passing it: its ink shows on the rays the line leaves free, so it is still a doubt, not a blank vote."""
    picture = P.printed(P.card("vote", 2, 5))
    y = P.bubble("vote", "mark", "Y")
    P.pencilled(picture, lambda canvas: P.ring(canvas, y, 1.3, width_mm=0.4, colour=(215,) * 3))
    P.pen(picture, _passing(y, off, 80), 0.45)
    seen = []
    drawn_round = D._drawn_round
    monkeypatch.setattr(D, "_drawn_round", lambda r: seen.append(r.lines is not None) or drawn_round(r))
    result = scanner.scan_image(P.photo(picture))
    assert result.decision == "review" and result.reason.startswith("faint ink all round Y"), result
    assert seen == [True]       # the line was found, and left out


@pytest.mark.parametrize("angle,shift", [(-35, 4.5), (20, -5.0), (110, 5.5)])
def test_a_lone_line_leaving_a_bubble_farther_than_a_marks_arm_is_no_mark(scanner, angle, shift):
    """Bench seed 1 clean #378, seed 5 clean #164 (D19, R6): a 26 mm stray line starting inside X's
    disc and going on 5-7 mm beyond it on one side, X holding no other ink, a tick on Z: "a line touches
    X" sent it to review. No mark's arm leaves a bubble that far (a cross's reaches a third of a
    radius), and no other arm is there: a straight line that long is no mark, Z counts."""
    picture = P.printed(P.card("vote", 2, 5))
    P.pen(picture, _across(P.bubble("vote", "mark", "X"), 26, angle, shift), 0.6)
    P.tick(picture, P.bubble("vote", "mark", "Z"), 0.6)
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.fields) == ("counted", {"mark": ["Z"]}), result


@pytest.mark.parametrize("arm", [5.0, 7.0])
def test_a_line_leaving_a_bubble_beside_a_short_stroke_is_still_a_doubt(scanner, arm):
    """D19 with R6: the same line leaving X, and a short stroke in X beside it (a tick's short arm
    under a long one? light ink of a mark?): X blank or marked is for a person, never read."""
    picture = P.printed(P.card("vote", 2, 5))
    x = P.bubble("vote", "mark", "X")
    P.pen(picture, _across(x, 26, -35, 4.5), 0.6)
    P.pen(picture, [(x.x - 3, x.y + 1), (x.x - 3 + 0.6 * arm, x.y + 1 + 0.8 * arm)], 0.4)
    P.tick(picture, P.bubble("vote", "mark", "Z"), 0.6)
    result = scanner.scan_image(P.photo(picture))
    assert result.decision == "review", result
