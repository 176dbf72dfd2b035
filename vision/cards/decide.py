"""From what was measured on a card (Reading) to counted / invalid / review: evidence -> findings -> one table.

A bubble is marked at definite or above (scores: new ink in mm² of full-strength stroke per mm of radius;
a circled bubble scores its circle's ink, about 3); a light mark under definite is marked when it is its
field's one inked bubble, one mark's shape (measure.one_stroke, or its printed ring inked all round), its
outline rising steeply out of it (measure.steep_outline), with nothing reaching in (light_marks).

findings() makes every finding (a code, the bubble or field, what was measured) from the evidence in one
place: the doubts (DOUBTS, below; stray lines and circles found while measuring come with the Reading),
then what the card's game says of the marks read (rules(), from companion/<game>/cards.py). TABLE turns them into a decision: the first row
holding a finding decides, in this order:

    review   the picture: blurred; glare over a bubble (its halo on a mark, bubbles unseen, a faint mark
             or an inked ring under it, a field read blank under it)
    review   long stray lines: touching a bubble with ink, ink beside one running in, one over more ink
             than its own, a line in pieces through a mark (D19: a line running through is taken out)
    review   circles: round two bubbles, ink joined to one in another's middle, reaching in, over ink
    review   the marks: unclear (between marginal and definite), a line through one, one without ink's steep outline (a
             shade?), a correction beside a filled mark; faint ink, an inked ring or label, part of a circle or a faint
             circle round a bubble read blank; a number card's blank field looked at closer; a noisy blank field
    invalid  a vote blank, with two marks or more (R6; D18); a number card blank or with several (V7)
    review   a dice-vote card with two faces on a die or none at all (AB7); another card with a field
             holding none or several (D2)
    counted  no row holds a finding

Faint ink or an unclear mark, its field marked elsewhere, lying right along a circle's path round a
neighbour or a long stray line taken out of the bubble is their soft edge (_edge): no finding.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from statistics import median

import cv2
import numpy as np

from companion.core.cards import CardRead

from .. import layouts as L
from .circles import Circles, faint_free
from .measure import Levels, bubble_geometry, measured, restored, typical_ring, beside_drawn, closer_scores, paper_noise, \
    glare_on, ring_peaks, steep_outline, ring_sectors, stroke_share, washed_arc
from .reasons import Code, Finding, at, why
from .blank import PX
from .tuning import CIRCLES, GLARE, LIGHT, MEASURE, SHADE, Settings, neighbours

ALIKE_LABELS = ("vote",)   # cards whose labels print alike (X, Y, Z): one darker than the others is inked over
LOOKED_CLOSER = ("number",)   # cards read blank are invalid (V7), the bet lost: a field read blank is looked at closer


@dataclass(frozen=True)
class Reading:
    """What was measured on one card: everything the table decides on."""
    layout: L.Layout
    grey: np.ndarray            # the rectified card
    amount: np.ndarray          # ink() of the rectified card
    levels: Levels
    scores: dict                # (field, value) -> new ink in the disc
    around: dict                # ink in the band round it, less a marked neighbour's reach
    filled: dict                # share of the disc inked
    light: frozenset            # light marks read as marks
    blurred: bool
    line_findings: tuple        # what long stray lines left in doubt (Findings)
    circles: Circles            # circles drawn round bubbles, every bubble's cover
    circle_findings: tuple      # what the circles left in doubt: a path over ink of another bubble's own
    lines: np.ndarray | None    # flat bool: the long stray strokes found (their ink no bubble's), or None
    kept: dict = field(default_factory=dict, compare=False, repr=False)     # derived once, when first asked

    def marked(self, s: Settings) -> dict:
        """Field -> the values read as marked (a neighbour's mark running on into a bubble is not its mark)."""
        run = run_on(self, s)
        return {f.name: [b.value for b in f.bubbles if (f.name, b.value) not in run and (
            self.scores[f.name, b.value] >= s.definite or (f.name, b.value) in self.light)] for f in self.layout.fields}

    def firmly_marked(self, s: Settings) -> dict:
        """As marked, but without a faint mark (a light mark under marginal): a field holding only one is
        looked at as if read blank where a mark could hide (under glare, along a label, under noise)."""
        return {name: [v for v in values if self.scores[name, v] >= s.marginal]
                for name, values in self.marked(s).items()}


def run_on(r: Reading, s: Settings) -> frozenset:
    """The bubbles read blank whose ink is a much heavier neighbour's mark running on (a scribble's loose loop):
    one stroke with it (at CIRCLES.crossed, the print joining it up, as in _joined_marks), nearly all of it on
    or beside that stroke (MEASURE.beside, within edge_mm), no pen ink past its centre from that neighbour
    (a loop comes in and turns back; its own mark's would be there), nothing circling it (cover under partial)."""
    if "run_on" in r.kept:
        return r.kept["run_on"]
    scores, geometry, found, pieces = r.scores, bubble_geometry(r.layout.kind), set(), None
    for name, b in r.layout.bubbles():
        key = name, b.value
        if scores[key] < s.trace or key in r.circles.circled or r.circles.cover[key] >= s.partial \
                or not (heavy := _heavier(r.layout, key, b, scores, s)):
            continue
        if pieces is None:      # measured once a card, when first asked
            new = measured(r.amount, r.layout.kind).new
            pieces = cv2.connectedComponents((r.amount >= CIRCLES.crossed).view(np.uint8), connectivity=8)[1]
        g = geometry[key]
        inside, ink = pieces[g.where] * g.disc, new[g.where] * g.disc
        theirs = set().union(*(np.unique(pieces[geometry[n, o.value].where][geometry[n, o.value].disc]) for n, o in heavy))
        own = set(np.unique(inside[ink >= CIRCLES.crossed])) - {0}      # (not the print's own pieces)
        yy, xx = np.ogrid[g.where]
        past = np.logical_or.reduce([(xx - b.x * PX) * (b.x - o.x) + (yy - b.y * PX) * (b.y - o.y) > 0 for _, o in heavy])
        if own and own <= theirs and not (ink[past] >= CIRCLES.crossed).any():
            far = cv2.distanceTransform((~np.isin(inside, list(own))).view(np.uint8), cv2.DIST_L2, 3) >= MEASURE.edge_mm * PX
            if ink[far].sum() <= (1 - MEASURE.beside) * ink.sum():
                found.add(key)
    r.kept["run_on"] = frozenset(found)
    return r.kept["run_on"]


def findings(r: Reading, s: Settings) -> tuple[Finding, ...]:
    """Every finding on the card, made from its evidence in one place: the doubts in DOUBTS' order, then
    what the rules say of the marks read (rules)."""
    return (*(found for check in DOUBTS for found in check(r, s)), *rules(r.layout.kind, r.marked(s)))


def decide(found: tuple[Finding, ...]) -> tuple[str, Finding | None]:
    """(decision, the finding whose row fired): the first row of TABLE holding a finding (its first
    such); none: counted."""
    for code, decision in TABLE:
        fired = next((f for f in found if f.code == code), None)
        if fired:
            return decision, fired
    return "counted", None


def rules(kind: str, fields: dict) -> list[Finding]:
    """What the rules of the game printing this kind say of the marks read, as findings (none: the card
    counts): each game's own (companion/<game>/cards.py)."""
    read = CardRead(kind, fields)
    return [why(Code(code), **values) for code, values in L.game_of(kind).card_rules.marks(read)]


def light_marks(grey: np.ndarray, amount: np.ndarray, layout: L.Layout, levels: Levels, scores: dict, band: dict,
                s: Settings, one_stroke) -> frozenset:
    """Light marks (under definite) read as marked: each its field's one inked bubble (_lone_ink), its outline
    steep as a stroke's (SHADE.enclosed of it, as a fill's: no shade), one mark's shape (one_stroke), nothing in
    the band around it. Beside another mark it stays a doubt (a correction? which one is meant?)."""
    light, ink = set(), {}
    for f in layout.fields:
        key = _lone_ink(f, scores, s)
        if key and scores[key] < s.definite and band[key] <= s.quiet \
                and steep_outline(grey, amount, layout.kind, levels, key) >= SHADE.enclosed \
                and (one_stroke(amount, layout.kind, levels, key, s)
                     or _drawn_on_ring(amount, layout.kind, scores, key, s, ink)
                     and one_stroke(amount, layout.kind, levels, key, s, on_ring=True)):
            light.add(key)
    return frozenset(light)


def _lone_ink(f: L.Field, scores: dict, s: Settings) -> tuple | None:
    """The bubble a light mark of the field may be in: the only one at marginal or above; else a faint
    one (at faint_mark or above) with every other under blank_trace, nothing there at all."""
    keys = [(f.name, b.value) for b in f.bubbles]
    inked = [key for key in keys if scores[key] >= s.marginal]
    if inked:
        return inked[0] if len(inked) == 1 else None
    traced = [key for key in keys if scores[key] >= s.blank_trace]
    return traced[0] if len(traced) == 1 and scores[traced[0]] >= s.faint_mark else None


def _drawn_on_ring(amount: np.ndarray, kind: str, scores: dict, key: tuple, s: Settings, ink: dict) -> bool:
    """Whether a bubble's ring holds ring_dark times the ink the other blank rings hold along most of theirs
    (measure.ring_sectors) in all but GLARE.all_round of its sectors: a circle drawn on it, however light; not
    the print's misfit (none added, or a crescent), a shadow (against the paper beside it), nor a line across."""
    if not ink:        # measured once a card, when first asked: per bubble (all round, along most)
        rows = np.array(list((sectors := ring_sectors(amount, kind)).values()))
        ink.update(zip(sectors, zip(np.quantile(rows, GLARE.all_round, axis=1).tolist(), np.median(rows, 1).tolist())))
    others = [most for k, (_, most) in ink.items() if k != key and scores[k] < s.marginal]
    return bool(others) and ink[key][0] > s.ring_dark * median(others)


# --- the doubts, in the table's order --------------------------------------------------------------
def _while_measuring(r: Reading, s: Settings) -> tuple:
    """The doubts found while measuring: a blurred picture, long stray lines, circles drawn round bubbles."""
    return (why(Code.BLURRED),) * r.blurred + r.line_findings + r.circle_findings


def _glare(r: Reading, s: Settings) -> Iterator[Finding]:
    """A bubble whose printed ring has faded against the others' is under glare (or washed out). Glare lowers
    contrast, so a faint mark there can drop out of sight: a faded bubble read as blank is scored again with its
    contrast restored, sector by sector (glare is a patch), and must hold no ink even then. Where its ring is almost
    gone (under GLARE.faded of the others') nothing is left to restore: a bubble mostly under such sectors cannot be
    read. A faded bubble whose every sector keeps its ring's peak is blurred or a little off the blank, not under
    glare, marked or not; a marked one whose ring faded far (under s.glare) may be glare's shade, no mark."""
    kind, levels, scores = r.layout.kind, r.levels, r.scores
    typical = typical_ring(levels.rings, scores, s.marginal)
    yield from _halo(r, s, typical)
    faded = [key for key, ring in levels.rings.items() if ring < GLARE.fading * typical]
    if typical >= GLARE.washed and not faded:
        return
    peaks, sectors, fill = ring_peaks(r.amount, kind)
    keys = list(levels.rings)
    if typical < GLARE.washed:      # washed out, blurred or misaligned: thin lines (the rings, a pencil mark) fade
        if typical < GLARE.faded * GLARE.clear_ring or any(
                scores[key] < s.marginal and _unseen(r, s, key, sectors[n] / GLARE.clear_ring)
                for n, key in enumerate(keys)):
            yield why(Code.BUBBLES_UNSEEN, rings=typical)
    clear, fields = typical_ring(peaks, scores, s.marginal), r.firmly_marked(s)
    printed_fill = np.median(fill[[n for n, key in enumerate(keys) if scores[key] < s.marginal] or slice(None)])
    for key in faded:
        n = keys.index(key)
        kept = sectors[n] / clear
        if kept.min() >= GLARE.fading:        # the ring's median fell, not its peak: blur or a slight misfit
            continue
        if scores[key] >= s.marginal:
            if levels.rings[key] < s.glare * typical:
                yield why(Code.GLARE, **at(key), ring=levels.rings[key], typical=typical)
            continue
        inked_along = (fill[n][kept >= GLARE.faded] > GLARE.ring_filled * printed_fill).any()
        if kept.max() > s.ring_dark or inked_along:     # ink on the ring where glare spared it: a pen circle drawn on it?
            yield why(Code.GLARE_RING_INKED, **at(key), ring=kept.max())
        elif unseen := _unseen(r, s, key, kept):
            yield why(Code.GLARE if unseen == "unknown" else Code.GLARE_FAINT_MARK, **at(key), ring=kept.min())
        elif not fields[key[0]]:     # glare can wash out light pencil entirely: read blank, the card is a lost vote
            yield why(Code.GLARE_BLANK_FIELD, **at(key), ring=kept.min())


def _halo(r: Reading, s: Settings, typical: float) -> Iterator[Finding]:
    """Glare on a bubble (a streak washing out an arc of its ring, whose median may keep; a spot in its disc,
    glare_on) leaves a soft shade beside it that reads as faint ink (a fingertip's round a spot): a bubble read
    marked there whose ink is mostly fainter than a stroke's may be only that (8:hard:371, X)."""
    marked, kind = r.marked(s), r.layout.kind
    for n, key in enumerate(r.levels.rings):
        if key[1] in marked[key[0]] and (washed_arc(r.amount, kind, n, GLARE.faded * typical)
                                         or glare_on(r.grey, kind, key)) \
                and stroke_share(r.amount, kind, r.levels, key,
                                 r.circles.path if key in r.circles.circled else None) < GLARE.stroked:
            yield why(Code.GLARE_HALO, **at(key))


def _unseen(r: Reading, s: Settings, key: tuple, kept) -> str | None:
    """What glare may hide in a bubble read blank: "unknown" (mostly washed out), "ink" (with its contrast
    restored, a trace of a field read blank in its disc, or a trace round it: a circle?), or None."""
    disc, outer, unknown = restored(r.amount, r.layout.kind, r.levels, key, kept, GLARE.faded, r.circles.path)
    if unknown >= GLARE.unknown:
        return "unknown"
    return "ink" if disc >= s.blank_trace or outer >= s.trace else None


def _unclear(r: Reading, s: Settings) -> Iterator[Finding]:
    """Marks unclear: between marginal and definite; a line through one; a definite one whose outline mostly does not
    rise steeply out of it (measure.steep_outline under SHADE.enclosed, as a light mark's must): ink is dark and has
    edges, a shade has none (a fingertip's round a glare spot on paper at the camera's white; a pencil fill as faint)."""
    scores, around, filled, light, run = r.scores, r.around, r.filled, r.light, run_on(r, s)
    for f in r.layout.fields:
        for b in f.bubbles:
            key = f.name, b.value
            if key in run:
                continue
            if s.marginal <= scores[key] < s.definite and key not in light and not _edge(r, s, key):
                yield why(Code.UNCLEAR_MARK, **at(key), score=scores[key])
            if scores[key] >= s.definite and key not in r.circles.circled and \
                    (outline := steep_outline(r.grey, r.amount, r.layout.kind, r.levels, key)) < SHADE.enclosed:
                yield why(Code.SOFT_MARK, **at(key), outline=outline)
            # a circled bubble's mark is its circle, which no line through it makes (ink on most rays round it)
            if scores[key] >= s.marginal and filled[key] < s.heavy and around[key] >= s.stray \
                    and key not in r.circles.circled:
                yield why(Code.LINE_THROUGH, **at(key), around=around[key])
        marked = [filled[f.name, b.value] for b in f.bubbles
                  if scores[f.name, b.value] >= s.definite or (f.name, b.value) in light]
        if r.layout.kind not in ("vote", "number") and len(marked) >= 2 and max(marked) >= s.heavy > min(marked):
            yield why(Code.CORRECTION, count=len(marked), field=f.name)


def _trace(r: Reading, s: Settings) -> Iterator[Finding]:
    """Ink above the noise in a bubble read as blank could be a faint mark (light pencil, or a
    pen circle drawn right over the printed ring, which the print model hides): reading that
    card as blank or as one mark fewer would be a silent error, so a person looks."""
    darkest, fields, ink = r.levels.darkest, r.firmly_marked(s), {}
    for name, b in r.layout.bubbles():
        key = name, b.value
        if r.scores[key] >= s.definite or key in r.light:
            continue
        if r.scores[key] >= (s.trace if fields[name] else s.blank_trace) and not _edge(r, s, key) \
                and key not in run_on(r, s):
            yield why(Code.FAINT_INK, **at(key), score=r.scores[key])
        if _drawn_on_ring(r.amount, r.layout.kind, r.scores, key, s, ink):
            yield why(Code.RING_INKED, **at(key), ring=ink[key][0])
        if r.layout.kind in ALIKE_LABELS and not fields[name] and \
                darkest[key] > s.label_dark * median([v for k, v in darkest.items() if k != key]):
            yield why(Code.LABEL_INKED, **at(key), label=darkest[key])


def _edge(r: Reading, s: Settings, key: tuple) -> bool:
    """Ink in a bubble, its field marked elsewhere, lying right along a circle drawn round another bubble
    or a long stray line, both taken out of it: their soft edge (measure.beside_drawn; a felt tip's is
    wider than the path taken out), not a mark of its own. In a field read blank it is still a doubt."""
    drawn = _drawn_round(r)
    if drawn is None or not r.firmly_marked(s)[key[0]]:
        return False
    if r.circles.circled:       # not the ink joined to a circle beyond its path: maybe a mark touching it
        drawn = drawn & ~cv2.dilate(r.circles.reach.reshape(r.amount.shape).view(np.uint8), np.ones((5, 5), np.uint8)
                                    ).ravel().view(bool)
    return beside_drawn(r.amount, r.layout.kind, r.levels, key, drawn)


def _part_circled(r: Reading, s: Settings) -> Iterator[Finding]:
    """Ink round much of a bubble read blank: part of a circle drawn round it, or one round two
    labels (which is meant?). Read as blank, a vote would be lost."""
    fields = r.marked(s)
    for (name, value), cover in r.circles.cover.items():
        if value not in fields[name] and cover >= s.partial:
            yield why(Code.PART_CIRCLE, **at((name, value)), cover=cover)


def _faint_circle(r: Reading, s: Settings) -> Iterator[Finding]:
    """A faint line all round a bubble read blank, darker than round the others: a light pencil circle,
    fainter than the noise the scores leave out (circles.Circles.faint: a line stands out of the paper on
    both sides, a shadow's edge or uneven light does not). It must hold again on the rays the pen circles
    drawn round other bubbles and long stray lines leave free (circles.faint_free): circles closing in on
    it from two sides or more cross most of its rays, a pencil circle of its own shows on the rest too."""
    fields, drawn, free = r.marked(s), _drawn_round(r), None
    blank = [(name, b.value) for name, b in r.layout.bubbles() if b.value not in fields[name]]
    for key in blank:
        usual = _others_blank(r.circles.faint, key, blank)
        if r.circles.faint[key] < usual + s.faint:
            continue
        if free is None:      # measured once a card, when a bubble first has a faint line all round
            free = r.circles.faint if drawn is None else faint_free(r.amount, r.layout.kind, r.levels, drawn)
        if free[key] >= _others_blank(free, key, blank) + s.faint:
            yield why(Code.FAINT_CIRCLE, **at(key), faint=r.circles.faint[key], usual=usual)


def _others_blank(values: dict, key: tuple, blank: list) -> float:
    """The typical value round the other bubbles read blank (a filled bubble's ink all round it, or this
    one's own circle, would hide a light circle among them); all the bubbles' if there are none."""
    others = [values[k] for k in blank if k != key]
    return median(others or values.values())


def _joined_marks(r: Reading, s: Settings) -> Iterator[Finding]:
    """Two bubbles of one field read marked whose ink is one stroke across the paper between them: a
    scribble's loose end or loop reaching a neighbour, or two marks? Two marks apart are not joined."""
    marked, pieces = r.marked(s), None
    for f in r.layout.fields:
        bubbles = [b for b in f.bubbles if b.value in marked[f.name]]
        if len(bubbles) < 2:
            continue
        if pieces is None:
            pieces = cv2.connectedComponents((r.amount >= CIRCLES.crossed).view(np.uint8), connectivity=8)[1]
        rings = [bubble_geometry(r.layout.kind)[f.name, b.value] for b in bubbles]     # ink inside each printed ring
        inks = [set(np.unique(pieces[g.where][g.d <= b.r * PX])) - {0} for g, b in zip(rings, bubbles)]
        if any(a & b for i, a in enumerate(inks) for b in inks[i + 1:]):
            yield why(Code.MARKS_JOINED, field=f.name)


def _drawn_round(r: Reading) -> np.ndarray | None:
    """Ink round bubbles that no light circle of theirs is: the circles drawn round other bubbles and the
    long stray lines (one passing a bubble crosses nearly half its rays), flat bool; None if neither."""
    away = [drawn for drawn in (r.circles.path if r.circles.circled else None, r.lines) if drawn is not None]
    return np.logical_or.reduce(away) if away else None


def _faint_in_blank(r: Reading, s: Settings) -> Iterator[Finding]:
    """A field read blank on a card whose blank is a lost bet, looked at with the noise floor as low as its paper
    allows: a faint pencil tick over the printed digit, its ink under the usual floor but for a little on the paper
    beside the digit, shows there (a blank bubble's print, spread so a slight misfit is not ink, shows none)."""
    if r.layout.kind not in LOOKED_CLOSER:
        return
    blank = [name for name, values in r.marked(s).items() if not values]
    if not blank:
        return
    noise = paper_noise(r.amount, r.layout.kind)
    if noise >= LIGHT.noise_floor:        # too noisy to see more by looking closer
        return
    scores = closer_scores(r.amount, r.layout.kind, r.levels, max(s.closer_floor, noise))
    for name, b in r.layout.bubbles():
        if name in blank and scores[name, b.value] >= s.closer_trace:
            yield why(Code.FAINT_INK_CLOSER, **at((name, b.value)), score=scores[name, b.value])


def _noisy_blank(r: Reading, s: Settings) -> Iterator[Finding]:
    """A field read blank in a picture whose noise floor (JPEG, grain, a shadow's dapple) is so high
    that light pencil vanishes under it: blank or a light mark, a person tells."""
    if r.levels.floor >= s.noisy:
        yield from (why(Code.NOISY_BLANK, field=name, floor=r.levels.floor) for name, values in r.firmly_marked(s).items() if not values)


DOUBTS = (_while_measuring, _glare, _unclear, _trace, _joined_marks, _part_circled, _faint_circle, _faint_in_blank,
          _noisy_blank)

# The decision table, read top to bottom: the first row whose finding is on the card decides (its code
# is the Result's reason_code); a card with none is counted.
TABLE = (
    # the picture
    (Code.BLURRED, "review"),
    (Code.GLARE_HALO, "review"),
    (Code.BUBBLES_UNSEEN, "review"),
    (Code.GLARE, "review"),
    (Code.GLARE_RING_INKED, "review"),
    (Code.GLARE_FAINT_MARK, "review"),
    (Code.GLARE_BLANK_FIELD, "review"),
    # long stray lines
    (Code.LINE_TOUCHES, "review"),
    (Code.LINE_INK_BESIDE, "review"),
    (Code.LINE_OVER_INK, "review"),
    (Code.BROKEN_LINE, "review"),
    # circles drawn round bubbles
    (Code.CIRCLE_ROUND_TWO, "review"),
    (Code.CIRCLE_JOINED_INK, "review"),
    (Code.CIRCLE_REACHES, "review"),
    (Code.CIRCLE_OVER_INK, "review"),
    # the marks
    (Code.UNCLEAR_MARK, "review"),
    (Code.LINE_THROUGH, "review"),
    (Code.SOFT_MARK, "review"),
    (Code.CORRECTION, "review"),
    (Code.MARKS_JOINED, "review"),
    (Code.FAINT_INK, "review"),
    (Code.RING_INKED, "review"),
    (Code.LABEL_INKED, "review"),
    (Code.PART_CIRCLE, "review"),
    (Code.FAINT_CIRCLE, "review"),
    (Code.FAINT_INK_CLOSER, "review"),
    (Code.NOISY_BLANK, "review"),
    # the rules on the marks read (rules())
    (Code.BLANK_VOTE, "invalid"),       # R6
    (Code.TWO_MARKS, "invalid"),        # R6, D18
    (Code.MANY_MARKS, "invalid"),       # R6
    (Code.BLANK_NUMBER, "invalid"),     # V7
    (Code.MANY_NUMBERS, "invalid"),     # V7
    (Code.FACES_TWICE, "review"),       # AB7
    (Code.NO_FACE, "review"),
    (Code.FIELDS_NOT_ONE, "review"),    # D2
)


# --- ink a neighbour's mark put there ----------------------------------------------------------------
def spilt(layout: L.Layout, key: tuple, b: L.Bubble, scores: dict, own: dict, s: Settings) -> bool:
    """The ink in this bubble lies where a neighbour's mark reaches (a big circle drawn round it),
    none in its own part of the disc, and that neighbour is marked with at least twice the ink:
    it is that mark's ink, not a mark of its own."""
    return own[key] < s.trace and bool(_heavier(layout, key, b, scores, s))


def _heavier(layout: L.Layout, key: tuple, b: L.Bubble, scores: dict, s: Settings) -> list:
    """The bubbles close by (a big circle drawn round one reaches the other) marked with spill_times its ink."""
    at_least = max(s.definite, MEASURE.spill_times * scores[key])
    return [(name, o) for name, o in layout.bubbles() if neighbours(o, b) and scores[name, o.value] >= at_least]


# --- what a card says to the referee ----------------------------------------------------------
def command_for(card: L.Card, fields: dict) -> dict:
    """The referee command for the marks read, as the card's game makes it. A field read with no mark
    or several is None: a held card carries only what was read (the operator supplies the rest)."""
    read = CardRead(card.kind, fields, card.serial, card.owner, card.turn, card.values())
    return L.game_of(card.kind).card_rules.command(read)
