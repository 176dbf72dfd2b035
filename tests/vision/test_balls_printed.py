"""Ball labels as printed: the PDF of `companion print balls`, rasterised by poppler, is what the
renderer wraps and what an unrolled label must look like, the right way round."""
import math

import cv2
import numpy as np
import pytest

from companion.cli import main
from vision import ball_labels as bl
from vision import balls
from vision.sim import ball_sheet
from vision.sim import balls as sim

DESIGN = bl.Design()
VIEW = balls.View.of(640, 480)
PPM = 12.0


@pytest.fixture(scope="module")
def printed_sticker(tmp_path_factory):
    """Ball 17's first sticker: `companion print balls`, pdftoppm, cut along its cut circle."""
    pdf = tmp_path_factory.mktemp("print") / "balls.pdf"
    assert main(["print", "balls", "--out", str(pdf)]) == 0
    pages = ball_sheet.rasterise(pdf.read_bytes(), ball_sheet.PX_PER_MM)
    place = next(p for p in bl.sheet_places(DESIGN) if p.ball == 17 and p.copy == 0)
    return ball_sheet.cut(pages[place.page], place, DESIGN, ball_sheet.PX_PER_MM)


def photograph_head_on(sticker: np.ndarray, centre=(0.0, 0.0, 100.0), radius=20.0) -> np.ndarray:
    """The sticker pressed onto a ball at the point facing the camera, upright as the camera
    sees it (its x along the image's x, its y down the image), photographed by a pinhole
    camera: a sphere model written here, apart from both the reader's and the renderer's."""
    c = np.array(centre)
    yy, xx = np.mgrid[0:480, 0:640].astype(float)
    d = np.stack([(xx + 0.5 - VIEW.cx) / VIEW.focal, (yy + 0.5 - VIEW.cy) / VIEW.focal, np.ones_like(xx)], -1)
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    b = d @ c
    disc = b * b - (c @ c - radius ** 2)
    hit = disc > 0
    t = b - np.sqrt(np.where(hit, disc, 0))
    m = (d * t[..., None] - c) / radius                         # outward normal at each hit
    rho = np.arccos(np.clip(-m[..., 2], -1, 1))                # arc from the facing point (0, 0, -1)
    across = np.hypot(m[..., 0], m[..., 1]) + 1e-12
    x_mm, y_mm = radius * rho * m[..., 0] / across, radius * rho * m[..., 1] / across
    ppm, half = ball_sheet.PX_PER_MM, sticker.shape[0] / 2
    grey = cv2.remap(sticker.astype(np.float32), (x_mm * ppm + half - 0.5).astype(np.float32),
                     (y_mm * ppm + half - 0.5).astype(np.float32), cv2.INTER_LINEAR, borderValue=200)
    image = np.where(hit, grey * 0.9 + 10, 20)
    return np.clip(image, 0, 255).astype(np.uint8)


def best_correlation(image: np.ndarray, sticker: np.ndarray, angles) -> float:
    """The best normalised correlation of `image` with `sticker` turned by any of `angles`."""
    target = cv2.resize(sticker, image.shape[::-1], interpolation=cv2.INTER_AREA).astype(np.float32)
    mask = _disc(image.shape[0], 0.42)
    best = -1.0
    for angle in angles:
        turn = cv2.getRotationMatrix2D((image.shape[1] / 2 - 0.5, image.shape[0] / 2 - 0.5), angle, 1.0)
        turned = cv2.warpAffine(target, turn, image.shape[::-1], borderValue=255)
        a, b = image.astype(np.float32)[mask], turned[mask]
        a, b = a - a.mean(), b - b.mean()
        best = max(best, float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-9)))
    return best


def _disc(size: int, fraction: float) -> np.ndarray:
    yy, xx = np.mgrid[0:size, 0:size]
    return np.hypot(xx - (size - 1) / 2, yy - (size - 1) / 2) < fraction * size


def test_a_head_on_sticker_unrolls_to_the_upright_printed_sticker(printed_sticker):
    photo = photograph_head_on(printed_sticker)
    flat, _ = balls.unroll(photo, VIEW, np.array([0.0, 0.0, 100.0]), 20.0, np.array([0.0, 0.0, -1.0]),
                           DESIGN.sticker / 2, PPM)
    quarter_turns = (0, 90, 180, 270)
    upright = best_correlation(flat, printed_sticker, quarter_turns)
    mirrored = best_correlation(flat, np.fliplr(printed_sticker), quarter_turns)
    assert upright > 0.8 and upright - mirrored > 0.25, (upright, mirrored)


def test_the_renderer_wraps_the_printed_sticker_the_right_way_round(printed_sticker):
    renderer = sim.Renderer(DESIGN)
    look = sim.plain_look(renderer, 17, seed=3)
    frame = cv2.cvtColor(sim.label_view(renderer, look, copy=0, off_axis_deg=0, seed=4), cv2.COLOR_BGR2GRAY)
    # the facing point is the frame's middle; near it the ball shows the sticker nearly flat
    px_per_mm = VIEW.focal / (100.0 - 20.0)
    side = int(round(DESIGN.sticker * px_per_mm)) // 2 * 2
    crop = frame[240 - side // 2:240 + side // 2, 320 - side // 2:320 + side // 2]
    every_degree = range(0, 360, 1)
    upright = best_correlation(crop, printed_sticker, every_degree)
    mirrored = best_correlation(crop, np.fliplr(printed_sticker), every_degree)
    assert upright > 0.8 and upright - mirrored > 0.3, (upright, mirrored)


def test_the_sheets_are_the_same_bytes_every_time(tmp_path):
    """The test world caches rasters by the writer's code and inputs: it must be deterministic."""
    first, second = tmp_path / "a.pdf", tmp_path / "b.pdf"
    for path in (first, second):
        bl.write_pdf(path, DESIGN)
    assert first.read_bytes() == second.read_bytes()


def test_the_cached_sticker_is_the_one_companion_print_balls_prints(printed_sticker):
    assert np.array_equal(ball_sheet.sticker(17, DESIGN), printed_sticker)


def test_every_printed_sticker_is_cut_round_its_cut_circle_and_decodes():
    stickers = ball_sheet.printed(DESIGN)["stickers"]
    decoder = balls.Zxing()
    for ball in bl.BALLS:
        assert decoder.decode(stickers[ball]) == [bl.payload(ball)]
    assert math.isclose(stickers[1].shape[0], DESIGN.sticker * ball_sheet.PX_PER_MM, abs_tol=1)
