"""Test images from the printed artefact (law 8): cards printed to a PDF by vision.printing,
rasterised by poppler, marked with cv2 on the raster and photographed (perspective, a little blur).

Positions come from the layout (mm on the card) and the PDF page (each card's slot origin), never
from the renderer the scanner uses for its blank. Pages are rasterised once per test session.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import layouts as L, printing

EVENT, SECRET = "printed-test", "printed-secret"
DPI = 150
PX_MM = DPI / 25.4          # raster pixels per mm
MARGIN = 4.0                # mm of page kept round each card's crop
PEN = (25, 25, 25)

needs_poppler = pytest.mark.skipif(not shutil.which("pdftoppm"), reason="needs poppler-utils (pdftoppm)")


def card(kind: str, owner: int = 1, number: int = 1, turn: int = 0) -> L.Card:
    turn = turn or (number if kind == "vote" else 0)
    return L.Card(kind, EVENT, L.serial(kind, owner, number), owner, turn)


@lru_cache(maxsize=None)
def _page(cards: tuple[L.Card, ...]) -> np.ndarray:
    """One printed page (up to six cards) as poppler draws it, BGR."""
    with tempfile.TemporaryDirectory() as folder:
        pdf = Path(folder) / "cards.pdf"
        printing.print_cards(list(cards), SECRET, pdf)
        subprocess.run(["pdftoppm", "-r", str(DPI), "-png", "-singlefile", str(pdf), str(Path(folder) / "page")],
                       check=True)
        return cv2.imread(str(Path(folder) / "page.png"))


def printed(c: L.Card) -> np.ndarray:
    """The printed card cut from its page with MARGIN mm round it (a copy: draw on it freely)."""
    page = _page((c,))
    x, y = printing.card_origin(0)
    x0, y0 = round((x - MARGIN) * PX_MM), round((y - MARGIN) * PX_MM)
    w, h = round((L.CARD_W + 2 * MARGIN) * PX_MM), round((L.CARD_H + 2 * MARGIN) * PX_MM)
    return page[y0:y0 + h, x0:x0 + w].copy()


def px(x_mm: float, y_mm: float) -> tuple[float, float]:
    """A point on the card (mm) in the crop's pixels."""
    return (x_mm + MARGIN) * PX_MM, (y_mm + MARGIN) * PX_MM


def bubble(kind: str, name: str, value: str) -> L.Bubble:
    return next(b for b in L.layout(kind).field(name).bubbles if b.value == value)


def pen(picture: np.ndarray, points_mm, width_mm: float = 0.5, colour=PEN, closed: bool = False) -> None:
    points = np.array([px(x, y) for x, y in points_mm]) * 16
    cv2.polylines(picture, [np.rint(points).astype(np.int32)], closed, colour, max(1, round(width_mm * PX_MM)),
                  cv2.LINE_AA, shift=4)


def ring(picture: np.ndarray, b: L.Bubble, k: float, aspect: float = 1.0, tilt_deg: float = 0.0,
         gap_deg: float = 0.0, shift_mm: tuple[float, float] = (0.0, 0.0), width_mm: float = 0.5,
         colour=PEN) -> None:
    """A pen circle (an ellipse with aspect != 1, open by gap_deg) of radius k x the bubble's ring."""
    t = np.radians(np.linspace(gap_deg / 2, 360 - gap_deg / 2, 120))
    a, c = k * b.r * np.sqrt(aspect), k * b.r / np.sqrt(aspect)
    x, y = a * np.cos(t), c * np.sin(t)
    turn = np.radians(tilt_deg)
    xs = b.x + shift_mm[0] + x * np.cos(turn) - y * np.sin(turn)
    ys = b.y + shift_mm[1] + x * np.sin(turn) + y * np.cos(turn)
    pen(picture, list(zip(xs, ys)), width_mm, colour, closed=gap_deg == 0)


def dot(picture: np.ndarray, b: L.Bubble, k: float = 0.55, colour=PEN) -> None:
    """A filled-in dot of radius k x the bubble's ring."""
    x, y = px(b.x, b.y)
    cv2.circle(picture, (round(x * 16), round(y * 16)), round(k * b.r * PX_MM * 16), colour, -1, cv2.LINE_AA, shift=4)


def tick(picture: np.ndarray, b: L.Bubble, width_mm: float = 0.5) -> None:
    r = b.r
    pen(picture, [(b.x - 0.6 * r, b.y), (b.x - 0.15 * r, b.y + 0.5 * r), (b.x + 0.7 * r, b.y - 0.6 * r)], width_mm)


def photo(picture: np.ndarray, tilt: float = 0.04, turn_deg: float = 3.0, blur: float = 0.7,
          seed: int = 0, width_px: int = 1150) -> np.ndarray:
    """The marked card on a table as a 1600x1200 camera sees it: seen a little from the side,
    turned, slightly soft, with sensor noise; the crop width_px wide (a card farther away: fewer)."""
    rng = np.random.default_rng(seed)
    h, w = picture.shape[:2]
    scale = width_px / w
    src = np.float32([(0, 0), (w, 0), (w, h), (0, h)])
    centred = (src - (w / 2, h / 2)) * scale
    c, s = np.cos(np.radians(turn_deg)), np.sin(np.radians(turn_deg))
    turned = centred @ np.float32([[c, s], [-s, c]])
    squeeze = np.float32([1 - tilt if p[1] < 0 else 1 + tilt for p in centred])[:, None]   # top edge farther
    dst = np.float32(turned * np.hstack([squeeze, np.ones_like(squeeze)]) + (800, 600))
    m = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(picture, m, (1600, 1200), flags=cv2.INTER_LINEAR, borderValue=(70, 95, 125))
    out = cv2.GaussianBlur(out, (0, 0), blur) if blur > 0 else out
    noisy = out.astype(np.float32) + rng.normal(0, 2.0, out.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def _distance_mm(picture: np.ndarray, through_mm: tuple[float, float], angle_deg: float) -> np.ndarray:
    """Signed distance (mm) of every pixel of the crop from a line through a card point."""
    h, w = picture.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32) / PX_MM - MARGIN
    a = np.radians(angle_deg)
    return (xx - through_mm[0]) * np.sin(a) - (yy - through_mm[1]) * np.cos(a)


def fold_shadow(picture: np.ndarray, through_mm, angle_deg: float, depth: float = 0.3, soft_mm: float = 1.0) -> None:
    """A card not lying flat after a fold: the far side of the line in shade, a soft edge between."""
    d = _distance_mm(picture, through_mm, angle_deg)
    gain = 1 - depth / (1 + np.exp(-np.clip(d / soft_mm, -40, 40)))
    picture[:] = np.clip(picture * gain[..., None], 0, 255).astype(np.uint8)


def crease(picture: np.ndarray, through_mm, angle_deg: float, dark: float = 0.8, width_mm: float = 0.3) -> None:
    """A fold pressed flat again: a thin dark line beside a thin bright one."""
    d = _distance_mm(picture, through_mm, angle_deg)
    gain = 1 - (1 - dark) * np.exp(-(d / width_mm) ** 2) + 0.08 * np.exp(-((d - 1.5 * width_mm) / width_mm) ** 2)
    picture[:] = np.clip(picture * gain[..., None], 0, 255).astype(np.uint8)


def light(picture: np.ndarray, top: float, bottom: float) -> None:
    """Uneven light: the card's brightness falls from top to bottom."""
    gain = np.linspace(top, bottom, picture.shape[0])[:, None, None]
    picture[:] = np.clip(picture * gain, 0, 255).astype(np.uint8)


def glare(picture: np.ndarray, centre_mm, radius_mm: float, strength: float = 250) -> None:
    """A specular patch: light added round a card point, washing out to white at its heart."""
    h, w = picture.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = px(*centre_mm)
    shine = strength * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * (radius_mm * PX_MM) ** 2))
    picture[:] = np.clip(picture + shine[..., None], 0, 255).astype(np.uint8)


def pencilled(picture: np.ndarray, draw) -> None:
    """Marks drawn as light pencil: draw(canvas) draws them (in a light grey) on a white canvas, which
    then darkens what is under it (print included) instead of covering it."""
    canvas = np.full_like(picture, 255)
    draw(canvas)
    picture[:] = (picture * (canvas.astype(np.float32) / 255)).astype(np.uint8)


def shadow(picture: np.ndarray, shape_mm, depth: float = 0.4, soft_mm: float = 1.5) -> None:
    """A soft shadow (a hand's finger, a phone) over the card: shape_mm is a polygon (card mm) in shade,
    its edge blurred soft_mm (a Gaussian's sigma), the light there down by depth."""
    mask = np.zeros(picture.shape[:2], np.float32)
    points = np.array([px(x, y) for x, y in shape_mm]) * 16
    cv2.fillPoly(mask, [np.rint(points).astype(np.int32)], 1.0, cv2.LINE_AA, shift=4)
    mask = cv2.GaussianBlur(mask, (0, 0), soft_mm * PX_MM)
    picture[:] = np.clip(picture * (1 - depth * mask)[..., None], 0, 255).astype(np.uint8)


def finger(tip_mm, angle_deg: float, width_mm: float, length_mm: float = 120) -> list[tuple[float, float]]:
    """A finger's outline (card mm): a strip width_mm wide from its tip away at angle_deg, its end round."""
    a = np.radians(angle_deg)
    along, across = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)]) * width_mm / 2
    tip = np.array(tip_mm, float)
    cap = [tuple(tip + across * np.cos(t) - along * np.sin(t) * width_mm / 2) for t in np.linspace(0, np.pi, 12)]
    return cap + [tuple(tip - across + along * length_mm), tuple(tip + across + along * length_mm)]


def phone(corner_mm, angle_deg: float, size_mm=(70, 140)) -> list[tuple[float, float]]:
    """A phone's outline (card mm): a rectangle from its corner, its long side at angle_deg."""
    a = np.radians(angle_deg)
    along, across = np.array([np.cos(a), np.sin(a)]) * size_mm[1], np.array([-np.sin(a), np.cos(a)]) * size_mm[0]
    c = np.array(corner_mm, float)
    return [tuple(c), tuple(c + along), tuple(c + along + across), tuple(c + across)]
