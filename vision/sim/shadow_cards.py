"""The shadow corpus: what made the scanner miscount on photos it never saw, drawn on the printed cards
(vision.sim.cards marks them, vision.sim.card_photo photographs them), one class of trouble a card:

- hand shadow: a clear mark in every field, and the soft shadow of a hand's fingers over 1-3 bubbles
  left blank (each finger a strip 6-14 mm wide: narrower than the paper level's window);
- phone shadow: the same with a phone's corner or edge (a big rounded rectangle) over them;
- light gradient: the same with the light falling off steeply (over 8-25 mm) across a blank bubble;
- fold across a bubble: the same with a fold's shade whose edge runs through a blank bubble;
- scribble loop: a bubble filled in, the scribble's loose loop running on into a neighbour's disc;
- light circle beside fill: a bubble filled in, and a light thin circle round a second one of its
  field (two marks: a vote card is invalid, any other card held);
- blank under shadow: a field left blank (a vote card blank: invalid), a hand's shadow over it.

Seeds: tune on 1-9 (SHADOW_TUNING), report from 1031 (SHADOW_REPORTING). Spent: 101's silent
errors were read before marks_joined and the blank-only faint circle were written, 103's, 211's and 307's
were read after their reports (README), 401's two silent cards and 503's one were read after their
reports, and 617, 719, 827 and 929 were reported once (their figures only), so none of the ten is independent any more.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from . import card_photo, cards as C
from .card_deck import RES

STYLES = ("hand shadow", "phone shadow", "light gradient", "fold across a bubble", "scribble loop",
          "light circle beside fill", "blank under shadow")
SHADOW_TUNING, SHADOW_REPORTING = tuple(range(1, 10)), (1031,)
SHADED = {"hand shadow", "phone shadow", "light gradient", "fold across a bubble", "blank under shadow"}
VERSION = 1               # raise when this generator changes: cached shadow corpora are then made afresh
SMALL = 4                 # shadows are drawn at a quarter of the raster's resolution (they are soft)


def sample(deck, rng, tier: str, kinds=None, styles=None) -> C.Sample:
    """One card of the shadow corpus (as vision.sim.cards.sample, from the same printed deck)."""
    names = list(kinds or C.KIND_WEIGHTS)
    weights = np.array([C.KIND_WEIGHTS.get(k, 0.1) for k in names])
    kind = str(rng.choice(names, p=weights / weights.sum()))
    choices = list(styles or STYLES)
    style = choices[int(rng.integers(len(choices)))]
    pool = deck.of(kind)
    card = pool[int(rng.integers(len(pool)))]
    picture = cv2.cvtColor(deck.raster(card), cv2.COLOR_GRAY2BGR).astype(np.float32)
    picture *= rng.uniform(0.93, 1.0, 3).astype(np.float32)
    rings = deck.bubbles[kind]
    fields, events = _marked(rng, picture, kind, rings, style)
    truth = {"kind": kind, "serial": card.serial, "owner": card.owner, "turn": card.turn, "event": card.event,
             "code": "ok", "style": style, "fields": fields, "expected": C.expected(kind, fields, "ok"),
             "events": events}
    image, capture = card_photo.take(rng, np.clip(picture, 0, 255).astype(np.uint8), tier == "hard")
    truth["capture"] = capture
    return C.Sample(image, C._plain(truth), capture.get("jpeg"))


def _marked(rng, picture: np.ndarray, kind: str, rings: dict, style: str) -> tuple[dict, dict]:
    """Mark the card in the class's way and bring on its trouble: (fields inked, what was done)."""
    plain = C.PLAIN[int(rng.integers(len(C.PLAIN)))]
    base = {"scribble loop": "fill", "light circle beside fill": "fill", "blank under shadow": "blank"}.get(style, plain)
    fields, drawn, _ = C.mark_card(rng, picture, kind, rings, base)
    events: dict = {"marks": drawn}
    blank = [(name, value) for name in rings for value in rings[name] if value not in fields[name]]
    if style == "scribble loop":
        events["loop"] = _loose_loop(rng, picture, rings, drawn)
    elif style == "light circle beside fill":
        name = drawn[int(rng.integers(len(drawn)))]["field"]
        others = [v for v in rings[name] if v not in fields[name]]
        value = others[int(rng.integers(len(others)))]
        events["light circle"] = _light_circle(rng, picture, rings[name][value])
        fields[name] = sorted(fields[name] + [value], key=list(rings[name]).index)
    else:
        targets = _near_blank(rng, rings, blank, fields, style == "blank under shadow")
        events["shadow"] = _shade(rng, picture, style, targets)
    return fields, events


def _near_blank(rng, rings: dict, blank: list, fields: dict, in_blank_field: bool) -> list:
    """1-3 blank bubbles side by side ((x, y, r) mm) a shadow falls on: on a blank card, the blank field's."""
    if in_blank_field:
        empty = [name for name, values in fields.items() if not values]
        blank = [(name, v) for name, v in blank if name in empty] or blank
    first = blank[int(rng.integers(len(blank)))]
    x, y, _ = rings[first[0]][first[1]]
    ranked = sorted(blank, key=lambda nv: math.hypot(rings[nv[0]][nv[1]][0] - x, rings[nv[0]][nv[1]][1] - y))
    return [rings[n][v] for n, v in ranked[:int(rng.integers(1, 4))]]


# --- shadows -------------------------------------------------------------------------------------------
def _shade(rng, picture: np.ndarray, style: str, targets: list) -> dict:
    """Darken the card under a shadow falling on the target bubbles; what was drawn."""
    h, w = picture.shape[:2]
    small = (h // SMALL + 1, w // SMALL + 1)
    if style in ("hand shadow", "blank under shadow"):
        mask, info = _fingers(rng, small, targets)
    elif style == "phone shadow":
        mask, info = _phone(rng, small, targets)
    elif style == "light gradient":
        mask, info = _ramp(rng, small, targets, soft=rng.uniform(8, 25))
    else:
        mask, info = _ramp(rng, small, targets, soft=rng.uniform(0.3, 3.0))
    soft = rng.uniform(0.5, 4.0) if style not in ("light gradient", "fold across a bubble") else 0.0
    if soft:
        mask = cv2.GaussianBlur(mask, (0, 0), soft * RES / SMALL)
    depth = rng.uniform(0.2, 0.55)
    gain = cv2.resize(1 - depth * mask, (w, h), interpolation=cv2.INTER_LINEAR)
    picture *= gain[..., None]
    return info | {"depth": round(depth, 2), "soft": round(soft, 1), "over": [list(t) for t in targets]}


def _fingers(rng, small: tuple, targets: list) -> tuple[np.ndarray, dict]:
    """A hand's shadow: fingers (strips with round ends) reaching in from one side, one ending on each target."""
    mask = np.zeros(small, np.float32)
    come_from = rng.uniform(0, 2 * math.pi)
    widths = []
    for x, y, r in targets:
        width = rng.uniform(6, 14)
        angle = come_from + rng.normal(0, 0.25)
        tip = (x + rng.normal(0, 0.5 * r), y + rng.normal(0, 0.5 * r))
        start = (tip[0] + 120 * math.cos(angle), tip[1] + 120 * math.sin(angle))
        cv2.line(mask, _at(tip), _at(start), 1.0, max(1, round(width * RES / SMALL)), cv2.LINE_AA)
        widths.append(round(width, 1))
    return mask, {"fingers": widths}


def _phone(rng, small: tuple, targets: list) -> tuple[np.ndarray, dict]:
    """A phone's shadow: a 70 x 140 mm rounded rectangle whose corner or edge lies on the targets."""
    xs, ys = [t[0] for t in targets], [t[1] for t in targets]
    corner = np.array([np.mean(xs), np.mean(ys)]) + rng.normal(0, 1.5, 2)
    angle = rng.uniform(0, 2 * math.pi)
    along, across = np.array([math.cos(angle), math.sin(angle)]), np.array([-math.sin(angle), math.cos(angle)])
    body = [corner, corner + 140 * along, corner + 140 * along + 70 * across, corner + 70 * across]
    mask = np.zeros(small, np.float32)
    cv2.fillPoly(mask, [np.array([_at(p) for p in body], np.int32)], 1.0, cv2.LINE_AA)
    return mask, {"corner": [round(float(v), 1) for v in corner], "angle": round(math.degrees(angle))}


def _ramp(rng, small: tuple, targets: list, soft: float) -> tuple[np.ndarray, dict]:
    """Light falling off across a line through the first target: its edge `soft` mm wide."""
    x, y, r = targets[0]
    cx, cy = x + rng.normal(0, 0.3 * r), y + rng.normal(0, 0.3 * r)
    angle = rng.uniform(0, math.pi)
    yy, xx = np.mgrid[0:small[0], 0:small[1]].astype(np.float32) * SMALL / RES
    distance = (xx - cx) * math.sin(angle) - (yy - cy) * math.cos(angle)
    mask = 1 / (1 + np.exp(-np.clip(distance / soft, -40, 40)))
    return mask.astype(np.float32), {"through": [round(cx, 1), round(cy, 1)], "angle": round(math.degrees(angle)),
                                     "edge": round(soft, 1)}


def _at(point_mm) -> tuple[int, int]:
    return round(point_mm[0] * RES / SMALL), round(point_mm[1] * RES / SMALL)


# --- ink ----------------------------------------------------------------------------------------------
def _loose_loop(rng, picture: np.ndarray, rings: dict, drawn: list) -> dict:
    """A filled bubble's scribble going on in one loose loop that reaches into its nearest neighbour's disc
    (0.2-0.7 of its radius in), not round its centre."""
    mark = drawn[int(rng.integers(len(drawn)))]
    x, y, r = rings[mark["field"]][mark["value"]]
    every = [xyr for values in rings.values() for xyr in values.values() if xyr != (x, y, r)]
    nx, ny, nr = min(every, key=lambda o: math.hypot(o[0] - x, o[1] - y))
    d = math.hypot(nx - x, ny - y)
    ux, uy = (nx - x) / d, (ny - y) / d
    reach = d - nr + rng.uniform(0.2, 0.7) * nr            # how far from the filled bubble's centre it goes
    half = rng.uniform(0.35, 0.7) * r
    t = np.linspace(0, 2 * math.pi * rng.uniform(0.8, 1.0), 40)
    along = reach / 2 * (1 - np.cos(t))                    # out to `reach` and back
    side = half * np.sin(t)
    points = np.stack([x + ux * along - uy * side, y + uy * along + ux * side], 1)
    p = C.pen(rng)
    C.apply(picture, C.Ink([(points, p.width)]), p, rng)
    return {"from": [round(x, 1), round(y, 1)], "into": [round(nx, 1), round(ny, 1)],
            "depth": round((reach - d + nr) / nr, 2)}


def _light_circle(rng, picture: np.ndarray, bubble: tuple) -> dict:
    """A light, thin circle round a bubble: a hard pencil or a dry pen."""
    grey = float(rng.uniform(110, 170))
    p = C.Pen((grey, grey, grey), float(rng.uniform(0.2, 0.35)), float(rng.uniform(0.5, 0.85)), True)
    ink, info = C.draw_mark(rng, "circle", bubble, [], p)
    C.apply(picture, ink, p, rng)
    return info | {"grey": round(grey), "width": round(p.width, 2)}
