"""The card scanner: one image in, one decision out (counted, invalid, review, rejected or ignored)."""
from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from statistics import median

import cv2
import numpy as np

from companion.core.review import save_crop

from .. import layouts as L
from ..image_files import ImageFileError, checked_bytes, decode
from . import decide as D
from .blank import PX
from .circles import Circles, find as find_circles, under_circle
from .decide import Reading, command_for
from .locate import Located, marker_detector, card_region, locate, read_code, refitted
from .measure import BubbleInk, Cut, Measured, bubble_geometry, ink, left_near, measured, one_stroke, ring_peaks, \
    score_bubbles, sharpness
from .reasons import Code, Finding, at, why
from .result import Rejection, Result
from .strokes import StrokeCut, broken_lines, cut_by_strokes, find_strokes, runs_through, sits_on
from .tuning import GLARE, LIGHT, LOCATE, MEASURE, STROKES, Settings


class Scanner:
    def __init__(self, event: str, secret: str, settings: Settings | None = None, crops: str | Path | None = None):
        self.event, self.secret = event, secret
        self.settings = settings or Settings()
        self.crops = Path(crops) if crops else None
        self.detector = marker_detector()

    # --- entry points ---------------------------------------------------------------------
    def scan_file(self, path: str | Path) -> Result:
        return self.load_and_scan(Path(path))[1]

    def load_and_scan(self, path: Path) -> tuple[bool, Result]:
        """The file loaded and scanned: (whether it loaded, the result; rejected when it did not load)."""
        start = time.perf_counter()
        try:
            image = load_image(path)
        except Rejection as refused:
            result, loaded = Result(str(path), "rejected", str(refused)), False
        else:
            result, loaded = self.scan_image(image, str(path)), True
        result.ms = _ms(start)
        return loaded, result

    def scan_image(self, image: np.ndarray, name: str = "image") -> Result:
        start = time.perf_counter()
        # the scan's own CPU time: a hostile image is cut short, a card on a busy machine is not lost
        self._deadline = time.thread_time() + self.settings.time_limit_ms / 1000
        result = Result(name, "rejected")
        try:
            self._scan(image, result)
            self._on_time()
        except Rejection as refused:
            result.decision, result.reason, result.command = "rejected", str(refused), None
        result.ms = _ms(start)
        return result

    # --- the steps ----------------------------------------------------------------------
    def _scan(self, image: np.ndarray, result: Result) -> None:
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        if min(grey.shape) < LOCATE.smallest_px:
            raise Rejection(f"not a card: the image is only {grey.shape[1]}x{grey.shape[0]} pixels")
        card = locate(self.detector, grey)
        self._on_time()
        result.method = card.method
        amount = ink(card.grey)
        blurred = self._blur(amount)
        try:
            code = read_code(grey, card, self.event, self.secret)
        except Rejection as refused:
            raise Rejection(f"too blurred: {refused}") if blurred else refused
        result.kind, result.serial, result.owner = code.kind, code.serial, code.owner
        result.turn = code.turn if code.kind == "vote" else None
        layout = L.layout(code.kind)
        if not layout.fields:
            result.decision = "ignored"
            result.explain(why(Code.NOTHING_TO_COUNT, kind=code.kind))
            return
        self._on_time()
        m = measured(amount, code.kind)
        # a curled card's print bent off the fit? fitted again piece by piece
        if blurred or card.method == "curled" or _misfit(m, code.kind):
            card = refitted(grey, card, amount, code.kind)
            amount = ink(card.grey)
            # blurred: the outline soft in both fits (the pieces fit the bubbles, not the outline)
            # and the printed rings' thin lines soft too (a light pencil line as soft as they are)
            blurred = blurred and self._blur(amount) and _soft_rings(amount, code.kind)
            m = measured(amount, code.kind)
        reading = self._measure(card.grey, m, layout, blurred)
        result.scores = {f.name: {b.value: round(reading.scores[f.name, b.value], 3) for b in f.bubbles}
                         for f in layout.fields}
        result.fields = reading.marked(self.settings)
        read = command_for(code, result.fields)
        found = D.findings(reading, self.settings)
        result.findings = [f.to_json() for f in found]
        result.decision, fired = D.decide(found)
        result.explain(fired)
        if result.decision == "review":
            self._hold(result, image, card, read)
        else:
            result.command = read

    def _measure(self, grey: np.ndarray, m: Measured, layout: L.Layout, blurred: bool) -> Reading:
        """Every bubble's ink, with a circle drawn round another bubble, a stray line's ink and a
        neighbour's spilt ink taken out."""
        s, kind, amount, levels = self.settings, layout.kind, m.amount, m.levels
        circles = find_circles(m, kind, s)
        cuts = _circle_cut(circles, layout)
        numbers = self._numbers(m, kind, cuts, circles)
        line_findings, stroke_cuts = (), []
        # any ink may be (or hide) a long stray line or a crease's (D19); ink a circle's path has run into
        inked = any(v >= s.trace for v in numbers.scores.values()) or circles.reach.sum() > PX * PX
        self._on_time()
        strokes = find_strokes(m, kind) if inked else []
        if strokes:
            stroke_cut = cut_by_strokes(strokes, layout, m)
            again = find_circles(m, kind, s, stroke_cut.covered, circles.faint)   # a stray line is no circle
            if not _same_cut(again, circles):
                numbers = self._numbers(m, kind, _circle_cut(again, layout), again)
            circles, cuts = again, _circle_cut(again, layout)
            numbers, line_findings, crossed = self._unstroked(m, layout, numbers, cuts, circles, stroke_cut)
            stroke_cuts = [Cut(stroke_cut.covered, crossed)]
        scores, own = numbers.scores, numbers.own
        if inked and not line_findings:     # (a line found already leaves the card in doubt)
            line_findings = tuple(self._broken_line(m, layout, strokes, scores, circles, [*cuts, *stroke_cuts]))
        # ink only where a much stronger neighbour's mark reaches is that mark's: scored by where it lies
        spilt = [(name, b.value) for name, b in layout.bubbles() if (name, b.value) not in circles.circled
                 and scores[name, b.value] >= s.trace and D.spilt(layout, (name, b.value), b, scores, own, s)]
        scores = {**scores, **{key: own[key] for key in spilt}}
        light = D.light_marks(grey, amount, layout, levels, scores, numbers.band, s, one_stroke)
        under = tuple(under_circle(m, kind, circles, s.marginal)) if circles.circled else ()
        return Reading(layout, grey, amount, levels, scores, numbers.around, numbers.filled, light, blurred,
                       line_findings, circles, under, stroke_cuts[0].pixels if stroke_cuts else None)

    def _numbers(self, m: Measured, kind: str, cuts: list[Cut], circles: Circles) -> BubbleInk:
        """score_bubbles's numbers with the cuts made, a circled bubble scoring its circle's ink too."""
        numbers = score_bubbles(m, kind, self.settings.definite, self.settings.stray, cuts)
        return replace(numbers, scores={k: v + circles.ink.get(k, 0.0) for k, v in numbers.scores.items()})

    def _unstroked(self, m: Measured, layout: L.Layout, numbers: BubbleInk, cuts: list[Cut], circles: Circles,
                   stroke_cut: StrokeCut):
        """The numbers again without the ink of long straight strokes running right through a bubble (a stray pen line
        is no mark), and a doubt if a stroke covers more ink than its own (a mark drawn along it?); and which bubbles
        the strokes' ink was taken out of. Only run where some bubble is not clearly blank."""
        s, covered, crossed, touched = self.settings, stroke_cut.covered, stroke_cut.crossed, stroke_cut.touched
        keys = [(name, b.value) for name, b in layout.bubbles()]
        if touched.any():
            bare = self._numbers(m, layout.kind, [*cuts, Cut(covered, crossed | touched)], circles)
            # the only ink in it a line leaving it farther than a mark's arm on one side: no cross's
            # other arm, no tick's short one beside it; a straight line that long is no mark (D19):
            # taken out as a line running through
            lone = touched & stroke_cut.leaving & np.array([bare.scores[key] < s.trace for key in keys])
            crossed, touched = crossed | lone, touched & ~lone
        again = self._numbers(m, layout.kind, [*cuts, Cut(covered, crossed)], circles) \
            if crossed.any() else numbers
        # a stroke sitting on a bubble (a tick's long arm, a short line across it) may be its mark or not:
        # with a definite mark's ink beside it (its own taken out too: a short line on a blank bubble leaves
        # none) the bubble is marked either way, and judged by that ink
        plain = []
        if touched.any():
            plain = [key for n, key in enumerate(keys) if touched[n] and bare.scores[key] >= s.definite]
            again = again.taking(bare, plain)
            # with ink left apart from the stroke (a light cross's other arm) the two are one mark, scored whole
            plain += [key for n, key in enumerate(keys) if touched[n] and key not in plain
                      and bare.scores[key] >= s.marginal and _apart(m, layout.kind, key, covered)]
        return again, tuple(_line_doubts(m, layout, numbers.scores, again.scores, stroke_cut, crossed, touched, plain,
                                         circles, s)), crossed

    def _broken_line(self, m: Measured, layout: L.Layout, strokes: list, scores: dict,
                     circles: Circles, cuts: list) -> Iterator[Finding]:
        """A stray line in pieces (glare over its middle) running through a bubble read as marked."""
        marks = [(name, b) for name, b in layout.bubbles()
                 if scores[name, b.value] >= self.settings.marginal and (name, b.value) not in circles.circled]
        lines = broken_lines(m, layout.kind, strokes, [b for _, b in marks]) if marks else []
        for name, b in marks:
            through = [line for line in lines if runs_through(line, b)]
            if through and not self._marked_beside(m, layout, name, b, through, circles, cuts):
                yield why(Code.BROKEN_LINE, **at((name, b.value)), score=scores[name, b.value])

    def _marked_beside(self, m: Measured, layout: L.Layout, name: str, b: L.Bubble, lines: list, circles: Circles,
                       cuts: list) -> bool:
        """The lines leave a bubble marked either way when, with them taken out, the ink left is a mark
        apart from them (_apart: a cross's other arm, a tick they cross), or a definite mark beside lines
        that all sit on the bubble (a cross's long arm: maybe its mark)."""
        key, s = (name, b.value), self.settings
        covered = cut_by_strokes(lines, layout, m).covered
        alone = np.array([(other, o.value) == key for other, o in layout.bubbles()])
        left = self._numbers(m, layout.kind, [*cuts, Cut(covered, alone)], circles).scores[key]
        if left >= s.definite and all(sits_on(line, b, m, layout.kind) for line in lines):
            return True
        return left >= s.marginal and _apart(m, layout.kind, key, covered)

    def _on_time(self) -> None:
        """A scan working too long (a huge or hostile image) is cut short, by its own CPU time (not the machine's)."""
        if time.thread_time() > self._deadline:
            raise Rejection(f"too slow: the scan ran over the {self.settings.time_limit_ms:.0f} ms limit per card "
                            "(time_limit_ms in [cards])")

    def _blur(self, amount: np.ndarray) -> bool:
        frame, marker = sharpness(amount)
        return marker < LIGHT.marker_contrast or frame / marker < self.settings.sharp

    def _hold(self, result: Result, image: np.ndarray, card: Located, read: dict) -> None:
        """The operator rules on it (D2): held as read (a field not read is None), the crop and the scores."""
        if self.crops is not None:
            crop = card_region(_in_colour(result.image, image), card.homography)
            result.crop = save_crop(self.crops, result.serial, Path(result.image).stem if result.image else "",
                                    cv2.imencode(".png", crop)[1].tobytes())
        result.command = {"do": "hold", "card": read, "reason": result.reason, "crop": result.crop or "",
                          "scores": result.scores,
                          "findings": [{"code": f["code"], "message": f["message"]} for f in result.findings]}


def _in_colour(path: str, image: np.ndarray) -> np.ndarray:
    """A grey image's file in colour for the operator's crop (a pen's colour tells ink from print) if there."""
    if image.ndim == 3:
        return image
    try:
        colour = decode(checked_bytes(path))
    except OSError:
        return image
    return colour if colour is not None and colour.shape[:2] == image.shape else image


def _line_doubts(m: Measured, layout: L.Layout, scores: dict, again: dict, stroke_cut, crossed: np.ndarray,
                 touched: np.ndarray, plain: list, circles: Circles, s: Settings) -> Iterator[Finding]:
    """What the strokes leave in doubt, scores before and again after their ink is taken out: a line only touching
    a bubble with ink there; one running into it with a little ink beside it (the line's or a mark?), or over more
    ink than a line carries (a mark under it?)."""
    covered, expected = stroke_cut.covered, stroke_cut.expected
    for n, (name, b) in enumerate(layout.bubbles()):
        key = name, b.value
        if touched[n] and again[key] >= s.marginal and key not in plain:
            yield why(Code.LINE_TOUCHES, **at(key), score=again[key])
        if crossed[n] and expected[n] > 0 and key not in circles.circled and again[key] >= s.marginal \
                and not _apart(m, layout.kind, key, covered):
            yield why(Code.LINE_INK_BESIDE, **at(key), score=again[key])
        if crossed[n] and again[key] < s.definite \
                and scores[key] - again[key] > STROKES.over_ink * expected[n] + STROKES.over_ink_plus:
            yield why(Code.LINE_OVER_INK, **at(key), taken=scores[key] - again[key], line=expected[n])


def _apart(m: Measured, kind: str, key: tuple, covered: np.ndarray) -> bool:
    """The ink left in a bubble with lines taken out (covered) lies apart from them: MEASURE.apart of it
    MEASURE.apart_mm or more from them, a mark of its own (a tick a line crosses, a cross's other arm), not
    their soft edge or wobble. One quantity for both: a person looks at ink between."""
    g = bubble_geometry(kind)[key]
    return 1.0 - left_near(m.new[g.where] * g.disc, covered.reshape(m.new.shape)[g.where], MEASURE.apart_mm) \
        >= MEASURE.apart


def _misfit(m: Measured, kind: str) -> bool:
    """The printed rings look washed out (the print off the blank, or glare), or some far fainter than the others
    with their ink mostly beside where the blank prints them: a ring's median well under its own darkest close by
    (ring_peaks), which a misfit lowers and glare does not."""
    rings = m.levels.rings
    typical = median(rings.values())
    if typical < GLARE.washed:
        return True
    if min(rings.values()) >= GLARE.fading * typical:
        return False
    peaks = ring_peaks(m.amount, kind)[0]
    return any(ring < GLARE.off_print * peaks[key] for key, ring in rings.items())


def _soft_rings(amount: np.ndarray, kind: str) -> bool:
    """The printed rings' darkest (which blur lowers, a misfit does not) well under a clear picture's,
    on the fainter rings (a ring inked over is darker: not these)."""
    return float(np.percentile(list(ring_peaks(amount, kind)[0].values()), 10)) < GLARE.sharp_rings * GLARE.clear_ring


def _circle_cut(circles: Circles, layout: L.Layout) -> list:
    """The circles' paths, left out of every bubble (a circled one scores its circle's ink instead)."""
    return [Cut(circles.path, np.ones(len(layout.bubbles()), bool))] if circles.circled else []


def _same_cut(a: Circles, b: Circles) -> bool:
    """Whether two looks at a card's circles take the same ink out of its bubbles and add the same ink."""
    return a.circled == b.circled and a.ink == b.ink and (not a.circled or np.array_equal(a.path, b.path))


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)


def load_image(path: Path) -> np.ndarray:
    try:
        data = checked_bytes(path)      # regular files only, within the byte and pixel limits
    except OSError as error:
        raise Rejection(error.strerror if isinstance(error, ImageFileError) else f"cannot read {path}: {error.strerror}")
    if not data:
        raise Rejection("empty file")
    if data[:2] == b"\xff\xd8" and b"\xff\xd9" not in data[-64:]:
        raise Rejection("truncated JPEG: the file ends before the image does")
    # grey: all the scanner reads (a JPEG's luma decodes in half the time of its colour); without
    # the C libraries' own lines on stderr
    image = decode(data, grey=True)
    if image is None:
        raise Rejection("not an image (or a damaged one)")
    return image
