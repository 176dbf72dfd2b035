"""Card scanner: one image in, one decision out — counted, invalid, review or rejected.

Per image: find the four ArUco fiducials and fit a homography (or, with a marker hidden,
the printed outline), rectify the card, read and verify its QR code, then score every
bubble as new ink against the blank card rendered from the same layout. Scores below
*marginal* are blank, above *definite* marks, anything between goes to review with a crop.
Before deciding: the ink of long straight strokes (a stray pen line) is taken out of the bubbles
they cross, ink that only a neighbour's big circle put into a bubble is that neighbour's, and a
bubble under glare is looked at again with its contrast restored. A light mark (between the two
thresholds) counts when its shape is a mark's (one connected stroke, not a dash, nothing reaching
in from outside) and it is the only ink in its field; ink just outside a bubble read blank (a
circle drawn round it) is a doubt.
A confident wrong answer is the worst failure: whenever a check is unsure, review.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from . import layouts as L
from .render import render

PX = 6.0                 # pixels per mm of the rectified card
CLEAR_RING = 0.25        # how dark the printed rings look in a clear picture (ink() units)
ALIGNED = 0.75           # an outline fit refined on the print must match the blank this well (correlation)
FADING, FADED = 0.7, 0.2  # a bubble's ring at under FADING of the others' strength is under glare; under FADED, lost
BAND = (1.65, 2.1)       # the band around a bubble (in radii) where a line through it shows: beyond a big circle
QR_PX = 10.0             # pixels per mm when reading the code
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".tif", ".tiff", ".bmp", ".webp")


@dataclass(frozen=True)
class Settings:
    # Scores are new ink in mm² of full-strength stroke per mm of bubble radius: a 0.5 mm pen
    # circle scores about 3, a small tick about 1, a blank bubble under 0.2 (see the bench).
    marginal: float = 0.3       # a bubble scoring below this is blank
    definite: float = 0.6       # at or above this it is marked; between the two: review
    heavy: float = 0.4          # share of a bubble filled (a dot, a scribble); on a special card beside a
                                # lighter mark, maybe a correction (a vote card: two marks, D18)
    stray: float = 0.35         # ink in the band around a bubble (a line through it, not found as a long
                                # straight stroke): a person looks
    sharp: float = 0.55         # printed outline contrast / marker contrast below this: too blurred
    glare: float = 0.35         # a bubble's print at under this share of the card's: glare over it
    trace: float = 0.15         # ink above the noise but under marginal: a faint mark may hide there, review
    ring_dark: float = 1.3      # a printed ring this much darker than the card's others: inked over, review
    # A light mark (light pencil: between marginal and definite) is marked when its ink is one stroke
    # and nothing outside the bubble could have put it there; else review.
    coherent: float = 0.4       # share of its ink in one connected piece (noise, JPEG, shadow: scattered)
    span: float = 0.4           # that piece's length in radii (a speck is no mark)
    flat: float = 0.25          # the ink's narrow side under this share of its long side: a dash, no mark
    quiet: float = 0.05         # ink in the band around it at most this (a finger, shadow or line reaching in)
    outside: float = 2.5        # ink just outside a bubble read blank, most of a pen circle's (drawn round it): review


@dataclass
class Result:
    image: str
    decision: str                       # counted | invalid | review | rejected | ignored
    reason: str | None = None
    kind: str | None = None
    serial: str | None = None
    owner: int | None = None
    turn: int | None = None
    fields: dict = field(default_factory=dict)      # field -> values read as marked
    scores: dict = field(default_factory=dict)      # field -> value -> score
    command: dict | None = None                     # what goes to the referee, if anything
    crop: str | None = None
    ms: float = 0.0
    method: str | None = None                       # markers | outline

    def to_json(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v not in (None, {}) or k in ("decision", "fields")}


class Rejection(Exception):
    """The image is not a readable card of this event: reason names why."""


@dataclass
class _Card:
    """A located, rectified card."""
    homography: np.ndarray      # card mm -> image pixels
    grey: np.ndarray            # rectified, PX per mm
    method: str


class Scanner:
    def __init__(self, event: str, secret: str, settings: Settings | None = None, crops: str | Path | None = None):
        self.event, self.secret = event, secret
        self.settings = settings or Settings()
        self.crops = Path(crops) if crops else None
        self.detector = _detector()

    # --- entry points ---------------------------------------------------------------------
    def scan_file(self, path: str | Path) -> Result:
        start = time.perf_counter()
        path = Path(path)
        try:
            image = load_image(path)
        except Rejection as why:
            return Result(str(path), "rejected", str(why), ms=_ms(start))
        result = self.scan_image(image, str(path))
        result.ms = _ms(start)
        return result

    def scan_image(self, image: np.ndarray, name: str = "image") -> Result:
        start = time.perf_counter()
        result = Result(name, "rejected")
        try:
            self._scan(image, result)
        except Rejection as why:
            result.decision, result.reason = "rejected", str(why)
        result.ms = _ms(start)
        return result

    # --- the steps ----------------------------------------------------------------------
    def _scan(self, image: np.ndarray, result: Result) -> None:
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        if min(grey.shape) < 200:
            raise Rejection(f"not a card: the image is only {grey.shape[1]}x{grey.shape[0]} pixels")
        card = self._locate(grey)
        result.method = card.method
        amount = ink(card.grey)
        blurred = self._blur(amount)
        try:
            code = self._verify(self._read_code(grey, card))
        except Rejection as why:
            raise Rejection(f"too blurred: {why}") if blurred else why
        result.kind, result.serial, result.owner = code.kind, code.serial, code.owner
        result.turn = code.turn if code.kind == "vote" else None
        layout = L.layout(code.kind)
        if not layout.fields:
            result.decision, result.reason = "ignored", f"a {code.kind} card has nothing to count"
            return
        levels = _levels(amount, code.kind)
        s = self.settings
        scores, around, filled, own, band = _score(amount, code.kind, levels, s.definite, s.stray)
        under = None
        if any(scores[k] >= s.trace and band[k] >= s.trace for k in scores):
            (scores, around, filled, own, band), under = self._unstroked(amount, layout, levels,
                                                                         scores, around, filled, own, band)
        # ink only where a much stronger neighbour's mark reaches is that mark's: scored by where it lies
        spilt = [(name, b.value) for name, b in layout.bubbles()
                 if scores[name, b.value] >= s.trace and _spilt(layout, (name, b.value), b, scores, own, s)]
        scores = {**scores, **{key: own[key] for key in spilt}}
        result.scores = {f.name: {b.value: round(scores[f.name, b.value], 3) for b in f.bubbles}
                         for f in layout.fields}
        light = self._light(amount, layout, levels, scores, band)
        result.fields = {f.name: [b.value for b in f.bubbles if scores[f.name, b.value] >= s.definite
                                  or (f.name, b.value) in light] for f in layout.fields}
        best = command_for(code, result.fields, result.scores)
        doubt = ("too blurred to read the marks safely" if blurred else None) \
            or self._glare(amount, code.kind, levels, scores) or under \
            or self._doubt(layout, scores, around, filled, light) or self._trace(layout, scores, levels.rings, light) \
            or self._circled(layout, _halo_ink(amount, code.kind, levels), result.fields)
        if doubt:
            self._review(result, image, card, best, doubt)
            return
        self._decide(result, image, card, code, best)

    def _locate(self, grey: np.ndarray) -> _Card:
        homography, method = self._fiducials(grey)
        if homography is None:
            hint = " (the picture is too blurred to tell)" if _soft(grey) else ""
            raise Rejection(f"not a card: no card fiducials or outline found{hint}")
        return _Card(homography, _warp(grey, homography, PX, (0, 0, L.CARD_W, L.CARD_H)), method)

    def _fiducials(self, grey: np.ndarray):
        found = _markers(self.detector, grey)
        ids = [i for i in found if i in L.MARKER_IDS]
        if len(ids) >= 3:
            homography = _fit(found, ids)
            if homography is not None:
                return homography, "markers"
        homography = _outline(grey, found)
        return homography, "outline"

    def _read_code(self, grey: np.ndarray, card: _Card) -> str:
        x, y, side = L.QR_BOX
        patch = _warp(grey, card.homography, QR_PX, (x - 1, y - 1, side + 2, side + 2))
        for attempt in (patch, _sharpen(patch), _binary(patch), cv2.resize(patch, None, fx=1.5, fy=1.5)):
            text = _decode(attempt)
            if text:
                return text
        raise Rejection("unreadable: the card's QR code cannot be read")

    def _verify(self, text: str) -> L.Card:
        try:
            return L.verify(text, self.event, self.secret)
        except L.CodeError as error:
            raise Rejection(str(error))

    def _unstroked(self, amount: np.ndarray, layout: L.Layout, levels: _Levels, *numbers):
        """The numbers again without the ink of long straight strokes running right through a bubble
        (a stray pen line is no mark), and a doubt if a stroke covers more ink than its own (a mark
        drawn along it?). Only run where some bubble is not clearly blank."""
        strokes = _strokes(amount, layout.kind, levels)
        if not strokes:
            return numbers, None
        covered, crossed, touched, expected = _stroke_cut(strokes, layout, amount.shape)
        s = self.settings
        again = _score(amount, layout.kind, levels, s.definite, s.stray, (covered, crossed)) if crossed.any() \
            else numbers
        for n, (name, b) in enumerate(layout.bubbles()):
            key = name, b.value
            if touched[n] and again[0][key] >= s.marginal:
                return again, f"a line touches {b.value} ({name}): mark or stray stroke?"
            removed = numbers[0][key] - again[0][key]
            if crossed[n] and again[0][key] < s.definite and removed > 1.5 * expected[n] + 0.3:
                return again, f"a line runs into {b.value} ({name}) over more ink than its own: a mark under it?"
        return again, None

    def _light(self, amount: np.ndarray, layout: L.Layout, levels: _Levels, scores: dict, band: dict) -> set:
        """Light marks (between marginal and definite) read as marked: each the only bubble of its field
        at marginal or above, one mark's shape (_one_stroke), nothing in the band around it. Beside another mark it stays a doubt
        (a correction? which one is meant?)."""
        s = self.settings
        light = set()
        for f in layout.fields:
            inked = [(f.name, b.value) for b in f.bubbles if scores[f.name, b.value] >= s.marginal]
            if len(inked) == 1 and scores[inked[0]] < s.definite and band[inked[0]] <= s.quiet \
                    and _one_stroke(amount, layout.kind, levels, inked[0], s):
                light.add(inked[0])
        return light

    def _blur(self, amount: np.ndarray) -> bool:
        frame, marker = sharpness(amount)
        return marker < 0.2 or frame / marker < self.settings.sharp

    def _glare(self, amount: np.ndarray, kind: str, levels: _Levels, scores: dict) -> str | None:
        """A bubble whose printed ring has faded against the others' is under glare (or washed
        out). Glare lowers contrast, so a faint mark there can drop out of sight: a faded bubble
        read as blank is scored again with its contrast restored, and must hold no ink even then;
        one whose ring is almost gone (under FADED of the others') cannot be read at all."""
        s = self.settings
        typical = _typical_ring(levels.rings, scores, s.marginal)
        if typical < 0.12:      # washed out or blurred: thin lines (the rings, a pencil mark) lose contrast
            if typical < FADED * CLEAR_RING or any(
                    scores[key] < s.marginal and _restored(amount, kind, levels, key, CLEAR_RING / typical) >= s.trace
                    for key in levels.rings):
                return "cannot see the printed bubbles (washed out or misaligned)"
        for key, ring in levels.rings.items():
            if ring >= FADING * typical:
                continue
            if ring < s.glare * typical and (ring < FADED * typical or scores[key] >= s.marginal):
                return f"glare over bubble {key[1]} ({key[0]})"
            if scores[key] < s.marginal and _restored(amount, kind, levels, key, typical / ring) >= s.trace:
                return f"glare over bubble {key[1]} ({key[0]}): a faint mark under it?"
        return None

    def _doubt(self, layout: L.Layout, scores: dict, around: dict, filled: dict, light: set) -> str | None:
        s = self.settings
        for f in layout.fields:
            for b in f.bubbles:
                key = f.name, b.value
                if s.marginal <= scores[key] < s.definite and key not in light:
                    return f"unclear mark at {b.value} ({f.name}, score {scores[key]:.2f})"
                if scores[key] >= s.marginal and filled[key] < s.heavy and around[key] >= s.stray:
                    return f"a line runs through {b.value} ({f.name}): mark or stray stroke?"
            marked = [filled[f.name, b.value] for b in f.bubbles
                      if scores[f.name, b.value] >= s.definite or (f.name, b.value) in light]
            if layout.kind != "vote" and len(marked) >= 2 and max(marked) >= s.heavy > min(marked):
                return f"{len(marked)} marks in {f.name}, one filled in: maybe a correction"
        return None

    def _trace(self, layout: L.Layout, scores: dict, rings: dict, light: set = frozenset()) -> str | None:
        """Ink above the noise in a bubble read as blank could be a faint mark (light pencil, or a
        pen circle drawn right over the printed ring, which the print model hides): reading that
        card as blank or as one mark fewer would be a silent error, so a person looks."""
        s = self.settings
        typical = _typical_ring(rings, scores, s.marginal)
        for name, b in layout.bubbles():
            key = name, b.value
            if scores[key] >= s.definite or key in light:
                continue
            if scores[key] >= s.trace:
                return f"faint ink at {b.value} ({name}, score {scores[key]:.2f}): a light mark?"
            if rings[key] > s.ring_dark * typical:
                return f"the printed ring of {b.value} ({name}) is inked over: a mark drawn on it?"
        return None

    def _circled(self, layout: L.Layout, halo: dict, fields: dict) -> str | None:
        """A circle drawn round a bubble, wider than the disc scored, puts its ink just outside it: a
        bubble read blank with that much ink there may be marked."""
        for name, b in layout.bubbles():
            if b.value not in fields[name] and halo[name, b.value] >= self.settings.outside:
                return f"ink round {b.value} ({name}), outside the bubble: a big circle drawn round it?"
        return None

    def _review(self, result: Result, image: np.ndarray, card: _Card, best: dict, reason: str) -> None:
        """The operator rules on it (D2): held with the best reading, the crop and the scores."""
        result.decision, result.reason = "review", reason
        result.crop = self._save_crop(image, card, result)
        result.command = {"do": "hold", "card": best, "reason": reason, "crop": result.crop or "",
                          "scores": result.scores}

    def _decide(self, result: Result, image: np.ndarray, card: _Card, code: L.Card, best: dict) -> None:
        if code.kind == "vote":      # blank or several marks: the referee journals it invalid (R6)
            marks = result.fields["mark"]
            result.command = best
            result.decision = "counted" if len(marks) == 1 else "invalid"
            # D18: a bubble scribbled out beside another mark is still a mark: both are definite here
            result.reason = None if len(marks) == 1 else ("blank: nothing marked (R6)" if not marks
                                                          else "two marks (R6)" if len(marks) == 2
                                                          else "more than one mark (R6)")
            return
        wrong = [f"{name}: {'no mark' if not values else f'{len(values)} marks'}"
                 for name, values in result.fields.items() if len(values) != 1]
        if wrong:
            self._review(result, image, card, best, "; ".join(wrong))
            return
        result.decision, result.command = "counted", best

    def _save_crop(self, image: np.ndarray, card: _Card, result: Result) -> str | None:
        if self.crops is None:
            return None
        self.crops.mkdir(parents=True, exist_ok=True)
        crop = _warp(image, card.homography, PX, (0, 0, L.CARD_W, L.CARD_H))
        stem = Path(result.image).stem if result.image else "card"
        path = self.crops / f"{result.serial or 'card'}-{stem}.png"
        cv2.imwrite(str(path), crop)
        return str(path)


def _spilt(layout: L.Layout, key: tuple, b: L.Bubble, scores: dict, own: dict, s: Settings) -> bool:
    """The ink in this bubble lies where a neighbour's mark reaches (a big circle drawn round it),
    none in its own part of the disc, and that neighbour is marked with at least twice the ink:
    it is that mark's ink, not a mark of its own."""
    return own[key] < s.trace and _spill_from_neighbour(layout, b, scores, max(s.definite, 2 * scores[key]))


def _spill_from_neighbour(layout: L.Layout, b: L.Bubble, scores: dict, at_least: float) -> bool:
    """A bubble close by scoring at least this (a big circle drawn round it reaches into this one)."""
    return any(o is not b and scores[name, o.value] >= at_least and np.hypot(o.x - b.x, o.y - b.y) < 3.0 * (o.r + b.r)
               for name, o in layout.bubbles())


def _typical_ring(rings: dict, scores: dict, marginal: float) -> float:
    """How dark the printed rings of the blank bubbles look on this card."""
    unmarked = [v for k, v in rings.items() if scores[k] < marginal]
    return float(np.median(unmarked)) if unmarked else float(np.median(list(rings.values())))


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)


# --- what a card says to the referee ----------------------------------------------------------
def command_for(card: L.Card, fields: dict, scores: dict | None = None) -> dict | None:
    """The referee command for the marks read. A field that needs one mark and has none or
    several is filled with its best-scoring bubble when scores are given (the best reading, for a
    hold), else there is no command."""
    if card.kind == "vote":
        return {"do": "vote", "serial": card.serial, "turn": card.turn, "marks": list(fields["mark"])}
    one = {}
    for name, values in fields.items():
        if len(values) == 1:
            one[name] = values[0]
        elif scores is not None:
            one[name] = max(scores[name], key=scores[name].get)
    if len(one) != len(fields):
        return None
    if card.kind == "robbery":
        return {"do": "rob", "serial": card.serial, "robber": int(one["robber"]), "victim": int(one["victim"]),
                "ordinal": int(one["ordinal"])}
    if card.kind == "inout":
        return {"do": "inout", "player": card.owner, "dir": one["dir"].lower(), "ball": int(one["ball"]),
                "serial": card.serial}
    if card.kind == "change":
        return {"do": "change", "player": card.owner, "cell": int(one["cell"]), "number": int(one["number"]),
                "serial": card.serial}
    if card.kind == "exclusion":
        return {"do": "exclude", "player": card.owner, "ball": int(one["ball"]), "serial": card.serial}
    return None


# --- reading images ----------------------------------------------------------------------------
def load_image(path: Path) -> np.ndarray:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise Rejection(f"cannot read {path}: {error.strerror}")
    if not data:
        raise Rejection("empty file")
    if data[:2] == b"\xff\xd8" and b"\xff\xd9" not in data[-64:]:
        raise Rejection("truncated JPEG: the file ends before the image does")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise Rejection("not an image (or a damaged one)")
    return image


def _detector():
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = 0.04      # a corner marker is never smaller than this in a card picture
    # one threshold window (OpenCV's default tries 3, 13 and 23): half the time, and on the bench
    # corpus it finds three or more corners on exactly the same cards
    params.adaptiveThreshWinSizeMin = params.adaptiveThreshWinSizeMax = 15
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE      # refined at full size instead
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)


def _markers(detector, grey: np.ndarray) -> dict[int, np.ndarray]:
    """Marker id -> its 4 corners in full-image pixels: looked for on a half-size copy of a big
    image first (four times fewer pixels), at full size if that finds too few; corners refined."""
    levels = [2, 1] if min(grey.shape) >= 900 else [1]
    found = {}
    for factor in levels:
        small = cv2.pyrDown(grey) if factor == 2 else grey
        corners, ids, _ = detector.detectMarkers(small)
        found = {}
        for quad, marker in zip(corners, [] if ids is None else ids.ravel()):
            if int(marker) in found:
                raise Rejection("more than one card in the image")
            found[int(marker)] = quad.reshape(4, 2).astype(np.float64) * factor + (factor - 1) / 2
        if sum(i in L.MARKER_IDS for i in found) >= 3:
            break
    return _refine(grey, found) if found else found


def _refine(grey: np.ndarray, found: dict) -> dict:
    points = np.concatenate([q for q in found.values()]).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05)
    refined = cv2.cornerSubPix(grey, points.copy(), (3, 3), (-1, -1), criteria)
    return {i: refined[n * 4:(n + 1) * 4].astype(np.float64) for n, i in enumerate(found)}


def _fit(found: dict, ids: list[int]) -> np.ndarray | None:
    corners = L.marker_corners_mm()
    src = np.array([p for i in ids for p in corners[i]], np.float64)
    dst = np.concatenate([found[i] for i in ids])
    homography, _ = cv2.findHomography(src, dst, 0)
    if homography is None:
        return None
    error = np.linalg.norm(cv2.perspectiveTransform(src[None], homography)[0] - dst, axis=1).max()
    marker_px = np.linalg.norm(dst[0] - dst[2]) / np.sqrt(2)
    return homography if error < 0.12 * marker_px else None   # corners that disagree: not one flat card


def _outline(grey: np.ndarray, found: dict) -> np.ndarray | None:
    """The card's outline (its printed frame or the paper's edge) as the card's corners; markers
    still seen (or the code) say which way up."""
    scale = 0.5 if min(grey.shape) >= 900 else 1.0
    small = cv2.pyrDown(grey) if scale < 1 else grey
    binary = cv2.adaptiveThreshold(small, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, 31, 10)
    contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    quads = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < 0.04 * small.size:
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
        if not 0.6 < ratio < 1.7:        # a card seen at a slant; either way round
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
    if sum(lengths[i] for i in longest) < 0.75 * sum(lengths):
        return None
    corners = [_cross(sides[longest[i - 1]], sides[longest[i]]) for i in range(4)]
    return None if any(c is None for c in corners) else np.array(corners)


def _cross(a, b):
    """Where the lines through two sides meet."""
    (x1, y1), (x2, y2) = a
    (x3, y3), (x4, y4) = b
    d = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
    if abs(d) < 1e-9:
        return None
    t = ((x1 - x3) * (y3 - y4) - (y1 - y3) * (x3 - x4)) / d
    return x1 + t * (x2 - x1), y1 + t * (y2 - y1)


def _clockwise(quad: np.ndarray) -> np.ndarray:
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(angles)]
    start = np.argmin(quad.sum(axis=1))
    return np.roll(quad, -start, axis=0)


def _orient_by_markers(quad: np.ndarray, outline_mm: np.ndarray, found: dict, seen: list):
    """(error, homography) of the way round the outline fits the markers seen best, fitted to
    their corners and the outline's together; None if no way round agrees with them."""
    corners = L.marker_corners_mm()
    src = np.array([p for i in seen for p in corners[i]], np.float64)
    dst = np.concatenate([found[i] for i in seen])
    size = np.linalg.norm(dst[0] - dst[2])
    best = None
    for turn in range(4):
        outline = np.roll(quad, -turn, 0)
        joint, _ = cv2.findHomography(np.concatenate([src, outline_mm]), np.concatenate([dst, outline]), 0)
        if joint is None:
            continue
        error = np.linalg.norm(cv2.perspectiveTransform(src[None], joint)[0] - dst, axis=1).max()
        if error < 0.25 * size and (best is None or error < best[0]):
            best = error, joint
    return best


def _orient_by_code(grey: np.ndarray, quad: np.ndarray, frame_mm: np.ndarray) -> np.ndarray | None:
    """With no marker seen: the one way round the outline whose code reads."""
    candidates = []
    for turn in range(4):
        outline = np.roll(quad, -turn, 0).astype(np.float32)
        homography = cv2.getPerspectiveTransform(frame_mm.astype(np.float32), outline)
        x, y, side = L.QR_BOX
        if _decode(_warp(grey, homography, QR_PX, (x - 1, y - 1, side + 2, side + 2))):
            candidates.append(homography)
    return candidates[0] if len(candidates) == 1 else None


def _refine_on_print(grey: np.ndarray, homography: np.ndarray, seen: list) -> np.ndarray | None:
    """An outline fit is only as good as the paper's edge: align the rectified card to the blank's
    print around the outline and the markers seen (a finger over a marker is no print)."""
    blank = _blank("vote").astype(np.float32) / 255
    warped = _warp(grey, homography, PX, (0, 0, L.CARD_W, L.CARD_H)).astype(np.float32) / 255
    mask = _fiducial_region().copy()
    for m in L.markers():
        if seen and m.id not in seen:
            x0, y0, x1, y1 = (round(v * PX) for v in (m.x - 3, m.y - 3, m.x + m.size + 3, m.y + m.size + 3))
            mask[max(0, y0):y1, max(0, x0):x1] = 0
    try:
        fit, warp = cv2.findTransformECC(blank, warped, np.eye(3, dtype=np.float32), cv2.MOTION_HOMOGRAPHY,
                                         (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 40, 1e-4), mask, 5)
    except cv2.error:
        return None
    if fit < ALIGNED:
        return None
    scale = np.diag([PX, PX, 1.0])
    return homography @ np.linalg.inv(scale) @ warp.astype(np.float64) @ scale


def _warp(image: np.ndarray, homography: np.ndarray, px: float, box: tuple) -> np.ndarray:
    """The card region box (x, y, w, h in mm) at px pixels per mm."""
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
    small = cv2.pyrDown(grey) if min(grey.shape) >= 900 else grey
    steep = np.percentile(np.abs(cv2.Sobel(small, cv2.CV_32F, 1, 0)), 99.5)
    low, high = np.percentile(small, [1, 99])
    return high - low > 40 and steep / (high - low) < 1.0     # a sharp card scores about 3


def _sharpen(image: np.ndarray) -> np.ndarray:
    return cv2.addWeighted(image, 2.0, cv2.GaussianBlur(image, (0, 0), 2.0), -1.0, 0)


def _binary(image: np.ndarray) -> np.ndarray:
    return cv2.adaptiveThreshold(image, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C, cv2.THRESH_BINARY, 31, 8)


# --- the blank and the scores -----------------------------------------------------------------
@lru_cache(maxsize=None)
def _blank(kind: str) -> np.ndarray:
    """The card kind's blank print at PX (the code is left out: it differs per card and is never scored)."""
    image = render(L.Card(kind, "", "", 0), "", PX)
    x, y, side = L.QR_BOX
    image[round(y * PX):round((y + side) * PX), round(x * PX):round((x + side) * PX)] = 255
    return image


@lru_cache(maxsize=None)
def _card_data(kind: str) -> np.ndarray:
    """Where each card prints its own data (serial, turn, owner...), which the blank leaves out:
    found by rendering long stand-in data, spread by 1 mm. It is print, never a mark."""
    wide = L.Card(kind, "W" * 24, "W" * 8, 88, 88, "W" * 12, (88,) * 9)
    data = render(wide, "", PX) != render(L.Card(kind, "", "", 0), "", PX)
    x, y, side = L.QR_BOX
    data[round(y * PX):round((y + side) * PX), round(x * PX):round((x + side) * PX)] = False
    return cv2.dilate(data.astype(np.uint8), np.ones((round(2 * PX) | 1,) * 2, np.uint8)) > 0


@lru_cache(maxsize=None)
def _fiducial_region() -> np.ndarray:
    """Around the outline and the markers, printed alike on every kind: what an outline fit aligns on."""
    mask = np.zeros(_blank("vote").shape, np.uint8)
    a, bx, by = (round(v * PX) for v in (L.FRAME_INSET, L.CARD_W - L.FRAME_INSET, L.CARD_H - L.FRAME_INSET))
    cv2.rectangle(mask, (a, a), (bx, by), 255, round(2 * PX))
    for m in L.markers():
        x0, y0, x1, y1 = (round(v * PX) for v in (m.x - 1, m.y - 1, m.x + m.size + 1, m.y + m.size + 1))
        mask[y0:y1, x0:x1] = 255
    return mask


def ink(grey: np.ndarray) -> np.ndarray:
    """How much darker than the paper around it each pixel is (0 paper .. 1 black).

    The paper level is a closing wider than any mark, so a shadow or uneven light (broad, or a
    step) is paper, while a pen stroke or a filled dot (narrower than the window) is ink."""
    grey = cv2.GaussianBlur(grey, (3, 3), 0)       # sensor noise would read as faint ink everywhere
    small = cv2.resize(grey, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    window = int(20 * PX / 4) | 1
    paper = cv2.morphologyEx(small, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (window, window)))
    paper = cv2.resize(cv2.blur(paper, (5, 5)), (grey.shape[1], grey.shape[0]), interpolation=cv2.INTER_LINEAR)
    paper = np.maximum(paper.astype(np.float32), np.maximum(grey, 1).astype(np.float32))
    return 1.0 - grey.astype(np.float32) / paper


@lru_cache(maxsize=None)
def _spread_print(kind: str) -> np.ndarray:
    """The blank card's print, 1 = the bubbles' grey, spread a little so a slight misfit is not ink."""
    return cv2.dilate((255 - _blank(kind)).astype(np.float32) / 255, np.ones((5, 5), np.uint8)) / (1 - L.PRINT_GREY)


@lru_cache(maxsize=None)
def _geometry(kind: str):
    """Per bubble: its patch, the disc scored, its printed ring, the band around it, the blank's
    print there (1 = the bubbles' grey; spread a little so a slight misfit is not ink), its own
    print, the part of its disc outside the other bubbles' spill zones, and those zones."""
    blank = _blank(kind)
    print_ink = _spread_print(kind)
    core = cv2.erode((blank < 190).astype(np.uint8), np.ones((2, 2), np.uint8)) > 0
    clear = _clear(kind)
    h, w = blank.shape
    yy, xx = np.mgrid[0:h, 0:w]
    out = {}
    bubbles = L.layout(kind).bubbles()
    for name, b in bubbles:
        cx, cy, r = b.x * PX, b.y * PX, b.r * PX
        x0, x1 = max(0, int(cx - 2.2 * r)), min(w, int(cx + 2.2 * r) + 1)
        y0, y1 = max(0, int(cy - 2.2 * r)), min(h, int(cy + 2.2 * r) + 1)
        d = np.hypot(xx[y0:y1, x0:x1] - cx, yy[y0:y1, x0:x1] - cy)
        ring = (np.abs(d - r) <= 0.3 * PX) & core[y0:y1, x0:x1]
        own_print = (d <= r + 0.3 * PX) & core[y0:y1, x0:x1]
        ok = clear[y0:y1, x0:x1]
        zone = _zones(b, bubbles, xx[y0:y1, x0:x1], yy[y0:y1, x0:x1])
        out[name, b.value] = ((slice(y0, y1), slice(x0, x1)), (d <= 1.2 * r) & ok, ring,
                              (d >= BAND[0] * r) & (d <= BAND[1] * r) & ok, print_ink[y0:y1, x0:x1], own_print,
                              (d <= 1.2 * r) & ok & (zone < 0), zone)
    return out


@lru_cache(maxsize=None)
def _clear(kind: str) -> np.ndarray:
    """Away from near black print (markers, titles, outline: blur spreads ink from it that is no
    mark) and from the card's own data."""
    blank = _blank(kind)
    clear = cv2.dilate((blank < 100).astype(np.uint8), np.ones((round(1.5 * PX) | 1,) * 2, np.uint8)) == 0
    return clear & ~_card_data(kind)


def _zones(b: L.Bubble, bubbles, xx, yy) -> np.ndarray:
    """Per pixel, the number of the other bubble whose spill zone it lies in (-1: none). A big circle
    drawn round a bubble reaches 1.6 radii from its centre, into its neighbours' discs and bands."""
    zone, nearest = np.full(xx.shape, -1, np.int32), np.full(xx.shape, 1.6)
    for n, (_, o) in enumerate(bubbles):
        if o is not b and np.hypot(o.x - b.x, o.y - b.y) < 3.0 * (o.r + b.r):
            reach = np.hypot(xx - o.x * PX, yy - o.y * PX) / (o.r * PX)
            zone[reach < nearest], nearest = n, np.minimum(nearest, reach)
    return zone


@dataclass(frozen=True)
class _Levels:
    """How the card's print and paper look in this picture."""
    rings: dict         # bubble -> how dark its printed ring looks
    print_level: float  # how dark the bubbles' grey print looks
    floor: float        # ink weaker than this is noise


def _new_ink(seen: np.ndarray, printed: np.ndarray, levels: _Levels) -> np.ndarray:
    """Darkness beyond the blank's own print (scaled to how dark the print looks on this card)
    and the noise, as a share of a full-strength stroke (0-1)."""
    return np.clip((seen - levels.print_level * printed - levels.floor) / 0.25, 0, 1)


def _levels(amount: np.ndarray, kind: str) -> _Levels:
    regions = _regions(kind)
    flat = amount.ravel()
    rings = dict(zip(regions.keys, _quantiles(flat, regions.ring, 0.5)))
    darkest = _quantiles(flat, regions.own_print, 0.9)
    print_level = min(max(float(np.median(darkest)), 0.5 * (1 - L.PRINT_GREY)), 1.0)
    return _Levels(rings, print_level, _noise_floor(amount, kind))


def _score(amount: np.ndarray, kind: str, levels: _Levels, definite: float, stray: float, cut=None):
    """Per bubble: its new ink, the ink in the band around it, the share of it filled, and `own`,
    the new ink in the disc away from the other bubbles' spill zones. New ink is darkness beyond
    the blank's own print (scaled to how dark the print looks on this card); it is counted in mm²
    of full-strength stroke per mm of radius, so a 0.5 mm pen circle scores about 3 whatever the
    bubble's size. `around` leaves out the spill zones of marked bubbles (`definite`) with
    little ink in their own band (`stray`: no line runs through them): a big circle drawn round
    such a bubble reaches there. `band` is all the band's ink. `cut` (pixels, bubbles): the
    pixels (flat, True) left out of those bubbles (True): a stray stroke's ink."""
    regions = _regions(kind)
    flat = amount.ravel()
    keys = regions.keys

    def new_ink(where):
        index, label = where
        new = _new_ink(flat[index], regions.print_ink[index], levels)
        if cut is not None:
            new = np.where(cut[0][index] & cut[1][label], 0.0, new)
        return new
    per_r = 1 / (PX * PX) / regions.radii
    n = len(keys)
    inside = np.bincount(regions.inside[1], new_ink(regions.inside), minlength=n)
    own_disc = np.bincount(regions.own_disc[1], new_ink(regions.own_disc), minlength=n)
    band_ink = new_ink(regions.band)
    band_all = np.bincount(regions.band[1], band_ink, minlength=n) * per_r
    # a marked bubble with no line through its own band: its mark may reach into its neighbours' bands
    spilling = np.append((inside * per_r >= definite) & (band_all < stray), False)     # zone -1 (none): last
    band = np.bincount(regions.band[1], band_ink * ~spilling[regions.band_zone], minlength=n)
    count = regions.inside_count if cut is None else np.maximum(1, np.bincount(
        regions.inside[1], ~(cut[0][regions.inside[0]] & cut[1][regions.inside[1]]), minlength=len(keys)))
    scores = dict(zip(keys, (inside * per_r).tolist()))
    around = dict(zip(keys, (band * per_r).tolist()))
    filled = dict(zip(keys, (inside / count).tolist()))
    own = dict(zip(keys, (own_disc * per_r).tolist()))
    return scores, around, filled, own, dict(zip(keys, band_all.tolist()))


# --- stray strokes ----------------------------------------------------------------------------
STROKE_MM = 20.0        # a straight pen stroke at least this long is no mark (the longest mark is a bubble wide)
STROKE_WIDTH_MM = 1.5   # wider than this (as measured: blur included) it is no pen line
STROKE_GAP_MM = 3.0     # a stroke goes on across gaps in its ink this short


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


@lru_cache(maxsize=None)
def _print_everywhere(kind: str) -> np.ndarray:
    """The whole card's print, measured as the bubbles' print_ink is; the card's own data, its code
    and its edge count as black print (never a stroke's ink)."""
    out = _spread_print(kind).copy()
    out[_card_data(kind)] = 9.0
    x, y, side = (round(v * PX) for v in L.QR_BOX)
    out[y:y + side, x:x + side] = 9.0
    edge = round((L.FRAME_INSET + 1.0) * PX)
    out[:edge], out[-edge:], out[:, :edge], out[:, -edge:] = 9.0, 9.0, 9.0, 9.0
    return out


def _strokes(amount: np.ndarray, kind: str, levels: _Levels) -> list[_Stroke]:
    """Long straight strokes of new ink (a pen line across the card, a crease): found as line
    segments, collinear ones merged, each refitted to its ink and its width measured."""
    new = _new_ink(amount, _print_everywhere(kind), levels)
    binary = (new > 0.5).astype(np.uint8)
    half = cv2.resize(binary, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)      # a quarter of the votes
    found = cv2.HoughLinesP(half, 1, np.pi / 180, round(4 * PX), minLineLength=round(STROKE_MM * PX / 2),
                            maxLineGap=round(2.5 * PX))
    if found is None:
        return []
    found = found * 2 + 0.5
    groups = []         # [(p, u, t0, t1)]
    for x0, y0, x1, y1 in sorted(found.reshape(-1, 4).tolist(), key=lambda s: -np.hypot(s[2] - s[0], s[3] - s[1])):
        a, b = np.array([x0, y0], float), np.array([x1, y1], float)
        for n, (p, u, t0, t1) in enumerate(groups):
            line = _Stroke(p, u, t0, t1, 0)
            (da, ta), (db, tb) = line.offset(*a), line.offset(*b)
            if da < 4 and db < 4:
                groups[n] = (p, u, min(t0, ta, tb), max(t1, ta, tb))
                break
        else:
            u = (b - a) / np.linalg.norm(b - a)
            groups.append((a, u, 0.0, float(np.linalg.norm(b - a))))
    ys, xs = np.nonzero(binary)
    points = np.stack([xs, ys], 1).astype(np.float32)
    hidden = _print_everywhere(kind) >= 0.5
    strokes = []
    for group in groups:
        stroke = _refit(group, points, new, binary, hidden)
        if stroke is None or stroke.width > STROKE_WIDTH_MM * PX:
            continue
        same = [n for n, o in enumerate(strokes) if max(o.offset(*(stroke.p + t * stroke.u))[0]
                                                        for t in (stroke.t0, stroke.t1)) < 4]
        if not same:
            strokes.append(stroke)
            continue
        o = strokes[same[0]]
        ends = [o.offset(*(stroke.p + t * stroke.u))[1] for t in (stroke.t0, stroke.t1)]
        strokes[same[0]] = _Stroke(o.p, o.u, min(o.t0, *ends), max(o.t1, *ends), o.width)
    return strokes


def _refit(group, points: np.ndarray, new: np.ndarray, binary: np.ndarray, hidden: np.ndarray) -> _Stroke | None:
    """The stroke fitted to the ink near a group of segments, followed to its true ends."""
    p, u, t0, t1 = group
    d = points - p
    along, across = d @ u, np.abs(d @ np.array([-u[1], u[0]]))
    near = points[(across < 4) & (along > t0 - 2) & (along < t1 + 2)]
    if len(near) < 10:
        return None
    vx, vy, x, y = cv2.fitLine(near, cv2.DIST_L2, 0, 0.01, 0.01).ravel()
    q, v = np.array([x, y], float), np.array([vx, vy], float)
    t0, t1 = sorted(((p + t * u - q) @ v for t in (t0, t1)))
    t0, t1 = _follow(binary, hidden, q, -v, -t0), _follow(binary, hidden, q, v, t1)
    return _Stroke(q, v, -t0, t1, _width(new, q, v, -t0, t1))


def _follow(binary: np.ndarray, hidden: np.ndarray, p: np.ndarray, u: np.ndarray, t: float) -> float:
    """How far the stroke through p along u goes on beyond t: while its ink does, with gaps of at
    most STROKE_GAP_MM (print it crosses hides it there: no gap)."""
    h, w = binary.shape
    steps = t + np.arange(1.0, h + w)
    xs, ys = np.rint(p[0] + steps * u[0]).astype(int), np.rint(p[1] + steps * u[1]).astype(int)
    inside = (xs >= 1) & (xs < w - 1) & (ys >= 1) & (ys < h - 1)
    stop = int(np.argmin(inside)) if not inside.all() else len(steps)
    xs, ys, steps = xs[:stop], ys[:stop], steps[:stop]
    nx, ny = int(round(-u[1])), int(round(u[0]))
    ink = (binary[ys, xs] | binary[ys + ny, xs + nx] | binary[ys - ny, xs - nx]) > 0
    miss = np.cumsum(~ink & ~hidden[ys, xs])
    at = np.nonzero(ink)[0]
    if not len(at):
        return t
    gaps = np.diff(np.concatenate([[0], miss[at]]))
    far = np.nonzero(gaps > STROKE_GAP_MM * PX)[0]
    last = at[far[0] - 1] if len(far) and far[0] > 0 else (None if len(far) else at[-1])
    return t if last is None else float(steps[last])


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
    return float(np.median(across)) if len(across) else 0.0


def _stroke_cut(strokes: list[_Stroke], layout: L.Layout, shape):
    """Which pixels the strokes cover (flat); which bubbles a stroke enters from well outside
    (it runs through, or ends inside: either way a long straight line is no mark, and its ink is
    taken out); which a stroke only touches, not coming from well outside (they keep their ink:
    a person looks if it matters); and the ink the strokes bring into each bubble's score."""
    cut = np.zeros(shape, np.uint8)
    for s in strokes:
        a, b = s.p + s.t0 * s.u, s.p + s.t1 * s.u
        cv2.line(cut, tuple(np.rint(a).astype(int)), tuple(np.rint(b).astype(int)), 1, 2 * round(s.width / 2 + 2) + 1)
    crossed, touched, expected = [], [], []
    for _, b in layout.bubbles():
        cx, cy, r = b.x * PX, b.y * PX, 1.2 * b.r * PX
        verdicts, ink_px = [], 0.0
        for s in strokes:
            off, at = s.offset(cx, cy)
            if off >= BAND[1] * b.r * PX + s.width / 2 + 2:        # not even in the band around it
                continue
            chord = np.sqrt(max(r * r - off * off, 0.0))
            outside = max(at - chord - s.t0, s.t1 - at - chord)      # how far it reaches beyond the disc
            verdicts.append(outside >= max(b.r, 3.0) * PX)
            ink_px += max(0.0, min(s.t1, at + chord) - max(s.t0, at - chord)) * s.width
        crossed.append(bool(verdicts) and all(verdicts))
        touched.append(not all(verdicts))
        expected.append(ink_px / (PX * PX) / b.r)
    return cut.ravel() > 0, np.array(crossed), np.array(touched), np.array(expected)


def _one_stroke(amount: np.ndarray, kind: str, levels: _Levels, key: tuple, s: Settings) -> bool:
    """Whether a bubble's new ink is one mark's shape: most of it in one connected piece at least
    s.span radii long, and (with the other sizeable pieces) a figure, not a lone straight dash. A
    ring, tick, cross or dot is; noise, JPEG and uneven light scatter. Print the stroke crosses
    (the ring, the letter) hides its ink there, so print right beside the ink joins it up."""
    where, inside, *_ = _geometry(kind)[key]
    printed = _regions(kind).print_ink.reshape(amount.shape)[where]
    new = _new_ink(amount[where], printed, levels) * inside
    ink = (new >= 0.3).astype(np.uint8)
    joined = (ink | ((printed >= 0.5) & (cv2.dilate(ink, np.ones((5, 5), np.uint8)) > 0))) & inside
    count, labels, _, _ = cv2.connectedComponentsWithStats(joined.astype(np.uint8), connectivity=8)
    if count <= 1:
        return False
    pieces = np.bincount(labels.ravel(), new.ravel(), minlength=count)[1:]
    biggest = labels == 1 + int(np.argmax(pieces))
    if pieces.max() < s.coherent * pieces.sum() or _extent(biggest)[0] < s.span * dict(_radii(kind))[key] * PX:
        return False
    long, short = _extent(np.isin(labels, 1 + np.nonzero(pieces >= 0.1 * pieces.sum())[0]))
    return short >= s.flat * long


def _extent(mask: np.ndarray) -> tuple[float, float]:
    """The long and short side of the smallest box around a mask's pixels."""
    ys, xs = np.nonzero(mask)
    _, size, _ = cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32))
    return max(size), min(size)


@lru_cache(maxsize=None)
def _halo(kind: str) -> tuple:
    """Per bubble, the paper between the disc scored (1.2 radii) and the band around it, outside
    the other bubbles' spill zones and clear of black print: (flat pixel index, bubble number)."""
    width = _blank(kind).shape[1]
    clear = _clear(kind)
    index, label = [], []
    for n, ((where, *_, zone), (_, b)) in enumerate(zip(_geometry(kind).values(), L.layout(kind).bubbles())):
        y, x = np.mgrid[where]
        d = np.hypot(x - b.x * PX, y - b.y * PX) / (b.r * PX)
        mask = (d > 1.2) & (d < BAND[0]) & clear[where] & (zone < 0)
        index.append((y * width + x)[mask])
        label.append(np.full(int(mask.sum()), n))
    return np.concatenate(index), np.concatenate(label)


def _halo_ink(amount: np.ndarray, kind: str, levels: _Levels) -> dict:
    """Per bubble, the new ink just outside it, in the units of its score."""
    index, label = _halo(kind)
    regions = _regions(kind)
    new = _new_ink(amount.ravel()[index], regions.print_ink[index], levels)
    per_r = 1 / (PX * PX) / regions.radii
    return dict(zip(regions.keys, (np.bincount(label, new, minlength=len(regions.keys)) * per_r).tolist()))


def _restored(amount: np.ndarray, kind: str, levels: _Levels, key: tuple, gain: float) -> float:
    """A bubble's score with its contrast raised by gain (glare over it lowered it)."""
    regions = _regions(kind)
    n = regions.keys.index(key)
    index = regions.inside[0][regions.inside[1] == n]
    new = _new_ink(gain * amount.ravel()[index], regions.print_ink[index], levels)
    return float(new.sum() / (PX * PX) / regions.radii[n])


@dataclass(frozen=True)
class _Regions:
    """Every bubble's regions of the rectified card as flat pixel indices: (index, bubble number)
    for sums, an index matrix padded with -1 (one row per bubble) for quantiles."""
    keys: tuple
    radii: np.ndarray
    print_ink: np.ndarray
    inside: tuple
    inside_count: np.ndarray
    band: tuple
    band_zone: np.ndarray       # per band pixel, the bubble whose spill zone it is in (-1: none)
    ring: np.ndarray
    own_print: np.ndarray
    own_disc: tuple


@lru_cache(maxsize=None)
def _regions(kind: str) -> _Regions:
    geometry = _geometry(kind)
    width = _blank(kind).shape[1]
    rows = {part: [] for part in ("inside", "ring", "band", "printed", "own_print", "own_disc")}
    band_zone = []
    for where, *masks in geometry.values():
        y, x = np.mgrid[where]
        for part, mask in zip(rows, masks):
            rows[part].append((y * width + x)[mask] if mask.dtype == bool else None)
        band_zone.append(masks[-1][masks[2]])
    print_ink = np.zeros(_blank(kind).size, np.float32)
    for (where, _, _, _, printed, _, _, _) in geometry.values():
        y, x = np.mgrid[where]
        print_ink[(y * width + x).ravel()] = printed.ravel()

    def labelled(parts):
        return np.concatenate(parts), np.concatenate([np.full(len(p), n) for n, p in enumerate(parts)])

    def padded(parts):
        out = np.full((len(parts), max(len(p) for p in parts)), -1, np.int64)
        for n, p in enumerate(parts):
            out[n, :len(p)] = p
        return out
    return _Regions(tuple(geometry), np.array([r for _, r in _radii(kind)]), print_ink,
                    labelled(rows["inside"]), np.array([max(1, len(p)) for p in rows["inside"]], np.float64),
                    labelled(rows["band"]), np.concatenate(band_zone), padded(rows["ring"]), padded(rows["own_print"]),
                    labelled(rows["own_disc"]))


def _quantiles(flat: np.ndarray, index: np.ndarray, q: float) -> list[float]:
    """Per row of a padded index matrix, the q-quantile of its pixels (as np.percentile would)."""
    values = np.where(index >= 0, flat[index], np.inf)
    values.sort(axis=1)
    count = (index >= 0).sum(axis=1)
    position = q * np.maximum(count - 1, 0)
    low = np.floor(position).astype(np.int64)
    high = np.minimum(low + 1, np.maximum(count - 1, 0))
    rows = np.arange(len(index))
    a, b = values[rows, low], values[rows, high]
    return np.where(count > 0, a + (position - low) * (b - a), 0.0).tolist()


def _noise_floor(amount: np.ndarray, kind: str) -> float:
    """Ink weaker than this is noise: paper grain, sensor noise, JPEG; from the card's blank paper."""
    paper = amount[_paper(kind)]
    median = float(np.median(paper))
    spread = float(np.median(np.abs(paper - median))) * 1.4826
    return max(0.10, median + 5 * spread)


@lru_cache(maxsize=None)
def _paper(kind: str) -> np.ndarray:
    """Blank paper (nothing printed within 2 mm), a sample of it every few pixels."""
    empty = cv2.erode((_blank(kind) > 250).astype(np.uint8), np.ones((round(4 * PX) | 1,) * 2, np.uint8)) > 0
    sample = np.zeros_like(empty)
    sample[::3, ::3] = True
    return empty & sample


@lru_cache(maxsize=None)
def _radii(kind: str):
    return [((name, b.value), b.r) for name, b in L.layout(kind).bubbles()]


@lru_cache(maxsize=None)
def _contrast_masks():
    """The thin printed outline (its long runs between the markers) and the markers' solid black."""
    blank = _blank("vote")
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
    return frame > 0, marker > 0


def sharpness(amount: np.ndarray) -> tuple[float, float]:
    """Ink of the thin printed outline (its peak, which blur lowers) and of the markers' solid black."""
    frame, marker = _contrast_masks()
    return float(np.median(amount[frame])), float(np.median(amount[marker]))


# --- into the game ------------------------------------------------------------------------------
def referee(result: Result, submit) -> Result:
    """Hand the card's command to the referee; submit(command) -> (status, reason). The referee
    decides validity (wrong turn, no such right...) and flags a card scanned twice as duplicate."""
    if result.command is None:
        return result
    status, reason = submit(result.command)
    if status == "ok":
        return result
    if reason and reason.startswith("duplicate"):
        result.decision, result.reason = "duplicate", reason
    elif status == "invalid":
        result.decision, result.reason = "invalid", reason
    else:
        result.decision, result.reason = "refused", f"the referee refused it: {reason}"
    return result


class FolderWatcher:
    """The live event's scanner folder: each new image is scanned, sent to the referee, logged,
    and moved to done/, review/ or rejected/ (a forged, foreign or unreadable card never counts)."""

    SETTLE = 0.3        # seconds a file must be left alone before it is read (the scanner may be writing)

    def __init__(self, scanner: Scanner, folder: str | Path, submit=None):
        self.scanner, self.folder, self.submit = scanner, Path(folder), submit
        if not self.folder.is_dir():
            raise FileNotFoundError(f"{self.folder}: no such folder")
        if scanner.crops is None:
            scanner.crops = self.folder / "crops"
        self.log = self.folder / "scan-log.jsonl"

    def pending(self) -> list[Path]:
        now = time.time()
        files = []
        for path in self.folder.iterdir():
            if path.is_file() and path.suffix.lower() in IMAGE_SUFFIXES:
                try:
                    if now - path.stat().st_mtime >= self.SETTLE:
                        files.append(path)
                except FileNotFoundError:
                    continue
        return sorted(files, key=lambda p: (p.stat().st_mtime, p.name))

    def process(self, path: Path) -> Result:
        result = self.scanner.scan_file(path)
        if self.submit is not None:
            referee(result, self.submit)
        place = {"review": "review", "rejected": "rejected", "refused": "rejected"}.get(result.decision, "done")
        result.image = str(_move(path, self.folder / place))
        with self.log.open("a", encoding="utf-8") as log:
            log.write(json.dumps({"at": time.strftime("%Y-%m-%dT%H:%M:%S"), **result.to_json()},
                                 ensure_ascii=False) + "\n")
        return result

    def poll(self) -> list[Result]:
        return [self.process(path) for path in self.pending()]

    def run(self, on_result, stop=lambda: False, interval: float = 0.2) -> None:
        while not stop():
            results = self.poll()
            for result in results:
                on_result(result)
            if not results:
                time.sleep(interval)


def _move(path: Path, folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    target = folder / path.name
    n = 1
    while target.exists():
        target = folder / f"{path.stem}-{n}{path.suffix}"
        n += 1
    path.replace(target)
    return target
