"""The card scanner on corrections (D18), stray pen lines, marks spilling into a neighbour and
glare: small generated cards, each once read wrongly or sent to review needlessly."""
import cv2
import numpy as np
import pytest

from vision import layouts as L
from vision.sim import drawn_cards as C
from vision.cards import Scanner
from vision.render import render

cv2.setNumThreads(1)
PEN = (25, 25, 25)


@pytest.fixture(scope="module")
def scanner():
    return Scanner(C.EVENT, C.SECRET)


def _card(kind: str, serial: str, turn: int = 0) -> np.ndarray:
    card = L.Card(kind, C.EVENT, serial, int(serial[1:3]), turn)
    return cv2.cvtColor(render(card, C.SECRET, C.RES, 1), cv2.COLOR_GRAY2BGR)


def _bubble(kind: str, name: str, value: str) -> L.Bubble:
    return next(b for b in L.layout(kind).field(name).bubbles if b.value == value)


def _photo(picture: np.ndarray, turn_deg: float = 4) -> np.ndarray:
    """The card on a table, a little turned, slightly soft, as a camera sees it."""
    h, w = picture.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), turn_deg, 0.85)
    m[:, 2] += (800 - w / 2, 600 - h / 2)
    photo = cv2.warpAffine(picture, m, (1600, 1200), flags=cv2.INTER_AREA, borderValue=(60, 90, 120))
    return cv2.GaussianBlur(photo, (0, 0), 0.6)


def _dot(picture, kind, name, value):
    C._mark(np.random.default_rng(1), picture, _bubble(kind, name, value), "dot", PEN)


def _circle(picture, kind, name, value, size: float = 0.8, width: float = 0.6):
    b = _bubble(kind, name, value)
    t = np.linspace(0, 2 * np.pi, 60)
    C._line(picture, list(zip(b.x + size * b.r * np.cos(t), b.y + size * b.r * np.sin(t))), PEN, width)


# --- D18: a scribbled-out bubble beside a mark ---------------------------------------------------
def test_a_scribbled_out_bubble_beside_a_mark_is_two_marks_invalid_under_r6(scanner):
    """D18: both bubbles are inked beyond doubt, so the card holds two marks: invalid (R6), not review."""
    picture = _card("vote", "V0103", 3)
    C._scribble(np.random.default_rng(2), picture, _bubble("vote", "mark", "X"), PEN)
    _circle(picture, "vote", "mark", "Y")
    result = scanner.scan_image(_photo(picture))
    read = result.decision, result.reason, result.fields
    assert read == ("invalid", "two marks (R6)", {"mark": ["X", "Y"]}), result
    assert result.command == {"do": "vote", "serial": "V0103", "turn": 3, "marks": ["X", "Y"]}


def test_a_scribble_beside_a_doubtful_mark_still_goes_to_review(scanner):
    """D18 only when both are definite: a faint pencil tick beside the scribble is a doubt."""
    picture = _card("vote", "V0103", 3)
    C._scribble(np.random.default_rng(2), picture, _bubble("vote", "mark", "X"), PEN)
    b = _bubble("vote", "mark", "Z")
    C._line(picture, [(b.x - 4, b.y), (b.x - 1.5, b.y + 3), (b.x + 4, b.y - 4)], (120, 120, 120), 0.35)
    result = scanner.scan_image(_photo(picture))
    assert result.decision == "review", result


# --- stray pen lines -----------------------------------------------------------------------------
def test_a_long_stray_line_through_blank_bubbles_is_no_mark(scanner):
    """A pen line across the card through Y and Z (and out beyond) once sent the card to review
    ("a line runs through"); its ink is taken out and the card reads X."""
    picture = _card("vote", "V0207", 7)
    _dot(picture, "vote", "mark", "X")
    C._line(picture, [(30.0, 44.0), (93.0, 53.0)], PEN, 0.5)
    result = scanner.scan_image(_photo(picture))
    assert (result.decision, result.fields) == ("counted", {"mark": ["X"]}), result
    assert result.scores["mark"]["Y"] < 0.3 and result.scores["mark"]["Z"] < 0.3, result.scores


def test_a_long_stray_line_ending_in_a_blank_bubble_is_no_mark(scanner):
    """The line comes from far across the card and stops inside Z: a long straight stroke is no mark."""
    picture = _card("vote", "V0207", 7)
    _circle(picture, "vote", "mark", "Y")
    C._line(picture, [(4.0, 70.0), (70.0, 47.0)], PEN, 0.5)
    result = scanner.scan_image(_photo(picture))
    assert (result.decision, result.fields) == ("counted", {"mark": ["Y"]}), result


def test_a_stray_line_through_the_marked_bubble_keeps_the_mark(scanner):
    picture = _card("exclusion", "E01004")
    _circle(picture, "exclusion", "ball", "14")
    C._line(picture, [(4.0, 57.0), (92.0, 49.0)], PEN, 0.45)     # through 10..18 and the circle round 14
    result = scanner.scan_image(_photo(picture, -3))
    assert (result.decision, result.fields) == ("counted", {"ball": ["14"]}), result


def test_a_short_stroke_through_a_bubble_is_still_a_doubt(scanner):
    """Shorter than a long stray line, a stroke across Y could be a mark (a slash): never dropped."""
    picture = _card("vote", "V0207", 7)
    _dot(picture, "vote", "mark", "X")
    b = _bubble("vote", "mark", "Y")
    C._line(picture, [(b.x - 9.5, b.y + 2), (b.x + 6.5, b.y - 1)], PEN, 0.5)
    result = scanner.scan_image(_photo(picture))
    assert result.decision == "review" or result.fields == {"mark": ["X", "Y"]}, result


# --- a mark spilling into its neighbour ----------------------------------------------------------
@pytest.mark.parametrize("kind,serial,name,value", [("exclusion", "E02011", "ball", "11"),
                                                     ("robbery", "R0302", "ordinal", "6")])
def test_a_big_circle_reaching_into_the_next_bubble_counts_where_its_ink_is(scanner, kind, serial, name, value):
    """A circle drawn wide round one bubble reaches into its neighbours' discs and bands: once
    read as a second mark or a line through them (review); scored by where the ink lies, the
    neighbour holds none of its own."""
    picture = _card(kind, serial)
    _circle(picture, kind, name, value, size=1.25, width=0.8)
    marks = {"robbery": {"robber_tens": "0", "robber_units": "3", "victim_tens": "1", "victim_units": "5"}}.get(kind, {})
    for field, v in marks.items():
        _dot(picture, kind, field, v)
    result = scanner.scan_image(_photo(picture))
    expected = {name: [value], **{f: [v] for f, v in marks.items()}}
    assert (result.decision, result.fields) == ("counted", expected), result


def test_a_second_mark_next_to_a_big_circle_is_still_read(scanner):
    """Spill is only ink where the neighbour's mark reaches: a dot in the neighbour's centre is a mark."""
    picture = _card("exclusion", "E02011")
    _circle(picture, "exclusion", "ball", "11", size=1.25, width=0.8)
    _dot(picture, "exclusion", "ball", "12")
    result = scanner.scan_image(_photo(picture))
    assert result.decision == "review" and result.fields == {"ball": ["11", "12"]}, result


# --- glare -----------------------------------------------------------------------------------------
def _glared(picture: np.ndarray, b: L.Bubble, strength: float) -> np.ndarray:
    """A soft bright spot centred on a bubble (washing its print out towards white)."""
    h, w = picture.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    spot = np.exp(-((xx - b.x * C.RES) ** 2 + (yy - b.y * C.RES) ** 2) / (2 * (2.2 * b.r * C.RES) ** 2))
    out = picture.astype(np.float32)
    out = out + (255 - out) * (strength * spot)[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("strength", [0.72, 0.8])
def test_partial_glare_over_a_blank_bubble_is_read_with_its_contrast_restored(scanner, strength):
    """At 0.8 the ring keeps under a third of its contrast: once "glare over bubble 22" (review)."""
    picture = _card("exclusion", "E03002")
    _dot(picture, "exclusion", "ball", "3")
    result = scanner.scan_image(_photo(_glared(picture, _bubble("exclusion", "ball", "22"), strength)))
    assert (result.decision, result.fields) == ("counted", {"ball": ["3"]}), result


@pytest.mark.parametrize("strength", [0.6, 0.72, 0.8])
def test_glare_over_a_faint_mark_is_still_a_doubt(scanner, strength):
    """A light tick under a glare that leaves the ring at 30-50 % of its contrast once read as
    blank (counted as ball 3 alone): with the contrast restored it shows."""
    picture = _card("exclusion", "E03002")
    _dot(picture, "exclusion", "ball", "3")
    b = _bubble("exclusion", "ball", "22")
    C._line(picture, [(b.x - 2.5, b.y), (b.x - 1, b.y + 2), (b.x + 2.5, b.y - 2.5)], (120, 120, 120), 0.35)
    result = scanner.scan_image(_photo(_glared(picture, b, strength)))
    assert result.decision == "review" and "glare over bubble 22" in result.reason, result


def test_glare_that_washes_a_bubble_out_is_a_doubt(scanner):
    picture = _card("exclusion", "E03002")
    _dot(picture, "exclusion", "ball", "3")
    result = scanner.scan_image(_photo(_glared(picture, _bubble("exclusion", "ball", "22"), 1.0)))
    assert (result.decision, result.reason) == ("review", "glare over bubble 22 (ball)"), result


# --- two corner markers covered --------------------------------------------------------------------
@pytest.mark.parametrize("seed", [4, 9])
def test_two_covered_markers_fall_back_to_the_outline_and_still_read(scanner, seed):
    """Fingers over two of the four markers: once rejected as "not a card"; the two markers seen and
    the printed outline fix the card, refined on the print around them."""
    picture = _card("vote", "V0105", 5)
    _circle(picture, "vote", "mark", "Z")
    C._finger(np.random.default_rng(seed), picture, 2)
    result = scanner.scan_image(_photo(picture, 17))
    assert (result.method, result.decision, result.fields) == ("outline", "counted", {"mark": ["Z"]}), result
