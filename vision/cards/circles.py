"""Circles drawn round a bubble (R6: players circle X, Y or Z, ○で囲む).

A pen circle round a bubble may lie anywhere from inside its printed ring to well outside it (0.9-1.8 x the ring's
radius, an ellipse, open at a gap), and a wide one crosses its neighbours' rings and discs. Seen from the bubble's
centre, its ink lies on nearly every ray; seen from a neighbour's, on a few. So each bubble is looked at along
CIRCLES.angles rays between CIRCLES.arc_inner and arc_outer radii of its centre: the share of rays that cross new ink
(of those not hidden by black print) is its cover. A bubble with most rays covered is circled: the circle's path is
traced (where each ray's ink is darkest), its ink is that bubble's mark, and the path is taken out of every other
bubble's disc and band, so it is never read as a neighbour's mark. A bubble partly covered after that (part of a
circle, a circle round two labels) is a doubt, never a blank.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .. import layouts as L
from .blank import PX, print_everywhere
from .measure import Measured, Levels, bubble_regions, padded_box, sums
from .reasons import Code, Finding, at, why
from .tuning import CIRCLES, LIGHT, MEASURE, SHAPE, Settings


@dataclass(frozen=True)
class Circles:
    cover: dict             # (field, value) -> share of its rays crossing ink (circled paths out, but its own)
    circled: tuple          # the keys of the circled bubbles
    path: np.ndarray        # flat bool over the rectified card: the circled bubbles' paths and their reach
    reach: np.ndarray       # flat bool: ink joined to a traced path beyond it (a wide circle's far side, a tick touching it)
    astray: np.ndarray      # flat bool: the reach off the ellipse fitted to its stroke (a tick touching it, not the circle)
    round_others: tuple     # ((circled key, other key), ...): a circle's ellipse goes round another bubble's centre too
    ink: dict               # circled key -> its traced path's new ink, in score units (mm² per mm of radius)
    density: float          # the paths' mean new ink away from every bubble's disc
    faint: dict             # (field, value) -> the median over its rays of the line crossing each (_lines), noise floor
                            # not taken off (a light pencil circle fainter than the noise floor still shows all round)


@lru_cache(maxsize=None)
def _rays(kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample points (x, y in rectified pixels) of every bubble's rays: rows bubble x angle, columns
    radius, and the radius of each column in mm per bubble (bubble x CIRCLES.steps)."""
    bubbles = [b for _, b in L.layout(kind).bubbles()]
    angles = np.linspace(0, 2 * np.pi, CIRCLES.angles, endpoint=False)
    radii = np.array([np.linspace(CIRCLES.arc_inner * b.r, CIRCLES.arc_outer * b.r, CIRCLES.steps)
                      for b in bubbles])      # mm
    xs = np.concatenate([b.x + np.cos(angles)[:, None] * radii[n][None] for n, b in enumerate(bubbles)])
    ys = np.concatenate([b.y + np.sin(angles)[:, None] * radii[n][None] for n, b in enumerate(bubbles)])
    return (xs * PX).astype(np.float32), (ys * PX).astype(np.float32), radii


@lru_cache(maxsize=None)
def _hidden(kind: str) -> np.ndarray:
    """Per bubble and ray, whether black print (titles, the card's own data, the code) hides most of it."""
    xs, ys, radii = _rays(kind)
    black = (print_everywhere(kind) >= SHAPE.black).astype(np.float32)
    hidden = cv2.remap(black, xs, ys, cv2.INTER_NEAREST, borderValue=1.0).mean(axis=1) >= CIRCLES.hidden_share
    return hidden.reshape(len(radii), CIRCLES.angles)


def find(m: Measured, kind: str, s: Settings, exclude=None, faint: dict | None = None) -> Circles:
    """Which bubbles are circled (cover at least s.circled), their paths and ink, and every
    bubble's cover once the circled paths are out. exclude (flat bool): ink that is no circle's;
    faint: Circles.faint of an earlier look at the same card (exclude does not change it)."""
    keys = [(name, b.value) for name, b in L.layout(kind).bubbles()]
    new = m.seen if exclude is None else m.seen * ~exclude.reshape(m.seen.shape)
    xs, ys, radii = _rays(kind)
    along = cv2.remap(new, xs, ys, cv2.INTER_LINEAR, borderValue=0.0).reshape(len(keys), CIRCLES.angles, CIRCLES.steps)
    cover = _cover(along, _hidden(kind))
    faint = faint or dict(zip(keys, np.median(_lines(m.amount, kind, m.levels, xs, ys, len(keys)), axis=1).tolist()))
    circled = [n for n, c in enumerate(cover) if c >= s.circled]
    none = np.zeros(new.size, bool)
    if not circled:
        return Circles(dict(zip(keys, cover)), (), none, none, none, (), {}, 0.0, faint)
    traced = np.zeros(new.shape, np.uint8)
    ink = {}
    for n in circled:
        box, one = _trace(along[n], L.layout(kind).bubbles()[n][1], radii[n], new.shape)
        ink[keys[n]] = float(new[box][one > 0].sum() / (PX * PX) / L.layout(kind).bubbles()[n][1].r)
        traced[box] |= one
    reach, astray, round_others = _joined(new, traced, kind, [keys[n] for n in circled], s.flat)
    spread = cv2.dilate(reach, np.ones((5, 5), np.uint8))      # a pen line's soft edge
    path = (traced | spread).ravel() > 0
    away = path & ~_discs(kind)
    density = float(new.ravel()[np.flatnonzero(away)].mean()) if away.any() else 0.0     # (flat indices: faster)
    # the other bubbles' cover without the circles drawn round their neighbours
    outside = cv2.remap(new * ~path.reshape(new.shape), xs, ys, cv2.INTER_LINEAR, borderValue=0.0)
    again = _cover(outside.reshape(len(keys), CIRCLES.angles, CIRCLES.steps), _hidden(kind))
    cover = [cover[n] if n in circled else again[n] for n in range(len(keys))]
    return Circles(dict(zip(keys, cover)), tuple(keys[n] for n in circled), path, reach.ravel() > 0,
                   astray.ravel() > 0, round_others, ink, density, faint)


def faint_free(amount: np.ndarray, kind: str, levels: Levels, away: np.ndarray) -> dict:
    """Circles.faint judged on the rays that do not cross away (flat bool: the circles drawn round other
    bubbles, Circles.path, and long stray lines) where CIRCLES.free_rays of its rays or more do not, else
    on all. Pen circles round neighbours closing in on a bubble from two sides or more cross most of its
    rays: lines all round it, no pencil circle of its own, which would show on the rays they leave free too."""
    xs, ys, _ = _rays(kind)
    keys = [(name, b.value) for name, b in L.layout(kind).bubbles()]
    lines = _lines(amount, kind, levels, xs, ys, len(keys))
    hit = cv2.remap(away.reshape(amount.shape).view(np.uint8), xs, ys, cv2.INTER_NEAREST, borderValue=0)
    free = ~(hit.reshape(len(keys), CIRCLES.angles, CIRCLES.steps) > 0).any(axis=2)
    enough = free.sum(axis=1) >= CIRCLES.free_rays * CIRCLES.angles
    return {key: float(np.median(lines[n][free[n]] if enough[n] else lines[n])) for n, key in enumerate(keys)}


def _lines(amount: np.ndarray, kind: str, levels: Levels, xs, ys, count: int) -> np.ndarray:
    """Per bubble and ray, the ink beyond the print that stands out of the paper on both sides of it
    (MEASURE.paper_near_mm either way along the ray): a line crossing the ray. Light before ink: a shadow's
    or a gradient's edge darkens one side with it, so it is none. The rays' ink is first averaged over
    CIRCLES.faint_rays neighbouring rays: a line round the bubble runs on from ray to ray, grain does not."""
    along = _beyond_print(amount, kind, levels, xs, ys, count)
    half = CIRCLES.faint_rays // 2
    along = sum(np.roll(along, k, axis=1) for k in range(-half, half + 1)) / (2 * half + 1)
    radii, lines = _rays(kind)[2], np.empty(along.shape[:2], np.float32)
    beside = np.maximum(1, np.rint(MEASURE.paper_near_mm / (radii[:, 1] - radii[:, 0]))).astype(int)   # samples
    for k in np.unique(beside):
        rows = beside == k
        padded = np.pad(along[rows], ((0, 0), (0, 0), (k, k)), mode="edge")
        lines[rows] = (along[rows] - np.maximum(padded[..., :-2 * k], padded[..., 2 * k:])).max(axis=2)
    return lines


def _beyond_print(amount: np.ndarray, kind: str, levels: Levels, xs, ys, count: int) -> np.ndarray:
    """The ink beyond the print along every bubble's rays (bubble x angle x radius)."""
    along = cv2.remap(amount, xs, ys, cv2.INTER_LINEAR, borderValue=0.0)
    along -= levels.print_level * _print_along(kind)
    return np.clip(along, 0, 1, out=along).reshape(count, CIRCLES.angles, CIRCLES.steps)


@lru_cache(maxsize=None)
def _print_along(kind: str) -> np.ndarray:
    """The print along every bubble's rays."""
    xs, ys, _ = _rays(kind)
    return cv2.remap(print_everywhere(kind).astype(np.float32), xs, ys, cv2.INTER_LINEAR, borderValue=0.0)


def _joined(new: np.ndarray, traced: np.ndarray, kind: str, circled: list, flat: float) -> tuple:
    """Ink in one piece with a traced path (across gaps up to CIRCLES.join_mm: where the pen runs along a printed
    ring, the print model hides some of it) beyond the path and its soft edge: a circle wider than the rays look, or a
    mark touching it. Each such stroke is fitted with an ellipse: its ink off the ellipse is astray (not the circle),
    and another bubble's centre inside it is a circle round two labels. A part of it beyond the path lying off the
    ellipse, all of it close round another bubble and in its middle, is that bubble's own mark touching the circle (a
    tick, a cross, a fill): not the circle's, left to that bubble (_own_marks). Returns (reach, astray, ((circled key,
    other key), ...))."""
    inked = new >= CIRCLES.crossed
    join = round(CIRCLES.join_mm * PX / 2)
    box = padded_box(inked, join)      # the ink and all its bridging: the pieces found there are the card's
    bridged = cv2.dilate(inked[box].view(np.uint8), np.ones((2 * join + 1,) * 2, np.uint8))
    _, labels = cv2.connectedComponents(bridged, connectivity=8, ltype=cv2.CV_16U)    # (pieces 7 px or more apart: few)
    near = cv2.dilate(traced[box], np.ones((5, 5), np.uint8)) > 0
    reach, astray, round_others = np.zeros_like(traced), np.zeros_like(traced), []
    inked = np.flatnonzero(inked)       # each piece's pixels (flat) picked from the ink's, not the whole card's
    at = np.divmod(inked, new.shape[1]) - np.array([[box[0].start], [box[1].start]])     # in the box
    piece_of, near = labels[at[0], at[1]], near[at[0], at[1]]
    for piece in np.unique(piece_of[traced.ravel()[inked] > 0]):
        mine = piece_of == piece
        stroke = inked[mine]
        beyond = stroke[~near[mine]]
        if not len(beyond):
            continue
        ellipse = _ellipse(stroke[near[mine]], new.shape[1])
        off, inside = _off_ellipse(ellipse, beyond, kind, new.shape[1])
        own = _own_marks(ellipse, beyond, kind, new.shape, [*circled, *inside], flat)
        reach.ravel()[beyond[~own]] = 1
        astray.ravel()[off[~np.isin(off, beyond[own])]] = 1
        round_others += [(key, other) for key in circled for other in inside if other not in circled]
    return reach, astray, tuple(dict.fromkeys(round_others))


def _ellipse(traced: np.ndarray, width: int) -> tuple | None:
    """The ellipse fitted to a circle's traced ink (flat indices on a card width pixels wide):
    ((cx, cy), (w, h), angle) as cv2.fitEllipse gives it, or None (too few pixels, or flat)."""
    ys, xs = np.divmod(traced, width)
    if len(xs) < 5:
        return None
    fitted = cv2.fitEllipse(np.stack([xs, ys], 1).astype(np.float32))
    return fitted if min(fitted[1]) >= 1 else None


def _ratio(ellipse: tuple, x, y):
    """1 on the ellipse, under 1 inside it."""
    (cx, cy), (w, h), angle = ellipse
    turn = np.radians(angle)
    dx, dy = x - cx, y - cy
    u, v = dx * np.cos(turn) + dy * np.sin(turn), -dx * np.sin(turn) + dy * np.cos(turn)
    return np.hypot(u / (w / 2), v / (h / 2))


def _off_ellipse(ellipse: tuple | None, beyond: np.ndarray, kind: str, width: int) -> tuple[np.ndarray, list]:
    """The pixels of beyond off the ellipse fitted to a circle's traced ink (by more than CIRCLES.on_mm): a
    mark touching it, not the circle going on; and the bubbles whose centres lie inside the ellipse.
    Pixels as flat indices (in order) on a card width pixels wide."""
    if ellipse is None:
        return beyond, []
    by, bx = np.divmod(beyond, width)
    off = beyond[np.abs(_ratio(ellipse, bx, by) - 1) * min(ellipse[1]) / 2 > CIRCLES.on_mm * PX]
    inside = [(name, b.value) for name, b in L.layout(kind).bubbles() if _ratio(ellipse, b.x * PX, b.y * PX) < 1]
    return off, inside


def _own_marks(ellipse: tuple | None, beyond: np.ndarray, kind: str, shape, taken: list, flat: float) -> np.ndarray:
    """Which pixels of beyond (flat, in order) are another bubble's own mark touching the circle: the parts of beyond
    outside the ellipse (each in one piece across gaps up to CIRCLES.join_mm), most of their ink off it (by more than
    CIRCLES.on_mm: not the circle going on) and that ink all within CIRCLES.own radii of a bubble's centre and some
    within CIRCLES.middle of it, not one straight dash (a mark drawn on it: a tick, a cross, a fill; a stray line or a
    crease runs on far beyond it, or is a dash where it breaks; its end by the ellipse is where it joins the circle),
    that bubble neither circled nor inside the ellipse (taken)."""
    own = np.zeros(len(beyond), bool)
    if ellipse is None:
        return own
    ys, xs = np.divmod(beyond, shape[1])
    ratio = _ratio(ellipse, xs, ys)
    out = np.flatnonzero(ratio >= 1)        # inside it: the circled bubble's own (a fill's middle)
    if not len(out):
        return own
    ys, xs = ys[out], xs[out]
    off = (ratio[out] - 1) * min(ellipse[1]) / 2 > CIRCLES.on_mm * PX
    pad = round(CIRCLES.join_mm * PX / 2)
    x0, y0 = xs.min() - pad, ys.min() - pad
    mask = np.zeros((ys.max() - y0 + pad + 1, xs.max() - x0 + pad + 1), np.uint8)
    mask[ys - y0, xs - x0] = 1
    count, parts = cv2.connectedComponents(cv2.dilate(mask, np.ones((2 * pad + 1,) * 2, np.uint8)), connectivity=8)
    part = parts[ys - y0, xs - x0]
    for n in range(1, count):
        here = part == n
        far = here & off
        if far.sum() < CIRCLES.off_share * here.sum() or _flat(xs[here], ys[here], flat):
            continue
        px, py = xs[far] / PX, ys[far] / PX
        for name, b in L.layout(kind).bubbles():
            if (name, b.value) in taken:
                continue
            d = np.hypot(px - b.x, py - b.y)
            if d.min() <= CIRCLES.middle * b.r and d.max() <= CIRCLES.own * b.r:
                own[out[here]] = True
                break
    return own


def _flat(xs: np.ndarray, ys: np.ndarray, flat: float) -> bool:
    """Pixels lying along one straight line: their narrow side under flat (Settings.flat) of their long side."""
    (_, _), (w, h), _ = cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32))
    return min(w, h) < flat * max(w, h)


def _cover(along: np.ndarray, hidden: np.ndarray) -> list[float]:
    """Per bubble, the share of its rays (not hidden by print) that cross ink."""
    crossed = along.max(axis=2) >= CIRCLES.crossed
    seen = crossed | ~hidden
    return (crossed.sum(axis=1) / np.maximum(seen.sum(axis=1), 1)).tolist()


def _trace(along: np.ndarray, b: L.Bubble, radii: np.ndarray, shape) -> tuple[tuple, np.ndarray]:
    """The circle's path round a bubble: on each ray crossing ink, where the ink is darkest; runs of neighbouring rays
    joined into lines. Drawn in the box round it (a card of this shape): (the box's slices, the path there)."""
    angles = np.linspace(0, 2 * np.pi, CIRCLES.angles, endpoint=False)
    crossed = along.max(axis=1) >= CIRCLES.crossed
    rho = radii[_on_the_circle(along)]
    points = np.rint(np.stack([b.x + rho * np.cos(angles), b.y + rho * np.sin(angles)], 1) * PX).astype(np.int32)
    start = int(np.argmin(crossed)) if not crossed.all() else 0     # runs split where a ray crosses nothing
    order = np.roll(np.arange(CIRCLES.angles), -start)
    runs, run = [], []
    for a in order:
        if crossed[a]:
            run.append(points[a])
        elif run:
            runs.append(np.array(run))
            run = []
    if run:
        runs.append(np.array(run + ([points[order[0]]] if crossed.all() else [])))
    width = 2 * round(CIRCLES.path_mm * PX) + 1
    (x0, y0), (x1, y1) = np.maximum(points.min(axis=0) - width, 0), points.max(axis=0) + width + 1
    box = slice(y0, min(y1, shape[0])), slice(x0, min(x1, shape[1]))
    mask = np.zeros((box[0].stop - y0, box[1].stop - x0), np.uint8)
    cv2.polylines(mask, [(r - (x0, y0)).astype(np.int32).reshape(-1, 1, 2) for r in runs], False, 1, width)
    return box, mask


def _on_the_circle(along: np.ndarray) -> np.ndarray:
    """Per ray, the step where the circle crosses it: its darkest ink, but on a ray crossing ink twice
    or more (the circle and a neighbour's mark beyond it: a tick, a fill) the crossing nearest where
    the rays round it that cross ink once put the circle (their median within CIRCLES.smooth rays either side).
    By the darkest alone, a darker mark beside a light circle pulled its path onto the mark, and the
    mark's ink out of its own bubble (seed 12 clean #388: a tick beside a circled 1 lost, two marks read one)."""
    steps = along.argmax(axis=1)
    ink = along >= CIRCLES.crossed
    runs = np.diff(ink.astype(np.int8), axis=1, prepend=0) == 1       # where each crossing starts
    crossings = runs.sum(axis=1)
    twice, once = np.flatnonzero(crossings >= 2), np.flatnonzero(crossings == 1)
    for ray in twice:
        near = once[np.abs((once - ray + CIRCLES.angles // 2) % CIRCLES.angles - CIRCLES.angles // 2) <= CIRCLES.smooth]
        if not len(near):
            continue
        expected = np.median(steps[near])
        label = np.cumsum(runs[ray]) * ink[ray]               # crossing number per step (0: no ink)
        peaks = [int(np.flatnonzero(label == k)[np.argmax(along[ray][label == k])]) for k in range(1, label.max() + 1)]
        steps[ray] = min(peaks, key=lambda step: abs(step - expected))
    return steps


def under_circle(m: Measured, kind: str, circles: Circles, marginal: float) -> Iterator[Finding]:
    """Doubts a circle leaves: it goes round another bubble's centre too; ink joined to it lies in the
    middle of another bubble (a mark there touching the circle, taken for the circle's: its own mark?); ink
    joined to it but off its ellipse reaches into another bubble's disc (a mark touching the circle: which is
    meant?) or runs on farther than any mark reaches (a line; a sharp shadow's edge round a fingertip); or its
    path crosses another bubble's disc over much more ink than the path carries elsewhere (a mark under it)."""
    for key, other in circles.round_others:
        yield why(Code.CIRCLE_ROUND_TWO, circled=[key], other=[other])
    if (away := _runs_off(m, kind, circles))[1] >= marginal:       # (called with a bubble circled)
        yield why(Code.LINE_TOUCHES, **at(away[0]), score=away[1])
    regions = bubble_regions(kind)
    index, label = regions.inside
    near = circles.path[index]
    index, label = index[near], label[near]
    ink = m.new.ravel()[index]
    n = len(regions.keys)
    per_r = 1 / (PX * PX) / regions.radii
    pixels = np.bincount(label, minlength=n)
    on_ink = sums(label, ink, n)
    reached = sums(label, ink * circles.astray[index], n) * per_r
    middle, in_middle = _middles(kind)
    joined = sums(in_middle, m.new.ravel()[middle] * circles.reach[middle], n) * per_r
    for m, key in enumerate(regions.keys):
        if key in circles.circled:
            continue
        if joined[m] >= marginal:
            yield why(Code.CIRCLE_JOINED_INK, circled=circles.circled, **at(key), score=joined[m])
        elif pixels[m] and reached[m] >= marginal:
            yield why(Code.CIRCLE_REACHES, circled=circles.circled, **at(key), score=reached[m])
        elif pixels[m] and on_ink[m] / pixels[m] > CIRCLES.over_ink * circles.density + CIRCLES.over_ink_plus \
                and on_ink[m] * per_r[m] >= marginal:
            yield why(Code.CIRCLE_OVER_INK, circled=circles.circled, **at(key), score=on_ink[m] * per_r[m])


def _runs_off(m: Measured, kind: str, circles: Circles) -> tuple[tuple, float]:
    """(the circled bubble nearest, the score of) the ink joined to circles off them past any mark's reach."""
    ys, xs = np.divmod(index := np.flatnonzero(circles.astray), m.new.shape[1])
    bubbles = dict(((name, b.value), b) for name, b in L.layout(kind).bubbles())
    mm = np.array([np.hypot(xs / PX - b.x, ys / PX - b.y) for b in map(bubbles.get, circles.circled)])
    beyond = (mm > LIGHT.paper_window_mm).all(axis=0)      # (the paper level's window: wider than any mark)
    key = circles.circled[int(np.argmin(mm[:, beyond].min(axis=1, initial=np.inf)))]
    return key, float(m.new.ravel()[index[beyond]].sum() / (PX * PX) / bubbles[key].r)


@lru_cache(maxsize=None)
def _middles(kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(flat pixel index, bubble number) of every bubble's middle, within CIRCLES.middle radii of its centre."""
    h, w = print_everywhere(kind).shape
    index, label = [], []
    for n, (_, b) in enumerate(L.layout(kind).bubbles()):
        reach = CIRCLES.middle * b.r * PX
        x0, x1 = max(0, int(b.x * PX - reach)), min(w, int(b.x * PX + reach) + 2)
        y0, y1 = max(0, int(b.y * PX - reach)), min(h, int(b.y * PX + reach) + 2)
        yy, xx = np.mgrid[y0:y1, x0:x1]
        near = np.hypot(xx - b.x * PX, yy - b.y * PX) <= reach
        index.append((yy * w + xx)[near])
        label.append(np.full(near.sum(), n))
    return np.concatenate(index), np.concatenate(label)


@lru_cache(maxsize=None)
def _discs(kind: str) -> np.ndarray:
    """Flat bool: inside any bubble's scored disc."""
    regions = bubble_regions(kind)
    out = np.zeros(print_everywhere(kind).size, bool)
    out[regions.inside[0]] = True
    return out
