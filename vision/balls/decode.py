"""Decoders behind one interface (`backend(name)`): image in, texts out. zxing-cpp (QR Model 2
only: the whole QR family once returned Micro QR garbage), pyzbar, OpenCV. And a second chance
for a label glare washed a finder square out of (`finder_restored`).
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from .. import ball_labels as labels

DECODERS = ("zxing", "pyzbar", "opencv")
DEFAULT_DECODER = "zxing"          # fastest and most accurate in `companion bench balls`


class DecoderUnavailable(RuntimeError):
    pass


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
        axis = rotated((b - a) / span, math.pi / 4)
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


def rotated(v: np.ndarray, angle: float) -> np.ndarray:
    """The 2-D vector `v` turned by `angle` radians (image axes)."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _square(image: np.ndarray, centre: np.ndarray, axis: np.ndarray, side: float, shade: float) -> None:
    u, v = axis * side / 2, rotated(axis, math.pi / 2) * side / 2
    corners = np.array([centre - u - v, centre + u - v, centre + u + v, centre - u + v])
    cv2.fillConvexPoly(image, np.round(corners * 16).astype(np.int32), int(shade), cv2.LINE_AA, shift=4)

