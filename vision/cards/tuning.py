"""The card scanner's one tuning table: every threshold it decides by, grouped by stage, each with its value, unit,
valid range and the reason it exists (entry()). Geometry that follows from the layout (the patch round a bubble, the
band beyond a big circle, which bubbles are neighbours) is derived from the bubbles' radii here, not written again
where it is used.

Scores are new ink in mm² of full-strength stroke per mm of bubble radius: a 0.5 mm pen circle scores about 3, a small
tick about 1, a blank bubble under 0.2 (see the bench). "radii" are a bubble's own radius; "ink" is measure.ink()'s
darkness against the paper (0 paper .. 1 black); "new ink" is darkness beyond the blank's print as a share of a
full-strength stroke.

Only the decision stage (Settings) is set per event, in [cards] of event.toml (settings_for): a value out of its
range, or one breaking an ordering (marginal < definite, ...), is one line naming the key and the file. The other
stages are fixed with the code that measures them."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import lru_cache

import numpy as np


def entry(value: float, unit: str, low: float, high: float, why: str):
    """A threshold: its value, unit, valid range (both ends included) and why it exists."""
    return field(default=value, metadata={"unit": unit, "range": (low, high), "why": why})


class TuningError(ValueError):
    """A threshold out of its range or out of order: the message names it; keys, the entries concerned."""

    def __init__(self, message: str, *keys: str):
        super().__init__(message)
        self.keys = keys


class _Checked:
    """A stage's entries, checked when made: each within its range, ORDER's pairs strictly rising."""
    ORDER: tuple = ()

    def __post_init__(self) -> None:
        for f in fields(self):
            low, high = f.metadata["range"]
            value = getattr(self, f.name)
            if not low <= value <= high:
                raise TuningError(f"{f.name} must be {low:g} to {high:g} ({f.metadata['unit']}), not {value!r}", f.name)
        for small, large in self.ORDER:
            if not getattr(self, small) < getattr(self, large):
                raise TuningError(f"{small} ({getattr(self, small):g}) must be under {large} "
                                  f"({getattr(self, large):g})", small, large)


# --- the decision table's thresholds: set per event in [cards] --------------------------------------------
@dataclass(frozen=True)
class Settings(_Checked):
    marginal: float = entry(0.3, "score", 0.05, 2.0, "a bubble scoring below this is blank")
    definite: float = entry(0.6, "score", 0.1, 4.0, "at or above this it is marked; between the two: review")
    heavy: float = entry(0.4, "share of disc", 0.05, 1.0, "filled this much (a dot, a scribble): beside a lighter "
                         "mark on a special card, maybe a correction (a vote card: two marks, D18)")
    stray: float = entry(0.35, "score", 0.05, 2.0, "ink in the band round a bubble: a line through it that was not "
                         "found as a long straight stroke; a person looks")
    sharp: float = entry(0.55, "ratio", 0.1, 1.0, "printed outline contrast / marker contrast under this: too blurred")
    glare: float = entry(0.35, "share", 0.05, 1.0, "a marked bubble's ring at under this share of the card's: glare's "
                         "shade, maybe no mark")
    trace: float = entry(0.15, "score", 0.01, 1.0, "ink above the noise under marginal: a faint mark may hide there")
    blank_trace: float = entry(0.06, "score", 0.01, 1.0, "trace in a field read blank (a vote lost if it is light "
                               "pencil; blank bubbles on hard bench photos score under 0.04)")
    ring_dark: float = entry(1.2, "ratio", 1.01, 3.0, "a ring holding this many times the ink across it the other "
                             "blank bubbles' do, all round it (measure.ring_sectors): inked over")
    label_dark: float = entry(1.06, "ratio", 1.0, 2.0, "in a vote card's field read blank, a label this much darker "
                              "than the others: light pencil drawn along it")
    faint_mark: float = entry(0.1, "score", 0.01, 1.0, "a light mark under marginal, down to this, alone in its field "
                              "(every other bubble there under blank_trace) is read too")
    open_paper: float = entry(0.1, "share of ink", 0.0, 1.0, "a light mark's ink half a mm or more from any print (a "
                              "curled card's misfit lies right along the ring or the label)")
    open_room: float = entry(0.3, "share", 0.0, 1.0, "or, where the print leaves little open paper in the disc (a "
                             "small bubble), this share of the disc's own share of it")
    coherent: float = entry(0.4, "share of ink", 0.05, 2.0, "a light mark's ink in one connected piece (noise, JPEG, "
                            "shadow: scattered)")
    span: float = entry(0.4, "radii", 0.05, 2.0, "that piece's length (a speck is no mark)")
    flat: float = entry(0.25, "ratio", 0.01, 1.0, "ink whose narrow side is under this share of its long side is a "
                        "dash, no mark (a light mark's; a piece joined to a circle)")
    quiet: float = entry(0.05, "score", 0.0, 1.0, "a light mark's band holds at most this (a finger, shadow or line "
                         "reaching in)")
    circled: float = entry(0.55, "share of rays", 0.2, 1.0, "a bubble's rays crossing ink at least this: circled, the "
                           "circle's ink is its mark (one open by nearly half, or drawn off towards a neighbour)")
    partial: float = entry(0.4, "share of rays", 0.1, 1.0, "a bubble read blank with this cover: part of a circle?")
    faint: float = entry(0.032, "ink", 0.0, 0.5, "a line round a blank bubble (ink standing out of the paper either "
                         "side along its rays, noise not taken off) this much darker than round the other blank "
                         "bubbles: a light pencil circle?")
    noisy: float = entry(0.2, "ink", 0.05, 1.0, "a noise floor this high hides light pencil: a field read blank goes "
                         "to review")
    closer_floor: float = entry(0.04, "ink", 0.0, 0.5, "a number card's field read blank is looked at closer: the "
                                "noise floor then, where its paper is that quiet")
    closer_trace: float = entry(0.015, "score", 0.0, 1.0, "new ink so measured on a bubble's open paper: a faint "
                                "pencil tick over the printed digit?")
    time_limit_ms: float = entry(2000.0, "ms CPU", 0.001, 600_000.0, "a scan working longer is rejected (the next "
                                 "card is not kept waiting; a hostile image is cut short)")

    ORDER = (("blank_trace", "trace"), ("trace", "marginal"), ("marginal", "definite"), ("blank_trace", "faint_mark"),
             ("faint_mark", "marginal"), ("partial", "circled"))


def settings_for(event) -> Settings:
    """The event file's [cards] section over the defaults; an entry out of range or out of order is one
    line naming the file, its line and the key (event: companion.core.event_file.EventFile)."""
    section = event.sections.get("cards", {})
    known = {f.name for f in fields(Settings)}
    try:
        return Settings(**{key: float(value) for key, value in section.items() if key in known})
    except TuningError as error:
        key = next((k for k in error.keys if k in section), error.keys[0])
        raise TuningError(f"{event.where('cards', key)}: [cards] {error}", *error.keys) from None


# --- the fixed stages ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LocateStage(_Checked):
    smallest_px: int = entry(200, "px", 50, 2000, "an image narrower than this is no card photo")
    markers_needed: int = entry(3, "markers", 3, 4, "corner markers seen to fit the card by them (a homography "
                                "needs three; with fewer, the printed outline)")
    half_size_px: int = entry(900, "px", 300, 4000, "an image this big or more is searched at half size first")
    outline_area: float = entry(0.04, "share of image", 0.005, 0.5, "an outline enclosing less is no card's")
    slant_low: float = entry(0.6, "ratio", 0.2, 1.0, "an outline's side pairs in this ratio (either way round) or")
    slant_high: float = entry(1.7, "ratio", 1.0, 5.0, "up to this: a card seen at a slant, no more")
    hull_sides: float = entry(0.75, "share", 0.3, 1.0, "the four longest sides of an outline's hull hold this much "
                              "of it (a finger over a corner cuts it)")
    soft_contrast: float = entry(40, "grey levels", 5, 200, "a picture this contrasty, with no edge steep for it, is")
    soft_edge: float = entry(1.0, "ratio", 0.1, 3.0, "too blurred to find a card in (a sharp card's steepest edges "
                             "score about 3)")
    some_print: float = entry(0.05, "std of print", 0.0, 0.5, "a piece of the blank with this much print to go by "
                              "is matched (open paper says nothing)")
    aligned: float = entry(0.75, "correlation", 0.3, 1.0, "an outline fit refined on the print matches the blank so")
    qr_px: float = entry(10.0, "px/mm", 4.0, 20.0, "pixels per mm when reading the code")
    qr_margin_mm: float = entry(1.0, "mm", 0.0, 5.0, "paper round the code in its own warp, tight")
    qr_wide_margin_mm: float = entry(3.0, "mm", 0.0, 8.0, "and wide: a curled card's code lies off its fit")
    flat: float = entry(0.12, "marker sides", 0.01, 1.0, "marker corners this close to one homography: a flat card")
    curled: float = entry(0.25, "marker sides", 0.01, 1.0, "this close: a curled one, its print refitted piecewise "
                          "(and an outline's way round agrees with the markers seen)")
    reach_mm: float = entry(2.0, "mm", 0.5, 6.0, "how far the print may sit off the fit locally (a curled edge)")
    tile_mm: float = entry(12.0, "mm", 4.0, 30.0, "the pieces of print matched to the blank")
    step_mm: float = entry(6.0, "mm", 2.0, 30.0, "and how far apart they are")
    matched: float = entry(0.5, "correlation", 0.1, 1.0, "a piece matches the blank this well or says nothing")
    half: float = entry(0.5, "scale", 0.25, 1.0, "pieces are matched at this scale (a quarter of the work at half)")
    map_px: int = entry(6, "px", 1, 30, "the shifted map is solved every this many pixels, then interpolated")
    ORDER = (("qr_margin_mm", "qr_wide_margin_mm"), ("flat", "curled"), ("slant_low", "slant_high"))


@dataclass(frozen=True)
class LightStage(_Checked):
    """ink(): how much darker than its paper each pixel is (light before ink)."""
    paper_window_mm: float = entry(20.0, "mm", 5.0, 60.0, "the paper level is a closing this wide: wider than any "
                                   "mark, narrower than a shadow or a step of light")
    line_mm: float = entry(3.0, "mm", 1.0, 10.0, "a narrow closing this wide keeps a pen line under glare on its "
                           "bright paper, not a filled bubble")
    glare_ceiling: float = entry(1.1, "ratio", 1.0, 2.0, "paper brighter than this share of the wide median: glare")
    noise_floor: float = entry(0.10, "ink", 0.01, 0.5, "ink weaker than this is noise on any card (misfit, blur, "
                               "JPEG, grain)")
    noise_mads: float = entry(5.0, "deviations", 2.0, 10.0, "a card's paper noise: its median and this many robust "
                              "deviations")
    full_stroke: float = entry(0.25, "ink", 0.05, 1.0, "darkness beyond the print a full-strength stroke adds")
    marker_contrast: float = entry(0.2, "ink", 0.0, 1.0, "the markers' black at under this: the picture too blurred")


@dataclass(frozen=True)
class ShadeStage(_Checked):
    """ink()'s paper level follows soft darkening (light before ink): ink is dark and has edges."""
    edge: float = entry(0.3, "per mm", 0.05, 2.0, "darkening no steeper than this share of the paper's light per mm "
                        "(a hand's or phone's shadow, a gradient, a fold's soft shade) is light, never ink; a pen or "
                        "pencil line's edge is steeper")
    enclosed: float = entry(0.75, "share of outline", 0.3, 1.0, "a patch the soft light darkens with this share "
                            "of its outline steeper than edge is a fill's inside (ink), not a shadow")
    deepest: float = entry(0.25, "share of light", 0.05, 0.9, "soft darkening is followed down to this share of the "
                           "paper's light (a card in deeper shade is too dark to read anyway)")


@dataclass(frozen=True)
class ShapeStage(_Checked):
    """Where each bubble's regions lie, in its own radii."""
    disc: float = entry(1.2, "radii", 1.0, 1.6, "a bubble's scored disc: its printed ring and a little beyond")
    circle_reach: float = entry(1.6, "radii", 1.2, 2.0, "a big circle drawn round a bubble reaches this far: its "
                                "neighbours' ink there may be its")
    band_outer: float = entry(2.1, "radii", 1.7, 3.0, "the band round a bubble where a line through it shows ends here")
    outer: float = entry(1.8, "radii", 1.2, 2.5, "a mark drawn on or round a bubble lies within this (glare looks "
                         "there; two strokes crossing in it, neither reaching farther, are a cross, no stray lines)")
    neighbours: float = entry(3.0, "sum of radii", 1.0, 5.0, "bubbles closer than this (centre to centre) are "
                              "neighbours: a big circle round one reaches the other")
    printed: float = entry(0.5, "print", 0.1, 2.0, "the blank's print at least this (1: the bubbles' grey) is print")
    black: float = entry(2.0, "print", 1.1, 9.0, "print at least this is black (markers, titles, the card's data, "
                         "its code)")
    print_core: int = entry(190, "grey level", 60, 250, "the blank's pixels darker than this are its print's core")
    ring_line_mm: float = entry(0.3, "mm", 0.1, 1.0, "a printed ring's own pixels lie this close to its circle")
    ORDER = (("disc", "circle_reach"), ("circle_reach", "band_outer"))

    @property
    def band_inner(self) -> float:
        """The band starts just beyond a big circle's reach (its ink is no line through the bubble)."""
        return round(self.circle_reach + 0.05, 6)

    @property
    def patch(self) -> float:
        """The patch round a bubble holding every region of it, in radii."""
        return round(max(self.band_outer, self.outer) + 0.1, 6)


@dataclass(frozen=True)
class MeasureStage(_Checked):
    sectors: int = entry(8, "sectors", 4, 32, "glare is a patch: a bubble's ring is looked at in this many sectors")
    arcs: int = entry(64, "arcs", 16, 256, "a glare streak washes out an arc of a ring this fine (0.3-0.8 mm)")
    ring_mm: float = entry(0.6, "mm", 0.1, 2.0, "a printed ring's footprint: where the blank prints it this close")
    ring_band_mm: float = entry(0.9, "mm", 0.2, 3.0, "a ring's ink is summed this far either side (blur, misfit)")
    paper_near_mm: float = entry(0.6, "mm", 0.1, 3.0, "the paper beside a ring starts this far from it")
    paper_far_mm: float = entry(1.6, "mm", 0.5, 5.0, "and ends this far (off any other print)")
    paper_quantile: float = entry(0.3, "quantile", 0.0, 1.0, "the paper's level there: low, under a pencil line "
                                  "drawn beside the ring")
    stroke: float = entry(0.5, "new ink", 0.1, 1.0, "a stroke's (pen, pencil; a long stray line's), not a glare "
                          "halo's soft shade")
    traced: float = entry(0.2, "new ink", 0.05, 1.0, "a light mark's pixels, a faint line's (light pencil's grain "
                          "breaks its line into pieces at 0.3; a crease's shadow line)")
    piece_share: float = entry(0.1, "share of ink", 0.01, 0.5, "a light mark's pieces holding this much of its ink "
                               "make its shape")
    figure: float = entry(0.3, "ratio", 0.05, 1.0, "a mark's ink spread this wide across as along: a figure, no line")
    edge_mm: float = entry(0.5, "mm", 0.1, 2.0, "a line's soft edge (blur, a felt tip wider than its path, the "
                           "print's misfit) reaches this far: open paper is farther from any print")
    beside: float = entry(0.9, "share of ink", 0.5, 1.0, "a bubble's ink left this share of it within edge_mm of ink "
                          "taken out (a circle's path, a line): that ink's edge, no mark")
    apart: float = entry(0.6, "share of ink", 0.5, 1.0, "ink left beside a line taken out, this share of it apart "
                         "from the line: a mark of its own (a tick the line crosses, a cross's other arm)")
    apart_mm: float = entry(1.0, "mm", 0.2, 3.0, "ink this far from a line or more is apart from it: no soft edge "
                            "or wobble of the line's")
    spill_times: float = entry(2.0, "times", 1.0, 10.0, "ink only where a neighbour's mark reaches, which holds this "
                               "many times as much, is that mark's")
    ORDER = (("paper_near_mm", "paper_far_mm"), ("traced", "stroke"))


@dataclass(frozen=True)
class StrokeStage(_Checked):
    cross_sine: float = entry(0.5, "sine", 0.1, 1.0, "two strokes crossing at a steeper angle may be a cross's arms")
    length_mm: float = entry(20.0, "mm", 10.0, 60.0, "a straight pen stroke this long is no mark (the longest mark "
                             "is a bubble wide)")
    crease_mm: float = entry(45.0, "mm", 20.0, 100.0, "ink as faint as a light mark's (MEASURE.traced: a crease's "
                             "shadow line) is a stroke only when this long")
    width_mm: float = entry(1.5, "mm", 0.5, 5.0, "wider than this (blur included) it is no pen line")
    piece_mm: float = entry(8.0, "mm", 3.0, 20.0, "a pen line is looked for in straight pieces this long (glare can "
                            "wash out its middle)")
    out_mm: float = entry(3.0, "mm", 1.0, 10.0, "a line in pieces through a marked bubble goes on this far beyond it")
    inked: float = entry(0.5, "share", 0.1, 1.0, "pieces joined across gaps are one line when ink covers this of it")
    gap_mm: float = entry(3.0, "mm", 0.5, 10.0, "a stroke goes on across gaps in its ink this short")
    follow_steps: int = entry(64, "px", 8, 512, "a stroke is followed this many pixels at a time")
    one_line_deg: float = entry(10.0, "degrees", 1.0, 45.0, "strokes this close in direction by a bubble: one line")
    one_line_mm: float = entry(1.0, "mm", 0.2, 5.0, "and in place")
    on_line_px: int = entry(4, "px", 1, 12, "ink (a segment's end, a point) this close across a line is on it")
    bow_mm: float = entry(1.5, "mm", 0.5, 5.0, "a bowed line's ink strays this far from the straight line fitted")
    leaves: float = entry(0.5, "radii", 0.1, 2.0, "a stroke going on this far beyond a bubble's disc on one side "
                          "leaves it farther than a mark's arm (a cross's, the widest, reaches 0.35)")
    leaves_mm: float = entry(4.0, "mm", 1.0, 10.0, "and at least this far (on a small bubble a mark's curve reaches 3)")
    over_ink: float = entry(1.5, "times", 1.0, 5.0, "a line over more than this times its own ink (and over_ink_plus):")
    over_ink_plus: float = entry(0.3, "score", 0.0, 2.0, "a mark under it? review")
    ORDER = (("length_mm", "crease_mm"),)


@dataclass(frozen=True)
class CircleStage(_Checked):
    angles: int = entry(72, "rays", 16, 360, "each bubble is looked at along this many rays")
    steps: int = entry(40, "samples", 8, 200, "samples along each ray")
    arc_inner: float = entry(0.7, "radii", 0.3, 1.0, "a circle drawn round a bubble lies this far from its centre")
    arc_outer: float = entry(2.05, "radii", 1.5, 3.0, "to this far")
    crossed: float = entry(0.35, "new ink", 0.1, 1.0, "new ink on a ray at least this: the ray crosses a pen line")
    path_mm: float = entry(0.8, "mm", 0.2, 3.0, "the traced path covers this much either side of its darkest ink")
    join_mm: float = entry(1.2, "mm", 0.2, 5.0, "ink this close to a circle's is the same pen stroke")
    on_mm: float = entry(2.0, "mm", 0.5, 5.0, "ink this close to a circle's fitted ellipse is the circle going on")
    middle: float = entry(0.5, "radii", 0.1, 1.0, "a circle round a neighbour seldom comes this close to a bubble's "
                          "centre; its own mark does")
    own: float = entry(1.7, "radii", 1.0, 3.0, "a bubble's own mark (a tick's or cross's arm) lies this close round it")
    hidden_share: float = entry(0.5, "share of ray", 0.1, 1.0, "a ray this much over black print is hidden")
    faint_rays: int = entry(5, "rays", 1, 15, "looking for a faint line round a bubble, its rays' ink is averaged over "
                            "this many neighbouring rays (a line runs on from ray to ray, grain does not)")
    free_rays: float = entry(0.25, "share of rays", 0.05, 1.0, "rays clear of the circles round neighbours enough to "
                             "judge faint ink on")
    off_share: float = entry(0.5, "share", 0.1, 1.0, "a part of ink joined to a circle, this share of it off the "
                             "ellipse, may be another bubble's own mark touching it")
    smooth: int = entry(10, "rays", 1, 36, "rays either side whose crossings tell where a circle runs (50 degrees)")
    over_ink: float = entry(2.0, "times", 1.0, 5.0, "a circle's path over another bubble with this times the path's "
                            "usual ink (and over_ink_plus): a mark of its own under it")
    over_ink_plus: float = entry(0.1, "new ink", 0.0, 1.0, "(added)")
    ORDER = (("arc_inner", "arc_outer"), ("middle", "own"))


@dataclass(frozen=True)
class GlareStage(_Checked):
    """The picture's doubts: glare, wash-out, blur (decide's first rows)."""
    clear_ring: float = entry(0.25, "ink", 0.05, 1.0, "how dark the printed rings look in a clear picture")
    sharp_rings: float = entry(0.8, "share", 0.1, 1.0, "the rings' darkest at this share of clear_ring or more: sharp")
    off_print: float = entry(0.6, "share", 0.1, 1.0, "a ring's median under this share of its darkest close by: its "
                             "print lies beside the blank's (a curled card)")
    faded: float = entry(0.2, "share", 0.0, 1.0, "a ring under this share of the others' strength: lost under glare")
    fading: float = entry(0.7, "share", 0.1, 1.0, "under this: under glare")
    washed: float = entry(0.12, "ink", 0.01, 0.5, "the rings' median under this: washed out, blurred or misaligned")
    unknown: float = entry(0.3, "share of disc", 0.05, 1.0, "this much of a disc washed out: it cannot be read")
    ring_filled: float = entry(1.35, "ratio", 1.0, 3.0, "a ring's sector this much fuller than the printed rings: "
                               "inked along")
    stroked: float = entry(0.5, "share of ink", 0.1, 1.0, "a mark under glare with less of its ink a stroke's: a halo?")
    all_round: float = entry(0.25, "quantile", 0.0, 1.0, "a ring inked all round: in its weakest sectors but this "
                             "share")
    ORDER = (("faded", "fading"),)


LOCATE, LIGHT, SHADE, SHAPE, MEASURE = LocateStage(), LightStage(), ShadeStage(), ShapeStage(), MeasureStage()
STROKES, CIRCLES, GLARE = StrokeStage(), CircleStage(), GlareStage()
STAGES = {"locate": LOCATE, "light": LIGHT, "shade": SHADE, "shape": SHAPE, "measure": MEASURE, "strokes": STROKES,
          "circles": CIRCLES, "glare": GLARE, "cards": Settings()}


def neighbours(a, b) -> bool:
    """Two bubbles (layouts.Bubble, mm) close enough that a big circle round one reaches the other."""
    return a is not b and np.hypot(a.x - b.x, a.y - b.y) < SHAPE.neighbours * (a.r + b.r)


@lru_cache(maxsize=None)
def table() -> list[tuple[str, str, float, str, tuple, str]]:
    """Every entry as (stage, key, value, unit, range, why): for the README and the tests."""
    return [(stage, f.name, getattr(group, f.name), f.metadata["unit"], f.metadata["range"], f.metadata["why"])
            for stage, group in STAGES.items() for f in fields(group)]
