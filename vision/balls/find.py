"""Finding a ball in a camera frame, and the labels on its unrolled surface.

`find_balls` takes the round bright blobs of a ball's size against the dark surround, each with
its outline found at full resolution (the outline's size is what tells the ball's distance);
`label_spots` takes the QR-sized patches busiest with edges on an unrolled image of the ball.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import cv2
import numpy as np

from .. import ball_labels as labels

if TYPE_CHECKING:
    from .unroll import View

MAX_CANDIDATES = 5                 # labels tried per frame


@dataclass(frozen=True)
class Circle:
    x: float
    y: float
    r: float           # the outline's half minor axis (motion blur stretches the other one)
    rim: np.ndarray | None = field(default=None, compare=False, repr=False)   # points on the outline (x, y)
    roundness: float = field(default=0.0, compare=False)     # share of the outline on the fitted ellipse


MOST_BALLS = 3                     # round, ball-sized blobs looked at in one frame
DEFAULT_DISTANCE = (60.0, 250.0)   # mm, camera to ball centre: the rig's nearest and farthest


def ball_radius_px(view: "View", radius: float, distance: tuple[float, float]) -> tuple[float, float]:
    """The radius in pixels a ball of `radius` mm may show between `distance` mm (near, far),
    with room for the outline's error and a ball off the optical axis or cut by the frame."""
    near, far = distance
    return (0.8 * view.focal * radius / math.sqrt(far * far - radius * radius),
            1.2 * view.focal * radius / math.sqrt(max(near * near - radius * radius, 1.0)))


def find_balls(gray: np.ndarray, radius_px: tuple[float, float] = (25, 300), most: int = MOST_BALLS,
               doubtful: list | None = None) -> list[Circle]:
    """The round bright blobs of a ball's size against the dark surround (a matte black cradle
    or chute), largest first, each with points on its outline (`rim`) found at full resolution.
    A sticker sheet, a hand or a page is not round; a blob too big or too small for a ball at
    the rig's distances is not a ball either. `doubtful` collects what may be a ball whose
    outline is not seen well, never to be read as one: a ball-sized blob whose outline is only
    roughly round, or whose coarse blob is ragged (a dim ball), and whatever bright the frame's
    edge cuts off (`_cut_off`)."""
    scale = 4
    small = cv2.resize(gray, (gray.shape[1] // scale, gray.shape[0] // scale), interpolation=cv2.INTER_AREA)
    low, high = np.percentile(small, (50, 99.7))
    if high - low < 40:
        return []
    level = low + 0.4 * (high - low)
    mask = cv2.morphologyEx((small > level).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    min_r, max_r = radius_px
    found = []
    for i, contour in enumerate(contours):
        area = cv2.contourArea(contour) * scale * scale
        if area < math.pi * min_r * min_r * 0.3 or len(contour) < 6:
            continue
        points = contour.reshape(-1, 2).astype(np.float32)
        shape = _round(points, small.shape)
        ragged = shape is None
        if ragged:
            (x, y), r = cv2.minEnclosingCircle(points)
            shape = Circle(x, y, r)
        circle = Circle(shape.x * scale + (scale - 1) / 2, shape.y * scale + (scale - 1) / 2, shape.r * scale)
        # the coarse blob stops short of a ball's darker rim: its radius may be a quarter short
        if COARSE_SHORT * min_r <= circle.r <= max_r:
            found.append((area, i, circle, ragged))
    found.sort(key=lambda item: (item[3], -item[0]))        # round blobs first, largest first
    found = found[:most]
    blobs = np.zeros(small.shape[:2], np.int32)          # the candidates (not a ball's own fragments)
    for _, i, _, _ in found:
        cv2.drawContours(blobs, contours, i, i + 1, -1)
    grow = max(1, int(0.3 * min([circle.r for _, _, circle, _ in found] or [0]) / scale))
    balls, maybe = [], []
    for _, i, circle, ragged in found:
        fine = _refine(gray, circle, low, level, _others(blobs, i + 1, scale, grow))
        sized = min_r <= fine.r <= max_r
        if sized and not ragged and fine.roundness >= ROUND_MIN:
            balls.append(fine)
        elif sized and fine.roundness >= (RAGGED_ROUND_MIN if ragged else 0):
            maybe.append(fine)
    if doubtful is not None:
        doubtful += maybe + _cut_off(small, (low, high), radius_px, scale)
    return balls


def _cut_off(small: np.ndarray, low_high: tuple[float, float], radius_px: tuple[float, float],
             scale: int) -> list[Circle]:
    """Blobs brighter than the surround (a level low enough for a dimly lit ball) that run
    into the frame's edge, with at least the share of a ball a corner shows, along an arc of a
    ball's width, and with a ball's bright body in them: a ball rolling in at the corner, whose
    short, broken arc fits no circle well enough to be read (the arc of a sheet's edge is far
    wider; a lighter patch of a dim background where a dim ball sets the level low is far
    narrower, or as wide but barely brighter than the surround)."""
    min_r, max_r = radius_px
    low, high = low_high
    level = low + 0.2 * (high - low)
    mask = cv2.morphologyEx((small > level).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    h, w = small.shape[:2]
    found = []
    for contour in contours:
        x, y, cw, ch = cv2.boundingRect(contour)
        at_edge = x <= 0 or y <= 0 or x + cw >= w or y + ch >= h
        if not at_edge or cv2.contourArea(contour) * scale * scale < CUT_OFF_SHARE * math.pi * min_r * min_r:
            continue
        points = contour.reshape(-1, 2).astype(np.float32)
        inner = points[(points[:, 0] > 0) & (points[:, 0] < w - 1) & (points[:, 1] > 0) & (points[:, 1] < h - 1)]
        arc = _circle(inner) if len(inner) >= 6 else None
        if arc is not None and COARSE_SHORT * min_r <= arc[1][0] / 2 * scale <= max_r \
                and _bright_level(small, contour) >= low + CUT_OFF_BODY * (high - low):
            (cx, cy), (d, _), _ = arc
            found.append(Circle(cx * scale + (scale - 1) / 2, cy * scale + (scale - 1) / 2, d / 2 * scale))
    return found


def _bright_level(small: np.ndarray, contour: np.ndarray) -> float:
    """The level the brightest tenth of a blob reaches (a ball's lit body, not its dark stickers)."""
    inside = np.zeros(small.shape[:2], np.uint8)
    cv2.drawContours(inside, [contour], 0, 1, -1)
    return float(np.percentile(small[inside > 0], 90))


def _others(blobs: np.ndarray, own: int, scale: int, grow: int):
    """Is a full-resolution point (x, y) on or near (`grow` px of the small image: the blob stops
    short of a ball's darker rim) another candidate's blob than `own`, a second ball beside this
    one? So the outline of one ball is never taken from its neighbour."""
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
    foreign = cv2.dilate(((blobs > 0) & (blobs != own)).astype(np.uint8), disc).astype(bool)
    h, w = foreign.shape

    def test(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        return foreign[np.clip((ys / scale).astype(int), 0, h - 1), np.clip((xs / scale).astype(int), 0, w - 1)]
    return test


def find_ball(gray: np.ndarray, min_r: float = 25, max_r: float = 300) -> tuple[Circle | None, str]:
    """The largest ball-shaped blob (find_balls), or None and why."""
    found = find_balls(gray, (min_r, max_r), most=1)
    return (found[0], "ball found") if found else (None, "no ball in view")

ROUND_FILL = 0.8        # the coarse blob's convex hull overlaps its fitted ellipse this much (IoU)
ROUND_TOLERANCE = 0.05  # of the radius: how near the ellipse a point of the fine outline must lie
ROUND_MIN = 0.6         # of the fine outline's points on it (a ball's dark-printed rim takes the rest)
RAGGED_ROUND_MIN = 0.4  # a ragged blob with an outline this round may be a ball (never read as one)
COARSE_SHORT = 0.75     # the coarse blob's radius is at least this share of the ball's
CUT_OFF_SHARE = 0.15    # of a ball's area: what a ball cut off by the frame's corner shows at least
CUT_OFF_BODY = 0.5      # of the way from the surround to the brightest: where a cut-off ball's body reaches
APART = 0.8             # of the sum of two balls' radii: their centres are further apart (discs barely overlap)


def _round(points: np.ndarray, shape) -> Circle | None:
    """The coarse ellipse of a blob that may be a ball, or None. Judged on the convex hull: dark
    print at the rim bites into a ball's bright blob, and the lit side of a ball is brighter
    than its far side, so only a rough shape is asked of the coarse blob; where the frame's
    edge cuts the blob the outline says nothing and is left out."""
    hull = cv2.convexHull(points)
    on_hull = np.array([cv2.pointPolygonTest(hull, (float(x), float(y)), True) for x, y in points]) > -1.5
    h, w = shape[:2]
    rim = points[on_hull & (points[:, 0] > 1) & (points[:, 0] < w - 2) & (points[:, 1] > 1) & (points[:, 1] < h - 2)]
    if len(rim) < 8:
        return None
    for fit in (_ellipse, _circle):
        ellipse = fit(rim)
        if ellipse is None:
            continue
        (x, y), (a, b), _ = ellipse
        minor, major = sorted((a, b))
        if minor > 0 and minor / major >= 0.5 and _overlap(hull, ellipse, shape) >= ROUND_FILL:
            return Circle(float(x), float(y), float(minor / 2))
    return None


def _ellipse(points: np.ndarray):
    return cv2.fitEllipse(points) if len(points) >= 5 else None


def _circle(points: np.ndarray):
    """Least-squares circle (x^2 + y^2 = 2ax + 2by + c): steadier than an ellipse on a short arc."""
    x, y = points[:, 0].astype(float), points[:, 1].astype(float)
    (a, b, c), *_ = np.linalg.lstsq(np.stack([2 * x, 2 * y, np.ones_like(x)], -1), x * x + y * y, rcond=None)
    r2 = c + a * a + b * b
    return ((a, b), (2 * math.sqrt(r2), 2 * math.sqrt(r2)), 0.0) if r2 > 0 else None


def _overlap(hull: np.ndarray, ellipse, shape) -> float:
    """IoU, inside the frame, of the hull and the ellipse."""
    (x, y), (a, b), angle = ellipse
    if max(a, b) > 4 * max(shape[:2]):
        return 0.0
    blob, fitted = np.zeros(shape[:2], np.uint8), np.zeros(shape[:2], np.uint8)
    cv2.fillConvexPoly(blob, np.round(hull).astype(np.int32), 1)
    cv2.ellipse(fitted, ((float(x), float(y)), (float(a), float(b)), float(angle)), 1, -1)
    union = np.count_nonzero(blob | fitted)
    return np.count_nonzero(blob & fitted) / union if union else 0.0


def _fit(points: np.ndarray, shape, robust: bool = False) -> Circle | None:
    """An ellipse through the outline, leaving out where the frame's edge cuts the ball; robust:
    then again without points well inside it (a dark sticker at the rim hides the true edge).
    Its `roundness` is the share of the outline's points that lie on it."""
    points = points[_inside(points, shape)].astype(np.float32)
    every = points
    for _ in range(3 if robust else 1):
        if len(points) < 8:
            return None
        (x, y), (a, b), angle = cv2.fitEllipse(points)
        if min(a, b) <= 0:
            return None
        keep = _off_ellipse(points, (x, y), (a, b), angle) > -2.0
        if keep.all():
            break
        points = points[keep]
    minor, major = sorted((a, b))
    if major / minor > 2.5:
        return None
    on = np.abs(_off_ellipse(every, (x, y), (a, b), angle)) < max(2.0, ROUND_TOLERANCE * minor / 2)
    return Circle(float(x), float(y), float(minor / 2), roundness=float(on.mean()))


def _arc_fit(points: np.ndarray) -> Circle | None:
    circle = _circle(points)
    if circle is None:
        return None
    (x, y), (d, _), _ = circle
    on = np.abs(np.hypot(points[:, 0] - x, points[:, 1] - y) - d / 2) < max(2.0, ROUND_TOLERANCE * d / 2)
    return Circle(float(x), float(y), float(d / 2), roundness=float(on.mean()))


def _off_ellipse(points: np.ndarray, centre, axes, angle: float) -> np.ndarray:
    """Roughly how far (px, + outside) each point lies from the ellipse."""
    (x, y), (a, b), t = centre, axes, math.radians(angle)
    dx, dy = points[:, 0] - x, points[:, 1] - y
    u, v = dx * math.cos(t) + dy * math.sin(t), -dx * math.sin(t) + dy * math.cos(t)
    return (np.sqrt((u / (a / 2)) ** 2 + (v / (b / 2)) ** 2) - 1) * min(a, b) / 2


def _inside(points: np.ndarray, shape) -> np.ndarray:
    h, w = shape[:2]
    return (points[:, 0] > 4) & (points[:, 0] < w - 5) & (points[:, 1] > 4) & (points[:, 1] < h - 5)


RAYS, STEPS = 90, 64


def _refine(gray: np.ndarray, c: Circle, background: float, level: float, foreign=None) -> Circle:
    """The outline at full resolution: along rays from the coarse centre, the outermost point
    brighter than the surround and not on another blob (`foreign`). (The coarse mask cuts the
    ball's darker rim short, and the ball's size in the frame is what tells its distance.)"""
    angles = np.linspace(0, 2 * np.pi, RAYS, endpoint=False, dtype=np.float32)
    radii = np.linspace(0.5, 2.0, STEPS, dtype=np.float32) * c.r
    xs = c.x + np.cos(angles)[:, None] * radii[None, :]
    ys = c.y + np.sin(angles)[:, None] * radii[None, :]
    profile = cv2.remap(gray, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    h, w = gray.shape[:2]
    inside = (xs > 2) & (xs < w - 3) & (ys > 2) & (ys < h - 3)
    mid = background + 0.5 * (level - background)
    bright = (profile > mid) & inside
    if foreign is not None:              # a ray ends where it meets another candidate
        met = foreign(xs, ys)
        end = np.where(met.any(axis=1), np.argmax(met, axis=1), STEPS)
        bright &= np.arange(STEPS)[None, :] < end[:, None]
    last = STEPS - 1 - np.argmax(bright[:, ::-1], axis=1)
    rows = np.arange(RAYS)
    ok = bright[rows, last] & (last < STEPS - 1) & inside[rows, np.minimum(last + 1, STEPS - 1)]
    # between the last bright sample and the next one: where the threshold is crossed
    p0, p1 = profile[rows, last], profile[rows, np.minimum(last + 1, STEPS - 1)]
    frac = np.clip((p0 - mid) / np.maximum(p0 - p1, 1e-3), 0, 1)
    r = radii[last] + frac * (radii[1] - radii[0])
    rim = np.stack([c.x + np.cos(angles) * r, c.y + np.sin(angles) * r], -1)[ok]
    rim = rim[_inside(rim, gray.shape)]
    # the ellipse (motion blur stretches the ball) or, when it fits the outline better, a circle
    # (a short arc where the frame's edge cuts the ball; or where leaving out the points inside
    # led the ellipse astray); the rays reach 0.5 to 2 coarse radii
    fits = [f for f in (_fit(rim, gray.shape, robust=True) if len(rim) >= 12 else None,
                        _arc_fit(rim) if len(rim) >= 6 else None) if f is not None and 0.5 * c.r < f.r < 2 * c.r]
    if not fits:
        return Circle(c.x, c.y, c.r, rim, roundness=0.0)
    fit = max(fits, key=lambda f: f.roundness)
    return Circle(fit.x, fit.y, fit.r, rim, fit.roundness)


def _unit_disc(steps: int = 41) -> tuple[np.ndarray, np.ndarray]:
    """Points evenly over a disc of radius 1 (x, y), `steps` across."""
    ys, xs = np.mgrid[-1:1:steps * 1j, -1:1:steps * 1j]
    inside = xs * xs + ys * ys <= 1
    return xs[inside], ys[inside]


_UNIT_DISC = _unit_disc()


def share_in_view(circle: Circle, shape) -> float:
    """The share of the ball's disc inside an image of `shape` (a ball coming into view: less)."""
    h, w = shape[:2]
    x, y = circle.x + circle.r * _UNIT_DISC[0], circle.y + circle.r * _UNIT_DISC[1]
    return float(((x >= 0) & (x < w) & (y >= 0) & (y < h)).mean())


def apart_from(circles, ball: Circle) -> list[Circle]:
    """The circles far enough from `ball` to be a second ball: two balls' discs barely overlap.
    Nearer, one is a piece of the ball read (at a corner, the ball's own cut-off blob beside its
    outline fitted too wide)."""
    return [c for c in circles if math.hypot(c.x - ball.x, c.y - ball.y) > max(ball.r, APART * (ball.r + c.r))]



def label_spots(image: np.ndarray, ppm: float, design: labels.Design, most: int = MAX_CANDIDATES
                 ) -> list[tuple[float, float]]:
    """Centres of QR-sized patches busiest with module edges, nearest the middle (least
    foreshortened) first. Edges, not darkness, so light-on-dark labels are found too; a
    numeral or a sticker's rim is never as busy over a QR's area."""
    edges = cv2.morphologyEx(image, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)).astype(np.float32)
    qr_px = max(int(design.qr * ppm), 3)
    busy = cv2.boxFilter(edges, -1, (qr_px, qr_px))
    peaks = (busy >= cv2.dilate(busy, np.ones((qr_px, qr_px), np.uint8))) & (busy > 0.4 * busy.max())
    ys, xs = np.nonzero(peaks)
    middle = image.shape[0] / 2
    spots: list[tuple[float, float]] = []
    for i in np.argsort(np.hypot(xs - middle, ys - middle)):
        x, y = _plateau_centre(busy, int(xs[i]), int(ys[i]), qr_px)
        if all(math.hypot(x - a, y - b) > 0.6 * qr_px for a, b in spots):   # one per plateau
            spots.append((x, y))
            if len(spots) == most:
                break
    return spots


def _plateau_centre(busy: np.ndarray, x: int, y: int, size: int) -> tuple[float, float]:
    """The middle of the high ground around a peak: the peak itself leans towards the QR's
    busiest corner (its data, away from the finder squares)."""
    x0, y0 = max(x - size, 0), max(y - size, 0)
    window = busy[y0:y + size + 1, x0:x + size + 1]
    top = (window >= 0.8 * busy[y, x]).astype(np.uint8)
    _, label, _, centroids = cv2.connectedComponentsWithStats(top)
    cx, cy = centroids[label[y - y0, x - x0]]
    return float(cx + x0), float(cy + y0)
