"""Reading a frame: find the balls, unroll each, decode its labels, and name one ball or say why not.

We unroll the visible cap around the point facing the camera, find the QR-sized patches busiest
with edges in it, and unroll the ball again around each of them, so that label comes out flat
and square for the decoder; nearest the camera's line of sight first, up to MAX_CANDIDATES a
frame. The first REPAIR_CANDIDATES get second chances: each that does not decode is matched at
once against the 27 printed labels (`match`: it names a label blurred past decoding); when none
reads, a finder square that glare washed out is drawn back on them and they are decoded again. A text counts only if it
is a ball label with the right check digits (vision.ball_labels). A ball found but not read
says which ball its labels lean to, if they agree on one (`FrameRead.leaning`, match.Match):
acceptance lets that vouch for the ball another frame of the pass read.

Motion blur: where the rig says which way balls fall through the view (`fall_deg`, the chute's
direction in the image), the streak's length along it is measured (`motion_blur`) and a
streaked ball is read deblurred by that length (Wiener deconvolution with a line kernel), then
deblurred sharper; a ball with no clear streak is read as taken, then deblurred by a guessed
length. The ball's outline and centre are kept from the frame as taken.

A ball less than half in view (coming into the frame) gets its first try only: the frames after
it show it whole, and a reader on a Pi's cores that gave it every second chance would drop them.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from .. import ball_labels as labels
from . import match, numeral
from .decode import DEFAULT_DECODER, backend, finder_restored
from .find import DEFAULT_DISTANCE, Circle, apart_from, ball_radius_px, find_balls, label_spots, share_in_view
from .motion_blur import SHARPER_NOISE, blur_length, deblurred
from .unroll import DEFAULT_FOV, View, ball_centre, point_on_ball, sphere_fit, unroll

OVERVIEW_DEG = 62.0                # how far from the facing point the overview unrolls
OVERVIEW_SCALE = 0.5               # the finding view needs only half the camera's detail
REPAIR_CANDIDATES = 2          # labels given second chances when nothing read
# a ball less than this share in view (coming into the frame) gets its first try only. Chute
# passes of tuning seeds 5 and 13 at 30 and 60 fps: such frames read 5-14% at the first try and
# 26-32% with every second chance, which cost them 30 ms more a frame here (43 ms in all, a
# whole ball's frame 24 ms); a reader on a Pi's cores that pays that for the first frames of a
# pass misses the whole frames that come after them
FIRST_TRY_ONLY_BELOW = 0.5
DEBLUR_GUESS_PX = 12.0         # the streak deblurred where none is measured: a chute's 8-15 px, halfway


@dataclass
class FrameRead:
    ball: int | None               # the ball read, or None
    found: bool                    # a ball is in view
    why: str
    decoder: str
    ms: float = 0.0
    circle: Circle | None = None
    others: list[str] = field(default_factory=list)    # texts that were not ball labels
    conflict: tuple[int, ...] = ()                       # the balls read when several are in view
    matched: bool = False          # named by match.match_label, not decoded
    witnessed: bool = False        # the numerals beside the label that read show the same ball (numeral)
    leaning: int | None = None     # not read, its labels lean to this ball (match.Match.leaning)
    alert: str = ""                # several balls in one frame: the operator must look, nothing is drawn

    def to_json(self) -> dict:
        return {"ball": self.ball, "found": self.found, "why": self.why, "decoder": self.decoder,
                "ms": round(self.ms, 2), "circle": None if self.circle is None else
                [round(self.circle.x, 1), round(self.circle.y, 1), round(self.circle.r, 1)],
                "others": self.others, "conflict": list(self.conflict),
                "matched": self.matched, "witnessed": self.witnessed, "leaning": self.leaning,
                "alert": self.alert}


@dataclass
class _BallRead:
    """What one ball-shaped candidate carried."""
    circle: Circle | None          # in the full frame
    texts: list[str]
    matched: bool
    witnessed: bool = False
    leanings: set = field(default_factory=set)      # the balls its unread labels lean to

    @property
    def ball(self) -> int | None:
        return next((b for b in map(labels.parse_payload, self.texts) if b is not None), None)


class BallDecoder:
    """Frame in, FrameRead out. `roi` (x, y, w, h) is where the ball can be, set at calibration;
    `distance` (near, far) mm from the camera to the ball's centre is where a ball can be, so a
    blob of another size is not one."""

    def __init__(self, decoder: str = DEFAULT_DECODER, diameter: float = 40.0, fov: float = DEFAULT_FOV,
                 roi: tuple[int, int, int, int] | None = None, mode: str = "flatten", warn=print,
                 distance: tuple[float, float] = DEFAULT_DISTANCE, fall_deg: float | None = None,
                 prepare: bool = True):
        """prepare: build the codebooks and templates now (seconds); not for a decoder that only hands
        its settings to decoding processes, which build their own."""
        self.backend = backend(decoder, warn=warn)
        self.design = labels.Design(diameter)
        self.fov, self.roi, self.mode, self.distance = fov, roi, mode, tuple(distance)
        self.fall_deg = fall_deg           # balls move this way in the image (degrees, y down); None: unknown
        if not self.design.radius < self.distance[0] <= self.distance[1]:
            raise ValueError(f"ball distance {list(self.distance)} mm: near then far, both beyond the ball's "
                             f"radius ({self.design.radius:g} mm)")
        if prepare:
            match.prepare()
            numeral.prepare(self.design)
        if mode not in ("flatten", "raw"):
            raise ValueError(f"unknown mode {mode!r}")

    @property
    def name(self) -> str:
        return self.backend.name

    def twin(self) -> "BallDecoder":
        """Another decoder with the same settings, for a second decoding thread."""
        return BallDecoder(self.name, self.design.diameter, self.fov, self.roi, self.mode, warn=lambda _: None,
                           distance=self.distance, fall_deg=self.fall_deg)

    def warm(self) -> FrameRead:
        """Read a drawn ball once, its label facing the camera, and say what it read. A decoder's
        first read builds what later ones reuse (sampling grids, patterns at the rig's scale):
        done at start, it is not paid by the first ball going by."""
        return self.read(_drawn_ball(self.design, self.fov, self.distance[0]))

    def read(self, image: np.ndarray) -> FrameRead:
        start = time.perf_counter()
        result = self._read(image)
        result.ms = (time.perf_counter() - start) * 1000
        return result

    def _read(self, image: np.ndarray) -> FrameRead:
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        view = View.of(gray.shape[1], gray.shape[0], self.fov)
        origin = (0, 0)
        if self.roi:
            x, y, w, h = self.roi
            x0, y0 = min(max(x, 0), gray.shape[1]), min(max(y, 0), gray.shape[0])
            gray, origin = gray[y0:max(y + h, y0), x0:max(x + w, x0)], (x0, y0)
            if min(gray.shape[:2]) < 32:
                return FrameRead(None, False, f"the region of interest {list(self.roi)} is (nearly) outside "
                                              "the frame", self.name)
        if self.mode == "raw":
            return self._verdict([_BallRead(None, self.backend.decode(gray), False)])
        doubtful: list[Circle] = []
        reads = []
        for circle in find_balls(gray, ball_radius_px(view, self.design.radius, self.distance), doubtful=doubtful):
            read = self._read_ball(gray, circle, view, origin)
            if read is None:            # round and ball-sized, its outline misjudged: still what may be a ball
                doubtful.append(circle)
            else:
                reads.append(read)
        return self._verdict(reads, [Circle(c.x + origin[0], c.y + origin[1], c.r) for c in doubtful])

    def _read_ball(self, gray, circle: Circle, view: View, origin) -> _BallRead | None:
        """The labels on one round blob; None when its outline puts it where no ball can be."""
        in_frame = Circle(circle.x + origin[0], circle.y + origin[1], circle.r)
        near, far = self.distance
        centre = sphere_fit(circle.rim, view, self.design.radius, origin)
        if centre is None or not 2 * self.design.radius < centre[2] < 100 * self.design.diameter:
            centre = ball_centre(in_frame, view, self.design.radius)
        if not 0.8 * near <= np.linalg.norm(centre) <= 1.2 * far:
            return None
        box = gray[max(int(circle.y - circle.r / 2), 0):int(circle.y + circle.r / 2),
                   max(int(circle.x - circle.r / 2), 0):int(circle.x + circle.r / 2)]
        fill = int(cv2.mean(box)[0])
        first_only = share_in_view(circle, gray.shape) < FIRST_TRY_ONLY_BELOW
        leanings: set[int] = set()
        for image in self._sharpened(gray, circle):
            texts, matched, normal = self._decode_surface(image, view, centre, origin, fill, leanings, first_only)
            if texts or first_only:
                break
        read = _BallRead(in_frame, texts, matched, leanings=leanings)
        if read.ball is not None:
            read.witnessed = numeral.witnesses(image, view, centre, normal, self.design, read.ball, origin, fill)
        return read

    def _sharpened(self, gray: np.ndarray, circle: Circle):
        """The frame to read the ball in, then its second chance. Where the rig says which way
        balls fall: a ball streaked along it (motion_blur measures the streak) is read
        deblurred by the streak's length, then deblurred sharper (less noise assumed: more
        ringing, which reads some labels the default leaves soft; as taken read almost none of
        them); one with no clear streak as taken, then deblurred by DEBLUR_GUESS_PX. Elsewhere,
        as taken only."""
        if self.fall_deg is None:
            yield gray
            return
        angle = math.radians(self.fall_deg)
        length = blur_length(gray, circle, angle)
        if length is None:
            yield gray
            yield deblurred(gray, circle, DEBLUR_GUESS_PX, angle)
        else:
            yield deblurred(gray, circle, length, angle)
            yield deblurred(gray, circle, length, angle, SHARPER_NOISE)

    def _decode_surface(self, gray, view: View, centre: np.ndarray, origin, fill: int, leanings: set,
                        first_only: bool) -> tuple[list[str], bool, np.ndarray]:
        """Unroll the visible cap coarsely to find the labels, then each label at full detail,
        the one facing the camera most squarely first. Each of the first REPAIR_CANDIDATES that
        does not decode is matched at once (a label blurred past decoding is what a chute shows
        most: matching it before unrolling the others saves their time); then a finder square
        drawn back on them. Returns the texts read, whether the ball was matched, not decoded, and
        where on the ball (its outward normal) the last label tried lies; the balls the matched
        labels lean to are added to `leanings`. `first_only`: the label facing the camera most
        squarely, decoded and matched, is all that is tried.
        A label that decodes to a text that is not a ball label ends it: that is not one of our
        balls, and no blurred neighbour of that label is matched to one."""
        r = self.design.radius
        facing = -centre / np.linalg.norm(centre)
        native = view.focal / (np.linalg.norm(centre) - r)        # the camera's px per mm at the facing point
        half = r * math.radians(OVERVIEW_DEG)
        overview, frame = unroll(gray, view, centre, r, facing, half, native * OVERVIEW_SCALE, origin, fill)
        size = overview.shape[0]
        texts: list[str] = []
        module_px = self.design.module * self.backend.px_per_mm
        unread: list[tuple[np.ndarray, np.ndarray]] = []     # the labels as last unrolled, for second chances
        normal = facing
        for x, y in label_spots(overview, size / (2 * half), self.design):
            patch, normal, found = self._label_at(gray, view, centre, point_on_ball(frame, x, y, size, half, r),
                                                  origin, fill)
            texts += found
            if found:
                return texts, False, normal
            if len(unread) < REPAIR_CANDIDATES:
                weighed = match.weighed(patch, module_px)
                if weighed.ball is not None:
                    return texts + [labels.payload(weighed.ball)], True, normal
                leanings.update({weighed.leaning} - {None})
            unread.append((patch, normal))
            if first_only:
                return texts, False, normal
        for patch, normal in unread[:REPAIR_CANDIDATES]:
            for fixed in finder_restored(patch, module_px):
                found = self.backend.decode(fixed)
                texts += found
                if found:
                    return texts, False, normal
        return texts, False, normal

    def _label_at(self, gray, view: View, centre: np.ndarray, normal: np.ndarray, origin, fill: int
                  ) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """The label around `normal` unrolled flat and decoded: the patch as last unrolled, where
        it lies (the normal it was unrolled round) and the texts. The overview is coarse: when the first patch does not decode, it is centred
        on the label as it shows it (found at a third of the detail, which is plenty) and tried
        again."""
        r, ppm = self.design.radius, self.backend.px_per_mm
        # any turn of the QR fits, and the overview's error in finding it (p90: 2 mm)
        label_half = self.design.qr * 0.5 * math.sqrt(2) + 2 * self.design.module + self.backend.margin_mm
        patch, patch_frame = unroll(gray, view, centre, r, normal, label_half, ppm, origin, fill)
        found = self.backend.decode(patch)
        if found:
            return patch, normal, found
        small = cv2.resize(patch, None, fx=1 / 3, fy=1 / 3, interpolation=cv2.INTER_AREA)
        spot = label_spots(small, small.shape[0] / (2 * label_half), self.design, most=1)
        if not spot:
            return patch, normal, []
        x, y = ((v + 0.5) * patch.shape[0] / small.shape[0] - 0.5 for v in spot[0])
        if math.hypot(x - patch.shape[0] / 2, y - patch.shape[0] / 2) / ppm < 1.5 * self.design.module:
            return patch, normal, []
        normal = point_on_ball(patch_frame, x, y, patch.shape[0], label_half, r)
        patch, _ = unroll(gray, view, centre, r, normal, label_half, ppm, origin, fill)
        return patch, normal, self.backend.decode(patch)

    def _verdict(self, reads: list[_BallRead], doubtful: list[Circle] = ()) -> FrameRead:
        """One ball named, or why not. Several round, ball-sized blobs are several balls in view
        (a second rolling into the tray): an alert, whatever they read, never a ball; so is a
        ball read beside a ball-sized blob whose outline could not be told (one cut off by the
        frame's corner, say) that is not a piece of the ball read."""
        others = [t for r in reads for t in r.texts if labels.parse_payload(t) is None]
        named = sorted({r.ball for r in reads if r.ball is not None})
        if not reads:
            return FrameRead(None, False, "no ball in view", self.name)
        circle = reads[0].circle
        if len(reads) > 1:
            what = f"balls {', '.join(map(str, named))} read" if named else "none read"
            why = f"{len(reads)} balls in view ({what})"
            return FrameRead(None, True, why, self.name, circle=circle, others=others, conflict=tuple(named),
                             alert=why)
        if len(named) > 1:
            return FrameRead(None, True, f"conflicting labels {named}", self.name, circle=circle, others=others,
                             conflict=tuple(named))
        if named and apart_from(doubtful, circle):
            why = f"ball {named[0]} read beside what may be a second ball"
            return FrameRead(None, True, why, self.name, circle=circle, others=others, conflict=tuple(named),
                             alert=why)
        read = reads[0]
        if read.ball is not None:
            how = "read by matching (too blurred to decode)" if read.matched else "read"
            return FrameRead(read.ball, True, how, self.name, circle=circle, others=others, matched=read.matched,
                             witnessed=read.witnessed)
        if others:
            return FrameRead(None, True, f"a code that is not a ball label: {others[0][:40]!r}", self.name,
                             circle=circle, others=others)
        leaning = next(iter(read.leanings)) if len(read.leanings) == 1 else None
        why = "ball found, no label readable" + (f" (leaning to ball {leaning})" if leaning else "")
        return FrameRead(None, True, why, self.name, circle=circle, leaning=leaning)


WARM_FRAME = (640, 480)        # the camera's default frame (drivers.ball_reader.Settings)


def _drawn_ball(design: labels.Design, fov: float, distance: float) -> np.ndarray:
    """A frame with one bright ball on a dark ground, `distance` mm from the camera on its axis,
    ball 1's label drawn flat where it faces the camera (a label that small lies almost flat)."""
    width, height = WARM_FRAME
    view = View.of(width, height, fov)
    px_per_mm = view.focal / (distance - design.radius)
    frame = np.full((height, width), 25, np.uint8)
    cv2.circle(frame, (width // 2, height // 2), round(view.focal * design.radius / distance), 215, -1,
               cv2.LINE_AA)
    quiet = 2                                           # modules of white round the symbol
    code = np.pad(~labels.modules(1), quiet, constant_values=True).astype(np.uint8) * 215
    side = round((labels.QR_MODULES + 2 * quiet) * design.module * px_per_mm)
    label = cv2.resize(code, (side, side), interpolation=cv2.INTER_AREA)
    top, left = (height - side) // 2, (width - side) // 2
    frame[top:top + side, left:left + side] = label
    return frame
