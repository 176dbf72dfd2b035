"""Measuring ink per bubble zone: how dark each pixel is against the paper around it, the print
model's levels on this card, and per bubble the new ink in its disc, the band around it, its own
part of the disc, the halo just outside it, its printed ring; a light mark's shape."""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from statistics import median

import cv2
import numpy as np

from .. import layouts as L
from .blank import PX, blank_card, clear_of_black, print_everywhere, bubble_radii, spread_print
from .tuning import LIGHT, MEASURE, SHADE, SHAPE, neighbours

MAD_SIGMA = 1.4826       # a median absolute deviation times this: the standard deviation of normal noise


def ink(grey: np.ndarray) -> np.ndarray:
    """How much darker than the paper around it each pixel is (0 paper .. 1 black).

    The paper level is a closing wider than any mark, so a shadow or uneven light (broad, or a step) is paper, while a
    pen stroke or a filled dot (narrower than the window) is ink. The card is padded with its own edge first: a shadow's
    corner cut off by the card's edge (a fold's shade narrower there than the window) would otherwise be closed over and
    read as ink. Glare is capped first (_glare_ceiling), and a narrow closing keeps a pen line under glare on its bright
    paper. Light before ink: where the paper darkens more softly than any ink's edge (a hand's or a phone's shadow
    narrower than the window, light falling off steeply), the paper level follows it down (_light_before_ink): ink is
    dark and has edges, a shadow is dark without them."""
    grey = cv2.GaussianBlur(grey, (3, 3), 0)       # sensor noise would read as faint ink everywhere
    small = cv2.resize(grey, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    window = int(LIGHT.paper_window_mm * PX / 4) | 1
    pad = window // 2
    padded = cv2.copyMakeBorder(small, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    lines_closed = _closing(padded, int(LIGHT.line_mm * PX / 4) | 1)
    ceiling = _glare_ceiling(padded, window)
    closed = cv2.max(_closing(cv2.min(padded, ceiling), window), lines_closed)     # a pen line under glare: bright paper
    steep = cv2.copyMakeBorder(_steep(grey, small.shape), pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    paper = _light_before_ink(steep, padded, lines_closed, closed, ceiling)[pad:-pad, pad:-pad]
    paper = cv2.resize(cv2.blur(paper, (5, 5)), (grey.shape[1], grey.shape[0]), interpolation=cv2.INTER_LINEAR)
    paper = cv2.max(paper, cv2.max(grey, 1))
    share = cv2.divide(grey, paper, dtype=cv2.CV_32F)        # cv2's ops: a fifth of numpy's time here
    return np.subtract(1.0, share, out=share)


def _soft_light(lines_closed: np.ndarray) -> np.ndarray:
    """The paper level as bright as the picture allows while it darkens no faster than SHADE.edge per mm
    (light before ink), from the picture at a quarter of the resolution with its lines closed (a pen or
    pencil line, narrower than LIGHT.line_mm, is no darkening of the paper). A shadow or a gradient,
    however narrow, darkens the paper more softly and is followed: no ink; a dot's or a fill's edge is
    steeper and stays ink. The level falls by a step each quarter pixel out from every pixel, square
    and cross steps in turn (an octagon: about as far every way), down to SHADE.deepest of the light."""
    fall = float(np.exp(-SHADE.edge * 4 / PX))
    level = lines_closed
    for step in range(int(np.ceil(np.log(SHADE.deepest) / np.log(fall)))):
        level = cv2.max(level, cv2.convertScaleAbs(cv2.dilate(level, _step(step)), alpha=fall))
    return level


def _steep(grey: np.ndarray, shape: tuple) -> np.ndarray:
    """Where the picture darkens steeper than SHADE.edge per mm (its slope, Sobel's: a grainy photo's
    noise makes no edge, as the darkest and brightest of a few pixels would), against the brighter side,
    marked at a quarter of the resolution (a quarter pixel with any)."""
    return cv2.resize(cv2.dilate(_steep_edges(grey), np.ones((5, 5), np.uint8)), (shape[1], shape[0]),
                      interpolation=cv2.INTER_NEAREST) // 255


def _steep_edges(grey: np.ndarray) -> np.ndarray:
    """_steep's edges at full resolution (255 there)."""
    # 128 times the slope: whole-number Sobel sums (a quarter of the float's time), the same bits scaled
    slope = cv2.magnitude(*(cv2.Sobel(grey, cv2.CV_16S, dx, 1 - dx, ksize=5).astype(np.float32) for dx in (0, 1)))
    return cv2.compare(slope, cv2.dilate(grey, _step()).astype(np.float32) * (SHADE.edge / PX * 128), cv2.CMP_GE)


def _light_before_ink(steep: np.ndarray, small: np.ndarray, lines_closed: np.ndarray, closed: np.ndarray,
                      ceiling: np.ndarray) -> np.ndarray:
    """The paper level: the closing's, lowered to the soft light's (_soft_light) where that is darker by
    more than the noise floor (less is no ink anyway), except in a patch so lowered whose outline nearly all
    rises steeply out of it (_steep within a quarter pixel and brighter by the noise floor, SHADE.enclosed of
    it, leaving out the lines on it, a ring's or a label's): a fill's inside (a pencil fill's is as flat as a
    shadow), not a shadow (soft round, however the print crosses it; a sliver along a sharp shade's edge)."""
    # glare (over its ceiling) is its own paper, but no light spreads from it (nor its tail, within half line_mm)
    glare, capped, disc = lines_closed > ceiling, cv2.min(lines_closed, ceiling), _step(LIGHT.line_mm * PX / 8)
    if glare.any():
        capped = np.where(cv2.dilate(glare.view(np.uint8), disc) > 0, cv2.erode(capped, disc), capped)
    soft = cv2.max(_soft_light(capped), lines_closed * glare)
    lowered = cv2.compare(soft, cv2.convertScaleAbs(closed, alpha=1 - LIGHT.noise_floor), cv2.CMP_LT) // 255
    count, patches = cv2.connectedComponents(lowered, connectivity=8)
    if count <= 1:
        return closed
    on_line = cv2.compare(small, cv2.convertScaleAbs(lines_closed, alpha=1 - LIGHT.noise_floor), cv2.CMP_LT) > 0
    outline = (cv2.dilate(lowered, _step()) > 0) & ~(lowered > 0) & ~on_line
    beside = cv2.dilate(patches.astype(np.float32), _step())[outline].astype(np.int64)    # the patch it rings
    at = np.flatnonzero(lowered)     # the patches' pixels (label 0, the paper round them, needs no level)
    level = np.bincount(patches.ravel()[at], small.ravel()[at], count) / np.maximum(np.bincount(patches.ravel()[at]), 1)
    rising = cv2.dilate(steep, _step())[outline] & (small[outline] * (1 - LIGHT.noise_floor) > level[beside])
    share = np.bincount(beside, rising, count) / np.maximum(np.bincount(beside, minlength=count), 1)
    return np.where((share < SHADE.enclosed)[patches] & (lowered > 0), soft, closed)     # a shadow: the soft light


@lru_cache(maxsize=None)
def _step(n: int | float = 0) -> np.ndarray:
    """One pixel's neighbours: the square's (n even), the cross's (n odd); a disc n pixels round (n a float)."""
    if isinstance(n, float):
        return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(n) + 1,) * 2)
    return cv2.getStructuringElement((cv2.MORPH_RECT, cv2.MORPH_CROSS)[n % 2], (3, 3))


def _closing(image: np.ndarray, window: int) -> np.ndarray:
    return cv2.morphologyEx(image, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (window, window)))


def _glare_ceiling(small: np.ndarray, window: int) -> np.ndarray:
    """Brighter than this is glare, not paper: a little over the median of a wider window (mostly
    paper whatever is marked or shines there). A glare spot left in would lift the closing's paper
    level beside it (the window steps round the spot onto brighter paper) and read paper as ink.
    The median is taken at half this size again (a third of the time; it is smooth at this width)."""
    tiny = cv2.resize(small, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    wide = cv2.resize(cv2.medianBlur(tiny, int(0.75 * window) | 1), (small.shape[1], small.shape[0]),
                      interpolation=cv2.INTER_LINEAR)
    return np.clip(wide.astype(np.float32) * LIGHT.glare_ceiling, 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class BubbleGeometry:
    """Where one bubble's regions lie on the rectified card: masks over its patch."""
    where: tuple                # the patch round it (rows, columns slices)
    flat: np.ndarray            # its pixels' flat indices over the card
    d: np.ndarray               # their distance from its centre (pixels)
    disc: np.ndarray            # the disc scored (off near-black print)
    ring: np.ndarray            # its printed ring
    band: np.ndarray            # the band round it, where a line through it shows
    printed: np.ndarray         # the blank's print (1 = the bubbles' grey; spread so a slight misfit is not ink)
    own_print: np.ndarray       # its own print (ring and label)
    own_disc: np.ndarray        # the part of its disc outside the other bubbles' spill zones
    zone: np.ndarray            # per pixel, the bubble whose spill zone it lies in (-1: none)


@lru_cache(maxsize=None)
def bubble_geometry(kind: str) -> dict[tuple, BubbleGeometry]:
    """Per bubble (field, value), its regions."""
    blank = blank_card(kind)
    print_ink = spread_print(kind)
    core = cv2.erode((blank < SHAPE.print_core).astype(np.uint8), np.ones((2, 2), np.uint8)) > 0
    clear = clear_of_black(kind)
    h, w = blank.shape
    yy, xx = np.mgrid[0:h, 0:w]
    out = {}
    bubbles = L.layout(kind).bubbles()
    for name, b in bubbles:
        cx, cy, r = b.x * PX, b.y * PX, b.r * PX
        x0, x1 = max(0, int(cx - SHAPE.patch * r)), min(w, int(cx + SHAPE.patch * r) + 1)
        y0, y1 = max(0, int(cy - SHAPE.patch * r)), min(h, int(cy + SHAPE.patch * r) + 1)
        box = slice(y0, y1), slice(x0, x1)
        d = np.hypot(xx[box] - cx, yy[box] - cy)
        ring = (np.abs(d - r) <= SHAPE.ring_line_mm * PX) & core[box]
        own_print = (d <= r + SHAPE.ring_line_mm * PX) & core[box]
        ok, zone = clear[box], _zones(b, bubbles, xx[box], yy[box])
        disc = (d <= SHAPE.disc * r) & ok
        out[name, b.value] = BubbleGeometry(box, yy[box] * w + xx[box], d, disc, ring,
                                            (d >= SHAPE.band_inner * r) & (d <= SHAPE.band_outer * r) & ok,
                                            print_ink[box], own_print, disc & (zone < 0), zone)
    return out


def _zones(b: L.Bubble, bubbles, xx, yy) -> np.ndarray:
    """Per pixel, the number of the other bubble whose spill zone it lies in (-1: none). A big circle
    drawn round a bubble reaches SHAPE.circle_reach radii from its centre, into its neighbours' discs and bands."""
    zone, nearest = np.full(xx.shape, -1, np.int32), np.full(xx.shape, SHAPE.circle_reach)
    for n, (_, o) in enumerate(bubbles):
        if neighbours(o, b):
            reach = np.hypot(xx - o.x * PX, yy - o.y * PX) / (o.r * PX)
            zone[reach < nearest], nearest = n, np.minimum(nearest, reach)
    return zone


@dataclass(frozen=True)
class Levels:
    """How the card's print and paper look in this picture."""
    rings: dict         # bubble -> how dark its printed ring looks
    darkest: dict       # bubble -> how dark the darkest of its own print (its label) looks
    print_level: float  # how dark the bubbles' grey print looks
    floor: float        # ink weaker than this is noise


def _new_ink(seen: np.ndarray, printed: np.ndarray, levels: Levels) -> np.ndarray:
    """Darkness beyond the blank's own print (scaled to how dark the print looks on this card)
    and the noise, as a share of a full-strength stroke (0-1)."""
    if not seen.size:
        return np.zeros(seen.shape, np.float32)
    full = LIGHT.full_stroke
    new = cv2.addWeighted(seen, 1 / full, printed, -levels.print_level / full,       # one pass
                          -levels.floor / full, dtype=cv2.CV_32F)
    return np.clip(new, 0, 1, out=new)


@dataclass(frozen=True)
class Measured:
    """A card's ink, measured once and shared by every check (scores, circles, strokes, doubts)."""
    amount: np.ndarray  # ink() of the rectified card
    levels: Levels
    new: np.ndarray     # new ink beyond the blank's print over the whole card: what the bubbles score
    seen: np.ndarray    # new, none where the card's own data, code and edge are: what circles and strokes follow
    kept: dict = field(default_factory=dict, compare=False, repr=False)    # what several checks derive alike, once


def measured(amount: np.ndarray, kind: str) -> Measured:
    levels = _levels(amount, kind)
    new = _new_ink(amount, spread_print(kind), levels)
    return Measured(amount, levels, new, cv2.multiply(new, _not_black_print(kind)))


@lru_cache(maxsize=None)
def _not_black_print(kind: str) -> np.ndarray:
    """Away from the card's own data, code and edge (never a stroke's ink there): 1, else 0."""
    return (print_everywhere(kind) < print_everywhere(kind).max()).astype(np.float32)


def _levels(amount: np.ndarray, kind: str) -> Levels:
    regions = bubble_regions(kind)
    flat = amount.ravel()
    rings = dict(zip(regions.keys, _quantiles(flat, regions.ring, 0.5)))
    darkest = _quantiles(flat, regions.own_print, 0.9)
    print_level = min(max(fast_median(np.array(darkest)), 0.5 * (1 - L.PRINT_GREY)), 1.0)
    return Levels(rings, dict(zip(regions.keys, darkest)), print_level, _noise_floor(amount, kind))


@dataclass(frozen=True)
class Cut:
    """Ink taken out of some bubbles: a stray stroke's, a circle's round another bubble."""
    pixels: np.ndarray      # flat bool over the rectified card
    bubbles: np.ndarray     # bool per bubble (layout order): those it is taken out of


@dataclass(frozen=True)
class BubbleInk:
    """The evidence of ink per bubble ((field, value) -> number), as score_bubbles measures it."""
    scores: dict        # new ink in the disc (mm² of full-strength stroke per mm of radius)
    around: dict        # ink in the band round it, less a marked neighbour's reach
    filled: dict        # the share of the disc inked
    own: dict           # new ink in the disc away from the other bubbles' spill zones
    band: dict          # all the ink in the band round it

    def taking(self, other: BubbleInk, keys) -> BubbleInk:
        """These numbers, but the bubbles keys' taken from other."""
        return BubbleInk(**{f.name: {**getattr(self, f.name), **{key: getattr(other, f.name)[key] for key in keys}}
                            for f in fields(self)})


def score_bubbles(m: Measured, kind: str, definite: float, stray: float, cuts: list[Cut] = ()) -> BubbleInk:
    """Per bubble: its new ink, the ink in the band around it, the share of it filled, and `own`, the new ink in the
    disc away from the other bubbles' spill zones. New ink is darkness beyond the blank's own print (scaled to how
    dark the print looks on this card); it is counted in mm² of full-strength stroke per mm of radius, so a 0.5 mm pen
    circle scores about 3 whatever the bubble's size. `around` leaves out the spill zones of marked bubbles
    (`definite`) with little ink in their own band (`stray`: no line runs through them): a big circle drawn round such
    a bubble reaches there. `band` is all the band's ink. `cuts`: ink left out of some bubbles (a stray stroke's, a
    circle's round another)."""
    regions = bubble_regions(kind)
    flat = m.new.ravel()
    keys = regions.keys

    def new_ink(where):
        """New ink at where (index, bubble), none where a cut takes it out of its bubble; and where that is."""
        index, label = where
        out = np.zeros(len(index), bool)
        for c in cuts:
            out |= c.pixels[index] & c.bubbles[label]
        return (flat[index] * ~out if cuts else flat[index]), out
    per_r = 1 / (PX * PX) / regions.radii
    n = len(keys)
    inside_ink, inside_out = new_ink(regions.inside)
    inside = sums(regions.inside[1], inside_ink, n)
    own_disc = sums(regions.inside[1], inside_ink * regions.own_disc, n)      # (sums skips the zeros)
    band_ink = new_ink(regions.band)[0]
    band_sum = sums(regions.band[1], band_ink, n)
    band_all = band_sum * per_r
    # a marked bubble with no line through its own band: its mark may reach into its neighbours' bands;
    # so may two marked in stacked rows (other fields: a cross in each reaches into the other's band)
    marked = np.append(inside * per_r >= definite, False)       # zone -1 (none): last
    spilling = marked & np.append(band_all < stray, False)
    left_out = spilling[regions.band_zone]
    if np.count_nonzero(marked) >= 2:
        across = regions.band_across & marked[regions.band_zone] & marked[regions.band[1]]
        if across.any():        # a figure's (a lone line's ink left in its band may be all that shows of it)
            figures = np.zeros(n, bool)
            for k in np.unique(regions.band[1][across]):
                figures[k] = _a_figure(regions, inside_ink, k, m.new.shape[1])
            left_out = left_out | across & figures[regions.band[1]]
    band = sums(regions.band[1], band_ink * ~left_out, n) if left_out.any() else band_sum  # (none: the same sums)
    count = regions.inside_count if not cuts else np.maximum(
        1, regions.inside_count - np.bincount(regions.inside[1][inside_out], minlength=n))
    return BubbleInk(*(dict(zip(keys, values.tolist())) for values in
                       (inside * per_r, band * per_r, inside / count, own_disc * per_r, band_all)))


def _a_figure(regions: _Regions, inside_ink: np.ndarray, k: int, width: int) -> bool:
    """Whether bubble k's ink in its own disc (off its neighbours' reach) is a figure, not one straight
    line: the narrow side of its spread (weighted second moments) MEASURE.figure of its long side or more."""
    index, label = regions.inside
    start, end = np.searchsorted(label, [k, k + 1])
    own = regions.own_disc[start:end]
    weights = inside_ink[start:end][own]
    if np.count_nonzero(weights) <= 1:      # (one pixel has no spread: np.cov divides by zero)
        return False
    at = index[start:end][own]
    spread = np.cov(np.stack([at % width, at // width]), aweights=weights)
    low, high = np.linalg.eigvalsh(spread)
    return low >= MEASURE.figure * MEASURE.figure * high


def sums(label: np.ndarray, weights: np.ndarray, count: int) -> np.ndarray:
    """Per label (0 .. count-1), the sum of its weights (>= 0): np.bincount's very sums, faster:
    the zeros, most of them, are left out (adding 0 changes no sum)."""
    nonzero = np.flatnonzero(weights != 0)      # (on a bool: several times faster than on floats)
    return np.bincount(label[nonzero], weights[nonzero], minlength=count).astype(np.float64, copy=False)


@lru_cache(maxsize=None)
def bubble_regions(kind: str) -> _Regions:
    geometry = bubble_geometry(kind)
    rows = {part: [] for part in ("disc", "ring", "band", "own_print")}
    band_zone, own_disc = [], []
    for g in geometry.values():
        for part in rows:
            rows[part].append(g.flat[getattr(g, part)])
        band_zone.append(g.zone[g.band])
        own_disc.append(g.own_disc[g.disc])

    def labelled(parts):
        return np.concatenate(parts), np.concatenate([np.full(len(p), n) for n, p in enumerate(parts)])

    band, zone = labelled(rows["band"]), np.concatenate(band_zone)
    names = [f.name for f in L.layout(kind).fields]
    fields = np.array([names.index(name) for name, _ in geometry])
    return _Regions(tuple(geometry), np.array([r for _, r in bubble_radii(kind)]),
                    labelled(rows["disc"]), np.array([max(1, len(p)) for p in rows["disc"]], np.float64),
                    band, zone, (zone >= 0) & (fields[zone] != fields[band[1]]), _padded(rows["ring"]),
                    _padded(rows["own_print"]), np.concatenate(own_disc))


@dataclass(frozen=True)
class _Regions:
    """Every bubble's regions of the rectified card as flat pixel indices: (index, bubble number)
    for sums, an index matrix padded with -1 (one row per bubble) for quantiles."""
    keys: tuple
    radii: np.ndarray
    inside: tuple
    inside_count: np.ndarray
    band: tuple
    band_zone: np.ndarray       # per band pixel, the bubble whose spill zone it is in (-1: none)
    band_across: np.ndarray     # per band pixel, whether that bubble is another field's (a row above or below)
    ring: np.ndarray
    own_print: np.ndarray
    own_disc: np.ndarray        # per inside pixel, whether it is in its bubble's own disc (off the spill zones)


def _quantiles(flat: np.ndarray, index: np.ndarray, q: float) -> list[float]:
    """Per row of a padded index matrix, the q-quantile of its pixels (as np.percentile would)."""
    valid = index >= 0
    values = np.where(valid, flat[index], np.inf)
    values.sort(axis=1)
    count = valid.sum(axis=1)
    position = q * np.maximum(count - 1, 0)
    low = np.floor(position).astype(np.int64)
    high = np.minimum(low + 1, np.maximum(count - 1, 0))
    rows = np.arange(len(index))
    a, b = values[rows, low], values[rows, high]
    return np.where(count > 0, a + (position - low) * (b - a), 0.0).tolist()


def _noise_floor(amount: np.ndarray, kind: str) -> float:
    """Ink weaker than this is noise: paper grain, sensor noise, JPEG; from the card's blank paper
    (paper_noise), at least LIGHT.noise_floor."""
    paper = amount.ravel()[_paper(kind)]
    return LIGHT.noise_floor if _quiet_paper(paper) else max(LIGHT.noise_floor, _noise(paper))


def paper_noise(amount: np.ndarray, kind: str) -> float:
    """Ink this weak shows on the card's blank paper: its median and 5 robust deviations (MAD)."""
    return _noise(amount.ravel()[_paper(kind)])


def _noise(paper: np.ndarray) -> float:
    median = fast_median(paper)
    return median + LIGHT.noise_mads * fast_median(np.abs(paper - median)) * MAD_SIGMA


def _quiet_paper(paper: np.ndarray) -> bool:
    """Whether the paper's noise (_noise) surely stays under LIGHT.noise_floor (as on nearly every card),
    shown by counting (a third of the two medians' time): the median lies in [low, high] when more
    than half the values are at most high and fewer than half under low; then every value in
    [high - b, low + b] is within b of it, and more than half of them there puts the MAD under b."""
    half = len(paper) // 2 + 1
    guess = paper[::8]
    median = fast_median(guess.copy())
    slack = max(fast_median(np.abs(guess - median)), 1e-4)
    low, high = median - slack, median + slack
    b = (LIGHT.noise_floor * 0.999 - high) / (LIGHT.noise_mads * MAD_SIGMA)
    return b > slack and np.count_nonzero(paper <= high) >= half and np.count_nonzero(paper < low) < half - 1 \
        and np.count_nonzero((paper >= high - b) & (paper <= low + b)) >= half


def closer_scores(amount: np.ndarray, kind: str, levels: Levels, floor: float) -> dict:
    """Per bubble, the new ink in its disc on open paper (_open_paper: off the print's misfit and its soft edges), with
    the noise floor at `floor`, under LIGHT.noise_floor where the paper is quiet: a faint pencil stroke is not much
    darker than LIGHT.noise_floor, and over the print its ink hardly shows (the print was dark there already), so where
    it leaves the print is what there is to see. Counted as score_bubbles counts it (mm² per mm of radius), no cuts."""
    regions = bubble_regions(kind)
    index, label = regions.inside
    new = _new_ink(amount.ravel()[index], spread_print(kind).ravel()[index], replace(levels, floor=floor))
    return dict(zip(regions.keys, (sums(label, new * _open_disc(kind), len(regions.keys))
                                   / (PX * PX) / regions.radii).tolist()))


@lru_cache(maxsize=None)
def _open_disc(kind: str) -> np.ndarray:
    """Per pixel of the bubbles' discs (_Regions.inside), whether it is open paper (_open_paper)."""
    regions = bubble_regions(kind)
    return _open_paper(spread_print(kind)).ravel()[regions.inside[0]]


def fast_median(values: np.ndarray) -> float:
    """np.median of a 1-D array without NaN, in about half its time; the array is reordered."""
    n = len(values)
    middle = [n // 2 - 1, n // 2] if n % 2 == 0 else [n // 2]
    values.partition(middle)
    return float(values[middle[0]:middle[-1] + 1].mean())


@lru_cache(maxsize=None)
def _paper(kind: str) -> np.ndarray:
    """Blank paper (nothing printed within 2 mm), a sample of it every few pixels (flat indices)."""
    empty = cv2.erode((blank_card(kind) > 250).astype(np.uint8), np.ones((round(4 * PX) | 1,) * 2, np.uint8)) > 0
    sample = np.zeros_like(empty)
    sample[::3, ::3] = True
    return np.flatnonzero(empty & sample)


@lru_cache(maxsize=None)
def _contrast_masks():
    """The thin printed outline (its long runs between the markers) and the markers' solid black (flat indices)."""
    blank = blank_card("vote")
    frame = np.zeros_like(blank, np.uint8)
    a, bx, by = (round(v * PX) for v in (L.FRAME_INSET, L.CARD_W - L.FRAME_INSET, L.CARD_H - L.FRAME_INSET))
    cv2.rectangle(frame, (a, a), (bx, by), 255, 1)
    clear = round((L.MARKER_INSET + L.MARKER_SIZE + 2) * PX)
    frame[:clear, :clear] = frame[:clear, -clear:] = frame[-clear:, :clear] = frame[-clear:, -clear:] = 0
    marker = np.zeros_like(frame)
    for m in L.markers():
        x0, y0, x1, y1 = (round(v * PX) for v in (m.x, m.y, m.x + m.size, m.y + m.size))
        marker[y0:y1, x0:x1] = 255
    marker = cv2.erode(marker & (blank < 60).astype(np.uint8) * 255, np.ones((3, 3), np.uint8))
    return np.flatnonzero(frame), np.flatnonzero(marker)


def sharpness(amount: np.ndarray) -> tuple[float, float]:
    """Ink of the thin printed outline (its peak, which blur lowers) and of the markers' solid black."""
    frame, marker = _contrast_masks()
    flat = amount.ravel()
    return fast_median(flat[frame]), fast_median(flat[marker])


def restored(amount: np.ndarray, kind: str, levels: Levels, key: tuple, kept: np.ndarray, faded: float,
              hidden: np.ndarray) -> tuple[float, float, float]:
    """A bubble's new ink with its contrast restored sector by sector (glare over it kept `kept` of it there): in its
    disc, and in the ring around it where a circle drawn round it lies (off the other bubbles' discs); and the share
    of its disc under sectors washed out (under `faded`: nothing left to restore, unknown). The noise floor is taken
    off after the gain (light added over the paper dims its noise as it dims the ink); `hidden` pixels (flat) are
    another bubble's circle."""
    index, sector, outer = _glare_zones(kind)[key]
    kept = kept[sector]
    known = (kept >= faded) & ~hidden[index]
    gain = 1 / np.clip(kept[known], faded, 1.0)        # a sector darker than the others (ink on it) is not dimmed
    new = _new_ink(gain * amount.ravel()[index[known]], spread_print(kind).ravel()[index[known]], levels) \
        / (PX * PX) / dict(bubble_radii(kind))[key]
    return float(new[~outer[known]].sum()), float(new[outer[known]].sum()), float(1 - (kept[~outer] >= faded).mean())


@lru_cache(maxsize=None)
def _glare_zones(kind: str) -> dict:
    """Per bubble, the pixels (flat) of its disc and of the ring around it out to SHAPE.outer radii (off
    the other bubbles' discs), each pixel's sector, and which are in that outer ring."""
    clear, width = clear_of_black(kind).ravel(), blank_card(kind).shape[1]
    discs, bubble_of = bubble_regions(kind).inside        # every bubble's scored disc (clear pixels only)
    out = {}
    for n, (g, (name, b)) in enumerate(zip(bubble_geometry(kind).values(), L.layout(kind).bubbles())):
        flat, d = g.flat.ravel(), g.d.ravel() / (b.r * PX)
        others = np.isin(flat, discs[bubble_of != n])
        keep = clear[flat] & ((d <= SHAPE.disc) | ((d <= SHAPE.outer) & ~others))
        out[name, b.value] = flat[keep], _sector(flat[keep], b, width), d[keep] > SHAPE.disc
    return out


def ring_peaks(amount: np.ndarray, kind: str) -> tuple[dict, np.ndarray, np.ndarray]:
    """How dark each bubble's printed ring looks at its darkest (a tenth of its footprint darker), over the whole ring
    and per sector (rows: bubbles), and how full each sector's footprint is (its median over its peak). Unlike the
    ring's median, the peak keeps when blur spreads the thin ring or the card sits a little off the blank: it falls as
    glare washes the contrast out. The print's thin line fills about 0.4 of it, less as glare washes it out; a pen
    line drawn along the ring fills it."""
    whole, sectors = _ring_footprints(kind)
    flat = amount.ravel()
    peaks = _quantiles(flat, whole, 0.9)
    shape = len(peaks), MEASURE.sectors
    sector_peaks = np.array(_quantiles(flat, sectors, 0.9)).reshape(shape)
    medians = np.array(_quantiles(flat, sectors, 0.5)).reshape(shape)
    fill = np.divide(medians, sector_peaks, out=np.zeros(shape), where=sector_peaks > 0)
    return dict(zip(bubble_regions(kind).keys, peaks)), sector_peaks, fill


@lru_cache(maxsize=None)
def _ring_footprints(kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Every bubble's printed-ring footprint (flat indices, padded): one row per bubble, one per bubble and sector."""
    width, rings = blank_card(kind).shape[1], _ring_footprint(kind)
    sectors = [part for near, b in rings for part in _by_sector(near, b, width)]
    return _padded([near for near, _ in rings]), _padded(sectors)


@lru_cache(maxsize=None)
def _ring_footprint(kind: str) -> list:
    """Per bubble, its printed ring's footprint (flat indices: where the blank prints it, within
    MEASURE.ring_mm of the ring) and the bubble."""
    print_ink = spread_print(kind).ravel()
    near = [(g.flat[np.abs(g.d - b.r * PX) <= MEASURE.ring_mm * PX], b)
            for g, (_, b) in zip(bubble_geometry(kind).values(), L.layout(kind).bubbles())]
    return [(flat[print_ink[flat] >= SHAPE.printed], b) for flat, b in near]


def washed_arc(amount: np.ndarray, kind: str, n: int, below: float) -> bool:
    """Whether an arc of bubble n's printed ring (a MEASURE.arcs-th of it) shows no print at all, its
    darkest pixel under `below`: glare washes it out there (a streak across the ring)."""
    arcs = _ring_arcs(kind)[n]
    return bool((np.where(arcs >= 0, amount.ravel()[arcs], 0.0).max(axis=1) < below).any())


@lru_cache(maxsize=None)
def _ring_arcs(kind: str) -> list:
    """Per bubble, its ring's footprint in MEASURE.arcs arcs (flat indices, padded; a row per arc)."""
    width = blank_card(kind).shape[1]
    return [_padded([arc for arc in _by_sector(near, b, width, MEASURE.arcs) if arc.size])
            for near, b in _ring_footprint(kind)]


def glare_on(grey: np.ndarray, kind: str, key: tuple) -> bool:
    """Whether a bubble's disc holds glare (ink() takes it for paper): brighter than LIGHT.glare_ceiling times the
    card's brightest blank paper, or the camera's white where that paper is short of it (lit near white)."""
    g, paper, white = bubble_geometry(kind)[key], grey.ravel()[_paper(kind)].max(), np.iinfo(grey.dtype).max
    return paper < white and bool((grey[g.where][g.disc] >= min(LIGHT.glare_ceiling * paper, white)).any())


def stroke_share(amount: np.ndarray, kind: str, levels: Levels, key: tuple, path: np.ndarray | None) -> float:
    """The share of a bubble's new ink at MEASURE.stroke strength or more, in its disc and on the path (flat bool) of
    the circle traced round it if it is circled: a pen or pencil mark has most of its ink there, the soft shade a
    glare streak leaves either side of it (ink()'s paper level lifted by its light) little."""
    index, _, outer = _glare_zones(kind)[key]
    where = index[~outer] if path is None else index[~outer | path[index]]
    new = _new_ink(amount.ravel()[where], spread_print(kind).ravel()[where], levels)
    return float(new[new >= MEASURE.stroke].sum() / max(float(new.sum()), 1e-9))


def ring_sectors(amount: np.ndarray, kind: str) -> dict:
    """Per bubble, the ink across its printed ring (MEASURE.ring_band_mm either side: blur or a slight misfit
    keep it) against the paper right beside it (a shadow adds none), in each of its MEASURE.sectors."""
    ring, paper = _ring_bands(kind)
    flat = amount.ravel()
    beside = np.array(_quantiles(flat, paper, MEASURE.paper_quantile))[:, None]
    over = np.where(ring >= 0, (flat[ring] - beside) / (1 - beside), 0.0)
    sectors = (over.sum(axis=1) / np.maximum((ring >= 0).sum(axis=1), 1)).reshape(-1, MEASURE.sectors)
    return dict(zip(bubble_regions(kind).keys, sectors))


@lru_cache(maxsize=None)
def _ring_bands(kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Per bubble and sector (rows), its ring's band and the paper beside it, both off any other
    print (flat indices, padded)."""
    blank = blank_card(kind)
    h, width = blank.shape
    yy, xx = np.mgrid[0:h, 0:width]
    rings, papers = [], []
    for _, b in L.layout(kind).bubbles():
        off_ring = np.abs(np.hypot(xx - b.x * PX, yy - b.y * PX) - b.r * PX)
        other = cv2.dilate(((blank < SHAPE.print_core) & (off_ring > 0.35 * PX)).astype(np.uint8),
                           np.ones((7, 7), np.uint8)) > 0
        paper = (off_ring >= MEASURE.paper_near_mm * PX) & (off_ring <= MEASURE.paper_far_mm * PX)
        for part, mask in ((rings, (off_ring <= MEASURE.ring_band_mm * PX) & ~other), (papers, paper & ~other)):
            part += _by_sector(np.flatnonzero(mask), b, width)
    return _padded(rings), _padded(papers)


def _padded(parts: list) -> np.ndarray:
    """Index lists as one matrix, a row each, padded with -1 (for _quantiles)."""
    out = np.full((len(parts), max(1, max(len(p) for p in parts))), -1, np.int64)
    for n, p in enumerate(parts):
        out[n, :len(p)] = p
    return out


def _by_sector(flat: np.ndarray, b: L.Bubble, width: int, parts: int = MEASURE.sectors) -> list[np.ndarray]:
    """The flat indices split into the `parts` sectors round bubble b."""
    sector = _sector(flat, b, width, parts)
    return [flat[sector == k] for k in range(parts)]


def _sector(flat: np.ndarray, b: L.Bubble, width: int, parts: int = MEASURE.sectors) -> np.ndarray:
    y, x = np.divmod(flat, width)
    angle = np.arctan2(y - b.y * PX, x - b.x * PX)
    return (np.floor((angle + np.pi) / (2 * np.pi) * parts).astype(np.int64)) % parts


def one_stroke(amount: np.ndarray, kind: str, levels: Levels, key: tuple, s: Settings, on_ring: bool = False) -> bool:
    """Whether a bubble's new ink is one mark's shape: most of it in one connected piece at least s.span radii long, and
    (with the other sizeable pieces) a figure, not a lone straight dash, with some of it on open paper (s.open_paper, or
    s.open_room of the disc's own share of open paper where the print leaves little: a small bubble's label fills most
    of it, and a tick across it shows only where it leaves the label). A ring, tick, cross or dot is; noise, JPEG and
    uneven light scatter; the print's misfit on a curled card lies only right along the print. Print the stroke crosses
    (the ring, the letter) hides its ink there, so print right beside the ink joins it up (and is measured with it), and
    so does the whole of a printed label it touches (a cross over the label: its arms either side), though the label is
    no part of the mark's size or shape. on_ring: its printed ring is inked over all round (a circle drawn on the ring,
    which the print's misfit never is): its ink may all lie right along the print."""
    g = bubble_geometry(kind)[key]
    where, inside, ring, printed = g.where, g.disc, g.ring, g.printed
    new = _new_ink(amount[where], printed, levels) * inside
    ink = (new >= MEASURE.traced).astype(np.uint8)
    near, under = cv2.dilate(ink, np.ones((5, 5), np.uint8)) > 0, (printed >= SHAPE.printed) & inside
    shown = (ink | (under & near)) & inside
    joined = shown | (_labels_touched(under, near, ring) & inside)
    count, labels, _, _ = cv2.connectedComponentsWithStats(joined.astype(np.uint8), connectivity=8)
    open_paper = _open_paper(printed)
    # a small bubble's label and ring leave little open paper in its disc: a stroke across it has
    # that much less of its ink there (against the disc's share of it)
    least = min(s.open_paper, s.open_room * float(open_paper[inside].mean()))
    if count <= 1 or not on_ring and new[open_paper].sum() < least * new.sum():
        return False
    pieces = np.bincount(labels.ravel(), new.ravel(), minlength=count)[1:]
    biggest = (labels == 1 + int(np.argmax(pieces))) & shown
    if pieces.max() < s.coherent * pieces.sum() or _extent(biggest)[0] < s.span * dict(bubble_radii(kind))[key] * PX:
        return False
    long, short = _extent(np.isin(labels, 1 + np.nonzero(pieces >= MEASURE.piece_share * pieces.sum())[0]) & shown)
    return short >= s.flat * long


def steep_outline(grey: np.ndarray, amount: np.ndarray, kind: str, levels: Levels, key: tuple) -> float:
    """The share of the outline of a bubble's new ink (in its disc, off the print) rising steeply (_steep_edges):
    a stroke's all round, a shade's beside a bright spot on one side only (none off the print: 1)."""
    g = bubble_geometry(kind)[key]
    ink = ((_new_ink(amount[g.where], g.printed, levels) >= MEASURE.traced) & g.disc).view(np.uint8)
    outline = (cv2.dilate(ink, _step()) > 0) & (ink == 0) & g.disc & (g.printed < SHAPE.printed)
    edges = cv2.dilate(_steep_edges(grey[g.where]), _step()) > 0
    return float(edges[outline].mean()) if outline.any() else 1.0


def beside_drawn(amount: np.ndarray, kind: str, levels: Levels, key: tuple, drawn: np.ndarray) -> bool:
    """Whether nearly all (MEASURE.beside) of a bubble's new ink left lies within MEASURE.edge_mm of ink taken out of it
    (drawn, flat bool: a circle's path round a neighbour, a long stray line): that ink's soft edge (a
    felt tip wider than the path), no mark of the bubble's own, which would lie off it."""
    g = bubble_geometry(kind)[key]
    where, inside = g.where, g.disc
    new = _new_ink(amount[where], g.printed, levels) * inside
    return left_near(new, drawn.reshape(amount.shape)[where], MEASURE.edge_mm) >= MEASURE.beside


def left_near(ink: np.ndarray, taken: np.ndarray, mm: float) -> float:
    """The share of the ink left off the taken pixels (both one bubble's window) that lies under mm
    from them (0 with none left)."""
    left = ink * ~taken
    total = float(left.sum())
    near = cv2.distanceTransform((~taken).view(np.uint8), cv2.DIST_L2, 3) < mm * PX
    return float(left[near].sum()) / total if total > 0 else 0.0


def _open_paper(printed: np.ndarray) -> np.ndarray:
    """Paper at least half a millimetre from any print: the print's misfit (a curled card, a fit a
    little off) puts ink only right along the print, a pencil stroke also crosses open paper."""
    return cv2.distanceTransform((printed < SHAPE.printed).astype(np.uint8), cv2.DIST_L2, 3) > MEASURE.edge_mm * PX


def _labels_touched(under: np.ndarray, near: np.ndarray, ring: np.ndarray) -> np.ndarray:
    """The pieces of print (under) that ink comes near, each whole, but not the printed ring: a stroke
    across a label is hidden by it, while ink on both sides of the ring need not be one stroke."""
    count, labels = cv2.connectedComponents(under.astype(np.uint8), connectivity=8)
    touched = np.zeros(count, bool)
    touched[labels[under & near]] = True
    touched[labels[ring]] = False
    touched[0] = False
    return touched[labels]


def _extent(mask: np.ndarray) -> tuple[float, float]:
    """The long and short side of the smallest box around a mask's pixels."""
    ys, xs = pixels(mask)
    _, size, _ = cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32))
    return max(size), min(size)


def typical_ring(rings: dict, scores: dict, marginal: float) -> float:
    """How dark the printed rings of the blank bubbles look on this card."""
    unmarked = [v for k, v in rings.items() if scores[k] < marginal]
    return median(unmarked or rings.values())       # (statistics': a tenth of numpy's time on a short list)


def padded_box(mask: np.ndarray, pad: int) -> tuple[slice, slice]:
    """The box round a mask's pixels, pad pixels wider (within the image) and from even rows and columns
    (connectedComponents numbers pieces by 2x2 blocks): a dilation by up to pad, and the pieces it joins,
    come out there as on the whole image, numbered in the same order."""
    x, y, w, h = cv2.boundingRect(mask.view(np.uint8))
    return slice(max(0, y - pad) & ~1, y + h + pad), slice(max(0, x - pad) & ~1, x + w + pad)


def pixels(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows, columns) of a 2-D mask's set pixels, as np.nonzero gives them, in a twentieth of its
    time (np.nonzero walks a 2-D array slowly)."""
    return np.divmod(np.flatnonzero(mask), mask.shape[1])
