"""Finding the card: the four ArUco fiducials and a homography (or, with a marker hidden, the printed
outline refined on the print), the rectified card, and its QR code read and verified."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .. import layouts as L
from .blank import PX, blank_card, card_data, fiducial_region
from .result import Rejection
from .tuning import LOCATE


@dataclass
class Located:
    """A located, rectified card."""
    homography: np.ndarray      # card mm -> image pixels
    grey: np.ndarray            # rectified, PX per mm
    method: str


def locate(detector, grey: np.ndarray) -> Located:
    """The card in the picture: by its corner markers; by its outline, with one hidden; by markers a little
    off one flat card ("curled": the print is fitted again piece by piece, refitted). Markers farther off
    one flat card, and no outline: a bent card, refused."""
    found = _markers(detector, grey)
    ids = [i for i in found if i in L.MARKER_IDS]
    error = None
    if len(ids) >= LOCATE.markers_needed:
        homography, error = _fit(found, ids)
        if error < LOCATE.flat:
            return Located(homography, card_region(grey, homography), "markers")
    outline = _outline(grey, found)
    if outline is not None:
        return Located(outline, card_region(grey, outline), "outline")
    if error is not None and error < LOCATE.curled:
        return Located(homography, card_region(grey, homography), "curled")
    if error is not None:
        raise Rejection("unreadable: the card's corner marks do not lie on one flat card (folded or "
                        "badly curled?): flatten it and scan it again")
    hint = " (the picture is too blurred to tell)" if _soft(grey) else ""
    raise Rejection(f"not a card: no card fiducials or outline found{hint}")


def read_code(grey: np.ndarray, card: Located, event: str, secret: str) -> L.Card:
    """The card its QR code names, if the code reads and is genuine and of this event."""
    x, y, w, h = (round(v * PX) for v in _around_code(LOCATE.qr_margin_mm))
    text = _decode(card.grey[y:y + h, x:x + w]) or _decode_warped(grey, card)   # most read there: no warp of their own
    if not text:
        raise Rejection("unreadable: the card's QR code cannot be read")
    try:
        return L.verify(text, event, secret)
    except L.CodeError as error:
        raise Rejection(str(error))


def _decode_warped(grey: np.ndarray, card: Located) -> str | None:
    """The code read on its own sharper warp (LOCATE.qr_px per mm), prepared in turn, by zxing then zbar (each
    reads codes the other cannot: a soft, noisy or low-contrast one); then again with a wider margin
    round it (a curled card's code lies off the fit by a millimetre or more: cut off at the edge)."""
    for margin in (LOCATE.qr_margin_mm, LOCATE.qr_wide_margin_mm):
        patch = card_region(grey, card.homography, LOCATE.qr_px, _around_code(margin))
        for decode, prepared in READINGS:      # each made only if the ones before fail
            text = decode(prepared(patch))
            if text:
                return text
    return None


def _around_code(margin: float) -> tuple:
    """The box (x, y, w, h in mm) of the QR code and margin mm of paper round it."""
    x, y, side = L.QR_BOX
    return x - margin, y - margin, side + 2 * margin, side + 2 * margin


def marker_detector():
    params = cv2.aruco.DetectorParameters()
    # a corner marker's perimeter, as a share of the picture's side: a third with the card filling it
    params.minMarkerPerimeterRate, params.maxMarkerPerimeterRate = 0.04, 0.5
    # one threshold window (OpenCV's default tries 3, 13 and 23): half the time, and on the bench
    # corpus it finds three or more corners on exactly the same cards
    params.adaptiveThreshWinSizeMin = params.adaptiveThreshWinSizeMax = 15
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE      # refined at full size instead
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)


def _markers(detector, grey: np.ndarray) -> dict[int, np.ndarray]:
    """Marker id -> its 4 corners in full-image pixels: looked for on a half-size copy of a big
    image first (four times fewer pixels), at full size if that finds too few; corners refined."""
    levels = [2, 1] if min(grey.shape) >= LOCATE.half_size_px else [1]
    for factor in levels:
        small = cv2.pyrDown(grey) if factor == 2 else grey
        corners, ids, _ = detector.detectMarkers(small)
        found = {}
        for quad, marker in zip(corners, [] if ids is None else ids.ravel()):
            if int(marker) in found:
                raise Rejection("more than one card in the image")
            found[int(marker)] = quad.reshape(4, 2).astype(np.float64) * factor + (factor - 1) / 2
        if sum(i in L.MARKER_IDS for i in found) >= LOCATE.markers_needed:
            break
    return _refine(grey, found) if found else found


def _refine(grey: np.ndarray, found: dict) -> dict:
    points = np.concatenate([q for q in found.values()]).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05)
    refined = cv2.cornerSubPix(grey, points.copy(), (3, 3), (-1, -1), criteria)
    return {i: refined[n * 4:(n + 1) * 4].astype(np.float64) for n, i in enumerate(found)}


def _fit(found: dict, ids: list[int]) -> tuple[np.ndarray | None, float]:
    """The homography of the markers' corners and how far off it they lie (the farthest, in marker
    sides: corners that disagree are not one flat card)."""
    src, dst = _marker_points(found, ids)
    homography, _ = cv2.findHomography(src, dst, 0)
    if homography is None:
        return None, np.inf
    return homography, _farthest_off(homography, src, dst) / (np.linalg.norm(dst[0] - dst[2]) / np.sqrt(2))


def _marker_points(found: dict, ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The corners of the markers ids on the card (mm) and where they were found (pixels)."""
    corners = L.marker_corners_mm()
    return np.array([p for i in ids for p in corners[i]], np.float64), np.concatenate([found[i] for i in ids])


def _farthest_off(homography: np.ndarray, src: np.ndarray, dst: np.ndarray) -> float:
    return np.linalg.norm(cv2.perspectiveTransform(src[None], homography)[0] - dst, axis=1).max()


def _outline(grey: np.ndarray, found: dict) -> np.ndarray | None:
    """The card's outline (its printed frame or the paper's edge) as the card's corners; markers
    still seen (or the code) say which way up."""
    scale = 0.5 if min(grey.shape) >= LOCATE.half_size_px else 1.0
    small = cv2.pyrDown(grey) if scale < 1 else grey
    binary = cv2.adaptiveThreshold(small, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, 31, 10)
    contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    quads = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < LOCATE.outline_area * small.size:
            continue
        quad = _quad(contour)
        if quad is not None:
            quads.append((area, quad / scale))
    outer = L.FRAME_LINE / 2
    a, bx, by = L.FRAME_INSET - outer, L.CARD_W - L.FRAME_INSET + outer, L.CARD_H - L.FRAME_INSET + outer
    frame_mm = np.array([(a, a), (bx, a), (bx, by), (a, by)], np.float64)
    edge_mm = np.array([(0, 0), (L.CARD_W, 0), (L.CARD_W, L.CARD_H), (0, L.CARD_H)], np.float64)
    seen = [i for i in found if i in L.MARKER_IDS]
    fits = []
    for _, quad in sorted(quads, key=lambda q: -q[0]):
        quad = _clockwise(quad)
        sides = np.linalg.norm(quad - np.roll(quad, -1, 0), axis=1)
        ratio = (sides[0] + sides[2]) / (sides[1] + sides[3])
        if not LOCATE.slant_low < ratio < LOCATE.slant_high:        # a card seen at a slant; either way round
            continue
        if not seen:
            best = _orient_by_code(grey, quad, frame_mm)
            if best is not None:
                return _refine_on_print(grey, best, seen)
            continue
        fits += [fit for outline_mm in (frame_mm, edge_mm)
                 if (fit := _orient_by_markers(quad, outline_mm, found, seen)) is not None]
    if not fits:
        return None
    return _refine_on_print(grey, min(fits, key=lambda f: f[0])[1], seen)


def _quad(contour: np.ndarray) -> np.ndarray | None:
    """Four corners from the four longest sides of the outline's hull, so a finger over a corner
    (which cuts the hull there) does not move them."""
    hull = cv2.convexHull(contour)
    poly = cv2.approxPolyDP(hull, 0.01 * cv2.arcLength(hull, True), True).reshape(-1, 2).astype(np.float64)
    if len(poly) < 4:
        return None
    sides = [(poly[i], poly[(i + 1) % len(poly)]) for i in range(len(poly))]
    lengths = [np.linalg.norm(b - a) for a, b in sides]
    longest = sorted(sorted(range(len(sides)), key=lambda i: -lengths[i])[:4])
    if sum(lengths[i] for i in longest) < LOCATE.hull_sides * sum(lengths):
        return None
    corners = [_cross(sides[longest[i - 1]], sides[longest[i]]) for i in range(4)]
    return None if any(c is None for c in corners) else np.array(corners)


def _cross(a, b):
    """Where the lines through two sides meet (in homogeneous coordinates; None if they are parallel)."""
    x, y, w = np.cross(np.cross([*a[0], 1], [*a[1], 1]), np.cross([*b[0], 1], [*b[1], 1]))
    return None if w == 0 else (x / w, y / w)


def _clockwise(quad: np.ndarray) -> np.ndarray:
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(angles)]
    start = np.argmin(quad.sum(axis=1))
    return np.roll(quad, -start, axis=0)


def _orient_by_markers(quad: np.ndarray, outline_mm: np.ndarray, found: dict, seen: list):
    """(error, homography) of the way round the outline fits the markers seen best, fitted to
    their corners and the outline's together; None if no way round agrees with them."""
    src, dst = _marker_points(found, seen)
    size = np.linalg.norm(dst[0] - dst[2])
    best = None
    for turn in range(4):
        outline = np.roll(quad, -turn, 0)
        joint, _ = cv2.findHomography(np.concatenate([src, outline_mm]), np.concatenate([dst, outline]), 0)
        if joint is None:
            continue
        error = _farthest_off(joint, src, dst)
        if error < LOCATE.curled * size and (best is None or error < best[0]):
            best = error, joint
    return best


def _orient_by_code(grey: np.ndarray, quad: np.ndarray, frame_mm: np.ndarray) -> np.ndarray | None:
    """With no marker seen: the one way round the outline whose code reads."""
    turns = [cv2.getPerspectiveTransform(frame_mm.astype(np.float32), np.roll(quad, -turn, 0).astype(np.float32))
             for turn in range(4)]
    read = [h for h in turns if _decode(card_region(grey, h, LOCATE.qr_px, _around_code(LOCATE.qr_margin_mm)))]
    return read[0] if len(read) == 1 else None


def _refine_on_print(grey: np.ndarray, homography: np.ndarray, seen: list) -> np.ndarray | None:
    """An outline fit is only as good as the paper's edge: align the rectified card to the blank's
    print around the outline and the markers seen (a finger over a marker is no print)."""
    blank = blank_card("vote").astype(np.float32) / 255
    warped = card_region(grey, homography).astype(np.float32) / 255
    mask = fiducial_region().copy()
    for m in L.markers():
        if seen and m.id not in seen:
            x0, y0, x1, y1 = (round(v * PX) for v in (m.x - 3, m.y - 3, m.x + m.size + 3, m.y + m.size + 3))
            mask[max(0, y0):y1, max(0, x0):x1] = 0
    try:
        fit, warp = _aligned(blank, warped, mask)
    except cv2.error:
        return None
    if fit < LOCATE.aligned:
        return None
    scale = np.diag([PX, PX, 1.0])
    return homography @ np.linalg.inv(scale) @ warp.astype(np.float64) @ scale


def _aligned(blank: np.ndarray, warped: np.ndarray, mask: np.ndarray) -> tuple[float, np.ndarray]:
    """(correlation, homography) aligning warped to blank (findTransformECC): most of the way at half
    size, a quarter of the pixels, then a few steps at full size (half the time of all at full size)."""
    def half(image, how=cv2.INTER_AREA):
        return cv2.resize(image, (image.shape[1] // 2, image.shape[0] // 2), interpolation=how)
    criteria = cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT
    _, coarse = cv2.findTransformECC(half(blank), half(warped), np.eye(3, dtype=np.float32), cv2.MOTION_HOMOGRAPHY,
                                     (criteria, 40, 1e-4), half(mask, cv2.INTER_NEAREST), 3)
    to_full = np.diag([2.0, 2.0, 1.0]).astype(np.float32)
    return cv2.findTransformECC(blank, warped, to_full @ coarse @ np.linalg.inv(to_full), cv2.MOTION_HOMOGRAPHY,
                                (criteria, 10, 1e-4), mask, 5)


def card_region(image: np.ndarray, homography: np.ndarray, px: float = PX,
                box: tuple = (0, 0, L.CARD_W, L.CARD_H)) -> np.ndarray:
    """The card region box (x, y, w, h in mm; the whole card) at px pixels per mm."""
    x, y, w, h = box
    to_mm = np.array([[1 / px, 0, x], [0, 1 / px, y], [0, 0, 1]])
    return cv2.warpPerspective(image, homography @ to_mm, (round(w * px), round(h * px)),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=255)


def _decode(image: np.ndarray) -> str | None:
    import zxingcpp
    for barcode in zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode):
        if barcode.valid and barcode.text:
            return barcode.text
    return None


def _soft(grey: np.ndarray) -> bool:
    """No edge in the picture is steep for its contrast: badly out of focus or moving."""
    small = cv2.pyrDown(grey) if min(grey.shape) >= LOCATE.half_size_px else grey
    steep = np.percentile(np.abs(cv2.Sobel(small, cv2.CV_32F, 1, 0)), 99.5)
    low, high = np.percentile(small, [1, 99])
    return high - low > LOCATE.soft_contrast and steep / (high - low) < LOCATE.soft_edge


def _unchanged(image: np.ndarray) -> np.ndarray:
    return image


def _enlarged(image: np.ndarray) -> np.ndarray:
    return cv2.resize(image, None, fx=1.5, fy=1.5)


def _zbar(image: np.ndarray) -> str | None:
    try:
        from pyzbar import pyzbar
    except ImportError:         # no zbar library: zxing's reading stands alone
        return None
    for found in pyzbar.decode(image, symbols=[pyzbar.ZBarSymbol.QRCODE]):
        return found.data.decode("ascii", "replace")
    return None


def _sharpen(image: np.ndarray) -> np.ndarray:
    return cv2.addWeighted(image, 2.0, cv2.GaussianBlur(image, (0, 0), 2.0), -1.0, 0)


def _binary(image: np.ndarray) -> np.ndarray:
    return cv2.adaptiveThreshold(image, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C, cv2.THRESH_BINARY, 31, 8)


READINGS = ((_decode, _unchanged), (_decode, _sharpen), (_decode, _binary), (_decode, _enlarged), (_zbar, _unchanged))


# --- a curled card: the print fitted again piece by piece ---------------------------------------------

def refitted(grey: np.ndarray, card: Located, amount: np.ndarray, kind: str) -> Located:
    """The card rectified again with its print where the blank has it: a curled edge (or a marker
    lifted with it) bends the print away from one homography by a millimetre or two, which misfits
    the printed rings against the blank. Pieces of print are matched to the blank a little way
    round where the fit puts them; their shifts, smoothed, move every pixel."""
    shifts = _print_shifts(amount, kind)
    if shifts is None:
        return card
    h, w = amount.shape
    grid = LOCATE.map_px
    v, u = np.mgrid[0:h + grid:grid, 0:w + grid:grid].astype(np.float32)
    step, start = LOCATE.step_mm * PX, LOCATE.tile_mm * PX / 2
    x, y = ((c + cv2.remap(shifts[..., k], (u - start) / step, (v - start) / step, cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)) / PX for k, c in enumerate((u, v)))
    m = card.homography
    z = m[2, 0] * x + m[2, 1] * y + m[2, 2]
    fine_x, fine_y = _fine_grid(h, w)
    map_x, map_y = (cv2.remap(((m[k, 0] * x + m[k, 1] * y + m[k, 2]) / z).astype(np.float32), fine_x, fine_y,
                              cv2.INTER_LINEAR) for k in (0, 1))
    again = cv2.remap(grey, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=255)
    return Located(card.homography, again, card.method)


@lru_cache(maxsize=None)
def _fine_grid(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pixel's place on the LOCATE.map_px grid."""
    v, u = np.mgrid[0:h, 0:w].astype(np.float32) / LOCATE.map_px
    return u, v


def _print_shifts(amount: np.ndarray, kind: str) -> np.ndarray | None:
    """Per piece of print on a grid LOCATE.step_mm apart, (dx, dy) in pixels from where the fit puts it to where it is
    seen; pieces that match poorly (a mark over them) or have no print to go by take their neighbours'."""
    matched, pieces, rows, cols = _pieces(kind, amount.shape)
    half, reach = round(LOCATE.tile_mm * PX * LOCATE.half / 2), round(LOCATE.reach_mm * PX * LOCATE.half)
    seen = cv2.resize(amount * matched, None, fx=LOCATE.half, fy=LOCATE.half, interpolation=cv2.INTER_AREA)
    seen = cv2.copyMakeBorder(seen, reach, reach, reach, reach, cv2.BORDER_CONSTANT, value=0)
    shifts = np.full((rows, cols, 2), np.nan, np.float32)
    for j, i, y0, x0, template in pieces:
        match = cv2.matchTemplate(seen[y0:y0 + 2 * (half + reach), x0:x0 + 2 * (half + reach)], template,
                                  cv2.TM_CCOEFF_NORMED)
        _, best, _, (x, y) = cv2.minMaxLoc(match)
        if best >= LOCATE.matched and 0 < x < match.shape[1] - 1 and 0 < y < match.shape[0] - 1:  # off its edge
            shifts[j, i] = (x - reach + _vertex(match[y, x - 1:x + 2])) / LOCATE.half, \
                (y - reach + _vertex(match[y - 1:y + 2, x])) / LOCATE.half
    return _smoothed(shifts)


@lru_cache(maxsize=None)
def _pieces(kind: str, shape: tuple) -> tuple:
    """Where a card of this kind holds only the blank's print (not its own data or code); the pieces of the blank's
    print to match (as ink, 0 paper .. 1 black, at half size), each with its place on the grid; the grid's size."""
    printed = cv2.resize((255 - blank_card(kind)).astype(np.float32) / 255, None, fx=LOCATE.half, fy=LOCATE.half,
                         interpolation=cv2.INTER_AREA)
    matched = ~card_data(kind)
    x, y, side = (round(v * PX) for v in L.QR_BOX)
    matched[y:y + side, x:x + side] = False
    half, step = round(LOCATE.tile_mm * PX * LOCATE.half / 2), LOCATE.step_mm * PX * LOCATE.half
    rows, cols = (int((n * LOCATE.half - 2 * half) // step) + 1 for n in shape)
    pieces = []
    for j in range(rows):
        for i in range(cols):
            y0, x0 = round(j * step), round(i * step)
            template = printed[y0:y0 + 2 * half, x0:x0 + 2 * half]
            if template.std() >= LOCATE.some_print:      # some print to go by, not open paper
                pieces.append((j, i, y0, x0, template))
    return matched.astype(np.float32), pieces, rows, cols


def _vertex(values: np.ndarray) -> float:
    """Where a parabola through three samples peaks, off the middle one (sub-pixel)."""
    a, b, c = values
    bend = a - 2 * b + c
    return 0.0 if bend >= 0 else float(np.clip(0.5 * (a - c) / bend, -0.5, 0.5))


def _smoothed(shifts: np.ndarray) -> np.ndarray | None:
    """Each piece's shift the median of its own and its neighbours' found ones, with at least three found (one piece
    pulled by a mark is outvoted); pieces without take the nearest such. None if there are none."""
    rows, cols = shifts.shape[:2]
    padded = np.pad(shifts, ((1, 1), (1, 1), (0, 0)), constant_values=np.nan)
    near = np.stack([padded[dj:dj + rows, di:di + cols] for dj in range(3) for di in range(3)])
    enough = (~np.isnan(near[..., 0])).sum(axis=0) >= 3
    if not enough.any():
        return None
    out = np.full_like(shifts, np.nan)
    out[enough] = np.nanmedian(near[:, enough], axis=0)
    if not enough.all():
        _, nearest = cv2.distanceTransformWithLabels((~enough).astype(np.uint8), cv2.DIST_L2, 5,
                                                     labelType=cv2.DIST_LABEL_PIXEL)
        labels = np.zeros(nearest.max() + 1, np.int64)
        labels[nearest[enough]] = np.flatnonzero(enough)
        out = out.reshape(-1, 2)[labels[nearest]].reshape(shifts.shape)
    return out
