"""Glare over part of a bubble, drawn on the printed PDF (tests/vision/printed_cards.py), guards for
any change that reviews fewer glare cards: a light pencil tick under the glare, beside a mark in
the same row, still goes to review (read as the one mark, a robbery would book the wrong player);
a circle drawn on or outside the ring under glare is never read blank."""
import cv2
import numpy as np
import pytest

import printed_cards as P

cv2.setNumThreads(1)
pytestmark = P.needs_poppler

MARKS = {"robber_tens": "0", "robber_units": "2", "victim_tens": "1", "victim_units": "1", "ordinal": "4"}
GLARED = P.bubble("robbery", "robber_units", "5")
PATCHES = [(0.0, 1.1), (0.0, 0.6), (0.8, 0.6), (0.0, -1.1)]     # the glare's centre from the bubble's, in radii


def _scan(scanner, patch, draw, marks=MARKS):
    """A robbery card marked with dots, a glare patch (4 mm, washing out to white) over part of
    robber_units 5 on a dimly lit card."""
    picture = P.printed(P.card("robbery", 3, 2))
    for name, value in marks.items():
        P.dot(picture, P.bubble("robbery", name, value))
    draw(picture)
    P.light(picture, 0.75, 0.6)
    P.glare(picture, (GLARED.x + patch[0] * GLARED.r, GLARED.y + patch[1] * GLARED.r), 4.0, 200)
    return scanner.scan_image(P.photo(picture))


def _tick(grey: int):
    b, r = GLARED, GLARED.r
    return lambda picture: P.pen(picture, [(b.x - 0.6 * r, b.y), (b.x - 0.15 * r, b.y + 0.5 * r),
                                           (b.x + 0.7 * r, b.y - 0.6 * r)], 0.3, (grey,) * 3)


@pytest.mark.parametrize("grey", [110, 150])
@pytest.mark.parametrize("patch", PATCHES)
def test_a_light_pencil_tick_under_glare_beside_a_mark_goes_to_review(scanner, patch, grey):
    """Read as robber_units 2 alone, the card would book robber 2, not a person's look (two marks)."""
    result = _scan(scanner, patch, _tick(grey))
    assert result.decision == "review", result


@pytest.mark.parametrize("k", [1.0, 1.25, 1.5])
@pytest.mark.parametrize("patch", PATCHES)
def test_a_circle_on_or_outside_the_ring_under_glare_is_not_read_blank(scanner, patch, k):
    """The circle (open by 60 degrees) is robber_units' only mark: read right or reviewed. Beside
    the dot at 2 it is a second mark: reviewed."""
    alone = _scan(scanner, patch, lambda picture: P.ring(picture, GLARED, k, gap_deg=60),
                  {name: v for name, v in MARKS.items() if name != "robber_units"})
    assert alone.decision == "review" or alone.fields["robber_units"] == ["5"], alone
    beside = _scan(scanner, patch, lambda picture: P.ring(picture, GLARED, k, gap_deg=60))
    assert beside.decision == "review", beside


# --- the restore sector by sector (decide._glare, measure.restored) --------------------------------
def _faint_ring(k: float, gap_deg: float):
    """A light pen circle (grey 120, 0.35 mm) round robber_units 5, open by gap_deg (centred on the right)."""
    return lambda picture: P.ring(picture, GLARED, k, gap_deg=gap_deg, colour=(120,) * 3, width_mm=0.35)


@pytest.mark.parametrize("patch", [(0.0, 1.1), (0.0, -1.1)])
def test_a_blank_bubble_under_part_of_a_glare_patch_is_read(scanner, patch):
    """Each sector of the ring gives its own contrast: restored, the blank paper stays blank (one
    gain from the whole ring over-amplified the print and noise: once a faint mark under it?)."""
    result = _scan(scanner, patch, lambda picture: None)
    assert (result.decision, result.fields["robber_units"]) == ("counted", ["2"]), result


def test_glare_washing_out_much_of_a_bubble_is_a_doubt(scanner):
    """Sectors washed out to white carry nothing to restore: with half its disc under them, the
    bubble cannot be read (restoring the rest finds it blank)."""
    result = _scan(scanner, (0.0, 0.6), lambda picture: None)
    assert (result.decision, result.reason) == ("review", "glare over bubble 5 (robber_units)"), result


@pytest.mark.parametrize("gap", [60, 200])
def test_a_light_pen_circle_on_the_ring_under_glare_is_a_doubt(scanner, gap):
    """The circle on the printed ring darkens it where the glare spares it: the ring's peak there
    is over ring_dark of the others' (its contrast restored, the print model would hide it)."""
    result = _scan(scanner, (0.0, 1.1), _faint_ring(1.0, gap))
    assert result.decision == "review" and "inked over" in result.reason, result


@pytest.mark.parametrize("patch", [(0.0, 1.1), (-1.1, 0.0)])
def test_a_light_circle_outside_the_ring_under_glare_is_a_doubt(scanner, patch):
    """Beyond the scored disc, too dim under glare to be found as a circle: restored, the ink round
    the bubble shows (read as robber_units 2 alone, the card would book the wrong robber)."""
    result = _scan(scanner, patch, _faint_ring(1.6, 200))
    assert result.decision == "review" and "glare over bubble 5" in result.reason, result


def test_a_ring_a_little_off_the_blank_is_no_glare(scanner):
    """A bubble's print shifted 0.3 mm (a local misfit, no glare): its ring's median falls, its peak
    does not. Read, not sent to review as glare."""
    picture = P.printed(P.card("robbery", 3, 2))
    for name, value in MARKS.items():
        P.dot(picture, P.bubble("robbery", name, value))
    x, y = P.px(GLARED.x, GLARED.y)
    reach = 1.6 * GLARED.r * P.PX_MM
    y0, y1, x0, x1 = int(y - reach), int(y + reach), int(x - reach), int(x + reach)
    picture[y0:y1, x0:x1] = np.roll(picture[y0:y1, x0:x1], 2, axis=1)
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.fields["robber_units"]) == ("counted", ["2"]), result


@pytest.mark.parametrize("patch, gap", [((0.6, 0.0), 60), ((-0.6, 0.0), 60), ((-0.42, -0.42), 60),
                                        ((-0.78, -0.78), 200), ((0.0, 0.0), 60), ((0.42, 0.42), 60)])
def test_a_light_pen_circle_on_the_ring_dimmed_by_glare_beside_a_mark_is_a_doubt(scanner, patch, gap):
    """Glare over much of the ring dims the circle with the print, its peak under ring_dark; yet
    where the glare leaves something the pen fills the ring's footprint (the print's thin line
    leaves most of it lighter than its peak). Read as robber_units 2 alone, the card would book
    the wrong robber (D2: a card read with low confidence is not counted)."""
    result = _scan(scanner, patch, _faint_ring(1.0, gap))
    assert result.decision == "review" and "inked over" in result.reason, result


@pytest.mark.parametrize("mark", [P.dot, P.tick])
def test_a_marked_bubble_a_little_off_the_blank_is_no_glare(scanner, mark):
    """A marked bubble's print shifted 0.4 mm (a local misfit, no glare): its ring's median falls
    under glare's share of the others', every sector's peak keeps. Read, not sent to review as glare."""
    picture = P.printed(P.card("robbery", 3, 2))
    for name, value in MARKS.items():
        (mark if name == "robber_units" else P.dot)(picture, P.bubble("robbery", name, value))
    marked = P.bubble("robbery", "robber_units", "2")
    x, y = P.px(marked.x, marked.y)
    reach = 1.6 * marked.r * P.PX_MM
    y0, y1, x0, x1 = int(y - reach), int(y + reach), int(x - reach), int(x + reach)
    patch = picture[y0:y1, x0:x1]
    picture[y0:y1, x0:x1] = cv2.warpAffine(patch, np.float32([[1, 0, 2.5], [0, 1, 0]]), patch.shape[1::-1],
                                           borderMode=cv2.BORDER_REPLICATE)
    result = scanner.scan_image(P.photo(picture))
    assert (result.decision, result.fields["robber_units"]) == ("counted", ["2"]), result


# --- a glare streak's halo (decide._halo) -------------------------------------------------------------
def _streak(picture: np.ndarray, centre_mm, angle_deg: float, width_mm: float, length_mm: float, strength: float):
    """A narrow specular streak: light added along a line through a card point, washing out at its heart."""
    across = P._distance_mm(picture, centre_mm, angle_deg)
    along = P._distance_mm(picture, centre_mm, angle_deg + 90)
    shine = strength * np.exp(-(across / width_mm) ** 2 / 2 - (along / length_mm) ** 2 / 2)
    picture[:] = np.clip(picture + shine[..., None], 0, 255).astype(np.uint8)


def _cross(picture: np.ndarray, b) -> None:
    r = b.r
    P.pen(picture, [(b.x - 0.8 * r, b.y - 0.8 * r), (b.x + 0.8 * r, b.y + 0.8 * r)])
    P.pen(picture, [(b.x - 0.8 * r, b.y + 0.8 * r), (b.x + 0.8 * r, b.y - 0.8 * r)])


@pytest.mark.parametrize("below, width, strength", [(0.35, 0.55, 160), (0.4, 0.3, 200)])
def test_a_glare_streaks_halo_over_a_blank_bubble_is_no_mark(scanner, below, width, strength):
    """A vote for Y, a glare streak (10 degrees) across X, `below` radii under its centre: the soft
    shade the streak leaves either side of it scores as a mark at X (0.7), and the card read invalid,
    two marks, would throw the vote away (8:hard:371). Its ring washed out in an arc, little of X's
    ink a stroke's: a person looks."""
    x = P.bubble("vote", "mark", "X")
    picture = P.printed(P.card("vote", 1, 3))
    _cross(picture, P.bubble("vote", "mark", "Y"))
    P.light(picture, 0.6, 0.5)
    _streak(picture, (x.x, x.y + below * x.r), 10, width, 25, strength)
    result = scanner.scan_image(P.photo(picture))
    assert result.decision == "review" or result.fields["mark"] == ["Y"], result
