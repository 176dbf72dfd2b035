"""Reading a ball in a camera frame: find the ball, flatten its labels with the sphere's
geometry, decode them.

A QR wrapped on a 40 mm ball defeats decoders on the raw frame: the curvature bends its
grid. Knowing the ball's size and the camera's field of view, the ball's outline gives its
centre in 3-D (sphere_fit); every point of the visible surface then maps to the camera. We
unroll the visible cap around the point facing the camera (keeping distances from it, as a
sticker pressed onto the ball does), find the QR-sized patches busiest with edges in it, and
unroll the ball again around each of them, so that label comes out flat and square for the
decoder; nearest the camera's line of sight first, up to MAX_CANDIDATES a frame. When none
reads, the first REPAIR_CANDIDATES get second chances: they are matched against the 27 printed
labels (vision.label_match: it names a label blurred past decoding), then a finder square that
glare washed out is drawn back and they are decoded again.

Decoders sit behind one interface (`backend(name)`): zxing-cpp (QR Model 2 only: the whole
QR family once returned Micro QR garbage), pyzbar, OpenCV. A text counts only if it is a
ball label with the right check digits (vision.ball_labels).

Motion blur: where the rig says which way balls fall through the view (`fall_deg`, the chute's
direction in the image), the streak's length along it is measured (vision.motion_blur) and a
streaked ball is read deblurred by that length (Wiener deconvolution with a line kernel), then
deblurred sharper; a ball with no clear streak is read as taken, then deblurred by a guessed
length. The ball's outline and centre are kept from the frame as taken.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from . import ball_labels as labels
from .label_match import match_label
from .label_match import prepare as prepare_matching
from .motion_blur import SHARPER_NOISE, blur_length, deblurred

DECODERS = ("zxing", "pyzbar", "opencv")
DEFAULT_DECODER = "zxing"          # fastest and most accurate in `companion bench balls`
DEFAULT_FOV = 62.2                 # degrees across the frame's width (Raspberry Pi camera v2)
OVERVIEW_DEG = 62.0                # how far from the facing point the overview unrolls
MAX_CANDIDATES = 5                 # labels tried per frame
OVERVIEW_SCALE = 0.5               # the finding view needs only half the camera's detail


class DecoderUnavailable(RuntimeError):
    pass


# --- decoders: image in, texts out ---

class Zxing:
    name = "zxing"
    px_per_mm = 12.0          # labels are unrolled this fine for it: 6.9 px modules
    margin_mm = 1.5           # and this much wider than the QR needs (measured: more helps it, not zbar)

    def __init__(self):
        import zxingcpp
        self._zx = zxingcpp
        # zxing-cpp 3.x: QRCode is the whole QR family; Model 2 is what we print
        self._format = getattr(zxingcpp.BarcodeFormat, "QRCodeModel2", zxingcpp.BarcodeFormat.QRCode)

    def decode(self, gray: np.ndarray) -> list[str]:
        found = self._zx.read_barcodes(gray, formats=self._format, try_rotate=True, try_invert=True,
                                       try_downscale=False)
        return [b.text for b in found if b.valid]


class Pyzbar:
    name = "pyzbar"
    px_per_mm = 8.0
    margin_mm = 0.0

    def __init__(self):
        try:
            from pyzbar import pyzbar
        except ImportError as error:      # pyzbar imports fine but raises when libzbar is absent
            raise DecoderUnavailable(f"pyzbar: the zbar system library is missing ({error}); "
                                     "install libzbar0") from None
        self._pz = pyzbar
        self._symbols = [pyzbar.ZBarSymbol.QRCODE]

    def decode(self, gray: np.ndarray) -> list[str]:
        # zbar wants crisp edges (a binarised copy helps a soft image) and dark-on-light codes
        for image in _variants(gray, binarise=True):
            found = self._pz.decode(image, symbols=self._symbols)
            if found:
                return [f.data.decode("ascii", "replace") for f in found]
        return []


class OpenCV:
    name = "opencv"
    px_per_mm = 8.0
    margin_mm = 0.0

    def __init__(self):
        # the classic detector: on a flattened label it reads far more than QRCodeDetectorAruco
        self._detector = cv2.QRCodeDetector()

    def decode(self, gray: np.ndarray) -> list[str]:
        for image in _variants(gray, binarise=False):
            try:
                text = self._detector.detectAndDecode(image)[0]
            except cv2.error:
                continue
            if text:
                return [text]
        return []


def _variants(gray: np.ndarray, binarise: bool):
    """The image, a binarised copy, then both inverted (light-on-dark labels); made only as needed."""
    yield gray
    sharp = None
    if binarise:
        block = max(int(min(gray.shape[:2]) / 4) | 1, 3)
        sharp = cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, 5)
        yield sharp
    yield 255 - gray
    if sharp is not None:
        yield 255 - sharp


BACKENDS = {"zxing": Zxing, "pyzbar": Pyzbar, "opencv": OpenCV}


def backend(name: str, fallback: bool = True, warn=print):
    """The named decoder; if it cannot load, say so in one line and use the default."""
    if name not in BACKENDS:
        raise ValueError(f"unknown decoder {name!r}; choose from {', '.join(DECODERS)}")
    try:
        return BACKENDS[name]()
    except DecoderUnavailable as error:
        if not fallback or name == DEFAULT_DECODER:
            raise
        warn(f"{error}; using {DEFAULT_DECODER} instead")
        return BACKENDS[DEFAULT_DECODER]()


# --- finding the ball ---

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


# --- the sphere's geometry ---

@dataclass(frozen=True)
class View:
    """A pinhole camera: focal length and principal point in pixels of the full frame."""
    focal: float
    cx: float
    cy: float

    @classmethod
    def of(cls, width: int, height: int, fov: float = DEFAULT_FOV) -> "View":
        return cls(width / 2 / math.tan(math.radians(fov) / 2), width / 2, height / 2)


def ball_centre(c: Circle, view: View, radius: float) -> np.ndarray:
    """The ball's centre (mm, camera coordinates) from its outline. Off the optical axis a sphere
    images as an ellipse whose centre lies outward of the centre's image; undo both effects."""
    dx, dy = (c.x - view.cx) / view.focal, (c.y - view.cy) / view.focal
    rho_e = math.hypot(dx, dy)                  # the outline centre's distance from the axis (tan units)
    b = c.r / view.focal
    theta = math.atan(rho_e)
    for _ in range(3):
        cos_t = math.cos(theta)
        sin_a = min(b * cos_t / math.sqrt(1 + b * b), 0.99)
        alpha = math.asin(sin_a)
        # the outline spans theta-alpha .. theta+alpha; its centre is halfway between their images
        mid = (math.tan(theta + alpha) + math.tan(theta - alpha)) / 2
        theta += math.atan(rho_e) - math.atan(mid)
    distance = radius / sin_a
    direction = np.array([math.sin(theta) * dx / rho_e if rho_e else 0.0,
                          math.sin(theta) * dy / rho_e if rho_e else 0.0, math.cos(theta)])
    return direction * distance


def sphere_fit(rim: np.ndarray, view: View, radius: float, origin=(0, 0)) -> np.ndarray | None:
    """The ball's centre from points on its outline: each is seen along a ray grazing the ball,
    at the same angle alpha from the centre's direction c, so ray . (c / cos alpha) = 1 for all
    of them: linear least squares, exact under perspective and fine with the frame's edge
    cutting the ball off. Points far off the fit (print at a dark rim, glare) are dropped."""
    if rim is None or len(rim) < 12:
        return None
    rays = np.stack([(rim[:, 0] + origin[0] - view.cx) / view.focal,
                     (rim[:, 1] + origin[1] - view.cy) / view.focal, np.ones(len(rim))], -1)
    rays /= np.linalg.norm(rays, axis=1, keepdims=True)
    keep = np.ones(len(rays), bool)
    for _ in range(3):
        w = np.linalg.lstsq(rays[keep], np.ones(int(keep.sum())), rcond=None)[0]
        norm = np.linalg.norm(w)
        if norm <= 1:
            return None
        c, alpha = w / norm, math.acos(1 / norm)
        off = np.arccos(np.clip(rays @ c, -1, 1)) - alpha          # radians outside (+) or inside (-)
        spread = 1.4826 * np.median(np.abs(off[keep])) + 1e-4
        new = np.abs(off) < 3 * spread
        if new.sum() < 12 or (new == keep).all():
            break
        keep = new
    return c * radius / math.sin(alpha)


def _basis(normal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Axes (x, then y down) of the flat image around outward `normal`. e1 x e2 points into the
    ball, as a camera's x x y points away from it: the label comes out as printed, not mirrored."""
    helper = np.array([0.0, 1.0, 0.0]) if abs(normal[1]) < 0.9 else np.array([1.0, 0.0, 0.0])
    e1 = np.cross(helper, normal)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(e1, normal)


@lru_cache(maxsize=64)
def _grid(size: int, half_angle: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For an unrolled square of `size` px spanning +-half_angle (radians of arc): each pixel's
    cos(rho), sin(rho)cos(phi), sin(rho)sin(phi) about the unrolling centre."""
    s = (np.arange(size, dtype=np.float32) + 0.5) / size * 2 - 1
    x, y = np.meshgrid(s * half_angle, s * half_angle)
    rho = np.hypot(x, y)
    safe = np.where(rho > 0, rho, 1)
    return (np.cos(rho).astype(np.float32), (np.sin(rho) * x / safe).astype(np.float32),
            (np.sin(rho) * y / safe).astype(np.float32))


def unroll(gray: np.ndarray, view: View, centre: np.ndarray, radius: float, normal: np.ndarray,
           half_mm: float, px_per_mm: float, origin=(0, 0), fill: int = 128) -> tuple[np.ndarray, tuple]:
    """The ball's surface around `normal` laid flat, distances from that point kept (the way a
    sticker lies on the ball). `origin` is where `gray` sits in the full frame (the ROI's corner);
    the far side of the ball, which the camera cannot see, comes out as `fill`.
    Returns the image and its frame (normal, e1, e2) for mapping points back onto the ball."""
    size = max(int(round(2 * half_mm * px_per_mm / 8)) * 8, 8)      # few sizes, so the grids are reused
    cos_r, sc, ss = _grid(size, round(half_mm / radius, 4))
    e1, e2 = _basis(normal)
    # each pixel's outward normal m, and its point on the ball, centre + radius * m
    m = [float(normal[i]) * cos_r + float(e1[i]) * sc + float(e2[i]) * ss for i in range(3)]
    cx, cy, cz = (float(v) for v in centre)
    r = float(radius)
    x, y, z = cx + r * m[0], cy + r * m[1], np.maximum(cz + r * m[2], 1e-3)
    hidden = (m[0] * cx + m[1] * cy + m[2] * cz) > -r          # facing away from the camera
    f = float(view.focal)
    map_x = f * x / z + float(view.cx - origin[0])
    map_y = f * y / z + float(view.cy - origin[1])
    map_x[hidden] = -1e4
    flat = cv2.remap(gray, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=fill)
    return flat, (normal, e1, e2)


def point_on_ball(frame: tuple, x_px: float, y_px: float, size: int, half_mm: float, radius: float) -> np.ndarray:
    """The outward normal at a pixel of an unrolled image."""
    normal, e1, e2 = frame
    x = ((x_px + 0.5) / size * 2 - 1) * half_mm / radius
    y = ((y_px + 0.5) / size * 2 - 1) * half_mm / radius
    rho = math.hypot(x, y)
    if rho == 0:
        return normal
    return math.cos(rho) * normal + math.sin(rho) * (x / rho * e1 + y / rho * e2)


# --- reading a frame ---

@dataclass
class FrameRead:
    ball: int | None               # the ball read, or None
    found: bool                    # a ball is in view
    why: str
    decoder: str
    ms: float = 0.0
    circle: Circle | None = None
    others: list[str] = field(default_factory=list)    # texts that were not ball labels
    conflict: tuple[int, ...] = ()                       # the balls read when several are in view
    matched: bool = False          # named by vision.label_match, not decoded
    alert: str = ""                # several balls in one frame: the operator must look, nothing is drawn

    def to_json(self) -> dict:
        return {"ball": self.ball, "found": self.found, "why": self.why, "decoder": self.decoder,
                "ms": round(self.ms, 2), "circle": None if self.circle is None else
                [round(self.circle.x, 1), round(self.circle.y, 1), round(self.circle.r, 1)],
                "others": self.others, "conflict": list(self.conflict),
                "matched": self.matched, "alert": self.alert}


@dataclass
class _BallRead:
    """What one ball-shaped candidate carried."""
    circle: Circle | None          # in the full frame
    texts: list[str]
    matched: bool

    @property
    def ball(self) -> int | None:
        return next((b for b in map(labels.parse_payload, self.texts) if b is not None), None)


class BallDecoder:
    """Frame in, FrameRead out. `roi` (x, y, w, h) is where the ball can be, set at calibration;
    `distance` (near, far) mm from the camera to the ball's centre is where a ball can be, so a
    blob of another size is not one."""

    def __init__(self, decoder: str = DEFAULT_DECODER, diameter: float = 40.0, fov: float = DEFAULT_FOV,
                 roi: tuple[int, int, int, int] | None = None, mode: str = "flatten", warn=print,
                 distance: tuple[float, float] = DEFAULT_DISTANCE, fall_deg: float | None = None):
        self.backend = backend(decoder, warn=warn)
        self.design = labels.Design(diameter)
        self.fov, self.roi, self.mode, self.distance = fov, roi, mode, tuple(distance)
        self.fall_deg = fall_deg           # balls move this way in the image (degrees, y down); None: unknown
        if not self.design.radius < self.distance[0] <= self.distance[1]:
            raise ValueError(f"ball distance {list(self.distance)} mm: near then far, both beyond the ball's "
                             f"radius ({self.design.radius:g} mm)")
        prepare_matching()
        if mode not in ("flatten", "raw"):
            raise ValueError(f"unknown mode {mode!r}")

    @property
    def name(self) -> str:
        return self.backend.name

    def twin(self) -> "BallDecoder":
        """Another decoder with the same settings, for a second decoding thread."""
        return BallDecoder(self.name, self.design.diameter, self.fov, self.roi, self.mode, warn=lambda _: None,
                           distance=self.distance, fall_deg=self.fall_deg)

    def read(self, image: np.ndarray) -> FrameRead:
        start = time.perf_counter()
        result = self._read(image)
        result.ms = (time.perf_counter() - start) * 1000
        return result

    def _read(self, image: np.ndarray) -> FrameRead:
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        view = View.of(gray.shape[1], gray.shape[0], self.fov)
        origin = (0, 0)
        if self.roi:
            x, y, w, h = self.roi
            x0, y0 = min(max(x, 0), gray.shape[1]), min(max(y, 0), gray.shape[0])
            gray, origin = gray[y0:max(y + h, y0), x0:max(x + w, x0)], (x0, y0)
            if min(gray.shape[:2]) < 32:
                return FrameRead(None, False, f"the region of interest {list(self.roi)} is (nearly) outside "
                                              "the frame", self.name)
        if self.mode == "raw":
            return self._verdict([_BallRead(None, self.backend.decode(gray), False)])
        doubtful: list[Circle] = []
        reads = []
        for circle in find_balls(gray, ball_radius_px(view, self.design.radius, self.distance), doubtful=doubtful):
            read = self._read_ball(gray, circle, view, origin)
            if read is None:            # round and ball-sized, its outline misjudged: still what may be a ball
                doubtful.append(circle)
            else:
                reads.append(read)
        return self._verdict(reads, [Circle(c.x + origin[0], c.y + origin[1], c.r) for c in doubtful])

    def _read_ball(self, gray, circle: Circle, view: View, origin) -> _BallRead | None:
        """The labels on one round blob; None when its outline puts it where no ball can be."""
        in_frame = Circle(circle.x + origin[0], circle.y + origin[1], circle.r)
        near, far = self.distance
        centre = sphere_fit(circle.rim, view, self.design.radius, origin)
        if centre is None or not 2 * self.design.radius < centre[2] < 100 * self.design.diameter:
            centre = ball_centre(in_frame, view, self.design.radius)
        if not 0.8 * near <= np.linalg.norm(centre) <= 1.2 * far:
            return None
        box = gray[max(int(circle.y - circle.r / 2), 0):int(circle.y + circle.r / 2),
                   max(int(circle.x - circle.r / 2), 0):int(circle.x + circle.r / 2)]
        fill = int(cv2.mean(box)[0])
        for image in self._sharpened(gray, circle):
            texts, matched = self._decode_surface(image, view, centre, origin, fill)
            if texts:
                break
        return _BallRead(in_frame, texts, matched)

    def _sharpened(self, gray: np.ndarray, circle: Circle):
        """The frame to read the ball in, then its second chance. Where the rig says which way
        balls fall: a ball streaked along it (vision.motion_blur measures the streak) is read
        deblurred by the streak's length, then deblurred sharper (less noise assumed: more
        ringing, which reads some labels the default leaves soft; as taken read almost none of
        them); one with no clear streak as taken, then deblurred by DEBLUR_GUESS_PX. Elsewhere,
        as taken only."""
        if self.fall_deg is None:
            yield gray
            return
        angle = math.radians(self.fall_deg)
        length = blur_length(gray, circle, angle)
        if length is None:
            yield gray
            yield deblurred(gray, circle, DEBLUR_GUESS_PX, angle)
        else:
            yield deblurred(gray, circle, length, angle)
            yield deblurred(gray, circle, length, angle, SHARPER_NOISE)

    def _decode_surface(self, gray, view: View, centre: np.ndarray, origin, fill: int) -> tuple[list[str], bool]:
        """Unroll the visible cap coarsely to find the labels, then each label at full detail,
        the one facing the camera most squarely first; then second chances for the first
        REPAIR_CANDIDATES. Returns the texts read and whether the ball was matched, not decoded.
        A label that decodes to a text that is not a ball label ends it: that is not one of our
        balls, and no blurred neighbour of that label is matched to one."""
        r = self.design.radius
        facing = -centre / np.linalg.norm(centre)
        native = view.focal / (np.linalg.norm(centre) - r)        # the camera's px per mm at the facing point
        half = r * math.radians(OVERVIEW_DEG)
        overview, frame = unroll(gray, view, centre, r, facing, half, native * OVERVIEW_SCALE, origin, fill)
        size = overview.shape[0]
        # any turn of the QR fits, and the overview's error in finding it (p90: 2 mm)
        label_half = self.design.qr * 0.5 * math.sqrt(2) + 2 * self.design.module + self.backend.margin_mm
        texts: list[str] = []
        ppm = self.backend.px_per_mm
        unread: list[np.ndarray] = []           # the labels as last unrolled, for second chances
        for x, y in _label_spots(overview, size / (2 * half), self.design):
            normal = point_on_ball(frame, x, y, size, half, r)
            for attempt in range(2):
                patch, patch_frame = unroll(gray, view, centre, r, normal, label_half, ppm, origin, fill)
                found = self.backend.decode(patch)
                texts += found
                if found:
                    return texts, False
                if attempt:
                    break
                # the overview is coarse: centre on the label as the patch shows it (found at a
                # third of the detail, which is plenty), and try again
                small = cv2.resize(patch, None, fx=1 / 3, fy=1 / 3, interpolation=cv2.INTER_AREA)
                spot = _label_spots(small, small.shape[0] / (2 * label_half), self.design, most=1)
                if not spot:
                    break
                x, y = ((v + 0.5) * patch.shape[0] / small.shape[0] - 0.5 for v in spot[0])
                if math.hypot(x - patch.shape[0] / 2, y - patch.shape[0] / 2) / ppm < 1.5 * self.design.module:
                    break
                normal = point_on_ball(patch_frame, x, y, patch.shape[0], label_half, r)
            unread.append(patch)
        module_px = self.design.module * ppm
        for patch in unread[:REPAIR_CANDIDATES]:
            ball = match_label(patch, module_px)
            if ball is not None:
                return texts + [labels.payload(ball)], True
        for patch in unread[:REPAIR_CANDIDATES]:
            for fixed in finder_restored(patch, module_px):
                found = self.backend.decode(fixed)
                texts += found
                if found:
                    return texts, False
        return texts, False

    def _verdict(self, reads: list[_BallRead], doubtful: list[Circle] = ()) -> FrameRead:
        """One ball named, or why not. Several round, ball-sized blobs are several balls in view
        (a second rolling into the tray): an alert, whatever they read, never a ball; so is a
        ball read beside a ball-sized blob whose outline could not be told (one cut off by the
        frame's corner, say) that is not a piece of the ball read."""
        others = [t for r in reads for t in r.texts if labels.parse_payload(t) is None]
        named = sorted({r.ball for r in reads if r.ball is not None})
        if not reads:
            return FrameRead(None, False, "no ball in view", self.name)
        circle = reads[0].circle
        if len(reads) > 1:
            what = f"balls {', '.join(map(str, named))} read" if named else "none read"
            why = f"{len(reads)} balls in view ({what})"
            return FrameRead(None, True, why, self.name, circle=circle, others=others, conflict=tuple(named),
                             alert=why)
        if len(named) > 1:
            return FrameRead(None, True, f"conflicting labels {named}", self.name, circle=circle, others=others,
                             conflict=tuple(named))
        if named and _apart_from(doubtful, circle):
            why = f"ball {named[0]} read beside what may be a second ball"
            return FrameRead(None, True, why, self.name, circle=circle, others=others, conflict=tuple(named),
                             alert=why)
        read = reads[0]
        if read.ball is not None:
            how = "read by matching (too blurred to decode)" if read.matched else "read"
            return FrameRead(read.ball, True, how, self.name, circle=circle, others=others, matched=read.matched)
        why = f"a code that is not a ball label: {others[0][:40]!r}" if others else "ball found, no label readable"
        return FrameRead(None, True, why, self.name, circle=circle, others=others)


def _apart_from(circles, ball: Circle) -> list[Circle]:
    """The circles far enough from `ball` to be a second ball: two balls' discs barely overlap.
    Nearer, one is a piece of the ball read (at a corner, the ball's own cut-off blob beside its
    outline fitted too wide)."""
    return [c for c in circles if math.hypot(c.x - ball.x, c.y - ball.y) > max(ball.r, APART * (ball.r + c.r))]


REPAIR_CANDIDATES = 2          # labels given second chances when nothing read
DEBLUR_GUESS_PX = 12.0         # the streak deblurred where none is measured: a chute's 8-15 px, halfway


def finder_restored(patch: np.ndarray, module_px: float):
    """The patch with a finder square drawn back where glare washed one out. With two of a
    QR's three finders seen, the third can only be in a few places (a version-1 code's finders
    are 14 modules apart); each is tried. A wrong guess breaks the code's error correction
    instead of reading another ball, so guessing costs time, never a misread."""
    finders = _finders(patch, module_px)
    if len(finders) != 2:
        return
    a, b = finders
    span = np.linalg.norm(b - a)
    side = labels.FINDER_SPACING * module_px
    if abs(span - side) < 0.2 * side:             # neighbours: the third is beside one of them
        step = b - a
        places = [p + s * np.array([-step[1], step[0]]) for p in (a, b) for s in (1, -1)]
        axis = step / span
    elif abs(span - side * math.sqrt(2)) < 0.2 * side * math.sqrt(2):    # across: a corner between
        half = (b - a) / 2
        places = [a + half + s * np.array([-half[1], half[0]]) for s in (1, -1)]
        axis = _turn((b - a) / span, math.pi / 4)
    else:
        return
    dark, light = (float(v) for v in np.percentile(patch, (3, 97)))
    core = float(patch[int(round(a[1])), int(round(a[0]))])
    if core > (dark + light) / 2:                  # a light-on-dark label: its finders' cores are light
        dark, light = light, dark
    for place in places:
        image = patch.copy()
        for modules, shade in ((9, light), (7, dark), (5, light), (3, dark)):
            _square(image, place, axis, modules * module_px, shade)
        yield image


def _finders(patch: np.ndarray, module_px: float) -> list[np.ndarray]:
    """Centres of finder squares: a dark ring holding a light ring holding a dark core."""
    block = int(4 * module_px) | 1
    ink = cv2.adaptiveThreshold(patch, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 4)
    contours, hierarchy = cv2.findContours(ink, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return []
    tree, found = hierarchy[0], []
    full = (7 * module_px) ** 2
    for i, contour in enumerate(contours):
        child = tree[i][2]
        if child < 0 or tree[child][2] < 0 or not 0.45 * full < cv2.contourArea(contour) < 1.8 * full:
            continue
        m = cv2.moments(contour)
        centre = np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]])
        if all(np.linalg.norm(centre - f) > 3 * module_px for f in found):
            found.append(centre)
    return found


def _turn(v: np.ndarray, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _square(image: np.ndarray, centre: np.ndarray, axis: np.ndarray, side: float, shade: float) -> None:
    u, v = axis * side / 2, _turn(axis, math.pi / 2) * side / 2
    corners = np.array([centre - u - v, centre + u - v, centre + u + v, centre - u + v])
    cv2.fillConvexPoly(image, np.round(corners * 16).astype(np.int32), int(shade), cv2.LINE_AA, shift=4)


def _label_spots(image: np.ndarray, ppm: float, design: labels.Design, most: int = MAX_CANDIDATES
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
