"""Naming a ball label no decoder can read, by matching it against the 27 labels we print.

A QR decoder must call every module dark or light before its error correction can help, and
motion blur of a module or two (a ball falling past a 30 fps camera) defeats that. But a ball
label can only be one of 27 known codes, so we ask which of them the blurred picture is
closest to: turn the flattened label square to the image's axes (edges of a QR run along two
perpendicular directions), find its three finder squares (seven modules across, they outlast
the blur), lay the 21x21 module grid through them, sample it, and correlate the samples with
each label's modules (leaving out the finders, which all labels share). A ball is named only
when its correlation is high and well clear of every other label's and of every look-alike's
(the texts PB0000-PB9999 that are not labels, under the label's QR mask), as measured on the
tuning seed (README).

A label that falls short of those bars may still lean to one ball (`Match.leaning`: lower bars,
the same competition). That is not a read: it only ever vouches for the ball another frame of
the same pass read (vision.acceptance), the frames of one pass combined.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .. import ball_labels as labels
from .. import cache

# A QR that is not one of our labels can look like one: of the 9,973 texts PB0000-PB9999 with
# wrong check digits (the look-alikes), under the same QR mask as a label, the closest correlate
# about 0.6 with it on clean modules. So the look-alikes compete: a label is named only when it
# beats every look-alike under its mask (a blurred PB0122 scores highest as itself, not as ball
# 27). That lets a heavily blurred label be named from 0.45; other things that reached matching
# on tuning seed 11 (mirrored stickers, sheets, wrong labels) scored below 0.26 (README).
MATCH_MIN = 0.45         # correlation the named label must reach
MATCH_MARGIN = 0.2       # and by which it must beat every other label
LOOK_ALIKE_MARGIN = 0.1  # and every look-alike code under its mask
# a label leaning to a ball. On 480 chute passes at 30 fps of tuning seeds 5 and 13 (every frame
# read), 54 frames that read nothing leaned to their own ball and 1 to another (which only keeps
# the pass from being vouched for); from 0.3 with a look-alike margin of 0.05, 37 and none, and
# the one pass these bars save was not saved
LEAN_MIN = 0.25
LEAN_MARGIN = 0.1
LEAN_LOOK_ALIKE_MARGIN = 0.0
FINDER_MIN = 0.3         # normalised correlation of a finder square with the pattern
# and, when those make no corner, where matching lays the grid: a chute's 14 px streak leaves the
# finders of some labels at 0.22-0.3 (tuning seeds 5 and 13: 5 more of 106 unread frames named,
# 8 more leaning, none wrong); the naming bars above, not this one, keep wrong balls out. (The
# numerals keep FINDER_MIN: on a whole sticker fainter finder look-alikes turn it the wrong way up.)
MATCH_FINDER_MIN = 0.22
MOST_FINDERS = 8


@dataclass(frozen=True)
class Match:
    ball: int | None = None        # the label named: it clears MATCH_MIN and both margins
    leaning: int | None = None     # the label it is closest to, clearing the LEAN_ bars (the ball, when named)


def match_label(patch: np.ndarray, module_px: float) -> int | None:
    """The ball whose label `patch` (a flattened label, any turn, either polarity) shows, or None."""
    return weighed(patch, module_px).ball


def weighed(patch: np.ndarray, module_px: float) -> Match:
    """The ball `patch` is matched to, and the ball it leans to (see match_label)."""
    image = square_to_axes(patch.astype(np.float32))
    grids = np.array(_grids(image, module_px)).T         # one column per way the finders fit
    if not grids.size:
        return Match()
    scores = (codebook() @ grids).max(axis=1)
    runner_up, top = np.sort(scores)[-2:]
    ball = labels.BALLS[int(np.argmax(scores))]
    if top < LEAN_MIN or top - runner_up < LEAN_MARGIN:
        return Match()
    beats_look_alikes = top - float((look_alike_book(labels.label_mask(ball)) @ grids).max())
    named = top >= MATCH_MIN and top - runner_up >= MATCH_MARGIN and beats_look_alikes >= LOOK_ALIKE_MARGIN
    leans = named or beats_look_alikes >= LEAN_LOOK_ALIKE_MARGIN
    return Match(ball if named else None, ball if leans else None)


def square_to_axes(image: np.ndarray) -> np.ndarray:
    """The patch turned so the QR's edges run along the image's axes: gradient directions
    taken four times over (a QR looks the same every quarter turn) average to its turn."""
    gx, gy = cv2.Sobel(image, cv2.CV_32F, 1, 0), cv2.Sobel(image, cv2.CV_32F, 0, 1)
    # |g|^2 e^(4i angle) = (gx + i gy)^4 / |g|^2, in real arithmetic (no arctan, no complex exp)
    power = gx * gx + gy * gy
    double_re, double_im = gx * gx - gy * gy, 2 * gx * gy           # (gx + i gy)^2
    weight = 1 / np.maximum(power, 1e-6)
    z = complex(float(((double_re * double_re - double_im * double_im) * weight).sum()),
                float((2 * double_re * double_im * weight).sum()))
    h, w = image.shape
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), math.degrees(np.angle(z) / 4), 1.0)
    return cv2.warpAffine(image, turn, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _grids(image: np.ndarray, module_px: float) -> list[np.ndarray]:
    """For each way three finder squares found in `image` make a QR's corner: its modules
    sampled outside the finders, zero mean and unit length, dark modules negative. Fainter
    finders (MATCH_FINDER_MIN) only when the clear ones make no corner: they add corners, and
    each corner's modules are compared with every look-alike."""
    return [_sample(image, corner, across, down) * sign
            for corner, across, down, sign in finder_corners(image, module_px, (FINDER_MIN, MATCH_FINDER_MIN))]


def finder_corners(image: np.ndarray, module_px: float, bars: tuple[float, ...] = (FINDER_MIN,)) -> list:
    """Each way three finder squares found in `image` make a QR's (unmirrored) corner: the
    corner finder's centre, one module's step across the top and down the side (px), and
    1 for dark-on-light, -1 for light-on-dark. The finders correlate at least bars[0] with the
    pattern; when those make no corner, at least bars[1], and so on."""
    pattern = _finder_pattern(round(module_px, 2))
    match = cv2.matchTemplate(image, pattern, cv2.TM_CCOEFF_NORMED)
    offset = (pattern.shape[0] - 1) / 2
    peaks = {sign: _peaks(sign * match, 4 * module_px, min(bars)) for sign in (1, -1)}
    for least in bars:
        corners = [(corner, across, down, sign) for sign in (1, -1)       # dark-on-light labels, then light-on-dark
                   for corner, across, down in _corners([at + offset for at, value in peaks[sign] if value >= least],
                                                        labels.FINDER_SPACING * module_px)]
        if corners:
            return corners
    return []


def _corners(finders: list[np.ndarray], spacing: float):
    for corner in finders:
        near = [f for f in finders if _about(f - corner, spacing)]      # a finder's spacing away
        for a in near:
            for b in near:
                u, v = a - corner, b - corner
                if abs(u @ v) > 0.2 * spacing ** 2:
                    continue
                if u[0] * v[1] - u[1] * v[0] <= 0:       # along the top, then down: never mirrored
                    continue
                yield corner, u / labels.FINDER_SPACING, v / labels.FINDER_SPACING


def _about(step: np.ndarray, length: float) -> bool:
    return 0.85 < math.hypot(step[0], step[1]) / length < 1.15


def _sample(image: np.ndarray, corner: np.ndarray, across: np.ndarray, down: np.ndarray) -> np.ndarray:
    # module centres, counted from the corner finder's centre (module 3, 3); one step across/down each
    rows, cols = np.mgrid[0:labels.QR_MODULES, 0:labels.QR_MODULES].astype(np.float32) - 3
    xs = corner[0] + cols * across[0] + rows * down[0]
    ys = corner[1] + cols * across[1] + rows * down[1]
    values = cv2.remap(image, xs.astype(np.float32), ys.astype(np.float32), cv2.INTER_LINEAR)[_data_mask()]
    values -= values.mean()
    return values / (np.linalg.norm(values) + 1e-9)


def _peaks(score: np.ndarray, apart: float, least: float) -> list[tuple[np.ndarray, float]]:
    """The highest points of `score` from `least` up, each at least `apart` px from a higher one, with their values."""
    score, found = score.copy(), []
    for _ in range(MOST_FINDERS):
        _, value, _, at = cv2.minMaxLoc(score)
        if value < least:
            break
        found.append((np.array(at, float), value))
        cv2.circle(score, at, int(apart), -1.0, -1)
    return found


@lru_cache(maxsize=8)
def _finder_pattern(module_px: float) -> np.ndarray:
    """A finder square with its light border: 9 modules across."""
    n = int(round(9 * module_px)) | 1
    pattern = np.ones((n, n), np.float32)
    middle = (n - 1) / 2
    for modules, shade in ((7, 0.0), (5, 1.0), (3, 0.0)):
        lo, hi = (int(round(middle + s * modules * module_px / 2)) for s in (-1, 1))
        cv2.rectangle(pattern, (lo, lo), (hi, hi), shade, -1)
    return pattern


@lru_cache(maxsize=1)
def _data_mask() -> np.ndarray:
    """The modules that tell labels apart: all but the three finders and their separators."""
    n = labels.QR_MODULES
    mask = np.ones((n, n), bool)
    mask[:8, :8] = mask[:8, n - 8:] = mask[n - 8:, :8] = False
    return mask


@lru_cache(maxsize=1)
def codebook() -> np.ndarray:
    """Each label's modules where the mask keeps them (light +, dark -), zero mean, unit length."""
    return _rows(np.array([labels.modules(ball) for ball in labels.BALLS]))


@lru_cache(maxsize=8)
def look_alike_book(mask: int) -> np.ndarray:
    """The look-alike codes under QR mask `mask`, as codebook rows (10 MB), kept in a file that every
    decoding process maps: one copy in memory for all of them, and none made again at their start."""
    shape = (len(labels.look_alikes()), int(_data_mask().sum()))
    return cache.mapped(f"look-alikes-mask{mask}", _books_made_by(), shape,
                        lambda: _rows(labels.look_alike_modules(mask)), _unit_rows)


@lru_cache(maxsize=1)
def _books_made_by() -> str:
    """The key of the code the look-alike books are made by (read once, not once a mask)."""
    return cache.key([labels.__file__, __file__], labels.encoder_version())


def _unit_rows(rows: np.ndarray) -> bool:
    """Every row of unit length, as _rows makes them: a file damaged on the disk is made again, not let
    weaken the look-alikes' bar."""
    return bool(np.allclose(np.einsum("ij,ij->i", rows, rows), 1, atol=1e-3))


def prepare() -> None:
    """Build (or map) the codebooks now, not while the first ball goes by."""
    codebook()
    for mask in {labels.label_mask(ball) for ball in labels.BALLS}:
        look_alike_book(mask)


def _rows(dark: np.ndarray) -> np.ndarray:
    """In place, in float32: a decoding process keeps no float64 copy's worth of memory it freed."""
    signs = np.where(dark[:, _data_mask()], np.float32(-1), np.float32(1))
    signs -= signs.mean(axis=1, keepdims=True)
    signs /= np.linalg.norm(signs, axis=1, keepdims=True)
    return signs
