"""Reading a ball in a frame: the sphere's geometry, the flattening, decoders, ROI, fallbacks."""
import math

import cv2
import numpy as np
import pytest

from vision import ball_labels as bl
from vision.sim import balls as br
from vision import balls
from vision.balls import decode
from vision.sim import ball_sheet

RENDERER = br.Renderer()
VIEW = balls.View.of(640, 480)


def outline(centre, radius, angles):
    """Pixels on a sphere's silhouette: the rays that graze it."""
    c = centre / np.linalg.norm(centre)
    alpha = math.asin(radius / np.linalg.norm(centre))
    u = np.cross(c, [0, 1.0, 0])
    u /= np.linalg.norm(u)
    v = np.cross(c, u)
    rays = [math.cos(alpha) * c + math.sin(alpha) * (math.cos(a) * u + math.sin(a) * v) for a in angles]
    return np.array([[VIEW.focal * r[0] / r[2] + VIEW.cx, VIEW.focal * r[1] / r[2] + VIEW.cy] for r in rays])


@pytest.mark.parametrize("centre", [(0, 0, 100), (45, -30, 120), (-70, 40, 140)])
def test_the_centre_comes_back_from_the_outline_even_cut_off_and_off_axis(centre):
    centre = np.array(centre, float)
    whole = outline(centre, 20, np.linspace(0, 2 * np.pi, 90, endpoint=False))
    part = outline(centre, 20, np.linspace(0, 2 * np.pi / 3, 30))          # a third of the rim
    assert np.allclose(balls.sphere_fit(whole, VIEW, 20), centre, atol=1e-6)
    assert np.allclose(balls.sphere_fit(part, VIEW, 20), centre, atol=1e-6)
    noisy = whole + np.random.default_rng(1).normal(0, 0.3, whole.shape)
    assert np.linalg.norm(balls.sphere_fit(noisy, VIEW, 20) - centre) < 1.0


def test_unrolling_the_ball_around_a_sticker_gives_the_sticker_back_flat():
    look = br.plain_look(RENDERER, 17, seed=3)
    image = br.label_view(RENDERER, look, copy=4, off_axis_deg=30, seed=4)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    circle, why = balls.find_ball(gray)
    centre = balls.sphere_fit(circle.rim, VIEW, 20)
    assert np.linalg.norm(centre - [0, 0, 100]) < 1.0, why
    normal = _label_normal(copy=4, off_axis_deg=30, seed=4)       # the sticker's true normal
    flat, _ = balls.unroll(gray, VIEW, centre, 20, normal, 9.0, 12)
    assert balls.Zxing().decode(flat) == [bl.payload(17)]
    squeezed = cv2.resize(gray[140:340, 220:420], (200, 200))       # the same label, not flattened
    assert balls.Zxing().decode(squeezed) == []


def _label_normal(copy, off_axis_deg, seed):
    """Where label_view turns the sticker: re-derived from the same seeded steps."""
    rng = np.random.default_rng([seed, 5])
    face = br._align(RENDERER.centres[copy].astype(float), np.array([0.0, 0.0, -1.0]))
    tip = br.rotation(rng.normal(size=3) * [1, 1, 0], math.radians(off_axis_deg))
    return (tip @ face) @ RENDERER.centres[copy].astype(float)


@pytest.mark.parametrize("name", balls.DECODERS)
def test_each_decoder_reads_a_ball_resting_in_the_cradle(name):
    decoder = balls.BallDecoder(name)
    for ball in (3, 17, 26):
        look = br.plain_look(RENDERER, ball, seed=ball)
        result = decoder.read(br.label_view(RENDERER, look, copy=ball % 12, off_axis_deg=12, seed=ball))
        assert (result.ball, result.found, result.why) == (ball, True, "read")
        assert result.decoder == name and result.ms > 0


@pytest.mark.parametrize("distance, fall_deg", [(balls.DEFAULT_DISTANCE, None), (br.RIG_DISTANCE, 30.0)])
def test_a_decoder_warms_up_on_a_drawn_ball_through_the_whole_read(distance, fall_deg):
    """At start, not on the first ball going by: a drawn ball found, its label unrolled and read
    (in the chute, the way a streaked ball is read)."""
    warmed = balls.BallDecoder(distance=distance, fall_deg=fall_deg).warm()
    assert (warmed.ball, warmed.found) == (1, True), warmed.why


def test_a_frame_without_a_ball_says_so():
    image, _, truth = br.single_frame(RENDERER, seed=5, empty=True)
    result = balls.BallDecoder().read(image)
    assert truth["ball"] is None
    assert (result.ball, result.found, result.why) == (None, False, "no ball in view")


def test_light_codes_on_dark_stickers_are_read():
    look = br.plain_look(RENDERER, 9, seed=2)
    look.inverted = True
    image = br.label_view(RENDERER, look, copy=0, off_axis_deg=20, seed=2)
    for name in balls.DECODERS:
        assert balls.BallDecoder(name).read(image).ball == 9, name


def test_the_roi_limits_where_a_ball_is_looked_for_and_keeps_the_geometry():
    look = br.plain_look(RENDERER, 21, seed=6)
    pose = br.Pose("still", np.array([-60.0, 25.0, 110.0]), br.random_rotation(np.random.default_rng(6)))
    image, _, _ = RENDERER.frame(look, pose, 0.0, np.random.default_rng(7))
    u, v = RENDERER.camera.project(pose.centre0)
    assert balls.BallDecoder(roi=(max(int(u) - 130, 0), int(v) - 130, 260, 260)).read(image).ball == 21
    assert "outside the frame" in balls.BallDecoder(roi=(700, 0, 100, 100)).read(image).why
    elsewhere = balls.BallDecoder(roi=(400, 0, 240, 200)).read(image)
    assert (elsewhere.ball, elsewhere.found) == (None, False)


def test_a_qr_that_is_not_a_ball_label_is_named_and_not_read():
    import zxingcpp
    code = zxingcpp.write_barcode_to_image(zxingcpp.create_barcode("HELLO", zxingcpp.BarcodeFormat.QRCode), scale=6)
    frame = np.full((480, 640), 40, np.uint8)
    qr = np.asarray(code)
    frame[100:100 + qr.shape[0], 200:200 + qr.shape[1]] = qr
    cv2.circle(frame, (320, 240), 5, 255, -1)
    result = balls.BallDecoder(mode="raw").read(cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR))
    assert result.ball is None and result.others == ["HELLO"]
    assert "not a ball label" in result.why


def test_a_missing_zbar_library_is_said_in_one_line_and_zxing_takes_over(monkeypatch):
    def missing(self):
        raise balls.DecoderUnavailable("pyzbar: the zbar system library is missing (libzbar.so); install libzbar0")
    monkeypatch.setattr(balls.Pyzbar, "__init__", missing)
    said = []
    decoder = balls.BallDecoder("pyzbar", warn=said.append)
    assert decoder.name == "zxing"
    assert len(said) == 1 and "\n" not in said[0] and "libzbar0" in said[0] and "zxing" in said[0]
    with pytest.raises(balls.DecoderUnavailable):
        balls.backend("pyzbar", fallback=False)


def test_an_unknown_decoder_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="zxing, pyzbar, opencv"):
        balls.BallDecoder("tesseract")


def test_rendered_passes_are_the_same_frame_for_frame_whatever_the_order():
    a = br.render_pass(RENDERER, "chute", 60, 5, seed=11)
    b = br.render_pass(RENDERER, "chute", 60, 5, seed=11)
    last = len(a) - 1
    assert np.array_equal(a.shot(last).image, b.shot(last).image)       # b renders the last frame first
    assert np.array_equal(a.shot(0).image, b.shot(0).image)
    assert a.first_visible is not None and not a.visible[-1]            # it enters and leaves the view
    cradle = br.render_pass(RENDERER, "cradle", 30, 5, seed=11)
    assert cradle.visible[-1] and 20 <= len(cradle) <= 28               # it stays, for 0.7-0.9 s


@pytest.mark.parametrize("inverted", [False, True])
def test_a_finder_square_lost_to_glare_is_drawn_back_and_the_label_read(inverted):
    ppm = balls.Zxing.px_per_mm
    design = bl.Design()
    label = cv2.copyMakeBorder(ball_sheet.sticker_at(5, ppm, inverted), 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    turned = cv2.warpAffine(label, cv2.getRotationMatrix2D((label.shape[1] / 2, label.shape[0] / 2), 25, 1.0),
                            label.shape[::-1], borderValue=255)
    glare = turned.copy()
    corner = np.array(turned.shape[::-1]) / 2 + decode.rotated(np.array([-1.0, 1.0]), math.radians(-25)) * \
        (design.qr / 2 - 3.5 * design.module) * ppm                       # the bottom-left finder's centre
    cv2.circle(glare, tuple(int(v) for v in corner), int(4.5 * design.module * ppm), 250, -1)
    zxing = balls.Zxing()
    assert zxing.decode(turned) == [bl.payload(5)] and zxing.decode(glare) == []
    read = [zxing.decode(image) for image in balls.finder_restored(glare, design.module * ppm)]
    assert [bl.payload(5)] in read and all(texts in ([], [bl.payload(5)]) for texts in read)
