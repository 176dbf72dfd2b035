"""The camera's exposure for a chute, from a test drop: how fast the ball goes, and the longest
exposure that keeps its motion blur where the reader reads it.

A ball moving at v px/s smears v x exposure (s) px in one frame. A test drop gives v: the
ball's centre moves so many px from one frame to the next, and frames come `fps` a second;
the ball's diameter in px against its diameter in mm turns px into mm. The ball speeds up down
the chute, so its fastest step in view is the one that counts. Only frames showing the whole
ball are used: where the frame's edge cuts it, its outline's centre is not the ball's.
Pure logic: sightings in, a proposal out (the calibration screen shows it).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

# the blur the reader reads nearly every frame at (the bench's 2-7 px band); deblurring along
# the fall direction reads further, to about 15 px, but fewer frames
BLUR_LIMIT_PX = 7.0
SHORTEST_US = 10                     # what [camera] exposure_us accepts
EDGE_PX = 2.0                        # a ball this near the frame's edge may be cut by it


class DropError(ValueError):
    """A test drop that cannot give a speed: one line saying why."""


@dataclass(frozen=True)
class Sighting:
    """The ball in one frame of the drop: frame number (in capture order), centre and diameter, px."""
    seq: int
    x: float
    y: float
    diameter: float


@dataclass(frozen=True)
class Proposal:
    speed_px_s: float
    speed_m_s: float
    exposure_us: int                 # the longest exposure keeping the blur within limit_px
    limit_px: float
    current_us: int | None           # the exposure now (None: automatic)
    frame_us: int                    # one frame's time at fps: the longest any exposure can be
    blur_now_px: float               # the blur now (automatic: at most this, a whole frame's exposure)
    light: float                     # times the light the proposal needs, against the exposure now

    def lines(self) -> list[str]:
        now = (f"now {self.current_us} µs" if self.current_us is not None
               else f"now automatic (at most one frame, {self.frame_us} µs)")
        blur = f"{'up to ' if self.current_us is None else ''}{self.blur_now_px:.1f} px"
        light = ("no more light than now" if self.light <= 1 else
                 f"{self.light:.1f}x the light of {'now' if self.current_us is not None else 'a whole frame'}"
                 " (or that much more gain, with more noise)")
        return [f"ball speed {self.speed_m_s:.2f} m/s ({self.speed_px_s:.0f} px/s at its fastest in view)",
                f"exposure_us = {self.exposure_us} keeps blur within {self.limit_px:g} px "
                f"({now}: blur {blur})",
                f"light: {light}"]


def ball_sightings(seen: list[tuple[int, float, float, float] | None], width: int, height: int) -> list[Sighting]:
    """The frames of a drop (seq, x, y, radius px, or None where no ball was found) that show
    the whole ball: its outline clear of the frame's edge."""
    whole = []
    for item in seen:
        if item is None:
            continue
        seq, x, y, r = item
        if EDGE_PX <= x - r and x + r <= width - EDGE_PX and EDGE_PX <= y - r and y + r <= height - EDGE_PX:
            whole.append(Sighting(seq, x, y, 2 * r))
    return whole


def chute_speed(sightings: list[Sighting], fps: float, ball_mm: float) -> tuple[float, float]:
    """(px/s, m/s) at the ball's fastest step between frames of the drop."""
    steps = [(b, a) for a, b in zip(sightings, sightings[1:]) if b.seq > a.seq]
    if not steps:
        raise DropError(f"the test drop showed the whole ball in {len(sightings)} frame(s): two are needed "
                        "(drop it again; a lower fps or a wider view shows it longer)")
    px_per_s = max(math.hypot(b.x - a.x, b.y - a.y) / (b.seq - a.seq) * fps for b, a in steps)
    diameters = sorted(s.diameter for s in sightings)
    px_per_mm = diameters[len(diameters) // 2] / ball_mm
    return px_per_s, px_per_s / px_per_mm / 1000


def propose_exposure(sightings: list[Sighting], fps: float, ball_mm: float, current_us: int | None = None,
                     limit_px: float = BLUR_LIMIT_PX) -> Proposal:
    """The longest exposure (µs) keeping the drop's blur within limit_px, and the light it needs
    against the exposure now (automatic: against a whole frame's, the most it can be)."""
    px_per_s, m_per_s = chute_speed(sightings, fps, ball_mm)
    frame_us = int(1_000_000 / fps)
    if px_per_s <= 0:
        raise DropError("the ball did not move between frames: drop it down the chute, not held in view")
    longest = min(int(limit_px / px_per_s * 1_000_000), frame_us)
    exposure_us = max(longest, SHORTEST_US)
    now_us = current_us if current_us is not None else frame_us
    return Proposal(px_per_s, m_per_s, exposure_us, limit_px, current_us, frame_us,
                    blur_now_px=px_per_s * now_us / 1_000_000, light=now_us / exposure_us)
