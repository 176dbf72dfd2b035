"""Cards drawn by the renderer the scanner shares (vision.render), marked and photographed: the
scanner's tests draw their regression cases with these helpers. Never the bench's corpus: that is
made from the printed PDF (vision.sim.cards, law 8), so a shared error cannot cancel out.

Every sample is (image, truth). The truth says the card's code, the bubbles that carry ink
(a scribbled-out bubble carries ink too: the card then holds two marks), the mark styles,
and how the picture was taken. Tiers: clean (scans and easy photos, pen marks) and hard
(steep perspective, any rotation, blur, noise, JPEG down to 40, uneven light, shadows,
glare, creases, light pencil, corrections, stray lines, a finger over a marker, forgeries).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .. import layouts as L
from ..render import render
from . import card_photo
from .cards import decoded      # noqa: F401 (the tests' way to the image the scanner sees)

RES = 12.0                      # px per mm the card is drawn at before it is photographed
PHOTO_SIZE = (1600, 1200)
KIND_WEIGHTS = {"vote": 0.45, "robbery": 0.2, "inout": 0.1, "change": 0.12, "exclusion": 0.13}
PEN_STYLES = ("dot", "circle", "tick", "cross")
EVENT, SECRET = "corpus-night", "corpus-secret"


@dataclass
class Sample:
    image: np.ndarray          # BGR
    truth: dict
    jpeg: int | None           # JPEG quality it is stored at (None: PNG)


def generate(n: int, tier: str, seed: int = 0, kinds: tuple[str, ...] | None = None, start: int = 0):
    """n samples of a tier from index start; the same seed gives the same corpus (each card
    depends only on seed, tier and index)."""
    if tier not in ("clean", "hard"):
        raise ValueError(f"tier must be clean or hard, not {tier!r}")
    for index in range(start, start + n):
        rng = np.random.default_rng([seed, index, tier == "hard"])
        yield sample(rng, tier, index, kinds)


def sample(rng: np.random.Generator, tier: str, index: int, kinds=None) -> Sample:
    hard = tier == "hard"
    names = list(kinds or KIND_WEIGHTS)
    weights = np.array([KIND_WEIGHTS.get(k, 0.1) for k in names])
    kind = str(rng.choice(names, p=weights / weights.sum()))
    card, code = _card(rng, kind, index, hard)
    event, secret = {"ok": (EVENT, SECRET), "forged": (EVENT, "not-the-secret"),
                     "other event": ("other-night", "other-secret")}[code]
    card = L.Card(card.kind, event, card.serial, card.owner, card.turn)
    picture = cv2.cvtColor(render(card, secret, RES, 1), cv2.COLOR_GRAY2BGR)
    fields, styles = _marks(rng, picture, kind, hard)
    truth = {"kind": kind, "serial": card.serial, "owner": card.owner, "turn": card.turn, "event": event,
             "code": code, "fields": fields, "styles": styles}
    image, capture = (_scan if rng.random() < (0.25 if hard else 0.4) else _photo)(rng, picture, hard)
    truth["capture"] = capture
    return Sample(image, truth, capture.get("jpeg"))


def _card(rng, kind: str, index: int, hard: bool) -> tuple[L.Card, str]:
    owner = int(rng.integers(1, 7))
    turn = int(rng.integers(1, 16)) if kind == "vote" else 0
    number = turn if kind == "vote" else int(rng.integers(1, 9)) if kind == "robbery" else index % 1000 + 1
    code = "ok"
    if hard:
        roll = rng.random()
        code = "forged" if roll < 0.02 else "other event" if roll < 0.03 else "ok"
    return L.Card(kind, EVENT, L.serial(kind, owner, number), owner, turn), code


# --- marks ---------------------------------------------------------------------------------
def _marks(rng, picture: np.ndarray, kind: str, hard: bool) -> tuple[dict, list]:
    layout = L.layout(kind)
    fields, styles = {}, []
    ink = _ink(rng)
    for f in layout.fields:
        chosen = _choose(rng, f, kind)
        correction = hard and len(chosen) == 1 and len(f.bubbles) > 1 and rng.random() < 0.06
        if correction:      # scribbled out a first choice, then marked another
            other = [b for b in f.bubbles if b.value != chosen[0]]
            wrong = other[int(rng.integers(len(other)))]
            _scribble(rng, picture, wrong, ink)
            chosen = [chosen[0], wrong.value]
            styles.append("scribble")
        for value in chosen[:1] if correction else chosen:
            bubble = next(b for b in f.bubbles if b.value == value)
            style = _style(rng, hard)
            styles.append(style)
            _mark(rng, picture, bubble, style, ink)
        fields[f.name] = sorted(chosen, key=[b.value for b in f.bubbles].index)
    if hard and rng.random() < 0.08:
        _stray(rng, picture, ink)
        styles.append("stray")
    return fields, styles


def _choose(rng, f: L.Field, kind: str) -> list[str]:
    values = [b.value for b in f.bubbles]
    roll = rng.random()
    count = (0 if roll < 0.07 else 2 if roll < 0.13 else 1) if kind == "vote" else \
        (0 if roll < 0.03 else 2 if roll < 0.05 else 1)
    return [str(v) for v in rng.choice(values, size=count, replace=False)]


def _style(rng, hard: bool) -> str:
    if hard and rng.random() < 0.15:
        return "pencil"
    return PEN_STYLES[int(rng.integers(len(PEN_STYLES)))]


def _ink(rng) -> tuple[int, int, int]:
    """A pen colour (BGR): black, blue or dark red."""
    shade = int(rng.integers(15, 60))
    return [(shade, shade, shade), (150, 50, 20), (40, 30, 140)][int(rng.integers(3))]


def _px(x: float, y: float) -> tuple[int, int]:
    return int(round(x * RES * 16)), int(round(y * RES * 16))     # cv2 shift=4 sub-pixel points


def _line(picture, points, colour, width_mm: float) -> None:
    pts = np.array([_px(x, y) for x, y in points], np.int32)
    cv2.polylines(picture, [pts], False, colour, max(1, round(width_mm * RES)), cv2.LINE_AA, 4)


def _mark(rng, picture, b: L.Bubble, style: str, ink) -> None:
    pencil = style == "pencil"
    if pencil:
        style = PEN_STYLES[int(rng.integers(len(PEN_STYLES)))]
        grey = int(rng.integers(95, 150))
        ink = (grey, grey, grey)
    width = rng.uniform(0.3, 0.5) if pencil else rng.uniform(0.4, 0.9)
    cx, cy = b.x + rng.normal(0, 0.08 * b.r), b.y + rng.normal(0, 0.08 * b.r)
    angle = rng.uniform(-0.4, 0.4)
    if style == "dot":
        r = b.r * rng.uniform(0.5, 0.9)
        pts = [(cx + r * (1 + rng.normal(0, 0.06)) * math.cos(t), cy + r * (1 + rng.normal(0, 0.06)) * math.sin(t))
               for t in np.linspace(0, 2 * math.pi, 24, endpoint=False)]
        cv2.fillPoly(picture, [np.array([_px(x, y) for x, y in pts], np.int32)], ink, cv2.LINE_AA, 4)
    elif style == "circle":
        r = b.r * rng.uniform(0.8, 1.2)
        start = rng.uniform(0, 2 * math.pi)
        sweep = rng.uniform(1.7, 2.15) * math.pi
        pts = [(cx + r * rx * math.cos(t), cy + r * ry * math.sin(t))
               for rx, ry in [(rng.uniform(0.9, 1.1), rng.uniform(0.85, 1.1))]
               for t in np.linspace(start, start + sweep, 40)]
        _line(picture, pts, ink, width)
    elif style == "tick":
        s = b.r * rng.uniform(0.7, 1.1)
        pts = [(-0.6, 0.0), (-0.15, 0.55), (0.75, -0.75)]
        _line(picture, [_rot(cx, cy, s * px, s * py, angle) for px, py in pts], ink, width)
    elif style == "cross":
        s = b.r * rng.uniform(0.55, 0.9)
        for (x0, y0), (x1, y1) in (((-1, -1), (1, 1)), ((-1, 1), (1, -1))):
            _line(picture, [_rot(cx, cy, s * x0, s * y0, angle), _rot(cx, cy, s * x1, s * y1, angle)], ink, width)


def _rot(cx, cy, x, y, angle):
    c, s = math.cos(angle), math.sin(angle)
    return cx + c * x - s * y, cy + s * x + c * y


def _scribble(rng, picture, b: L.Bubble, ink) -> None:
    """Zigzags over a bubble until it is mostly ink: a choice taken back."""
    r = b.r * 1.05
    pts, t = [], -1.0
    while t <= 1.0:
        pts.append((b.x - r * math.sqrt(max(0, 1 - t * t)), b.y + r * t))
        pts.append((b.x + r * math.sqrt(max(0, 1 - t * t)), b.y + r * t + 0.1))
        t += rng.uniform(0.12, 0.2)
    _line(picture, pts, ink, rng.uniform(0.6, 1.0))


def _stray(rng, picture, ink) -> None:
    """A pen line across the card that is no mark."""
    y0, y1 = rng.uniform(20, 80), rng.uniform(20, 80)
    _line(picture, [(rng.uniform(3, 20), y0), (rng.uniform(70, 93), y1)], ink, rng.uniform(0.3, 0.6))


# --- taking the picture --------------------------------------------------------------------
def _scan(rng, picture: np.ndarray, hard: bool):
    return card_photo.scan(rng, picture, 40 if hard else 75)


def _photo(rng, picture: np.ndarray, hard: bool):
    """A camera over a tray: perspective, any rotation, uneven light, shadow, glare, creases, blur, noise, JPEG."""
    W, H = PHOTO_SIZE
    h, w = picture.shape[:2]
    tilt = rng.uniform(0, 35 if hard else 15)
    spin = rng.uniform(0, 360)
    extent = rng.uniform(0.45, 0.85) * H
    card = picture.copy()
    events = {}
    if hard and rng.random() < 0.2:
        events["crease"] = _crease(rng, card)
    if hard and rng.random() < 0.06:
        events["finger"] = _finger(rng, card, 2 if rng.random() < 0.3 else 1)
    corners = _project(rng, w, h, tilt, spin, extent, W, H)
    homography = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), corners)
    background = _table(rng, W, H).astype(np.float32)
    image = cv2.warpPerspective(card, homography, (W, H), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), homography, (W, H), flags=cv2.INTER_AREA)
    alpha = (mask.astype(np.float32) / 255)[..., None]
    image = image * alpha + background * (1 - alpha)
    image = _light(rng, image, hard, events)
    blur = rng.uniform(0, 1.8 if hard else 0.8)
    noise = rng.uniform(2, 8) if hard else rng.uniform(1, 3)
    image = _finish(rng, image, blur, noise)
    jpeg = int(rng.integers(40, 90)) if hard else int(rng.integers(75, 96))
    return image, {"how": "photo", "tilt": round(tilt, 1), "spin": round(spin, 1), "blur": round(blur, 2),
                   "noise": round(noise, 1), "jpeg": jpeg, **events}


def _project(rng, w, h, tilt, spin, extent, W, H) -> np.ndarray:
    """The card's corners seen by a pinhole camera after tilting it by `tilt` degrees about a random axis."""
    axis = rng.uniform(0, 2 * math.pi)
    t = math.radians(tilt)
    ux, uy = math.cos(axis), math.sin(axis)
    # rotation about the in-plane axis (ux, uy, 0) by t (Rodrigues), after spinning in the plane
    K = np.array([[0, 0, uy], [0, 0, -ux], [-uy, ux, 0]])
    R = np.eye(3) + math.sin(t) * K + (1 - math.cos(t)) * K @ K
    s = math.radians(spin)
    Rz = np.array([[math.cos(s), -math.sin(s), 0], [math.sin(s), math.cos(s), 0], [0, 0, 1]])
    size = max(w, h)
    pts = np.array([[-w / 2, -h / 2, 0], [w / 2, -h / 2, 0], [w / 2, h / 2, 0], [-w / 2, h / 2, 0]]) / size
    pts = pts @ Rz.T @ R.T
    focal = 1.6
    z = pts[:, 2] + 2.2
    xy = pts[:, :2] * focal / z[:, None]
    xy = xy / np.ptp(xy, axis=0).max() * extent
    centre = np.array([W / 2, H / 2]) + rng.uniform(-0.5, 0.5, 2) * (np.array([W, H]) - np.ptp(xy, axis=0))
    return (xy - xy.mean(axis=0) + centre).astype(np.float32)


def _table(rng, W, H) -> np.ndarray:
    colour = rng.uniform(30, 200, 3)
    table = np.ones((H // 8, W // 8, 3), np.float32) * colour
    table += rng.normal(0, 12, table.shape)
    table = cv2.resize(cv2.GaussianBlur(table, (0, 0), 2), (W, H))
    for _ in range(int(rng.integers(0, 4))):    # objects on the table
        c = tuple(float(v) for v in rng.uniform(0, 255, 3))
        cv2.circle(table, (int(rng.uniform(0, W)), int(rng.uniform(0, H))), int(rng.uniform(20, 120)), c, -1)
    return table


def _light(rng, image, hard: bool, events: dict) -> np.ndarray:
    H, W = image.shape[:2]
    yy, xx = np.mgrid[0:H:8, 0:W:8].astype(np.float32)
    low = 0.55 if hard else 0.8
    gain = rng.uniform(low, 1.0) + rng.uniform(0, 1 - low) * (xx / W * math.cos(rng.uniform(0, 6.28))
                                                               + yy / H * math.sin(rng.uniform(0, 6.28)))
    if hard and rng.random() < 0.3:       # a soft shadow: a hand, a phone
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        d = (xx - cx) * math.cos(rng.uniform(0, 6.28)) + (yy - cy) * math.sin(rng.uniform(0, 6.28))
        depth = rng.uniform(0.25, 0.45)
        gain *= 1 - depth / (1 + np.exp(np.clip(-d / rng.uniform(8, 40), -50, 50)))
        events["shadow"] = round(depth, 2)
    image = image * cv2.resize(np.clip(gain, 0.2, 1.2), (W, H))[..., None]
    if hard and rng.random() < 0.2:       # glare: a bright, washed-out patch
        cx, cy, r = rng.uniform(0.2, 0.8) * W, rng.uniform(0.2, 0.8) * H, rng.uniform(25, 90)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        spot = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r)) * rng.uniform(120, 260)
        image = image + spot[..., None]
        events["glare"] = [round(cx), round(cy), round(r)]
    return image


def _crease(rng, card) -> list:
    """A fold across the card: a thin dark and a thin bright band."""
    h, w = card.shape[:2]
    p0 = (rng.uniform(0, w), 0) if rng.random() < 0.5 else (0, rng.uniform(0, h))
    p1 = (rng.uniform(0, w), h) if p0[1] == 0 else (w, rng.uniform(0, h))
    shade = np.ones((h, w), np.float32)
    width = int(rng.integers(2, 6))
    cv2.line(shade, (int(p0[0]), int(p0[1])), (int(p1[0]), int(p1[1])), rng.uniform(0.75, 0.9), width, cv2.LINE_AA)
    offset = (width, 0) if p0[1] == 0 else (0, width)
    cv2.line(shade, (int(p0[0] + offset[0]), int(p0[1] + offset[1])), (int(p1[0] + offset[0]), int(p1[1] + offset[1])),
             rng.uniform(1.05, 1.15), width, cv2.LINE_AA)
    card[:] = np.clip(card * cv2.GaussianBlur(shade, (0, 0), 1.0)[..., None], 0, 255).astype(np.uint8)
    return [[round(p0[0]), round(p0[1])], [round(p1[0]), round(p1[1])]]


def _finger(rng, card, count: int) -> list:
    """A fingertip over a corner marker or two."""
    covered = [int(i) for i in rng.choice(4, size=count, replace=False)]
    skin = tuple(float(v) for v in (rng.uniform(90, 140), rng.uniform(120, 170), rng.uniform(170, 220)))
    for m in (L.markers()[i] for i in covered):
        cx, cy = (m.x + m.size / 2) * RES, (m.y + m.size / 2) * RES
        axes = (int(m.size * RES * rng.uniform(0.7, 0.9)), int(m.size * RES * rng.uniform(0.9, 1.3)))
        cv2.ellipse(card, (int(cx), int(cy)), axes, rng.uniform(0, 180), 0, 360, skin, -1, cv2.LINE_AA)
    return covered


def _finish(rng, image, blur: float, noise: float) -> np.ndarray:
    image = np.asarray(image, np.float32)
    if blur > 0.05:
        image = cv2.GaussianBlur(image, (0, 0), blur)
    # sensor noise, the same on the three channels (luma noise): a third of the random numbers
    grain = rng.standard_normal(image.shape[:2], dtype=np.float32) * np.float32(noise)
    image = image + (grain[..., None] if image.ndim == 3 else grain)
    return np.clip(image, 0, 255).astype(np.uint8)


# --- what the scanner's tests check -------------------------------------------------------------
def _verdict(result, truth: dict) -> str:
    """correct | wrong (counted with a value that is not the truth) | review | rejected | ..."""
    counted = result.decision in ("counted", "invalid")
    if truth["code"] != "ok":
        return "wrong" if counted or result.decision == "review" else (
            "rejected-right" if (result.reason or "").startswith(truth["code"]) else "rejected")
    if counted:
        return "correct" if result.fields == truth["fields"] else "wrong"
    return result.decision
