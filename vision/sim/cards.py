"""The card test world: printed cards (cut from `companion print cards` output) marked as people mark
them and photographed as a phone or a scanner would.

Every sample is (image, truth). The truth names the card (from its own QR code), its marking style,
which bubbles a simulated player inked and how (a scribbled-out bubble is inked too), the decision
the scanner should reach (counted with those values; invalid, blank or two marks; held for a
special card left incomplete; rejected for a forged or foreign card) and how the picture was taken.
Marks are drawn where the bubbles are printed (found in the raster, vision.sim.card_deck), never
from the drawing code the printer and the scanner share.

Styles come from rule R6 (○で囲む: players circle X, Y or Z) and the card's own text
(「ひとつだけ ○ をつける」), and from how people actually mark paper. Tiers: clean (flat-bed scans
and good phone photos) and hard (a phone over a table: perspective, curl, motion blur to 3 px,
defocus, glare, uneven light, shadows, JPEG down to 40).
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from .. import cache
from .. import layouts as L
from ..layouts import bingo as robbery          # its robbery cards carry player numbers as digits
from . import card_deck, card_photo
from .card_deck import RES
from .card_photo import PHOTO_SIZE  # noqa: F401 (the bench asks the corpus for its photo size)

KIND_WEIGHTS = {"vote": 0.5, "robbery": 0.2, "inout": 0.1, "change": 0.1, "exclusion": 0.1}
CIRCLES = ("circle", "ellipse", "open circle", "circle over neighbour")
MARKS = CIRCLES + ("fill", "tick", "cross")                 # one mark in a bubble
STYLES = MARKS + ("pencil", "scribble + correction", "two marks", "blank", "stray line", "crease", "fold shadow")
PLAIN = ("circle", "ellipse", "fill", "tick", "cross")      # what a player draws beside another style's event
CORPUS_VERSION = 7       # raise when the generator changes: cached corpora are then made afresh


# --- pens and strokes ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Pen:
    colour: tuple[float, float, float]     # BGR
    width: float                           # mm
    opacity: float
    pencil: bool = False


INKS = {"black": (30, 30, 30), "blue": (150, 60, 25), "red": (45, 35, 165), "green": (60, 115, 35),
        "purple": (120, 45, 95)}


def pen(rng, pencil: bool = False) -> Pen:
    if pencil:
        grey = float(rng.uniform(70, 130))
        return Pen((grey, grey, grey), float(rng.uniform(0.3, 0.6)), float(rng.uniform(0.45, 0.85)), True)
    colour = tuple(float(c) * rng.uniform(0.8, 1.2) for c in list(INKS.values())[int(rng.integers(len(INKS)))])
    width = rng.uniform(0.3, 0.5) if rng.random() < 0.6 else rng.uniform(0.5, 1.2)      # ballpoint or felt tip
    return Pen(colour, float(width), float(rng.uniform(0.8, 1.0)))


@dataclass
class Ink:
    """What a player's hand put on the card, in mm: strokes (points, width) and filled shapes."""
    strokes: list = field(default_factory=list)
    fills: list = field(default_factory=list)

    def add(self, other: "Ink") -> None:
        self.strokes += other.strokes
        self.fills += other.fills


def _px(points) -> np.ndarray:
    """mm -> cv2 sub-pixel points (shift 4; cv2 puts pixel centres on integers)."""
    return np.round((np.asarray(points, np.float64) * RES - 0.5) * 16).astype(np.int32)


def coverage(ink: Ink, shape: tuple[int, int]) -> np.ndarray:
    """The ink's coverage (0..1) on a card raster of this shape."""
    mask = np.zeros(shape, np.uint8)
    for points, width in ink.strokes:
        cv2.polylines(mask, [_px(points)], False, 255, max(1, int(round(width * RES))), cv2.LINE_AA, 4)
    for points in ink.fills:
        cv2.fillPoly(mask, [_px(points)], 255, cv2.LINE_AA, 4)
    return mask.astype(np.float32) / 255


def apply(picture: np.ndarray, ink: Ink, p: Pen, rng) -> None:
    """Ink on paper darkens what is under it (print included); pencil is grainy."""
    amount = coverage(ink, picture.shape[:2])
    rows, cols = np.nonzero(amount.any(axis=1))[0], np.nonzero(amount.any(axis=0))[0]
    if not len(rows):
        return
    box = np.s_[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]
    amount = amount[box] * p.opacity
    if p.pencil:
        h, w = amount.shape
        amount *= cv2.resize(rng.uniform(0.5, 1.0, (h // 2 + 1, w // 2 + 1)).astype(np.float32), (w, h))
    absorb = 1 - np.array(p.colour, np.float32) / 255
    picture[box] *= 1 - amount[..., None] * absorb


def _hand_loop(rng, cx, cy, rx, ry, angle, start, sweep, n=72) -> np.ndarray:
    """A loop drawn by hand: never quite round, never quite closing where it started."""
    t = np.linspace(start, start + sweep, n)
    wobble = np.ones_like(t)
    for k in (1, 2, 3):
        wobble += rng.uniform(0.005, 0.05) / k * np.sin(k * t + rng.uniform(0, 2 * math.pi))
    drift = 1 + rng.uniform(-0.07, 0.07) * (t - start) / sweep
    tremor = np.convolve(rng.normal(0, 0.012, n + 4), np.ones(5) / 5, "valid")
    radius = wobble * drift + tremor
    x, y = rx * radius * np.cos(t), ry * radius * np.sin(t)
    c, s = math.cos(angle), math.sin(angle)
    return np.stack([cx + c * x - s * y, cy + s * x + c * y], axis=1)


def _wobbly_line(rng, p0, p1, n=12) -> np.ndarray:
    t = np.linspace(0, 1, n)[:, None]
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    normal = np.array([p0[1] - p1[1], p1[0] - p0[0]]) / max(1e-9, np.hypot(*(p1 - p0)))
    bow = rng.normal(0, 0.015) * np.hypot(*(p1 - p0)) * np.sin(np.pi * t)
    return p0 + (p1 - p0) * t + normal * (bow + rng.normal(0, 0.03, (n, 1)))


# --- marking styles: each draws one bubble's mark and says what it drew ----------------------------
def draw_mark(rng, style: str, bubble: tuple, others: list, p: Pen) -> tuple[Ink, dict]:
    """The ink of one mark of a style on a bubble printed at (x, y, r) mm; others: the card's other
    bubbles (x, y, r), for a circle drawn across a neighbour's ring."""
    x, y, r = bubble
    width = p.width
    ink = Ink()
    if style in ("circle", "open circle"):
        R = r * rng.uniform(0.9, 1.8) if style == "circle" else r * rng.uniform(1.05, 1.6)
        off = rng.uniform(0, min(0.12 * r, max(0.0, R - 0.8 * r)))
        a = rng.uniform(0, 2 * math.pi)
        sweep = 2 * math.pi * (rng.uniform(1.0, 1.12) if style == "circle" else rng.uniform(0.65, 0.85))
        cx, cy = x + off * math.cos(a), y + off * math.sin(a)
        ink.strokes.append((_hand_loop(rng, cx, cy, R, R, 0.0, rng.uniform(0, 2 * math.pi), sweep), width))
        return ink, {"radius": round(R / r, 2), "sweep": round(sweep / (2 * math.pi), 2), "centre": [cx, cy]}
    if style == "ellipse":
        major, minor = r * rng.uniform(1.15, 1.8), r * rng.uniform(0.85, 1.0)
        angle = rng.uniform(0, math.pi)
        ink.strokes.append((_hand_loop(rng, x, y, major, minor, angle, rng.uniform(0, 6.3),
                                       2 * math.pi * rng.uniform(1.0, 1.1)), width))
        return ink, {"radius": round(major / r, 2), "minor": round(minor / r, 2)}
    if style == "circle over neighbour":
        return _over_neighbour(rng, bubble, others, width)
    if style == "fill":
        share = rng.uniform(0.55, 1.0)
        if rng.random() < 0.5:       # a blob
            ink.fills.append(_hand_loop(rng, x, y, r * share, r * share, 0.0, 0.0, 2 * math.pi, 40))
        else:                        # scribbled in
            ink.strokes.append((_zigzag(rng, x, y, r * share, max(width, 0.5) * 0.9), max(width, 0.5)))
        return ink, {"share": round(share, 2)}
    if style == "tick":
        s = r * rng.uniform(0.7, 1.3)
        angle = rng.uniform(-0.4, 0.4)
        corner = [(-0.6, 0.0), (-0.15, 0.55), (0.75, -0.75)]
        pts = [_turn(x + rng.normal(0, 0.1 * r), y + rng.normal(0, 0.1 * r), s * u, s * v, angle) for u, v in corner]
        ink.strokes.append((np.vstack([_wobbly_line(rng, pts[0], pts[1], 6), _wobbly_line(rng, pts[1], pts[2], 10)]), width))
        return ink, {"size": round(s / r, 2)}
    if style == "cross":
        s = r * rng.uniform(0.6, 1.1)
        angle = rng.uniform(-0.4, 0.4)
        for (u0, v0), (u1, v1) in (((-1, -1), (1, 1)), ((-1, 1), (1, -1))):
            ink.strokes.append((_wobbly_line(rng, _turn(x, y, s * u0, s * v0, angle), _turn(x, y, s * u1, s * v1, angle)),
                                width))
        return ink, {"size": round(s / r, 2)}
    if style == "scribble":
        ink.strokes.append((_zigzag(rng, x, y, r * rng.uniform(1.0, 1.2), rng.uniform(0.35, 0.6) * max(width, 0.5)),
                            max(width, 0.5)))
        return ink, {}
    raise ValueError(f"no mark style {style!r}")


def _turn(cx, cy, x, y, angle):
    c, s = math.cos(angle), math.sin(angle)
    return cx + c * x - s * y, cy + s * x + c * y


def _zigzag(rng, x, y, r, step) -> np.ndarray:
    """Back-and-forth strokes covering a disc (filling it in, or scribbling a choice out)."""
    angle = rng.uniform(0, math.pi)
    pts, t, side = [], -1.0, 1
    while t <= 1.0:
        half = math.sqrt(max(0.0, 1 - t * t)) * r
        pts.append(_turn(x, y, side * half, t * r, angle))
        pts.append(_turn(x, y, -side * half, t * r + step / 2, angle))
        t += step / r * rng.uniform(0.8, 1.2)
    return np.asarray(pts)


def _over_neighbour(rng, bubble, others, width) -> tuple[Ink, dict]:
    """A circle round the label whose edge runs through the nearest other bubble's ring, never
    round that bubble's centre."""
    x, y, r = bubble
    nx, ny, nr = min(others, key=lambda o: math.hypot(o[0] - x, o[1] - y))
    d = math.hypot(nx - x, ny - y)
    ux, uy = (nx - x) / d, (ny - y) / d
    for _ in range(20):
        R = r * rng.uniform(1.2, 1.8)
        depth = nr * rng.uniform(0.1, 0.4)           # how far past the neighbour's ring it goes (not its label)
        off = d - (R + nr - depth)                   # centre moved towards the neighbour by this
        if 0 <= off <= R - 0.8 * r:
            break
    else:
        R, off = r * 1.8, max(0.0, min(r, d - (r * 1.8 + nr * 0.8)))
    cx, cy = x + ux * off, y + uy * off
    ink = Ink([(_hand_loop(rng, cx, cy, R, R, 0.0, rng.uniform(0, 6.3), 2 * math.pi * rng.uniform(1.0, 1.1)), width)])
    return ink, {"radius": round(R / r, 2), "centre": [cx, cy], "neighbour": [nx, ny, nr]}


def stray_line(rng, through: tuple | None, p: Pen) -> Ink:
    """A pen line on the card that is no mark (D19: 20 mm or longer), maybe through a bubble."""
    for _ in range(50):
        length, angle = rng.uniform(20, 70), rng.uniform(0, math.pi)
        if through:
            cx, cy = through[0] + rng.normal(0, 0.3 * through[2]), through[1] + rng.normal(0, 0.3 * through[2])
        else:
            cx, cy = rng.uniform(15, L.CARD_W - 15), rng.uniform(25, L.CARD_H - 15)
        t = rng.uniform(0.2, 0.8)
        dx, dy = math.cos(angle) * length, math.sin(angle) * length
        p0, p1 = (cx - t * dx, cy - t * dy), (cx + (1 - t) * dx, cy + (1 - t) * dy)
        if all(2 <= x <= L.CARD_W - 2 and 2 <= y <= L.CARD_H - 2 for x, y in (p0, p1)):
            break            # all of it on the card (a line running off it may leave a short stub)
    return Ink([(_wobbly_line(rng, p0, p1, 24), p.width)])


# --- the card before it is photographed: paper, creases, fold shadows ----------------------------------
def _line_field(rng, shape, through: tuple | None) -> tuple[np.ndarray, dict]:
    """Signed distance (mm) of every pixel from a random line across the card (through a point if given)."""
    h, w = shape
    angle = rng.uniform(0, math.pi)
    if through:
        cx, cy = through[0] + rng.normal(0, 0.4 * through[2]), through[1] + rng.normal(0, 0.4 * through[2])
    else:
        cx, cy = rng.uniform(10, L.CARD_W - 10), rng.uniform(10, L.CARD_H - 10)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32) / RES
    distance = (xx - cx) * math.sin(angle) - (yy - cy) * math.cos(angle)
    return distance, {"through": [round(cx, 1), round(cy, 1)], "angle": round(math.degrees(angle))}


def crease(rng, picture: np.ndarray, through: tuple | None) -> dict:
    """A fold pressed flat again: a thin dark line beside a thin bright one."""
    distance, where = _line_field(rng, picture.shape[:2], through)
    width = rng.uniform(0.15, 0.5)
    dark, bright = rng.uniform(0.7, 0.9), rng.uniform(1.03, 1.12)
    gain = 1 - (1 - dark) * np.exp(-(distance / width) ** 2) + (bright - 1) * np.exp(-((distance - 1.5 * width) / width) ** 2)
    picture *= gain[..., None]
    return where | {"dark": round(dark, 2)}


def fold_shadow(rng, picture: np.ndarray, through: tuple | None) -> dict:
    """A card not lying flat after a fold: one half in shade, a soft edge between."""
    distance, where = _line_field(rng, picture.shape[:2], through)
    depth, soft = rng.uniform(0.12, 0.4), rng.uniform(0.3, 4.0)
    picture *= (1 - depth / (1 + np.exp(-np.clip(distance / soft, -40, 40))))[..., None]
    return where | {"depth": round(depth, 2), "soft": round(soft, 1)}


# --- a marked card -------------------------------------------------------------------------------------
@dataclass
class Sample:
    image: np.ndarray          # BGR, as stored (before JPEG)
    truth: dict
    jpeg: int | None           # JPEG quality it is stored at (None: PNG)


def expected(kind: str, fields: dict, code: str) -> str:
    """What the scanner should decide: counted | invalid (a vote card blank or marked twice, R6) |
    held (a robbery or special card with a row blank or marked twice: the operator looks) | rejected."""
    if code != "ok":
        return "rejected"
    if kind == "vote":
        return "counted" if len(fields["mark"]) == 1 else "invalid"
    return "counted" if all(len(v) == 1 for v in fields.values()) else "held"


def mark_card(rng, picture: np.ndarray, kind: str, rings: dict, style: str) -> tuple[dict, list, dict]:
    """Mark a card in a style: (fields inked, what was drawn, card events). picture: float BGR, changed."""
    every = [xyr for values in rings.values() for xyr in values.values()]
    p = pen(rng, pencil=style == "pencil")
    names = list(rings)
    odd = names[int(rng.integers(len(names)))]          # the field a two-mark / blank / correction style hits
    fields, drawn, events = {}, [], {}
    meant = _meant(rng, rings)
    for name in names:
        values = list(rings[name])
        chosen = [meant[name]]
        if name == odd and style in ("two marks", "scribble + correction"):
            others = [v for v in values if v != meant[name]]
            chosen.append(others[int(rng.integers(len(others)))])
        elif name == odd and style == "blank":
            chosen = []
        for n, value in enumerate(chosen):
            xyr = rings[name][value]
            shape = _shape(rng, style, n)
            ink, info = draw_mark(rng, shape, xyr, [o for o in every if o != xyr], p)
            apply(picture, ink, p, rng)
            drawn.append({"field": name, "value": value, "style": shape, **info})
        fields[name] = sorted(chosen, key=values.index)
    blank = [rings[n][v] for n in names for v in rings[n] if v not in fields[n]]
    through = blank[int(rng.integers(len(blank)))] if blank and rng.random() < 0.6 else None
    if style == "stray line":
        apply(picture, stray_line(rng, through, p), p, rng)
        events["stray line"] = {"through": list(through) if through else None}
    elif style == "crease":
        events["crease"] = crease(rng, picture, through)
    elif style == "fold shadow":
        events["fold shadow"] = fold_shadow(rng, picture, through)
    return fields, drawn, events


def _meant(rng, rings: dict) -> dict[str, str]:
    """The value a player means in each field; a player number on a robbery card is one number
    1..MAX_PLAYERS written as its tens and units digits."""
    meant = {name: list(values)[int(rng.integers(len(values)))] for name, values in rings.items()}
    for role in ("robber", "victim"):
        tens, units = robbery.digit_fields(role)
        if tens in rings and units in rings:
            number = int(rng.integers(1, robbery.MAX_PLAYERS + 1))
            meant[tens], meant[units] = str(number // 10), str(number % 10)
    return meant


def _shape(rng, style: str, n: int) -> str:
    """The mark drawn for the n-th inked bubble of a field in a style."""
    if style in MARKS:
        return style
    if style == "scribble + correction" and n == 1:
        return "scribble"
    if style == "pencil":
        return ("circle", "tick", "cross", "fill")[int(rng.integers(4))]
    return PLAIN[int(rng.integers(len(PLAIN)))]


def sample(deck: card_deck.Deck, rng, tier: str, kinds=None, styles=None) -> Sample:
    hard = tier == "hard"
    names = list(kinds or KIND_WEIGHTS)
    weights = np.array([KIND_WEIGHTS.get(k, 0.1) for k in names])
    kind = str(rng.choice(names, p=weights / weights.sum()))
    choices = list(styles or STYLES)
    style = choices[int(rng.integers(len(choices)))]
    roll = rng.random()
    code = "forged" if hard and roll < 0.02 else "other event" if hard and roll < 0.03 else "ok"
    pool = deck.of(kind, code)
    if not pool:                  # only vote and robbery cards are printed by a forger and another event
        code, pool = "ok", deck.of(kind)
    card = pool[int(rng.integers(len(pool)))]
    picture = cv2.cvtColor(deck.raster(card), cv2.COLOR_GRAY2BGR).astype(np.float32)
    picture *= rng.uniform(0.93, 1.0, 3).astype(np.float32)          # the paper's own tone
    fields, drawn, events = mark_card(rng, picture, kind, deck.bubbles[kind], style)
    truth = {"kind": kind, "serial": card.serial, "owner": card.owner, "turn": card.turn, "event": card.event,
             "code": code, "style": style, "fields": fields, "expected": expected(kind, fields, code),
             "marks": drawn, "events": events}
    image, capture = card_photo.take(rng, np.clip(picture, 0, 255).astype(np.uint8), hard)
    truth["capture"] = capture
    return Sample(image, _plain(truth), capture.get("jpeg"))


def _plain(value):
    """The truth as JSON would give it back (tuples as lists, numpy numbers as floats, rounded)."""
    return json.loads(json.dumps(value, default=float), parse_float=lambda s: round(float(s), 3))


CORPORA = ("marked", "shadows")     # the marking styles above; vision.sim.shadow_cards' classes of trouble


def generate(deck: card_deck.Deck, n: int, tier: str, seed: int = 0, start: int = 0, kinds=None, styles=None,
             corpus: str = "marked"):
    """n samples of a tier from index start; a sample depends only on the deck, corpus, seed, tier and index."""
    if tier not in ("clean", "hard"):
        raise ValueError(f"tier must be clean or hard, not {tier!r}")
    make, stream = _maker(corpus)
    for index in range(start, start + n):
        rng = np.random.default_rng([seed, index, tier == "hard", *stream])
        yield make(deck, rng, tier, kinds, styles)


def _maker(corpus: str):
    """The sample maker of a corpus and its own random stream (no shadow card repeats a marked card's draws)."""
    if corpus == "shadows":
        from . import shadow_cards
        return shadow_cards.sample, (CORPORA.index(corpus),)
    if corpus != "marked":
        raise ValueError(f"corpus must be one of {', '.join(CORPORA)}, not {corpus!r}")
    return sample, ()


def _version(corpus: str) -> str:
    if corpus == "shadows":
        from . import shadow_cards
        return f"shadows{shadow_cards.VERSION}-v{CORPUS_VERSION}"
    return f"v{CORPUS_VERSION}"


def styles_of(corpus: str) -> tuple[str, ...]:
    """The styles (marking styles, or classes of trouble) a corpus's truth names, in report order."""
    if corpus == "shadows":
        from . import shadow_cards
        return shadow_cards.STYLES
    return STYLES


# --- files ----------------------------------------------------------------------------------------------
def encode(s: Sample) -> tuple[bytes, str]:
    if s.jpeg is None:
        return cv2.imencode(".png", s.image)[1].tobytes(), ".png"
    return cv2.imencode(".jpg", s.image, [cv2.IMWRITE_JPEG_QUALITY, s.jpeg])[1].tobytes(), ".jpg"


def decoded(s: Sample) -> np.ndarray:
    """The image as the scanner sees it: after JPEG compression, decoded to grey as scan_file does."""
    if s.jpeg is None:
        return s.image if s.image.ndim == 2 else cv2.cvtColor(s.image, cv2.COLOR_BGR2GRAY)
    return cv2.imdecode(np.frombuffer(encode(s)[0], np.uint8), cv2.IMREAD_GRAYSCALE)


def write(out: str | Path, n: int, tier: str, seed: int = 0, progress=None, cache: Path | None = None) -> list[Path]:
    """Write n images with a ground-truth JSON beside each; returns the image paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    deck = card_deck.deck(cache)
    paths = []
    for i, s in enumerate(generate(deck, n, tier, seed)):
        data, suffix = encode(s)
        path = out / f"{tier}-{i:05d}{suffix}"
        path.write_bytes(data)
        path.with_suffix(".json").write_text(json.dumps(s.truth, ensure_ascii=False, indent=1), encoding="utf-8")
        paths.append(path)
        if progress:
            progress(i + 1, n)
    return paths


def cached(deck: card_deck.Deck, n: int, tier: str, seed: int, cache: Path | None = None, workers: int | None = None,
           progress=None, corpus: str = "marked") -> list[Path]:
    """The first n samples of a tier and seed as files (truth JSON beside each), made only once per deck:
    --n 1000 reuses what --n 3000 made. Missing ones are made in a process pool."""
    from concurrent.futures import ProcessPoolExecutor
    folder = card_deck.cache_root(cache) / "cards-corpus" / f"{_version(corpus)}-{deck.folder.name}-seed{seed}-{tier}"
    folder.mkdir(parents=True, exist_ok=True)
    have = {p.stem: p for p in folder.iterdir() if p.suffix in (".jpg", ".png")}
    paths = [have.get(f"{i:05d}") for i in range(n)]
    todo = [i for i, p in enumerate(paths) if p is None or not p.with_suffix(".json").exists()]
    if todo:
        workers = workers or os.cpu_count() or 1
        with ProcessPoolExecutor(workers, initializer=_worker, initargs=(str(deck.folder),)) as pool:
            jobs = [(folder, tier, seed, i, corpus) for i in todo]
            for done, (i, path) in enumerate(pool.map(_make, jobs, chunksize=4), 1):
                paths[i] = path
                if progress:
                    progress(done, len(todo))
    return paths


_DECK: list = []


def _worker(folder: str) -> None:
    cv2.setNumThreads(1)
    _DECK[:] = [card_deck.load(Path(folder))]


def _make(job) -> tuple[int, Path]:
    folder, tier, seed, index, corpus = job
    s = next(generate(_DECK[0], 1, tier, seed, start=index, corpus=corpus))
    return index, save(s, folder / f"{index:05d}")


def save(sample: Sample, stem: Path) -> Path:
    """The sample's photo beside its truth (stem.json), each written whole: never a half-written
    sample in a cache, even with two benches making the same one. Returns the photo's path."""
    data, suffix = encode(sample)
    truth = json.dumps(sample.truth, ensure_ascii=False).encode()
    cache.write_whole(stem.with_suffix(".json"), lambda out: out.write(truth))
    cache.write_whole(stem.with_suffix(suffix), lambda out: out.write(data))
    return stem.with_suffix(suffix)


def load(path: Path) -> tuple[np.ndarray, dict]:
    """A cached sample as the scanner sees it, and its truth."""
    image = cv2.imdecode(np.fromfile(path, np.uint8), cv2.IMREAD_GRAYSCALE)
    return image, json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
