"""The printed card as the scanner expects to see it: the blank rendered from the layout (the same
drawing items as the printer), where each card prints its own data, and the print model the ink is
measured against. Everything at PX pixels per mm of the rectified card."""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from .. import layouts as L
from ..render import render

PX = 6.0                 # pixels per mm of the rectified card


@lru_cache(maxsize=None)
def blank_card(kind: str) -> np.ndarray:
    """The card kind's blank print at PX (the code is left out: it differs per card and is never scored)."""
    image = render(L.Card(kind, "", "", 0), "", PX)
    x, y, side = L.QR_BOX
    image[round(y * PX):round((y + side) * PX), round(x * PX):round((x + side) * PX)] = 255
    return image


@lru_cache(maxsize=None)
def card_data(kind: str) -> np.ndarray:
    """Where each card prints its own data (serial, turn, owner...), which the blank leaves out:
    found by rendering long stand-in data, spread by 1 mm. It is print, never a mark."""
    wide = L.Card(kind, "W" * 24, "W" * 8, 88, 88, "W" * 12, (88,) * 9)
    data = render(wide, "", PX) != render(L.Card(kind, "", "", 0), "", PX)
    x, y, side = L.QR_BOX
    data[round(y * PX):round((y + side) * PX), round(x * PX):round((x + side) * PX)] = False
    return cv2.dilate(data.astype(np.uint8), np.ones((round(2 * PX) | 1,) * 2, np.uint8)) > 0


@lru_cache(maxsize=None)
def spread_print(kind: str) -> np.ndarray:
    """The blank card's print, 1 = the bubbles' grey, spread a little so a slight misfit is not ink."""
    return cv2.dilate((255 - blank_card(kind)).astype(np.float32) / 255, np.ones((5, 5), np.uint8)) / (1 - L.PRINT_GREY)


@lru_cache(maxsize=None)
def print_everywhere(kind: str) -> np.ndarray:
    """The whole card's print, measured as the bubbles' print_ink is; the card's own data, its code
    and its edge count as black print (never a stroke's ink)."""
    out = spread_print(kind).copy()
    out[card_data(kind)] = 9.0
    x, y, side = (round(v * PX) for v in L.QR_BOX)
    out[y:y + side, x:x + side] = 9.0
    edge = round((L.FRAME_INSET + 1.0) * PX)
    out[:edge], out[-edge:], out[:, :edge], out[:, -edge:] = 9.0, 9.0, 9.0, 9.0
    return out


@lru_cache(maxsize=None)
def clear_of_black(kind: str) -> np.ndarray:
    """Away from near black print (markers, titles, outline: blur spreads ink from it that is no
    mark) and from the card's own data."""
    blank = blank_card(kind)
    clear = cv2.dilate((blank < 100).astype(np.uint8), np.ones((round(1.5 * PX) | 1,) * 2, np.uint8)) == 0
    return clear & ~card_data(kind)


@lru_cache(maxsize=None)
def fiducial_region() -> np.ndarray:
    """Around the outline and the markers, printed alike on every kind: what an outline fit aligns on."""
    mask = np.zeros(blank_card("vote").shape, np.uint8)
    a, bx, by = (round(v * PX) for v in (L.FRAME_INSET, L.CARD_W - L.FRAME_INSET, L.CARD_H - L.FRAME_INSET))
    cv2.rectangle(mask, (a, a), (bx, by), 255, round(2 * PX))
    for m in L.markers():
        x0, y0, x1, y1 = (round(v * PX) for v in (m.x - 1, m.y - 1, m.x + m.size + 1, m.y + m.size + 1))
        mask[y0:y1, x0:x1] = 255
    return mask


@lru_cache(maxsize=None)
def bubble_radii(kind: str):
    return [((name, b.value), b.r) for name, b in L.layout(kind).bubbles()]
