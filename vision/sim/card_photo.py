"""Taking the picture of a marked card: a flat-bed scan, a good phone photo, or a phone over a table.

The phone is a pinhole camera looking at the card in 3-D: tilted up to 35°, close enough for real
perspective, the paper curling up from an edge. Then the light (uneven, a hand's shadow, glare
patches that wash out to white), the optics (defocus, motion blur up to 3 px), sensor noise, JPEG.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from .. import layouts as L
from .card_deck import RES

PHOTO_SIZE = (1600, 1200)
GRID = 8                  # the photo-to-card map is solved every GRID pixels, then interpolated


def take(rng, card: np.ndarray, hard: bool) -> tuple[np.ndarray, dict]:
    """The image the scanner gets (before JPEG) and how it was taken."""
    if not hard and rng.random() < 0.35:
        return scan(rng, card)
    return photo(rng, card, hard)


def scan(rng, card: np.ndarray, lowest_jpeg: int = 75):
    """A document scanner: flat, even light, fed any way round, 150-300 dpi, stored as PNG or JPEG."""
    dpi = rng.uniform(150, 300)
    scale = dpi / 25.4 / RES
    angle = float(rng.choice([0, 90, 180, 270]) + rng.normal(0, 2.0))
    h, w = card.shape[:2]
    out_w, out_h = int(w * scale * 1.25), int(h * scale * 1.25)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    m[:, 2] += (out_w / 2 - w / 2, out_h / 2 - h / 2)
    bed = int(rng.integers(225, 250))
    image = cv2.warpAffine(card, m, (out_w, out_h), flags=cv2.INTER_AREA, borderValue=(bed, bed, bed))
    image = optics(rng, image.astype(np.float32), gauss=rng.uniform(0.2, 0.8))
    image = sensor(rng, image, rng.uniform(0.5, 2.5), 0.0)
    jpeg = None if rng.random() < 0.3 else int(rng.integers(lowest_jpeg, 96))
    return image, {"how": "scan", "dpi": round(dpi), "angle": round(angle, 1), "jpeg": jpeg}


def photo(rng, card: np.ndarray, hard: bool):
    W, H = PHOTO_SIZE
    pose = _pose(rng, hard)
    curl = _curl(rng) if hard and rng.random() < 0.5 else None
    map_x, map_y, shade, scale = _photo_map(pose, curl, card.shape[:2])
    small = cv2.resize(card, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else card
    sx, sy = small.shape[1] / card.shape[1], small.shape[0] / card.shape[0]
    seen = cv2.remap(small.astype(np.float32), (map_x + 0.5) * sx - 0.5, (map_y + 0.5) * sy - 0.5, cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    inside = cv2.remap(np.ones(small.shape[:2], np.float32), (map_x + 0.5) * sx - 0.5, (map_y + 0.5) * sy - 0.5,
                       cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)[..., None]
    seen *= shade[..., None] * inside
    image = cv2.add(seen, table(rng, W, H) * (1 - inside))
    capture = {"how": "photo", "tilt": round(pose["tilt"], 1), "spin": round(pose["spin"], 1),
               "extent": round(pose["extent"]), "curl": curl and round(curl["lift"], 1)}
    on_card = _project(pose, curl, rng.uniform(0, 1, (3, 2)) * (L.CARD_W, L.CARD_H))     # where glare may fall
    image = light(rng, image, hard, capture, list(on_card))
    if hard:
        defocus, motion = rng.uniform(0, 1.5), rng.uniform(0, 3.0)
        image = optics(rng, image, gauss=rng.uniform(0.3, 0.7), defocus=defocus, motion=motion)
        capture |= {"defocus": round(defocus, 2), "motion": round(motion, 2)}
        noise, jpeg = rng.uniform(2, 7), int(rng.integers(40, 91))
    else:
        gauss = rng.uniform(0, 0.8)
        image = optics(rng, image, gauss=gauss)
        capture["blur"] = round(gauss, 2)
        noise, jpeg = rng.uniform(1, 3), int(rng.integers(75, 96))
    image = sensor(rng, image, noise, 1.5 if hard else 0.0)
    return image, capture | {"noise": round(noise, 1), "jpeg": jpeg}


# --- geometry ---------------------------------------------------------------------------------------
def _pose(rng, hard: bool) -> dict:
    W, H = PHOTO_SIZE
    tilt = rng.uniform(0, 35 if hard else 12)
    spin = rng.uniform(0, 360)
    extent = rng.uniform(0.45, 0.85) * H
    focal = rng.uniform(0.9, 1.4) * W
    axis = rng.uniform(0, 2 * math.pi)
    ux, uy = math.cos(axis), math.sin(axis)
    K = np.array([[0, 0, uy], [0, 0, -ux], [-uy, ux, 0]])
    t = math.radians(tilt)
    R = np.eye(3) + math.sin(t) * K + (1 - math.cos(t)) * K @ K
    s = math.radians(spin)
    R = R @ np.array([[math.cos(s), -math.sin(s), 0], [math.sin(s), math.cos(s), 0], [0, 0, 1]])
    pose = {"tilt": tilt, "spin": spin, "extent": extent, "focal": focal, "R": R,
            "T": np.array([0.0, 0.0, focal * L.CARD_W / extent])}
    card = np.array([[0, 0], [L.CARD_W, 0], [L.CARD_W, L.CARD_H], [0, L.CARD_H]])
    corners = _project(pose, None, card)
    crowded = np.max((corners.max(axis=0) - corners.min(axis=0)) / (np.array([W, H]) - 40))
    if crowded > 1:                  # turned so its diagonal does not fit: the phone steps back
        pose["T"][2] *= crowded
        pose["extent"] /= crowded
        corners = _project(pose, None, card)
    low, high = corners.min(axis=0), corners.max(axis=0)
    room = np.maximum(0, np.array([W, H]) - (high - low) - 40)
    shift = (np.array([W, H]) - high - low) / 2 + rng.uniform(-0.5, 0.5, 2) * room
    pose["T"] = pose["T"] + np.array([*(shift * pose["T"][2] / focal), 0.0])
    return pose


def _curl(rng) -> dict:
    """The paper lifting from one edge: the last `length` mm bend up over a cylinder."""
    angle = rng.uniform(0, 2 * math.pi)
    length, lift = rng.uniform(10, 30), rng.uniform(1, 8)
    bend = min(1.0, 2 * lift / length)          # the angle the edge ends at (lift ~ length x bend / 2)
    radius = length / bend
    return {"axis": np.array([math.cos(angle), math.sin(angle)]), "length": length, "radius": radius,
            "lift": radius * (1 - math.cos(bend)), "shade": rng.uniform(-0.35, 0.15)}


def _lifted(curl: dict | None, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Card points (mm, N x 2) -> 3-D points on the curled paper (card-centred) and each point's slope angle."""
    centred = p - np.array([L.CARD_W / 2, L.CARD_H / 2])
    z = np.zeros(len(p))
    slope = np.zeros(len(p))
    if curl:
        a = curl["axis"]
        half = np.abs(np.array([L.CARD_W, L.CARD_H]) @ np.abs(a)) / 2
        s = np.clip(centred @ a - (half - curl["length"]), 0, None)
        slope = s / curl["radius"]
        centred = centred + np.outer(curl["radius"] * np.sin(slope) - s, a)
        z = curl["radius"] * (1 - np.cos(slope))
    return np.column_stack([centred, -z]), slope, z


def _project(pose: dict, curl: dict | None, p: np.ndarray) -> np.ndarray:
    W, H = PHOTO_SIZE
    points, _, _ = _lifted(curl, p)
    camera = points @ pose["R"].T + pose["T"]
    return camera[:, :2] * pose["focal"] / camera[:, 2:3] + np.array([W / 2, H / 2])


def _photo_map(pose: dict, curl: dict | None, card_shape) -> tuple:
    """For every photo pixel, the card raster pixel it shows (x, y), the paper's shading there, and the
    raster scale worth sampling at."""
    W, H = PHOTO_SIZE
    corners_mm = np.array([[0, 0], [L.CARD_W, 0], [L.CARD_W, L.CARD_H], [0, L.CARD_H]], np.float64)
    flat = cv2.getPerspectiveTransform(_project(pose, None, corners_mm).astype(np.float32), corners_mm.astype(np.float32))
    gy, gx = np.mgrid[0:H + GRID:GRID, 0:W + GRID:GRID].astype(np.float64)
    q = np.column_stack([gx.ravel(), gy.ravel()])
    target = _apply(flat, q)
    p = target.copy()
    for _ in range(4 if curl else 0):        # solve project(p) = q: the flat view is nearly right
        p += target - _apply(flat, _project(pose, curl, p))
    _, slope, _ = _lifted(curl, p)
    shade = 1 + (curl["shade"] * np.sin(slope) if curl else 0)
    size = (W, H)
    grid = (gx.shape[1], gx.shape[0])

    def full(values):
        return cv2.resize(values.reshape(grid[1], grid[0]).astype(np.float32), (grid[0] * GRID, grid[1] * GRID),
                          interpolation=cv2.INTER_LINEAR)[:size[1], :size[0]]
    map_x, map_y = full(p[:, 0] * RES - 0.5), full(p[:, 1] * RES - 0.5)
    px_per_mm = pose["extent"] / L.CARD_W
    return map_x, map_y, full(np.broadcast_to(shade, p[:, 0].shape)), min(1.0, 1.6 * px_per_mm / RES)


def _apply(h: np.ndarray, q: np.ndarray) -> np.ndarray:
    out = np.column_stack([q, np.ones(len(q))]) @ h.T
    return out[:, :2] / out[:, 2:3]


# --- light, optics, sensor ------------------------------------------------------------------------------
def table(rng, W, H) -> np.ndarray:
    colour = rng.uniform(30, 200, 3)
    surface = np.ones((H // 8, W // 8, 3), np.float32) * colour.astype(np.float32)
    surface += rng.normal(0, 12, surface.shape).astype(np.float32)
    surface = cv2.resize(cv2.GaussianBlur(surface, (0, 0), 2), (W, H))
    for _ in range(int(rng.integers(0, 4))):    # things on the table
        c = tuple(float(v) for v in rng.uniform(0, 255, 3))
        cv2.circle(surface, (int(rng.uniform(0, W)), int(rng.uniform(0, H))), int(rng.uniform(20, 120)), c, -1)
    return surface


def light(rng, image: np.ndarray, hard: bool, capture: dict, on_card: list) -> np.ndarray:
    H, W = image.shape[:2]
    yy, xx = np.mgrid[0:H:8, 0:W:8].astype(np.float32)
    low = 0.5 if hard else 0.85
    direction = rng.uniform(0, 2 * math.pi)
    gain = rng.uniform(low, 1.0) + rng.uniform(0, 1 - low) * (xx / W * math.cos(direction) + yy / H * math.sin(direction))
    if hard:
        r2 = ((xx - W / 2) ** 2 + (yy - H / 2) ** 2) / (W * W / 4)
        gain *= 1 - rng.uniform(0, 0.35) * r2                      # vignetting
        if rng.random() < 0.4:                                     # a hand's or a phone's soft shadow
            cx, cy, a = rng.uniform(0, W), rng.uniform(0, H), rng.uniform(0, 2 * math.pi)
            d = (xx - cx) * math.cos(a) + (yy - cy) * math.sin(a)
            depth = rng.uniform(0.2, 0.5)
            gain *= 1 - depth / (1 + np.exp(np.clip(-d / rng.uniform(5, 60), -50, 50)))
            capture["shadow"] = round(depth, 2)
    image = image * cv2.resize(np.clip(gain, 0.15, 1.3), (W, H))[..., None]
    image *= rng.uniform(0.85, 1.1, 3) if hard else rng.uniform(0.95, 1.05, 3)       # white balance
    if hard and rng.random() < 0.35:
        capture["glare"] = [_glare(rng, image, on_card) for _ in range(int(rng.integers(1, 3)))]
    return image


def _glare(rng, image: np.ndarray, on_card: list) -> list:
    """A specular patch: an elongated bright blob that washes out to white at its heart."""
    H, W = image.shape[:2]
    if rng.random() < 0.6:                     # on the card, anywhere on it
        cx, cy = on_card[int(rng.integers(len(on_card)))]
    else:
        cx, cy = rng.uniform(0.15, 0.85) * W, rng.uniform(0.15, 0.85) * H
    sx, sy, angle = rng.uniform(12, 80), rng.uniform(8, 40), rng.uniform(0, math.pi)
    peak = rng.uniform(90, 280)
    box = int(3 * max(sx, sy))
    x0, x1, y0, y1 = max(0, int(cx) - box), min(W, int(cx) + box), max(0, int(cy) - box), min(H, int(cy) + box)
    if x0 >= x1 or y0 >= y1:
        return []
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    u = (xx - cx) * math.cos(angle) + (yy - cy) * math.sin(angle)
    v = -(xx - cx) * math.sin(angle) + (yy - cy) * math.cos(angle)
    image[y0:y1, x0:x1] += (peak * np.exp(-(u / sx) ** 2 / 2 - (v / sy) ** 2 / 2))[..., None]
    return [round(float(cx)), round(float(cy)), round(float(sx)), round(float(peak))]


def optics(rng, image: np.ndarray, gauss: float = 0.0, defocus: float = 0.0, motion: float = 0.0) -> np.ndarray:
    image = np.asarray(image, np.float32)
    if defocus > 0.3:
        image = cv2.filter2D(image, -1, _disc(defocus))
    if motion > 0.3:
        image = cv2.filter2D(image, -1, _streak(motion, rng.uniform(0, math.pi)))
    if gauss > 0.05:
        image = cv2.GaussianBlur(image, (0, 0), gauss)
    return image


def _disc(radius: float) -> np.ndarray:
    """A defocused lens's kernel: a uniform disc, anti-aliased."""
    n, over = 2 * int(math.ceil(radius)) + 1, 8
    big = np.zeros((n * over, n * over), np.float32)
    cv2.circle(big, (n * over // 2, n * over // 2), int(radius * over), 1.0, -1, cv2.LINE_AA)
    kernel = cv2.resize(big, (n, n), interpolation=cv2.INTER_AREA)
    return kernel / kernel.sum()


def _streak(length: float, angle: float) -> np.ndarray:
    """Motion blur: a line `length` px long."""
    n, over = 2 * int(math.ceil(length / 2)) + 1, 8
    big = np.zeros((n * over, n * over), np.float32)
    c, dx, dy = n * over / 2, math.cos(angle) * length * over / 2, math.sin(angle) * length * over / 2
    cv2.line(big, (int(c - dx), int(c - dy)), (int(c + dx), int(c + dy)), 1.0, over, cv2.LINE_AA)
    kernel = cv2.resize(big, (n, n), interpolation=cv2.INTER_AREA)
    return kernel / kernel.sum()


def sensor(rng, image: np.ndarray, luma: float, chroma: float) -> np.ndarray:
    """Sensor noise: per-pixel luma grain, and colour blotches at half resolution (demosaicing)."""
    grain = rng.standard_normal(image.shape[:2], dtype=np.float32)
    grain *= np.float32(luma)
    image = cv2.add(np.asarray(image, np.float32), cv2.merge([grain] * 3))
    if chroma:
        h, w = image.shape[:2]
        blotch = rng.standard_normal((h // 2, w // 2, 3), dtype=np.float32) * np.float32(chroma)
        image = cv2.add(image, cv2.resize(blotch, (w, h), interpolation=cv2.INTER_LINEAR))
    return np.clip(image, 0, 255, out=image).astype(np.uint8)
