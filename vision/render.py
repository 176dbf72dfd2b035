"""Rasterise a card from its layout: the scanner's blank reference and the corpus's cards.

The same drawing items as the printer (vision.printing) and the same code and marker
matrices, so the blank the scanner compares against is the card that was printed.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from . import layouts as L

FONT_PATH = Path("/usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf")


class FontMissing(RuntimeError):
    pass


def font_path() -> Path:
    if not FONT_PATH.exists():
        raise FontMissing(f"the card font {FONT_PATH} is missing: install Debian's fonts-ipaexfont-gothic "
                          "(apt-get install fonts-ipaexfont-gothic)")
    return FONT_PATH


@lru_cache(maxsize=None)
def marker_bits(marker_id: int) -> np.ndarray:
    """The ArUco marker as a 6x6 grid, True = black (border included)."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    return cv2.aruco.generateImageMarker(dictionary, marker_id, 6) == 0


@lru_cache(maxsize=4096)
def qr_modules(text: str) -> np.ndarray:
    """The QR code's modules, True = black, quiet zone removed (the layout's box supplies it)."""
    params = cv2.QRCodeEncoder.Params()
    params.correction_level = cv2.QRCodeEncoder_CORRECT_LEVEL_M
    image = cv2.QRCodeEncoder.create(params).encode(text)
    dark = image == 0
    rows, cols = np.where(dark)
    return dark[rows.min():rows.max() + 1, cols.min():cols.max() + 1]


def qr_geometry(n: int, box: L.QR) -> tuple[float, float, float]:
    """Top-left corner and module size (mm) of an n-module code centred in its box, 2 modules of quiet zone."""
    module = box.size / (n + 4)
    return box.x + 2 * module, box.y + 2 * module, module


@lru_cache(maxsize=64)
def _font(size_px: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(font_path()), size_px)


def fitted(item: L.Text) -> L.Text:
    """The text at its size, or smaller when it would print wider than its room (printer and renderer alike)."""
    if not item.room or not item.text:
        return item
    width = _font(1000).getlength(item.text) / 1000 * item.size
    return item if width <= item.room else replace(item, size=item.size * item.room / width)


def render(card: L.Card, secret: str = "", px_per_mm: float = 6.0, supersample: int = 3) -> np.ndarray:
    """The blank card as an 8-bit grey image, px_per_mm pixels per millimetre."""
    s = px_per_mm * supersample
    size = (round(L.CARD_W * s), round(L.CARD_H * s))
    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    for item in L.items(card):
        _draw(draw, item, s, card, secret)
    big = np.asarray(image)
    out = (round(L.CARD_W * px_per_mm), round(L.CARD_H * px_per_mm))
    return cv2.resize(big, out, interpolation=cv2.INTER_AREA) if supersample > 1 else big.copy()


def _grey(g: float) -> int:
    return int(round(g * 255))


def _draw(draw: ImageDraw.ImageDraw, item, s: float, card: L.Card, secret: str) -> None:
    if isinstance(item, L.Rect):
        h = item.line / 2
        draw.rectangle([(item.x - h) * s, (item.y - h) * s, (item.x + item.w + h) * s, (item.y + item.h + h) * s],
                       outline=_grey(item.grey), width=max(1, round(item.line * s)))
    elif isinstance(item, L.Circle):
        r = item.r + item.line / 2
        draw.ellipse([(item.x - r) * s, (item.y - r) * s, (item.x + r) * s, (item.y + r) * s],
                     outline=_grey(item.grey), width=max(1, round(item.line * s)))
    elif isinstance(item, L.Text):
        item = fitted(item)
        anchor = {"start": "ls", "middle": "ms", "end": "rs"}[item.anchor]
        draw.text((item.x * s, item.y * s), item.text, fill=_grey(item.grey), font=_font(max(1, round(item.size * s))),
                  anchor=anchor)
    elif isinstance(item, L.Marker):
        _cells(draw, marker_bits(item.id), item.x, item.y, item.size / 6, s)
    elif isinstance(item, L.QR):
        modules = qr_modules(L.payload(card, secret))
        x, y, module = qr_geometry(len(modules), item)
        _cells(draw, modules, x, y, module, s)


def _cells(draw: ImageDraw.ImageDraw, bits: np.ndarray, x: float, y: float, cell: float, s: float) -> None:
    for row, col in zip(*np.nonzero(bits)):
        draw.rectangle([round((x + col * cell) * s), round((y + row * cell) * s),
                        round((x + (col + 1) * cell) * s) - 1, round((y + (row + 1) * cell) * s) - 1], fill=0)
