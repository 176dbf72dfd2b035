"""Light before ink: a soft shadow (a hand's fingers, a phone, light falling off steeply) across
bubbles left blank is never ink (measure.ink's paper level follows darkening softer than SHADE.edge
per mm), drawn on the printed PDF (tests/vision/printed_cards.py). The classes of the shadow corpus
(vision/sim/shadow_cards.py, `companion bench cards --corpus shadows`): each comes out right or goes
to review, never a silent miscount."""
import cv2
import numpy as np
import pytest

import fingertip_glare_sweep
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


def _looped(depth: float, half: float = 0.6, width: float = 0.4) -> np.ndarray:
    """A vote card with Z filled, its scribble running on in one loop `depth` of a radius into Y's disc."""
    picture = P.printed(P.card("vote", 3, 4))
    P.dot(picture, Z, 0.8)
    reach = Z.x - Y.x - (1 - depth) * Y.r
    t = np.linspace(0, 2 * np.pi * 0.9, 40)
    P.pen(picture, list(zip(Z.x - reach / 2 * (1 - np.cos(t)), Z.y + half * Z.r * np.sin(t))), width)
    return picture


@pytest.mark.parametrize("depth", [0.7, 0.85])
def test_a_scribbles_loose_loop_deep_into_a_neighbour_is_not_its_mark(scanner, depth):
    """The loop 0.7 (or 0.85) of a radius into Y's disc, near its middle but turning back before it: Z's vote
    (sent to review as marks_joined while a loop reaching CIRCLES.middle radii of Y's centre was taken for a
    mark of its own; before marks_joined, `invalid: two marks`, a vote lost)."""
    result = scanner.scan_image(P.photo(_looped(depth)))
    assert (result.decision, result.fields) == ("counted", {"mark": ["Z"]}), result


def test_a_scribbles_loop_past_a_neighbours_middle_is_not_one_vote(scanner):
    """A loop on past Y's middle (1.3 radii into its disc) is Y's ink too: never Z's vote alone."""
    result = scanner.scan_image(P.photo(_looped(1.3)))
    assert result.decision == "review" or (result.decision, result.fields) == ("invalid", {"mark": ["Y", "Z"]}), result


@pytest.mark.parametrize("depth,width", [(0.3, 0.4), (0.4, 0.8)])
def test_a_scribbles_loose_loop_at_a_neighbours_side_is_the_fills_ink(scanner, depth, width):
    """The loop only at Y's side, far from its middle: one stroke with Z's fill, Y's ink is Z's mark running
    on (decide.run_on): Z's vote (sent to review as marks_joined before, every loop of the shadow corpus)."""
    result = scanner.scan_image(P.photo(_looped(depth, width=width)))
    assert (result.decision, result.fields) == ("counted", {"mark": ["Z"]}), result


def test_a_mark_joined_to_a_fill_by_a_stroke_stays_a_mark(scanner):
    """A tick in Y (past its middle, away from Z) whose stroke runs on into Z's fill: two marks joined, never Z's
    vote (decide.run_on takes only ink on Z's side of Y's centre for Z's running on)."""
    picture = P.printed(P.card("vote", 3, 4))
    P.dot(picture, Z, 0.8)
    P.pen(picture, [(Y.x - 0.6 * Y.r, Y.y), (Y.x - 0.15 * Y.r, Y.y + 0.5 * Y.r), (Z.x, Z.y)], 0.5)
    result = scanner.scan_image(P.photo(picture))
    assert result.decision == "review" or (result.decision, result.fields) == ("invalid", {"mark": ["Y", "Z"]}), result


@pytest.mark.parametrize("k,grey", [(1.5, 150), (1.0, 150), (0.97, 140)])
def test_a_light_thin_circle_beside_a_fill_is_a_second_mark(scanner, k, grey):
    """A filled X and a light, thin circle round Z: two marks (R6: invalid), or review; never X's vote
    (counted as X's before the faint circle was measured against the other bubbles read blank only; one
    drawn on the printed ring, before its ring was measured by its ink across it alone: the ring's median
    hardly darkens, against a typical ring that counted Z's own)."""
    picture = P.printed(P.card("vote", 3, 4))
    P.dot(picture, X, 0.8)
    P.pencilled(picture, lambda canvas: P.ring(canvas, Z, k, width_mm=0.25, colour=(grey,) * 3))
    result = scanner.scan_image(P.photo(picture))
    assert result.decision == "review" or (result.decision, result.fields) == ("invalid", {"mark": ["X", "Z"]}), result


def _grainy(picture: np.ndarray, light: float = 0.35, noise: float = 6.0, quality: int = 40, blur: float = 0.7
            ) -> np.ndarray:
    """The photo as a phone over a table takes it: underexposed, with coarser grain and a rougher JPEG (the
    bench's hard tier)."""
    grains = np.random.default_rng(1).normal(0, noise, (1200, 1600, 1))
    taken = np.clip(P.photo(picture, blur=blur).astype(np.float32) * light + grains, 0, 255).astype(np.uint8)
    return cv2.imdecode(cv2.imencode(".jpg", taken, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)


@pytest.mark.parametrize("k,grey,blur", [(1.3, 205, 0.7), (1.6, 205, 0.7), (1.3, 210, 2.0)])
def test_a_light_thin_circle_beside_a_fill_on_a_grainy_photo_is_a_second_mark(scanner, k, grey, blur):
    """A filled X and a light pencil circle round Z, one pixel wide, on a grainy photo: two marks, or review;
    never X's vote. Counted as X's before: the darkest ink on each of Z's rays was the grain's as often as the
    circle's (round Y too), so Z's was not 4 times Y's. A line stands out of the paper on both sides along a
    ray and runs on from ray to ray; grain does neither (circles._lines). Lighter and softer (a blurred photo), a
    line 0.033 darker than round Y was held under faint 0.035 (as a light circle on an exclusion card, 0.034)."""
    picture = P.printed(P.card("vote", 3, 4))
    P.dot(picture, X, 0.8)
    P.pencilled(picture, lambda canvas: P.ring(canvas, Z, k, width_mm=0.25, colour=(grey,) * 3))
    result = scanner.scan_image(_grainy(picture, blur=blur))
    assert result.decision == "review" or (result.decision, result.fields) == ("invalid", {"mark": ["X", "Z"]}), result


@pytest.mark.parametrize("over,angle", [(X, 110), (Z, 80)])
def test_a_hand_shadow_on_a_grainy_photo_is_no_mark(scanner, over, angle):
    """A finger's soft shadow over a blank bubble of a grainy photo: grain made its soft outline look steep
    (the darkest and brightest of a few pixels differ by the noise), so the shadow was taken for a fill's
    inside and read as a mark (here sent to review as a line through it; on the bench's hard tier also
    `invalid: two marks`, a vote lost). The slope is measured now, not the spread of a few pixels."""
    picture = P.printed(P.card("vote", 3, 4))
    P.tick(picture, Y)
    P.shadow(picture, P.finger((over.x, over.y), angle, 11), depth=0.45, soft_mm=1.4)
    result = scanner.scan_image(_grainy(picture))
    assert (result.decision, result.fields) == ("counted", {"mark": ["Y"]}), result


@pytest.mark.parametrize("corner,angle,soft,depth", [((32.7, 48.1), 100, 0.9, 0.5), ((32.7, 48.1), 116, 0.6, 0.35),
                                                     ((31.0, 48.0), 100, 0.9, 0.35)])
def test_a_phones_sharp_corner_beside_a_blank_bubble_is_no_second_mark(scanner, corner, angle, soft, depth):
    """A phone's corner in sharp-edged shade just beside X, a crossed Z, a grainy photo: the paper window's
    closing rounds the shade's corner off, and the soft light cannot follow its steep edge, so a sliver along
    the edge was left darker than its paper, ringed by steep edges only because the edge runs beside it, and
    taken for a fill's inside: `invalid: two marks`, a vote lost. Its outline on the shaded side is no brighter
    than itself: a fill's rises out of it all round. Z's vote, or review."""
    picture = P.printed(P.card("vote", 3, 4))
    for sign in (1, -1):
        P.pen(picture, [(Z.x - 0.6 * Z.r, Z.y - sign * 0.6 * Z.r), (Z.x + 0.6 * Z.r, Z.y + sign * 0.6 * Z.r)], 0.5)
    P.shadow(picture, P.phone(corner, angle), depth=depth, soft_mm=soft)
    result = scanner.scan_image(_grainy(picture))
    assert result.decision == "review" or (result.decision, result.fields) == ("counted", {"mark": ["Z"]}), result


@pytest.mark.parametrize("voted,radius", [(None, 2.0), (Y, 1.5)])
def test_glare_at_a_hand_shadows_tip_is_no_mark(scanner, voted, radius):
    """A finger's shadow over X with a glare spot at its tip, on a dim card: the soft light followed the glare
    (brighter than any paper) down into the shade, so the shade beside it read as ink: a blank card counted as
    X, a vote for Y made `invalid: two marks`. The glare keeps its own paper level but spreads none."""
    picture = P.printed(P.card("vote", 3, 4))
    P.light(picture, 0.55, 0.55)
    if voted:
        P.ring(picture, voted, 1.2)
    P.shadow(picture, P.finger((X.x, X.y), 90, 12), depth=0.5, soft_mm=1.6)
    P.glare(picture, (X.x - 1, X.y - 6), radius, 200)
    result = scanner.scan_image(P.photo(picture))
    want = ("counted", {"mark": ["Y"]}) if voted else ("invalid", {"mark": []})
    assert result.decision == "review" or (result.decision, result.fields) == want, result


@pytest.mark.parametrize("over,angle", [(Y, 60), (Z, 90)])
def test_a_sharp_hand_shadow_round_a_blank_bubble_is_no_circle(scanner, over, angle):
    """A finger's shadow with a sharp edge (0.6 mm, steeper than SHADE.edge) ending in a blank bubble beside a
    vote: its edge is left as ink round the fingertip, which crosses most of the bubble's rays and was taken for
    a circle (`invalid: two marks`, a vote lost). The edge runs on off the `circle` farther than any mark reaches
    (circles._runs_off): a line touches it, review."""
    picture = _voted_x()
    P.shadow(picture, P.finger((over.x, over.y), angle, 12), depth=0.5, soft_mm=0.6)
    result = scanner.scan_image(P.photo(picture))
    assert result.decision == "review" or (result.decision, result.fields) == ("counted", {"mark": ["X"]}), result


@pytest.mark.parametrize("light,width,at", [(0.55, 13, (0, -4)), (0.7, 10, (-2, -3)), (0.55, 10, (0, -2.5))])
def test_a_glare_spot_in_a_blank_bubble_at_a_fingertip_is_no_mark(scanner, light, width, at):
    """A glare spot on a blank bubble's ring or inside it, at the tip of a finger's shadow: the glare's tail
    (under the glare ceiling) spread its light into the shade round it, which read as ink steep against it: a
    blank card counted as X. Light before ink: near glare the soft light starts from the darkest paper
    within half LIGHT.line_mm (glare is brightness without ink's edges, the shade beside it no ink)."""
    picture = P.printed(P.card("vote", 3, 4))
    P.light(picture, light, light)
    P.shadow(picture, P.finger((X.x, X.y), 90, width), depth=0.5, soft_mm=1.6)
    P.glare(picture, (X.x + at[0], X.y + at[1]), 1.5, 250)
    result = scanner.scan_image(P.photo(picture))
    assert result.decision == "review" or (result.decision, result.fields) == ("invalid", {"mark": []}), result


@pytest.mark.parametrize("light,width,at,radius,strength,voted", [
    (0.55, 8, (0, 0), 1.0, 200, None), (0.55, 8, (0, 0), 1.0, 200, Y), (0.7, 10, (0, -1), 1.5, 250, None),
    (0.85, 13, (-1, 0), 1.5, 250, Y), (0.95, 8, (0, 0), 1.0, 250, None), (0.55, 8, (0, -1), 1.0, 80, None),
    (1.0, 13, (0, -1), 1.5, 250, None), (1.0, 13, (0.5, -0.5), 1.5, 160, Y), (1.0, 8, (0, 0), 1.5, 250, Y)])
def test_glare_in_the_middle_of_a_blank_bubble_at_a_fingertip_is_no_mark(scanner, light, width, at, radius,
                                                                          strength, voted):
    """A glare spot in a blank bubble's middle, at a fingertip in shade: the shade round the spot read as a
    light mark there (a blank card counted as X; beside a vote for Y, `invalid: two marks`). The spot is
    brighter than any paper on the card, or white as the camera sees in a photo lit near white
    (measure.glare_on), and the mark mostly fainter than a stroke: glare's halo, held for the operator. A
    fainter spot (80 over the shade) is no glare, but the shade round it is no light mark: its outline rises
    steeply on the spot's side only (measure.steep_outline). Where the paper is at the camera's white no glare
    shows, and the shade read a definite mark (0.63-1.14): its outline is as soft, held for the operator
    (`soft_mark`). (fingertip_glare_sweep.py draws the whole class.)"""
    assert not fingertip_glare_sweep.silent(scanner, light, width, at, radius, strength, voted)
