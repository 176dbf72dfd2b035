"""Long straight strokes of new ink (a stray pen line across the card): found, followed to their
ends, their width measured, and which bubbles they run through."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .. import layouts as L
from .blank import PX, print_everywhere
from .measure import Measured, fast_median, padded_box
from .tuning import MEASURE, SHAPE, STROKES

@dataclass(frozen=True)
class _Stroke:
    """A long straight stroke on the rectified card (pixels): through p along unit u, from t0 to t1,
    `width` pixels of full-strength ink across it."""
    p: np.ndarray
    u: np.ndarray
    t0: float
    t1: float
    width: float

    def offset(self, x: float, y: float) -> tuple[float, float]:
        """(distance across the stroke's line, position along it) of a point."""
        dx, dy = x - self.p[0], y - self.p[1]
        return abs(self.u[0] * dy - self.u[1] * dx), self.u[0] * dx + self.u[1] * dy


def find_strokes(m: Measured, kind: str) -> list[_Stroke]:
    """Long straight strokes of new ink (a pen line across the card, a crease): found as line
    segments, collinear ones merged, each refitted to its ink and its width measured. Faint ink
    (a crease's shadow line, light pencil) counts as a stroke only when it is much longer."""
    strokes = []
    for least, length in ((MEASURE.stroke, STROKES.length_mm), (MEASURE.traced, STROKES.crease_mm)):
        binary, half = _inked(m, least)
        # looked for a little shorter (a line's faint ends, print hiding a stretch), then followed
        # to its true ends: it must be long enough then
        for group in _segments(half, 0.8 * length):
            stroke = _refit(group, binary, m, kind, length * PX)
            if stroke is not None:
                _merge(strokes, stroke)
    return _without_crosses(strokes, kind)


def broken_lines(m: Measured, kind: str, found: list[_Stroke], marks: list[L.Bubble]) -> list[_Stroke]:
    """Straight pieces in line with each other through a marked bubble, long enough together to be a
    stray line (D19) that glare washed out in the middle, or print hid a stretch of: not found as
    one (the pieces are too short), each piece could pass for a mark. A person looks."""
    binary, half = _inked(m, MEASURE.stroke)
    out = []
    for group in _segments(half, STROKES.piece_mm):
        if not any(crosses_disc(_Stroke(*group, 0), b) for b in marks):
            continue
        stroke = _refit(group, binary, m, kind, STROKES.length_mm * PX)
        if stroke is not None and _inked_share(_inked(m, MEASURE.traced)[0], _hidden(kind), stroke) >= STROKES.inked \
                and _ends_in_the_clear(stroke, kind) and not _same_line(found + out, stroke):
            out.append(stroke)
    return _without_crosses(out, kind)


def _ends_in_the_clear(line: _Stroke, kind: str) -> bool:
    """An end of the line lies STROKES.out_mm or more outside every bubble's disc (the strokes of marks, in
    line with one another by chance, end in the bubbles they mark)."""
    ends = (line.p + line.t0 * line.u, line.p + line.t1 * line.u)
    return any(all(np.hypot(*(end / PX - (b.x, b.y))) >= SHAPE.disc * b.r + STROKES.out_mm
                   for _, b in L.layout(kind).bubbles())
               for end in ends)


def runs_through(line: _Stroke, b: L.Bubble) -> bool:
    """The line crosses the bubble's disc and goes on at least STROKES.out_mm beyond it (a mark's strokes,
    a scribble's, stay within the disc)."""
    at, chord = _chord(line, b.x * PX, b.y * PX, SHAPE.disc * b.r * PX)
    return crosses_disc(line, b) and max(at - chord - line.t0, line.t1 - at - chord) >= STROKES.out_mm * PX


@lru_cache(maxsize=None)
def _hidden(kind: str) -> np.ndarray:
    """Where print hides a stroke's ink."""
    return print_everywhere(kind) >= SHAPE.printed


def _without_crosses(strokes: list[_Stroke], kind: str) -> list[_Stroke]:
    """Two strokes crossing in a bubble, neither reaching much beyond it, are a cross drawn on it (a
    mark), not stray lines."""
    crossing = set()
    for i, a in enumerate(strokes):
        for j in range(i + 1, len(strokes)):
            b = strokes[j]
            sine = abs(a.u[0] * b.u[1] - a.u[1] * b.u[0])
            if sine < STROKES.cross_sine:
                continue
            d = b.p - a.p
            t = (d[0] * b.u[1] - d[1] * b.u[0]) / (a.u[0] * b.u[1] - a.u[1] * b.u[0])     # where a meets b, along a
            at = a.p + t * a.u
            for _, bubble in L.layout(kind).bubbles():
                reach = SHAPE.outer * bubble.r * PX
                if np.hypot(at[0] - bubble.x * PX, at[1] - bubble.y * PX) < SHAPE.disc * bubble.r * PX and all(
                        max(line.offset(*at)[1] - line.t0, line.t1 - line.offset(*at)[1]) <= reach for line in (a, b)):
                    crossing |= {i, j}
    return [line for n, line in enumerate(strokes) if n not in crossing]


def _inked(m: Measured, least: float) -> tuple[np.ndarray, np.ndarray]:
    """Where the new ink is over least (0/1), at full and half size: kept on m (strokes and broken
    lines look at the same)."""
    if ("inked", least) not in m.kept:
        binary = (m.seen > least).astype(np.uint8)
        m.kept["inked", least] = binary, cv2.resize(binary, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    return m.kept["inked", least]


def _segments(half: np.ndarray, length_mm: float) -> list[tuple]:
    """Straight runs of ink at least length_mm long, collinear ones merged: [(p, u, t0, t1)]; looked
    for at half size (a quarter of the votes)."""
    # HoughLinesP measures a segment by its longer side along x or y: a diagonal one is sqrt 2 longer
    least, gap = round(length_mm * PX / 2 / np.sqrt(2)), round(2.5 * PX)
    found = cv2.HoughLinesP(half, 1, np.pi / 180, round(4 * PX), minLineLength=least, maxLineGap=gap) \
        if _long_piece(half, least, gap) else None
    if found is None:
        return []
    found = found * 2 + 0.5
    groups, lines = [], []      # lines: the groups' points and directions as plain floats (faster one by one)
    for x0, y0, x1, y1 in sorted(found.reshape(-1, 4).tolist(), key=lambda s: -np.hypot(s[2] - s[0], s[3] - s[1])):
        for n, ((px, py), (ux, uy)) in enumerate(lines):      # _Stroke.offset written out: called most here
            ax, ay, bx, by = x0 - px, y0 - py, x1 - px, y1 - py
            if abs(ux * ay - uy * ax) < STROKES.on_line_px and abs(ux * by - uy * bx) < STROKES.on_line_px:
                ta, tb = ux * ax + uy * ay, ux * bx + uy * by
                q, v, t0, t1 = groups[n]
                groups[n] = (q, v, min(t0, ta, tb), max(t1, ta, tb))
                break
        else:
            a, b = np.array([x0, y0], float), np.array([x1, y1], float)
            u = (b - a) / np.linalg.norm(b - a)
            groups.append((a, u, 0.0, float(np.linalg.norm(b - a))))
            lines.append(((x0, y0), tuple(u.tolist())))
    return groups


def _long_piece(binary: np.ndarray, least: int, gap: int) -> bool:
    """Whether some piece of ink (its pixels joined across gaps of up to gap pixels) spans least
    pixels along x or y. If none does, HoughLinesP (maxLineGap gap) finds no segment that long: its
    segments' ends are ink of one such piece. Much cheaper than Hough on a card without long ink."""
    reach = (gap + 2) // 2          # squares this far out join pixels up to gap + 1 apart
    box = padded_box(binary, reach)         # the ink and all its joining: the same pieces there
    joined = cv2.dilate(binary[box], np.ones((2 * reach + 1,) * 2, np.uint8))
    contours, _ = cv2.findContours(joined, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE,
                                   offset=(box[1].start, box[0].start))
    h, w = binary.shape
    for x, y, dx, dy in map(cv2.boundingRect, contours):
        # the ink's own span: the joined box's, less reach at each side the card's edge does not cut
        if max(dx - 1 - reach * ((x > 0) + (x + dx < w)), dy - 1 - reach * ((y > 0) + (y + dy < h))) >= least:
            return True
    return False


def _same_line(strokes: list[_Stroke], stroke: _Stroke) -> list[int]:
    """The strokes along the same line as this one."""
    return [n for n, o in enumerate(strokes) if max(o.offset(*(stroke.p + t * stroke.u))[0]
                                                    for t in (stroke.t0, stroke.t1)) < STROKES.on_line_px]


def _merge(strokes: list[_Stroke], stroke: _Stroke) -> None:
    """Add a stroke, or lengthen the one already found along the same line."""
    same = _same_line(strokes, stroke)
    if not same:
        strokes.append(stroke)
        return
    o = strokes[same[0]]
    ends = [o.offset(*(stroke.p + t * stroke.u))[1] for t in (stroke.t0, stroke.t1)]
    strokes[same[0]] = _Stroke(o.p, o.u, min(o.t0, *ends), max(o.t1, *ends), o.width)


def _refit(group, binary: np.ndarray, m: Measured, kind: str, least: float) -> _Stroke | None:
    """The stroke fitted to the ink (binary) near a group of segments, followed to its true ends (faint
    ink too: a line's ends fade, glare over them, blur); None if it is shorter than least pixels then
    (its width is not measured), or wider than a pen line."""
    p, u, t0, t1 = group
    points = _ink_points(binary, p + (t0 - 2) * u, p + (t1 + 2) * u, 4)
    d = points - p
    along, across = d @ u, np.abs(d @ np.array([-u[1], u[0]]))
    near = points[(across < STROKES.on_line_px) & (along > t0 - 2) & (along < t1 + 2)]
    if len(near) < 10:
        return None
    vx, vy, x, y = cv2.fitLine(near, cv2.DIST_L2, 0, 0.01, 0.01).ravel()
    q, v = np.array([x, y], float), np.array([vx, vy], float)
    t0, t1 = sorted(((p + t * u - q) @ v for t in (t0, t1)))
    faint, hidden = _inked(m, MEASURE.traced)[0], _hidden(kind)
    t0, t1 = _follow(faint, hidden, q, -v, -t0), _follow(faint, hidden, q, v, t1)
    if t0 + t1 < least:
        return None
    width = _width(m.seen, q, v, -t0, t1)
    return _Stroke(q, v, -t0, t1, width) if width <= STROKES.width_mm * PX else None


def _ink_points(binary: np.ndarray, a: np.ndarray, b: np.ndarray, margin: int) -> np.ndarray:
    """The ink pixels (x, y) in the box round a segment from a to b, margin pixels wider."""
    h, w = binary.shape
    x0, y0 = (max(0, int(min(a[i], b[i])) - margin) for i in (0, 1))
    x1, y1 = min(w, int(max(a[0], b[0])) + margin + 1), min(h, int(max(a[1], b[1])) + margin + 1)
    box = binary[y0:y1, x0:x1]
    found = cv2.findNonZero(box) if box.size else None      # in the order np.nonzero gives, faster
    return np.empty((0, 2), np.float32) if found is None else (found.reshape(-1, 2) + (x0, y0)).astype(np.float32)


def _follow(binary: np.ndarray, hidden: np.ndarray, p: np.ndarray, u: np.ndarray, t: float) -> float:
    """How far the stroke through p along u goes on beyond t: while its ink does, with gaps of at most STROKES.gap_mm
    (print it crosses hides it there: no gap). Walked a stretch at a time: most strokes end within the first."""
    h, w = binary.shape
    last, missed = t, 0         # the last step with ink; the steps missing ink since (or since t)
    for first in range(1, h + w, STROKES.follow_steps):
        steps = t + np.arange(float(first), float(min(first + STROKES.follow_steps, h + w)))
        xy = np.rint(p[:, None] + steps * u[:, None]).astype(int)
        inside = ((xy >= 1) & (xy < [[w - 1], [h - 1]])).all(axis=0)
        stop = int(np.argmin(inside)) if not inside.all() else len(steps)
        at, steps = xy[1, :stop] * w + xy[0, :stop], steps[:stop]
        ink = _ink_on(binary, at, u)
        misses = np.cumsum(~(ink | hidden.ravel()[at]))
        at = np.flatnonzero(ink)
        gaps = np.diff(np.concatenate([[-missed], misses[at]]))     # before each ink step, since the last
        far = np.flatnonzero(gaps > STROKES.gap_mm * PX)
        if len(far):
            return float(steps[at[far[0] - 1]]) if far[0] > 0 else last
        if len(at):
            last, missed = float(steps[at[-1]]), int(misses[-1] - misses[at[-1]])
        elif stop:
            missed += int(misses[-1])
        if missed > STROKES.gap_mm * PX or stop < STROKES.follow_steps:     # a gap too long, or the card's edge
            return last
    return last


def _ink_on(binary: np.ndarray, at: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Ink at each point (flat indices: faster) of a line along u, or a pixel to either side of it."""
    side = int(round(u[0])) * binary.shape[1] + int(round(-u[1]))
    flat = binary.ravel()
    return (flat[at] | flat[at + side] | flat[at - side]) > 0


def _inked_share(binary: np.ndarray, hidden: np.ndarray, stroke: _Stroke) -> float:
    """The share of a stroke's length (where print does not hide it) that has ink."""
    h, w = binary.shape
    p, u = stroke.p, stroke.u
    t = np.arange(stroke.t0, stroke.t1, 1.0)
    xs = np.clip(np.rint(p[0] + t * u[0]).astype(int), 1, w - 2)
    ys = np.clip(np.rint(p[1] + t * u[1]).astype(int), 1, h - 2)
    ink, seen = _ink_on(binary, ys * w + xs, u), ~hidden[ys, xs]
    return float((ink & seen).sum() / max(1, seen.sum()))


def _width(new: np.ndarray, p: np.ndarray, u: np.ndarray, t0: float, t1: float) -> float:
    """Full-strength ink across the stroke in pixels, the median along it (marks and print it
    crosses count for little in a median)."""
    h, w = new.shape
    t = np.arange(t0, t1, 2.0)
    k = np.arange(-6, 7)
    xs = np.rint(p[0] + t[:, None] * u[0] - k[None] * u[1]).astype(int)
    ys = np.rint(p[1] + t[:, None] * u[1] + k[None] * u[0]).astype(int)
    inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    across = np.where(inside, new[ys.clip(0, h - 1), xs.clip(0, w - 1)], 0).sum(axis=1)
    return fast_median(across) if len(across) else 0.0


@dataclass(frozen=True)
class StrokeCut:
    """What long straight strokes do to the bubbles (bool or number per bubble, layout order)."""
    covered: np.ndarray     # flat bool over the rectified card: the pixels the strokes cover
    crossed: np.ndarray     # a stroke enters it from well outside (runs through, or ends inside): no mark, its ink out
    touched: np.ndarray     # a stroke only sits on it, not from well outside: maybe a mark's stroke, its ink kept
    expected: np.ndarray    # the ink the strokes bring into its score
    leaving: np.ndarray     # every stroke near it leaves it by STROKES.leaves radii (leaves_mm at least) on one side


def cut_by_strokes(strokes: list[_Stroke], layout: L.Layout, m: Measured) -> StrokeCut:
    """What the strokes cover and how they lie on each bubble (StrokeCut)."""
    cut = np.zeros(m.new.shape, np.uint8)
    for s in strokes:
        a, b = s.p + s.t0 * s.u, s.p + s.t1 * s.u
        cv2.line(cut, tuple(np.rint(a).astype(int)), tuple(np.rint(b).astype(int)), 1, 2 * round(s.width / 2 + 2) + 1)
    crossed, touched, expected, leaving = [], [], [], []
    for _, b in layout.bubbles():
        cx, cy, r = b.x * PX, b.y * PX, SHAPE.disc * b.r * PX
        near = [s for s in strokes if s.offset(cx, cy)[0] < SHAPE.band_outer * b.r * PX + s.width / 2 + 2]  # its band
        reach = [_reach(s, b, m, layout.kind) for s in near]
        far = [out >= _arm(b) for out in reach]
        # a bowed line is found in pieces: a piece sitting on the bubble is still the line's
        verdicts = [far[n] or any(far[k] and _one_line(s, o, cx, cy) for k, o in enumerate(near))
                    for n, s in enumerate(near)]
        crossed.append(bool(verdicts) and all(verdicts))
        touched.append(not all(verdicts))
        leaving.append(bool(near) and min(reach) >= max(STROKES.leaves * b.r, STROKES.leaves_mm) * PX)
        expected.append(sum(_in_disc(s, cx, cy, r) * s.width for s in near) / (PX * PX) / b.r)
    return StrokeCut(cut.ravel() > 0, np.array(crossed), np.array(touched), np.array(expected), np.array(leaving))


def sits_on(line: _Stroke, b: L.Bubble, m: Measured, kind: str) -> bool:
    """The line's ink reaches well beyond the bubble's disc (a radius, at least 3 mm) on neither side:
    it may be one of a mark's strokes (a cross's or tick's long arm on a big bubble). One passing
    outside its disc is none of them. Only ink seen counts: a mark's stroke followed on across print
    (a card's marker) and blank paper beyond it shows none there."""
    return _reach(line, b, m, kind) < _arm(b)


def crosses_disc(line: _Stroke, b: L.Bubble) -> bool:
    """Whether the line crosses a bubble's scored disc."""
    return line.offset(b.x * PX, b.y * PX)[0] < SHAPE.disc * b.r * PX


def _arm(b: L.Bubble) -> float:
    """How far (pixels) beyond a bubble's disc a mark's stroke may reach: a radius, 3 mm at least."""
    return max(b.r, 3.0) * PX


def _reach(line: _Stroke, b: L.Bubble, m: Measured, kind: str) -> float:
    """How far (pixels) the line's ink goes on beyond the bubble's disc (_inked_beyond); infinite for
    a line passing outside the disc."""
    if not crosses_disc(line, b):
        return np.inf
    return _inked_beyond(line, b, _inked(m, MEASURE.traced)[0], _hidden(kind))


def _inked_beyond(line: _Stroke, b: L.Bubble, binary: np.ndarray, hidden: np.ndarray) -> float:
    """How far (pixels) the line's ink goes on beyond the bubble's disc, on the side it goes further:
    from the disc out while ink is seen (up to STROKES.bow_mm from the fitted line: a bowed line leaves it) or
    print hides it, across gaps of at most STROKES.gap_mm."""
    h, w = binary.shape
    bow = round(STROKES.bow_mm * PX)
    at, chord = _chord(line, b.x * PX, b.y * PX, SHAPE.disc * b.r * PX)
    across = np.arange(-bow, bow + 1)[:, None] * np.array([-line.u[1], line.u[0]])[None]
    reach = 0.0
    for t in (np.arange(at - chord, line.t0, -1.0), np.arange(at + chord, line.t1, 1.0)):
        xy = np.rint(line.p + t[:, None] * line.u + across[:, None]).astype(int)     # offset x point x (x, y)
        xs, ys = np.clip(xy[..., 0], 0, w - 1), np.clip(xy[..., 1], 0, h - 1)
        on = np.flatnonzero(binary[ys, xs].any(axis=0) | hidden[ys[bow], xs[bow]])
        steps = np.diff(np.concatenate([[-1], on]))      # to each point with ink (or print) from the last
        gaps = np.flatnonzero(steps > STROKES.gap_mm * PX)
        run = on[:gaps[0]] if len(gaps) else on
        reach = max(reach, float(run[-1] + 1) if len(run) else 0.0)
    return reach


def _chord(s: _Stroke, cx: float, cy: float, r: float) -> tuple[float, float]:
    """(position along the stroke of the centre of a disc, half the chord the stroke's line cuts in it)."""
    off, at = s.offset(cx, cy)
    return at, np.sqrt(max(r * r - off * off, 0.0))


def _in_disc(s: _Stroke, cx: float, cy: float, r: float) -> float:
    """The length of the stroke inside a disc."""
    at, chord = _chord(s, cx, cy, r)
    return max(0.0, min(s.t1, at + chord) - max(s.t0, at - chord))


def _one_line(a: _Stroke, b: _Stroke, cx: float, cy: float) -> bool:
    """Two strokes are pieces of one bowed line by a bubble: nearly the same direction (within
    STROKES.one_line_deg), passing its centre within STROKES.one_line_mm of each other on the same side."""
    dot = float(a.u @ b.u)
    if abs(dot) < np.cos(np.radians(STROKES.one_line_deg)):
        return False
    side_a = a.u[0] * (cy - a.p[1]) - a.u[1] * (cx - a.p[0])
    side_b = (b.u[0] * (cy - b.p[1]) - b.u[1] * (cx - b.p[0])) * np.sign(dot)
    return abs(side_a - side_b) < STROKES.one_line_mm * PX
