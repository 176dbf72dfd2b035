"""Frames made to test the ball reader where it can go wrong: a label blurred by a
chosen amount, and scenes that must name no wrong ball: a printed sticker sheet in view (alone,
and beside a ball), a hand or a page, two balls in the tray, balls whose stickers carry a QR
that is not a ball label, and balls with mirrored stickers. The sheet is the rasterised PDF of
`companion print balls` (vision.sim.ball_sheet), as the stickers are.

Each maker returns (BGR image, truth): truth["balls"] are the balls in view and
truth["may_name"] the balls the reader may name without being wrong.
"""
from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np

from . import ball_sheet
from . import balls as sim

SETS = ("sheet", "sheet beside a ball", "hand or page", "two balls", "not a ball label", "mirrored stickers")
BLUR_BANDS = ((0, 1), (2, 7), (8, 15))        # px, the bands the bench reports
SKIN = np.array([0.45, 0.55, 0.75], np.float32)   # BGR albedo
PAPER, INK = sim.PAPER, sim.INK


def blurred_frame(renderer: sim.Renderer, seed: int, blur_px: float) -> tuple[np.ndarray, dict]:
    """A ball somewhere in the frame moving so its surface smears by `blur_px` during the exposure."""
    rng = np.random.default_rng([seed, 20])
    ball = int(rng.integers(1, 28))
    depth = rng.uniform(CRADLE_OR_CHUTE[0], CRADLE_OR_CHUTE[1])
    pose, exposure = _moving(rng, renderer, _somewhere(rng, renderer, depth), blur_px)
    look = sim.random_look(rng, ball, renderer.camera, exposure, seed)
    image, _, visible = renderer.frame(look, pose, 0.0, rng)
    return image, {"balls": [ball] if visible else [], "may_name": {ball},
                   "blur": round(renderer.blur_px(look, pose, 0.0), 2)}


CRADLE_OR_CHUTE = (sim.CRADLE_DEPTH[0], sim.CHUTE_DEPTH[1])


def adversarial_frame(renderer: sim.Renderer, name: str, seed: int) -> tuple[np.ndarray, dict]:
    """One frame of the set `name` (one of SETS)."""
    rng = np.random.default_rng([seed, 21, SETS.index(name)])
    ball = int(rng.integers(1, 28))
    depth = rng.uniform(*CRADLE_OR_CHUTE)
    look = sim.random_look(rng, ball, renderer.camera, rng.uniform(*sim.CRADLE_EXPOSURE), seed)
    pose, others, truth = None, [], {"balls": [], "may_name": set()}
    if name == "sheet":
        _lay_sheet(look, renderer, rng, side=None)
    elif name == "sheet beside a ball":
        side = int(rng.choice([-1, 1]))
        _lay_sheet(look, renderer, rng, side=side)
        centre = _somewhere(rng, renderer, depth, side=-side)
        pose, look.exposure = _moving(rng, renderer, centre, rng.uniform(0, 12))
        truth = {"balls": [ball], "may_name": {ball}}
    elif name == "hand or page":
        (_lay_hand if rng.random() < 0.5 else _lay_page)(look, renderer, rng)
    elif name == "two balls":
        second = int(rng.choice([b for b in range(1, 28) if b != ball]))
        first_at = _somewhere(rng, renderer, depth) * [0.5, 0.5, 1]      # the tray's middle
        second_at = _apart(rng, renderer, first_at)
        pose = sim.Pose("still", first_at, sim.random_rotation(rng))
        rolling, _ = _moving(rng, renderer, second_at, rng.uniform(0, 6), look.exposure)
        other = replace(look, ball=second, body=sim.random_look(rng, second, renderer.camera, 0.001).body,
                        spins=rng.uniform(0, 2 * math.pi, len(look.spins)), cache={})
        others = [(other, rolling)]
        truth = {"balls": [ball, second], "may_name": set()}
    elif name == "not a ball label":
        look.forged = True
        pose, look.exposure = _moving(rng, renderer, _somewhere(rng, renderer, depth), rng.uniform(0, 12))
        truth = {"balls": [], "may_name": set()}
    elif name == "mirrored stickers":
        look.mirrored = True
        pose, look.exposure = _moving(rng, renderer, _somewhere(rng, renderer, depth), rng.uniform(0, 12))
        truth = {"balls": [ball], "may_name": {ball}}
    else:
        raise ValueError(f"unknown set {name!r}")
    look.inverted = look.inverted and not look.forged       # forged sheets are printed dark-on-light
    image, _, _ = renderer.frame(look, pose, 0.0, rng, others=others)
    return image, truth


def _somewhere(rng, renderer: sim.Renderer, depth: float, side: int | None = None) -> np.ndarray:
    """A centre at `depth` with the whole ball in view (on the left or right half if `side`)."""
    cam, r = renderer.camera, renderer.design.radius
    half_w = (cam.width / 2 / cam.focal * depth) - 1.2 * r
    half_h = (cam.height / 2 / cam.focal * depth) - 1.2 * r
    x = rng.uniform(-half_w, half_w) if side is None else side * rng.uniform(0.35, 1.0) * half_w
    return np.array([x, rng.uniform(-half_h, half_h), depth])


def _apart(rng, renderer: sim.Renderer, first: np.ndarray) -> np.ndarray:
    """A second ball's centre beside the first (not touching it), most of it in view."""
    cam, r = renderer.camera, renderer.design.radius
    for _ in range(100):
        angle = rng.uniform(0, 2 * math.pi)
        gap = rng.uniform(2.3, 3.2) * r
        second = first + np.array([gap * math.cos(angle), gap * math.sin(angle), rng.uniform(-8, 8)])
        u, v = cam.project(second)
        margin = 0.5 * cam.focal * r / second[2]
        if margin < u < cam.width - margin and margin < v < cam.height - margin:
            return second
    return second


def _moving(rng, renderer: sim.Renderer, centre: np.ndarray, blur_px: float,
            exposure: float | None = None) -> tuple[sim.Pose, float]:
    """A ball at `centre` at t=0 rolling through it, and the exposure that smears it by `blur_px`."""
    speed = rng.uniform(500, 1500)
    angle = rng.uniform(0, 2 * math.pi)
    roll = rng.uniform(0.3, 1.2)                       # of the rolling turn rate
    pose = sim.Pose("chute", centre, sim.random_rotation(rng), {
        "v0": speed, "accel": 0.0, "dir": np.array([math.cos(angle), math.sin(angle), 0.0]),
        "spin_axis": rng.normal(size=3), "spin": speed / renderer.design.radius * roll})
    mm = blur_px * centre[2] / renderer.camera.focal
    # the surface moves by the travel plus the turn: speed (1 + roll) per second
    return pose, (exposure if exposure is not None else max(mm / (speed * (1 + roll)), 1e-6))


def _lay_sheet(look: sim.Look, renderer: sim.Renderer, rng, side: int | None) -> None:
    """Printed stickers in view: half the time a sheet (part of a page of the PDF, turned and
    tilted a little, lit unevenly, as near as the ball or on the table beyond), else stickers
    cut from it lying loose in the tray."""
    if rng.random() < 0.5:
        _lay_loose_stickers(look, renderer, rng, side)
    else:
        _lay_page_of_stickers(look, renderer, rng, side)


def _lay_loose_stickers(look: sim.Look, renderer: sim.Renderer, rng, side: int | None) -> None:
    cam = renderer.camera
    px_per_mm = cam.focal / rng.uniform(*CRADLE_OR_CHUTE)
    stickers = ball_sheet.printed(renderer.design)["stickers"]
    canvas = np.full((cam.height, cam.width), -1.0, np.float32)
    taken: list[tuple[float, float]] = []
    side_px = int(renderer.design.sticker * px_per_mm)
    for _ in range(int(rng.integers(2, 7))):
        sticker = stickers[int(rng.integers(1, 28))].astype(np.float32) / 255
        small = cv2.resize(sticker, (side_px, side_px), interpolation=cv2.INTER_AREA)
        turn = cv2.getRotationMatrix2D((side_px / 2, side_px / 2), rng.uniform(0, 360), 1.0)
        small = cv2.warpAffine(small, turn, (side_px, side_px), borderValue=1.0)
        x_lo, x_hi = (0, cam.width - side_px) if side is None else \
            ((cam.width // 2 + 20, cam.width - side_px) if side > 0 else (0, cam.width // 2 - 20 - side_px))
        x, y = int(rng.uniform(x_lo, x_hi)), int(rng.uniform(0, cam.height - side_px))
        if any(abs(x - a) < side_px and abs(y - b) < side_px for a, b in taken):
            continue
        taken.append((x, y))
        yy, xx = np.mgrid[0:side_px, 0:side_px]
        disc = np.hypot(xx - side_px / 2, yy - side_px / 2) < side_px / 2
        canvas[y:y + side_px, x:x + side_px][disc] = small[disc]
    _lay(look, canvas, rng)


def _lay_page_of_stickers(look: sim.Look, renderer: sim.Renderer, rng, side: int | None) -> None:
    pages = ball_sheet.printed(renderer.design)["pages"]
    page = pages[int(rng.integers(len(pages)))].astype(np.float32) / 255
    cam = renderer.camera
    # on the tray's floor, or on the table beyond it: from as near as the ball to three times as far
    px_per_mm = cam.focal / rng.uniform(CRADLE_OR_CHUTE[0], 3 * CRADLE_OR_CHUTE[1]) / ball_sheet.SHEET_PX_PER_MM
    turn = rng.uniform(-0.4, 0.4)
    a = px_per_mm * np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    # a page point among the stickers goes to a point of the frame (the left or right side)
    src = np.array([rng.uniform(0.2, 0.8) * page.shape[1], rng.uniform(0.25, 0.8) * page.shape[0]])
    x = cam.width * (rng.uniform(0.2, 0.8) if side is None else (0.5 + 0.32 * side))
    dst = np.array([x, rng.uniform(0.3, 0.7) * cam.height])
    h = np.eye(3)
    h[:2, :2], h[:2, 2] = a, dst - a @ src
    h[2, :2] = rng.uniform(-1, 1, 2) * 2e-5                      # a little tilt
    if side is not None:                                        # keep it to its side of the frame
        _clip_to_side(page, h, cam, side)
    _lay(look, cv2.warpPerspective(page, h, (cam.width, cam.height), flags=cv2.INTER_AREA, borderValue=-1.0), rng)


def _clip_to_side(page: np.ndarray, h: np.ndarray, cam: sim.Camera, side: int) -> None:
    """Move the sheet so it ends short of the frame's middle (its edge a tenth of the way in)."""
    corners = np.array([[0, 0, 1], [page.shape[1], 0, 1], [0, page.shape[0], 1], [page.shape[1], page.shape[0], 1]], float)
    xs = (corners @ h.T)[:, 0] / (corners @ h.T)[:, 2]
    edge = xs.min() if side > 0 else xs.max()
    want = cam.width * (0.6 if side > 0 else 0.4)
    shift = np.eye(3)
    shift[0, 2] = want - edge
    h[:] = shift @ h


def _lay(look: sim.Look, grey: np.ndarray, rng) -> None:
    """Paper (grey, 1 white; < 0 where there is none) into the scene's light: albedo times light."""
    here = grey >= 0
    cam_h, cam_w = grey.shape
    yy, xx = np.mgrid[0:cam_h, 0:cam_w].astype(np.float32)
    g = rng.uniform(-1, 1, 2) / max(cam_w, cam_h)
    light = rng.uniform(0.55, 1.0) * (1 + 0.4 * (g[0] * (xx - cam_w / 2) + g[1] * (yy - cam_h / 2)))
    albedo = INK + (PAPER - INK) * np.clip(grey, 0, 1)
    look.background[here] = (albedo * light)[here][:, None] * np.ones(3, np.float32)


def _lay_page(look: sim.Look, renderer: sim.Renderer, rng) -> None:
    """A page of notes (white, lines of dark text) lying in view."""
    cam = renderer.camera
    w, h = rng.uniform(180, 420), rng.uniform(140, 320)
    page = np.full((int(h), int(w)), 1.0, np.float32)
    for y in range(14, int(h) - 10, 16):
        x = 12
        while x < w - 30:
            word = int(rng.uniform(10, 40))
            cv2.rectangle(page, (x, y), (min(x + word, int(w) - 12), y + 7), 0.1, -1)
            x += word + 8
    _lay(look, _placed(page, cam, rng), rng)


def _lay_hand(look: sim.Look, renderer: sim.Renderer, rng) -> None:
    """A hand reaching into the view: a palm and four fingers, skin-coloured."""
    cam = renderer.camera
    size = rng.uniform(150, 300)
    shape = np.zeros((int(2.2 * size), int(1.6 * size)), np.uint8)
    cx = shape.shape[1] / 2
    cv2.ellipse(shape, (int(cx), int(1.5 * size)), (int(0.45 * size), int(0.55 * size)), 0, 0, 360, 1, -1)
    for k in range(4):
        x = int(cx - 0.36 * size + k * 0.24 * size)
        cv2.rectangle(shape, (x, int(0.35 * size)), (x + int(0.17 * size), int(1.3 * size)), 1, -1)
    placed = _placed(shape.astype(np.float32), cam, rng, fill=-1.0)
    here = placed > 0.5
    light = rng.uniform(0.6, 1.0)
    look.background[here] = SKIN * light


def _placed(image: np.ndarray, cam: sim.Camera, rng, fill: float = -1.0) -> np.ndarray:
    """`image` turned and moved to a random place in the frame (fill where it is not)."""
    turn = rng.uniform(0, 360)
    m = cv2.getRotationMatrix2D((image.shape[1] / 2, image.shape[0] / 2), turn, 1.0)
    m[:, 2] += [rng.uniform(0, cam.width) - image.shape[1] / 2, rng.uniform(0, cam.height) - image.shape[0] / 2]
    return cv2.warpAffine(image, m, (cam.width, cam.height), flags=cv2.INTER_LINEAR, borderValue=fill)
