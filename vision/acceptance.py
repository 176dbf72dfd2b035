"""Acceptance: from per-frame reads to a ball the referee may draw.

A ball is reported only when `agree` frames read the same ball within `window_ms` of the
window opening (the break-beam, when fitted, or the first frame that shows a ball). A frame
whose QR read and whose printed numerals show the same ball (`witnessed`: vision.balls.numeral)
counts as a second frame, once a window: one witnessed read is enough when `agree` is 2. A
numeral is never read alone: it only ever vouches for the QR read beside it. The frames of one
pass are combined the same way: a frame that found the ball but could not read it, whose labels
only lean to one ball (`leaning`: closer to that printed label than to any other, below the bar
to name it: vision.balls.match), counts once a window for the ball another frame read, and only
when no frame of the window leans to another ball. Two
different balls read in one window is an alert, never a guess; so is a ball the referee
does not have in the machine, and a ball seen but not read in time. After a verdict the
acceptor waits for the ball to leave (frames showing no ball for `gone_ms`: one frame that misses
the ball, however late it comes, is not the ball gone) or for the next beam.

Pure logic: times come in with the frames (seconds, any monotonic clock), so the same code
runs live, on recorded frames and in the benchmark.
"""
from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

DEFAULT_WINDOW_MS = 1500
DEFAULT_AGREE = 2
DEFAULT_GONE_MS = 300


@dataclass(frozen=True)
class BallRead:
    """A ball accepted: what the console submits as {"do": "draw_ball", "ball": ...}."""
    ball: int
    at: float              # when accepted (the clock of the frames)
    first_seen: float      # when the window opened
    reads: int             # frames that read this ball
    frames: int            # frames in the window

    @property
    def latency_ms(self) -> float:
        return (self.at - self.first_seen) * 1000

    def command(self) -> dict:
        return {"do": "draw_ball", "ball": self.ball}


@dataclass(frozen=True)
class Alert:
    """Something the operator must look at; nothing is drawn."""
    kind: str              # conflict | not_in_machine | unreadable | camera | decoder
    message: str
    at: float
    balls: tuple[int, ...] = ()


@dataclass
class _Window:
    opened: float
    reads: Counter = field(default_factory=Counter)
    witnessed: set = field(default_factory=set)     # balls a read frame's numerals agreed with
    leanings: set = field(default_factory=set)      # balls unread frames leaned to
    frames: int = 0

    def agreeing(self, ball: int) -> int:
        """Frames that read `ball`, one more when a numeral witnessed it, and one more when the
        unread frames leaned to it and to no other ball."""
        return self.reads[ball] + (ball in self.witnessed) + (self.leanings == {ball})


class Acceptor:
    """Feed it frames (and beam breaks); it returns BallRead and Alert messages."""

    def __init__(self, window_ms: int = DEFAULT_WINDOW_MS, agree: int = DEFAULT_AGREE,
                 gone_ms: int = DEFAULT_GONE_MS, places: Callable[[], dict] | None = None):
        if agree < 1 or window_ms <= 0 or gone_ms <= 0:
            raise ValueError("acceptance needs agree >= 1, window_ms > 0 and gone_ms > 0")
        self.window, self.agree, self.gone = window_ms / 1000, agree, gone_ms / 1000
        self.places = places                  # e.g. lambda: session.state.place
        self._open: _Window | None = None
        self._settled: set[int] = set()       # balls already ruled on while this ball stays in view
        self._holding = False                 # a verdict was given; waiting for the ball to leave
        self._crowded = False                 # told of several balls in view; not again until they leave
        self._unseen_since: float | None = None     # the first frame showing no ball since one did
        self._latest = float("-inf")          # the latest frame's time: a frame read late is ruled at it

    def trial(self) -> "Acceptor":
        """A copy to try frames on: what they would decide, this acceptor unchanged."""
        other = copy.copy(self)
        other._open, other._settled = copy.deepcopy(self._open), set(self._settled)
        return other

    def open_since(self, now: float) -> float | None:
        """When the window still waiting for a verdict at `now` opened; None when none is open or
        its time has run out (a frame taken after that could not count)."""
        if self._open is None or now >= self._open.opened + self.window:
            return None
        return self._open.opened

    def beam(self, t: float) -> list:
        """The break-beam saw a ball pass: a new ball, whatever came before."""
        out = self._expire(t)
        self._settled, self._holding, self._crowded = set(), False, False
        self._open = _Window(t)
        return out

    def tick(self, t: float) -> list:
        """Time passes without a frame (call it now and then): windows still expire."""
        return self._expire(t)

    def frame(self, t: float, found: bool, ball: int | None, conflict: tuple[int, ...] = (), alert: str = "",
              witnessed: bool = False, leaning: int | None = None) -> list:
        """One frame's result: a ball in view or not, the ball read or None, or several balls
        (`conflict`: the balls read; `alert`: why the frame shows more than one ball);
        `witnessed`: the numerals beside the label that read `ball` show it too; `leaning`: the
        ball an unread frame's labels lean to. A frame older than one fed before it (the reader
        ruled on later frames while it was still being read) counts at the latest frame's time:
        the acceptor's clock never goes back, so a late empty frame never hastens the ball's leaving."""
        t = self._latest = max(t, self._latest)
        out = self._expire(t)
        seen = found or ball is not None or bool(conflict) or bool(alert)
        if seen:
            self._unseen_since = None
        elif self._unseen_since is None:
            self._unseen_since = t
        elif self._holding and t - self._unseen_since >= self.gone:
            self._settled, self._holding, self._crowded = set(), False, False      # the ball has left
        new = [b for b in (conflict or ((ball,) if ball is not None else ())) if b not in self._settled]
        if self._crowded:             # told of several balls: nothing more until the view clears
            return out
        if alert:                     # several balls in view: rule on nothing until a person looks
            self._crowded = True
            if self._open is None:
                self._open = _Window(t)
            self._open.frames += 1
            return out + self._close(Alert("conflict", f"{alert}: check the tray by hand; nothing drawn", t,
                                           tuple(conflict)))
        if self._open is None:
            if not (new or (seen and not self._holding)):
                return out
            self._open = _Window(t)
        window = self._open
        window.frames += 1
        if conflict:
            return out + self._close(Alert("conflict", f"one frame shows balls {_list(conflict)}: "
                                                       "check the ball by hand", t, tuple(conflict)))
        if new:
            window.reads[new[0]] += 1
            if witnessed:
                window.witnessed.add(new[0])
        elif leaning is not None and ball is None:
            window.leanings.add(leaning)
        if len(window.reads) > 1:
            balls = tuple(sorted(window.reads))
            return out + self._close(Alert("conflict", f"frames disagree: read balls {_list(balls)}; "
                                                       "check the ball by hand", t, balls))
        if window.reads and window.agreeing(window.reads.most_common(1)[0][0]) >= self.agree:
            return out + self._close(self._verdict(window, t))
        return out

    def _verdict(self, window: _Window, t: float):
        ball, reads = window.reads.most_common(1)[0]
        where = (self.places() or {}).get(ball, "machine") if self.places else "machine"
        if where != "machine":
            return Alert("not_in_machine", f"read ball {ball}, but the referee has it {where}, not in the "
                                           "machine: not drawn", t, (ball,))
        return BallRead(ball, t, window.opened, reads, window.frames)

    def _close(self, message, settle: bool = True) -> list:
        """The window's verdict; settle: its balls are ruled on while they stay in view (not read again)."""
        window = self._open
        if settle:
            self._settled |= set(window.reads) | set(getattr(message, "balls", ()))
        if isinstance(message, BallRead):
            self._settled.add(message.ball)
        self._open, self._holding = None, True
        return [message]

    def _expire(self, t: float) -> list:
        window = self._open
        if window is None or t - window.opened < self.window:
            return []
        at = window.opened + self.window
        if window.reads:
            ball, n = window.reads.most_common(1)[0]
            text = f"ball {ball} read in only {n} of the {self.agree} frames needed: check it by hand"
            # not settled: staff turn it and show it again, and a busy reader may read no empty view between
            return self._close(Alert("unreadable", text, at, (ball,)), settle=False)
        return self._close(Alert("unreadable", "a ball went by but its label could not be read: "
                                               "turn it to the camera or enter it by hand", at))


def _list(balls) -> str:
    return ", ".join(map(str, balls))
