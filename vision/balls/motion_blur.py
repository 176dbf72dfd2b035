"""Motion blur along a known direction: how long the streak is, and undoing it.

A ball falling through the chute smears along the fall direction (the rig's `fall_deg`) by
its travel during the exposure. Along that direction a streak of length L multiplies the
image's spectrum by a sinc whose zeros repeat every 1/L: the log power spectrum ripples with
period 1/L, so its transform (the cepstrum) dips at a lag of L px (`blur_length`). Knowing
the direction and the length, Wiener's filter with a line kernel undoes most of it
(`deblurred`).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:
    from .find import Circle

# the Wiener filter's noise-to-signal ratio: higher, less ringing and less sharp (tuning seed 11,
# deblurred by the true streak: 0.005 read 188 of 292 chute frames with a ball, 0.01-0.04 197-199)
DEBLUR_NOISE = 0.02
SHARPER_NOISE = 0.005          # a second chance, sharper and ringing more (2 more frames of 292 read there)
LENGTH_RANGE = (5, 20)         # px: the streaks `blur_length` looks for
LENGTH_BIAS = 1.2              # px the cepstrum's dip lies beyond the streak (defocus widens it; tuning seed 11)
# how deep the dip must be to be a streak: on tuning seed 11, 80% of the chute's frames (8-15 px)
# dipped below -0.085, and 90% of sharp or turning balls' frames stayed above -0.065
STREAK_DIP = -0.075
MEASURE_SHARE = 0.6            # of the ball's radius: half the side of the square measured inside it


def blur_length(gray: np.ndarray, circle: "Circle", angle: float) -> float | None:
    """The length (px) of the streak along `angle` (radians, image axes) on the ball: the dip
    of the cepstrum along that direction, averaged over the rows of a square inside the ball
    and the frame (`_measured_square`) turned to run along it. None when too little of the ball
    is in view to tell or it shows no clear streak (a sharp ball, or one blurred by turning
    rather than by travelling)."""
    low, high = LENGTH_RANGE
    square = _measured_square(circle, gray.shape, 4 * high)
    if square is None:
        return None
    x, y, side = square
    turn = cv2.getRotationMatrix2D((x, y), math.degrees(angle), 1.0)
    turn[:, 2] += (side / 2 - x, side / 2 - y)
    square = cv2.warpAffine(gray, turn, (side, side), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REFLECT).astype(np.float32)
    square -= square.mean(axis=1, keepdims=True)
    power = (np.abs(np.fft.rfft(square * np.hanning(side).astype(np.float32), axis=1)) ** 2).mean(axis=0)
    log_power = np.log(power + 1e-3)
    cepstrum = np.fft.irfft(log_power - log_power.mean())
    dip = low + int(np.argmin(cepstrum[low:high]))
    before, at, after = cepstrum[dip - 1:dip + 2]
    if at > STREAK_DIP:
        return None
    curve = before - 2 * at + after
    dip += 0.5 * (before - after) / curve if curve > 0 else 0.0       # between samples: a parabola's vertex
    return max(float(dip) - LENGTH_BIAS, 1.0)


def _measured_square(circle: "Circle", shape, smallest: int) -> tuple[float, float, int] | None:
    """Where to measure the streak: the centre and side of a square on the ball's middle, moved
    (and shrunk, down to `smallest` px) to lie inside the frame and the ball where the frame's
    edge cuts the ball off, as it does when a ball enters or leaves the chute's view."""
    h, w = shape[:2]
    for side in range(int(2 * MEASURE_SHARE * circle.r) // 2 * 2, smallest - 1, -8):
        half = side / 2
        x, y = min(max(circle.x, half + 1), w - half - 2), min(max(circle.y, half + 1), h - half - 2)
        if math.hypot(x - circle.x, y - circle.y) + half * math.sqrt(2) <= circle.r:
            return x, y, side
    return None


def deblurred(gray: np.ndarray, circle: "Circle", length: float, angle: float,
              noise: float = DEBLUR_NOISE) -> np.ndarray:
    """A copy of `gray` with the ball's box (and a blur length around it) deconvolved of a
    straight motion blur `length` px long at `angle` (radians, image axes): Wiener's filter,
    assuming `noise` (its noise-to-signal ratio)."""
    pad = int(length) + 2
    reach = 1.2 * circle.r + pad
    x0, y0 = max(int(circle.x - reach), 0), max(int(circle.y - reach), 0)
    x1, y1 = min(int(circle.x + reach) + 1, gray.shape[1]), min(int(circle.y + reach) + 1, gray.shape[0])
    if min(x1 - x0, y1 - y0) <= pad:           # next to nothing of the ball in the frame
        return gray
    box = cv2.copyMakeBorder(gray[y0:y1, x0:x1], pad, pad, pad, pad, cv2.BORDER_REFLECT).astype(np.float32)
    h, w = cv2.getOptimalDFTSize(box.shape[0]), cv2.getOptimalDFTSize(box.shape[1])
    box = cv2.copyMakeBorder(box, 0, h - box.shape[0], 0, w - box.shape[1], cv2.BORDER_REFLECT)
    blur = np.fft.rfft2(_line_psf(length, angle, (h, w)))
    # the image's spectrum x conj(blur) / (|blur|^2 + noise)
    sharp = np.fft.irfft2(np.fft.rfft2(box) * np.conj(blur) / (np.abs(blur) ** 2 + noise), s=(h, w))
    out = gray.copy()
    out[y0:y1, x0:x1] = np.clip(sharp[pad:pad + y1 - y0, pad:pad + x1 - x0], 0, 255).astype(np.uint8)
    return out


def _line_psf(length: float, angle: float, shape: tuple[int, int]) -> np.ndarray:
    """A straight blur `length` px long centred on pixel (0, 0) of an image of `shape`, wrapping
    round its edges (as the DFT sees it): points along the line, each shared bilinearly."""
    psf = np.zeros(shape, np.float32)
    steps = max(int(length * 4), 2)
    along = np.linspace(-length / 2, length / 2, steps)
    xs, ys = along * math.cos(angle), along * math.sin(angle)
    fx, fy = np.floor(xs), np.floor(ys)
    for dx, dy, weight in ((0, 0, (1 - (xs - fx)) * (1 - (ys - fy))), (1, 0, (xs - fx) * (1 - (ys - fy))),
                           (0, 1, (1 - (xs - fx)) * (ys - fy)), (1, 1, (xs - fx) * (ys - fy))):
        np.add.at(psf, (((fy + dy).astype(int)) % shape[0], ((fx + dx).astype(int)) % shape[1]), weight)
    return psf / psf.sum()
