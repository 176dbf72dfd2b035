"""The numeral printed beside a label that read, as a second witness for the ball it names.

Each sticker prints its ball's numeral in the caps above and below the QR, the lower one upside
down (vision.ball_labels). Around a label that read, the sticker is unrolled wide enough for
the caps, turned so the QR's edges run along the axes, and its finder squares found (`match`
does both); the three finders say which way is up. The two numeral boxes are cut upright and
compared with templates of the 27 numerals drawn from the label design (Vera Bold, 6 and 9
underlined) at the same px per mm. The numerals witness ball N only when N's template scores
best, clear of every other numeral's (`clear_of_others`) by WITNESS_MARGIN. They only ever
vouch for a QR read beside them: a numeral alone never names a ball.
"""
from __future__ import annotations

import os
from functools import lru_cache

import cv2
import numpy as np

from .. import ball_labels as labels
from . import match
from .unroll import View, unroll, unrolled_size

PX_PER_MM = 6.0            # the sticker unrolled this fine (the camera gives about 4.5 px/mm in the chute)
CENTRE_SLACK_MM = 2.0      # how far the label's spot may be from the QR's centre
SHIFT_MM = 0.6             # a numeral is looked for this far around where the design puts it
SUPERSAMPLE = 4            # templates are drawn this much finer, then shrunk
# Tuned on the chute passes of seeds 5 and 13 (80 each at 30 fps; 519 frames read with three
# finders found): a frame's numerals scored as each of the 26 balls they are not were clear of
# all others by at most 0.19 (clear_of_others); as the ball they are, by 0.3 or more in 37%.
WITNESS_MIN = 0.5
WITNESS_MARGIN = 0.3


def witnesses(gray: np.ndarray, view: View, centre: np.ndarray, normal: np.ndarray, design: labels.Design,
              ball: int, origin=(0, 0), fill: int = 128) -> bool:
    """Whether the numerals beside the label at `normal` show `ball`, clear of every other numeral."""
    seen = numeral_scores(gray, view, centre, normal, design, origin, fill)
    if seen is None:
        return False
    scores, ppm = seen
    return bool(scores[labels.BALLS.index(ball)] >= WITNESS_MIN
                and clear_of_others(scores, ball, design, ppm) >= WITNESS_MARGIN)


def numeral_scores(gray, view: View, centre, normal, design: labels.Design, origin=(0, 0),
                   fill: int = 128) -> tuple[np.ndarray, float] | None:
    """Each ball's numeral (in labels.BALLS order) correlated with the two numerals beside the
    label, averaged, and the px per mm they were seen at; None when the label's finders cannot
    say which way is up."""
    half, ppm = _unrolled(design)
    wide, _ = unroll(gray, view, centre, design.radius, normal, half, PX_PER_MM, origin, fill)
    boxes = numeral_boxes(match.square_to_axes(wide.astype(np.float32) / 255), design, ppm)
    if not boxes:
        return None
    return np.mean([_correlations(box, design, ppm) for box in boxes], axis=0), ppm


def prepare(design: labels.Design) -> None:
    """Draw the numerals' templates now (about 0.1 s), not while the first ball goes by."""
    _printed_correlations(design, _unrolled(design)[1])


def _unrolled(design: labels.Design) -> tuple[float, float]:
    """How far round the label the sticker is unrolled (mm) and the px per mm it comes out at."""
    half = design.sticker / 2 + CENTRE_SLACK_MM
    return half, unrolled_size(half, PX_PER_MM) / (2 * half)


def clear_of_others(scores: np.ndarray, ball: int, design: labels.Design, ppm: float) -> float:
    """How far `ball`'s numeral beats the closest other one, as a share of how far it beats it
    on the printed sticker: 1 as printed, 0 a tie, below 0 another looks more like it (numerals
    that share a digit correlate far more than those that share none, so a raw margin would
    favour the short ones)."""
    k = labels.BALLS.index(ball)
    others = np.arange(len(scores)) != k
    printed = _printed_correlations(design, ppm)[k, others]
    return float(((scores[k] - scores[others]) / np.maximum(1 - printed, 1e-3)).min())


@lru_cache(maxsize=8)
def _printed_correlations(design: labels.Design, ppm: float) -> np.ndarray:
    """Row N: every ball's template correlated with ball N's numeral as printed, in a box."""
    pad = int(round(SHIFT_MM * ppm))
    return np.array([_correlations(cv2.copyMakeBorder(_template(ball, design, ppm), pad, pad, pad, pad,
                                                      cv2.BORDER_CONSTANT, value=1.0), design, ppm)
                     for ball in labels.BALLS])


def _correlations(box: np.ndarray, design: labels.Design, ppm: float) -> np.ndarray:
    """Each ball's numeral correlated with `box` (normalised, zero mean) at its best shift: every
    window of the box against the 27 templates in one product."""
    book = _template_book(design, ppm)
    height, width = _template(labels.BALLS[0], design, ppm).shape
    windows = np.lib.stride_tricks.sliding_window_view(box, (height, width)).reshape(-1, height * width)
    windows = windows - windows.mean(axis=1, keepdims=True)
    windows /= np.linalg.norm(windows, axis=1, keepdims=True) + 1e-6
    # OpenCV's product: numpy's BLAS threads crowd a busy machine's other work for a product this small
    return cv2.gemm(book, windows.astype(np.float32), 1.0, None, 0.0, flags=cv2.GEMM_2_T).max(axis=1)


@lru_cache(maxsize=8)
def _template_book(design: labels.Design, ppm: float) -> np.ndarray:
    """The 27 templates as rows, zero mean and unit length."""
    rows = np.array([_template(ball, design, ppm).ravel() for ball in labels.BALLS])
    rows -= rows.mean(axis=1, keepdims=True)
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def numeral_boxes(turned: np.ndarray, design: labels.Design, ppm: float) -> list[np.ndarray]:
    """The two numeral caps of the sticker in `turned` (its QR square to the axes), each cut
    upright with SHIFT_MM to spare round the box, dark ink low; [] when no three finders make
    a QR's corner. Of several ways the finders fit, the one nearest the image's centre."""
    module_px = design.module * ppm
    corners = list(match.finder_corners(turned, module_px))
    if not corners:
        return []
    middle = (np.array(turned.shape[::-1], float) - 1) / 2
    corner, across, down, sign = min(corners, key=lambda c: np.linalg.norm(_qr_centre(*c[:3]) - middle))
    distance, height, width = design.numeral_box
    right, below = across / np.linalg.norm(across), down / np.linalg.norm(down)
    qr_centre = _qr_centre(corner, across, down)
    size = (int(round((width + 2 * SHIFT_MM) * ppm)), int(round((height + 2 * SHIFT_MM) * ppm)))
    boxes = []
    for at, flip in ((qr_centre - distance * ppm * below, 1.0), (qr_centre + distance * ppm * below, -1.0)):
        x_axis, y_axis = flip * right, flip * below
        # box pixel (i, j) comes from image at + (i - w/2) x_axis + (j - h/2) y_axis
        start = at - (size[0] - 1) / 2 * x_axis - (size[1] - 1) / 2 * y_axis
        box_to_image = np.array([[x_axis[0], y_axis[0], start[0]], [x_axis[1], y_axis[1], start[1]]], np.float32)
        box = cv2.warpAffine(turned, box_to_image, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                             borderMode=cv2.BORDER_REPLICATE)
        boxes.append(box * sign)
    return boxes


def _qr_centre(corner: np.ndarray, across: np.ndarray, down: np.ndarray) -> np.ndarray:
    """The QR's centre from its corner finder's centre and the steps of one module across and down."""
    half = (labels.QR_MODULES - 7) / 2               # modules from a finder's centre to the QR's centre
    return corner + half * (across + down)


@lru_cache(maxsize=64)
def _template(ball: int, design: labels.Design, ppm: float) -> np.ndarray:
    """The ball's numeral in its box as printed (light paper 1, ink 0), at `ppm`."""
    from PIL import Image, ImageDraw, ImageFont
    from reportlab.pdfbase.pdfmetrics import stringWidth

    numeral = labels.numerals(ball, design)[0]
    fine = ppm * SUPERSAMPLE
    width, height = (max(int(round(v * ppm)), 1) for v in (numeral.width, numeral.height))
    size, base = labels.numeral_type(numeral)
    canvas = Image.new("L", (width * SUPERSAMPLE, height * SUPERSAMPLE), 255)
    draw = ImageDraw.Draw(canvas)
    font = ImageFont.truetype(_font_file(), max(int(round(size * fine)), 1))
    middle = (width * SUPERSAMPLE / 2, height * SUPERSAMPLE / 2)
    draw.text((middle[0], middle[1] - base * fine), numeral.text, font=font, fill=0, anchor="ms")
    if numeral.underline:
        line_half = stringWidth(numeral.text, labels.BOLD, size) / 2 * fine
        above, thick = labels.underline(numeral)
        y, half_thick = middle[1] - above * fine, thick / 2 * fine
        draw.rectangle((middle[0] - line_half, y - half_thick, middle[0] + line_half, y + half_thick), fill=0)
    return cv2.resize(np.asarray(canvas, np.float32) / 255, (width, height), interpolation=cv2.INTER_AREA)


@lru_cache(maxsize=1)
def _font_file() -> str:
    import reportlab
    return os.path.join(os.path.dirname(reportlab.__file__), "fonts", f"{labels.BOLD}.ttf")
