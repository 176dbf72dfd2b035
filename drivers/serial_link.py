"""The host end of the cage link: a pyserial URL read in a thread, balls out, health for the screens.

Two modes (event file [serial] mode):
- "framed": the cage firmware's protocol (hardware/PROTOCOL.md, the contract this follows
  rule by rule): CRC-checked frames, a BALL delivered and ACKed only when its seq is the next
  of its boot, de-duplicated by (boot id, seq), heartbeats, NAK on a damaged line, and an
  alert (on_alert, health().alert) for every frame refused.
- "raw": a plain barcode scanner that types one label per line (ended by CR, LF or CR LF);
  a line holding one printed ball label (vision.ball_labels: "PB", the ball, two check
  digits), whatever the scanner puts round it (an AIM id like ]Q1, a prefix or suffix), is
  that ball, anything else none; a repeat of the same ball within raw_repeat_seconds is the
  scanner repeating itself and is suppressed.

Either way each new ball goes to on_read (a callable, or a queue: anything with put) as a
BallRead; a ball the referee says is not in the machine comes with an alert. A
ReconnectingReader (drivers/serial_reader.py) keeps the port open; the mode's protocol object
(CageProtocol, ScannerProtocol) turns its bytes into balls and replies; SerialLink joins the two.
"""
from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace

import serial

from vision import ball_labels

from . import protocol as p
from .serial_reader import BACKOFF, ReconnectingReader

MODES = ("framed", "raw")
STALE_SECONDS = 3.0          # no heartbeat for this long: the cage link is not healthy
HELLO_RETRY_SECONDS = 0.5    # a heartbeat from a boot whose HELLO (or END) is missing asks again, at most this often
END_ASKS = 10                # SYNCs sent for one earlier boot's END before its counts are taken as lost
ALERT_REPEAT_SECONDS = 30.0  # the same alert is passed to on_alert again after this long
LABEL = re.compile(rf"{ball_labels.PREFIX}\d{{4}}(?!\d)")    # a printed ball label in a scanner's line (checked after)


class LinkError(ValueError):
    """A configuration the link cannot work with (bad URL, mode, pattern)."""


@dataclass(frozen=True)
class BallRead:
    ball: int
    source: str              # "cage" (framed) or "scanner" (raw)
    boot_id: str | None      # the cage boot that read it (framed)
    seq: int                 # the cage's sequence number, or the scanner's line count (raw)
    at: float                # time.time() when the host received it
    raw: str                 # the line as received
    alert: str | None = None   # e.g. "ball 7 is not in the machine (it is pool)"


@dataclass
class LinkHealth:
    url: str
    mode: str
    connected: bool = False
    heartbeat_age: float | None = None   # seconds since the cage (or scanner) last sent a good line
    firmware: str | None = None
    boot_id: str | None = None
    reader: str = "unknown"              # the cage's own reader: ok | fault | unknown
    pending: int = 0                     # balls the cage still holds unACKed (its heartbeat)
    frames: int = 0                      # good frames (framed) or lines (raw) received
    reads: int = 0                       # balls delivered to on_read
    crc_errors: int = 0                  # damaged lines dropped (bad or missing CRC, noise, too long): NAKed
    malformed: int = 0                   # good CRC, but the grammar is broken: refused; raw: lines not a ball
    retransmits: int = 0                 # BALLs the cage sent again: per boot its last HB or END rtx, summed
    cage_errors: int = 0                 # lines the cage dropped as bad: per boot its last bad, summed
    duplicates: int = 0                  # BALLs repeating the last delivered seq of their boot: ACKed again
    gaps: int = 0                        # BALLs refused for their seq (not the next of their boot), and
                                         # heartbeats saying a ball this host never had was ACKed
    reconnects: int = 0                  # connections that heard a good line, after the first that did
    reboots: int = 0                     # cage boot ids heard from, after the first
    alerts: int = 0                      # reads delivered with an alert, and link alerts (refused frames)
    alert: str | None = None             # the last link alert
    alert_age: float | None = None       # seconds since it
    last_error: str | None = None
    connected_at: float | None = None    # time.monotonic() of the last successful open

    @property
    def ok(self) -> bool:
        if self.mode == "raw":
            return self.connected
        return (self.connected and self.heartbeat_age is not None
                and self.heartbeat_age < STALE_SECONDS and self.reader != "fault"
                and (self.alert_age is None or self.alert_age >= STALE_SECONDS))


def machine_balls(contents) -> set[int]:
    """The balls in the machine from a place map (ball -> place) or an iterable of balls."""
    if isinstance(contents, Mapping):
        return {ball for ball, where in contents.items() if where == "machine"}
    return set(contents)


def alert_for(ball: int, machine) -> str | None:
    """Why a read of `ball` needs the operator, given the referee's machine contents (a place
    map, the balls in the machine, or a callable returning either, e.g. lambda: s.state.place)."""
    if machine is None:
        return None
    contents = machine() if callable(machine) else machine
    if isinstance(contents, Mapping):
        where = contents.get(ball)
        return None if where == "machine" else f"ball {ball} is not in the machine (it is {where or 'unknown'})"
    return None if ball in contents else f"ball {ball} is not in the machine"


class LinkProtocol:
    """What both modes share: the health they report, alerts, and handing a ball on."""
    mode = ""

    def __init__(self, url: str, emit, machine, on_alert):
        self.machine, self._emit, self._on_alert = machine, emit, on_alert
        self._fresh = False                               # connected, no good line heard on it yet
        self._linked_before = False                       # an earlier connection heard a good line
        self._alerted: tuple[str, float] | None = None    # the last alert passed on, and when
        self._alert_at: float | None = None
        self._heard: float | None = None
        self._lines = self._splitter()
        self._h = LinkHealth(url, self.mode)

    def _splitter(self) -> p.Lines:
        return p.Lines()

    def health(self) -> LinkHealth:
        now = time.monotonic()
        age = None if self._heard is None else round(now - self._heard, 3)
        alert_age = None if self._alert_at is None else round(now - self._alert_at, 3)
        return replace(self._h, heartbeat_age=age, alert_age=alert_age, **self._totals())

    def _totals(self) -> dict:
        return {}

    def connection_made(self) -> list[bytes]:
        self._h.connected, self._h.connected_at, self._fresh = True, time.monotonic(), True
        self._lines = self._splitter()
        return []

    def connection_lost(self, why: str | None) -> None:
        self._h.connected = False
        if why:
            self._h.last_error = why

    def data_received(self, data: bytes) -> list[bytes]:
        """Bytes as read from the port (any part of a line); returns the frames to send back."""
        return [reply for line in self._lines.feed(data) for reply in self.handle(line)]

    def handle(self, line: bytes) -> list[bytes]:
        """Process one received line (no line end); returns the frames to send back."""
        raise NotImplementedError

    def _good_line(self) -> None:
        self._heard = time.monotonic()
        if self._fresh:
            self._fresh = False
            self._h.reconnects += self._linked_before
            self._linked_before = True

    def _alert(self, text: str) -> None:
        """A frame refused, or the cage's own counts disagreeing with ours: on screen, counted."""
        now = time.monotonic()
        self._h.alerts += 1
        self._h.alert, self._h.last_error, self._alert_at = text, text, now
        if self._alerted is None or self._alerted[0] != text or now - self._alerted[1] >= ALERT_REPEAT_SECONDS:
            self._alerted = (text, now)
            try:
                self._on_alert(text)
            except Exception as error:   # a failing screen must not kill the reader thread
                self._h.last_error = f"{text} (and showing it failed: {error!r})"

    def _deliver(self, ball: int, source: str, boot: str | None, seq: int, line: bytes,
                 link_alert: str | None = None) -> bool:
        """Hand the ball on; False (and an alert) if the consumer failed: then it is not ACKed."""
        alert = "; ".join(text for text in (link_alert, alert_for(ball, self.machine)) if text) or None
        read = BallRead(ball, source, boot, seq, time.time(), line.decode("ascii", "replace"), alert)
        try:
            self._emit(read)
        except Exception as error:   # a failing consumer must not kill the reader thread
            self._alert(f"ball {ball} read, but handing it on failed: {error!r}; not acknowledged")
            return False
        self._h.reads += 1
        self._h.alerts += alert is not None
        return True


class CageProtocol(LinkProtocol):
    """The cage firmware's framed protocol (hardware/PROTOCOL.md)."""
    mode = "framed"

    def __init__(self, url: str, emit, machine, on_alert, marks: dict | None = None):
        super().__init__(url, emit, machine, on_alert)
        self.marks: dict[str, int] = dict(marks or {})    # boot id -> last seq delivered
        self._rtx: dict[str, int] = {}                    # boot id -> the cage's counters
        self._bad: dict[str, int] = {}
        self._boots: list[str] = []                       # every cage boot id heard from, in that order
        self._hellos: set[str] = set()                    # boot ids whose HELLO arrived
        self._awaited: dict[str, str] = {}                # boot id -> the boot whose END its HELLO announced
        self._ends: set[str] = set()                      # boot ids whose END arrived
        self._end_asks: dict[str, int] = {}               # boot id -> SYNCs sent while its END was missing
        self._asked: float | None = None                  # when SYNC last asked for a missing HELLO

    def _totals(self) -> dict:
        return {"retransmits": sum(self._rtx.values()), "cage_errors": sum(self._bad.values()),
                "reboots": max(len(self._boots) - 1, 0)}

    def connection_made(self) -> list[bytes]:
        super().connection_made()
        return [p.encode(p.SYNC, p.NO_BOOT, 0)]        # SYNC asks for the truth

    def handle(self, line: bytes) -> list[bytes]:
        try:
            kind, boot, seq, payload = p.decode(line)
        except p.FrameError as error:
            if error.reason == p.DAMAGED:
                self._h.crc_errors += 1
                return [p.encode(p.NAK, p.NO_BOOT, 0)]
            self._h.malformed += 1
            self._alert(f"refused a malformed frame ({error.detail}): {_shown(line)}")
            return []
        self._h.frames += 1
        if kind not in p.CAGE_TYPES:
            return []    # a host frame coming back: a loopback, or an echo
        self._good_line()
        if kind == p.HELLO:
            self._hello(boot, p.fields(payload))
        elif kind == p.HB:
            return self._heartbeat(boot, seq, p.fields(payload))
        elif kind == p.END:
            self._ends.add(boot)
            self._counters(boot, p.fields(payload))
        elif kind == p.LOG:
            self._h.last_error = f"cage: {payload}"
        elif kind == p.BALL:
            return self._ball(boot, seq, p.ball_number(payload), line)
        return []

    def _boot_seen(self, boot: str) -> None:
        self._note_boot(boot)
        self._h.boot_id = boot

    def _note_boot(self, boot: str) -> None:
        if boot not in self._boots:
            self._boots.append(boot)

    def _hello(self, boot: str, values: dict) -> None:
        self._boot_seen(boot)
        self._hellos.add(boot)
        self._h.firmware = values["fw"]
        if "prev" in values:
            self._awaited[boot] = values["prev"]

    def _heartbeat(self, boot: str, seq: int, values: dict) -> list[bytes]:
        self._boot_seen(boot)
        self._h.reader = values["reader"]
        self._h.pending = int(values["pending"])
        self._counters(boot, values)
        self._check_all_delivered(boot, seq)
        return self._ask_again(boot)

    def _check_all_delivered(self, boot: str, seq: int) -> None:
        """A heartbeat saying every ball up to seq was ACKed, where we delivered fewer: one was lost."""
        last = self.marks.get(boot)
        if last is not None and self._h.pending == 0 and seq > last:
            self._h.gaps += 1
            self._alert(f"cage boot {boot} says balls up to seq {seq} were all acknowledged, but this host "
                        f"delivered only up to seq {last}: ball(s) lost")

    def _ask_again(self, boot: str) -> list[bytes]:
        """SYNC, at most every HELLO_RETRY_SECONDS, while this boot's HELLO or an earlier boot's END is missing."""
        missing = self._ends_missing(boot)
        if boot in self._hellos and not missing:
            return []
        now = time.monotonic()
        if self._asked is not None and now - self._asked < HELLO_RETRY_SECONDS:
            return []
        self._asked = now
        for earlier in missing:
            self._end_asks[earlier] = self._end_asks.get(earlier, 0) + 1
        return [p.encode(p.SYNC, p.NO_BOOT, 0)]

    def _ends_missing(self, boot: str) -> list[str]:
        """The earlier boots whose END the cage still keeps, as far as this host knows, and which has not
        arrived: the one this boot's HELLO announced, and the BOOTS_KEPT heard from before it."""
        before = self._boots[:self._boots.index(boot)][-p.cagelink.BOOTS_KEPT:]
        announced = self._awaited.get(boot)
        wanted = before + ([announced] if announced and announced not in before else [])
        return [earlier for earlier in wanted
                if earlier not in self._ends and self._end_asks.get(earlier, 0) < END_ASKS]

    def _counters(self, boot: str, values: dict) -> None:
        """rtx and bad count since the boot: the highest value a boot reported is its total."""
        self._rtx[boot] = max(self._rtx.get(boot, 0), int(values["rtx"]))
        self._bad[boot] = max(self._bad.get(boot, 0), int(values["bad"]))

    def _ball(self, boot: str, seq: int, ball: int, line: bytes) -> list[bytes]:
        """Deliver and ACK only the next seq of a boot; ACK the last delivered again; refuse the rest."""
        self._note_boot(boot)
        last = self.marks.get(boot)
        if last is not None and seq == last:
            self._h.duplicates += 1
            return [p.encode(p.ACK, boot, seq)]
        if last is not None and seq != last + 1:
            self._h.gaps += 1
            why = (f"seq {last + 1} has not arrived (one ball at a time)" if seq > last
                   else f"seq {last} was delivered already (a seq is never reused)")
            self._alert(f"refused ball {ball} of cage boot {boot} seq {seq}: {why}; not acknowledged")
            return []
        first = None if last is not None or seq == 1 else (
            f"first ball heard from cage boot {boot} is seq {seq}: the balls before it never reached this host")
        self.marks[boot] = seq      # before the consumer runs: the console saves the marks in it
        if not self._deliver(ball, "cage", boot, seq, line, first):
            self._unmark(boot, last)
            return []
        return [p.encode(p.ACK, boot, seq)]

    def _unmark(self, boot: str, last: int | None) -> None:
        if last is None:
            del self.marks[boot]
        else:
            self.marks[boot] = last


class ScannerProtocol(LinkProtocol):
    """A plain barcode scanner's lines, one label each."""
    mode = "raw"

    def __init__(self, url: str, emit, machine, on_alert, pattern=None, repeat: float = 2.0):
        super().__init__(url, emit, machine, on_alert)
        self._pattern, self._repeat = pattern, repeat
        self._last: tuple[int, float] | None = None       # the last ball and when

    def _splitter(self) -> p.Lines:
        return _ScannerLines()

    def handle(self, line: bytes) -> list[bytes]:
        text = line.decode("ascii", "replace").strip()
        if not text:
            return []
        now = time.monotonic()
        self._good_line()
        self._h.frames += 1
        ball = self._ball(text) if len(line) <= p.cagelink.MAX_LINE else None
        if ball is None:
            self._h.malformed += 1
            self._h.last_error = f"scanner sent {text[:30]!r}: not a ball label"
            return []
        repeat = self._last is not None and self._last[0] == ball and now - self._last[1] < self._repeat
        self._last = (ball, now)
        if repeat:
            self._h.duplicates += 1
            return []
        self._deliver(ball, "scanner", None, self._h.frames, line)
        return []

    def _ball(self, text: str) -> int | None:
        if self._pattern is None:
            return _label_ball(text)
        match = self._pattern.fullmatch(text)
        if not match:
            return None
        if "ball" in self._pattern.groupindex:
            found = match.group("ball")
        else:   # the first group, or the whole match when the pattern has none
            found = match.group(1 if self._pattern.groups else 0)
        ball = int(found) if found and found.isdigit() else 0
        return ball if ball in p.BALLS else None


class SerialLink:
    """with SerialLink(url, on_read) as link: ... link.health() ..."""

    def __init__(self, url: str, on_read, *, mode: str = "framed", baud: int = 115200, machine=None,
                 raw_pattern: str | None = None, raw_repeat: float = 2.0, marks: dict | None = None,
                 backoff: tuple[float, float] = BACKOFF, on_alert=None):
        if mode not in MODES:
            raise LinkError(f"serial mode must be one of {', '.join(MODES)}, not {mode!r}")
        try:
            serial.serial_for_url(url, do_not_open=True)
        except ValueError as error:
            raise LinkError(f"serial url {url!r}: {error}") from None
        except serial.SerialException:
            pass   # e.g. hwgrep:// finds no such device yet: it may be plugged in later
        pattern = _compile(raw_pattern)          # refused in either mode: the event file has it wrong
        self.url, self.mode, self.baud = url, mode, baud
        emit = on_read.put if hasattr(on_read, "put") else on_read
        on_alert = on_alert or (lambda text: None)
        self.protocol = (CageProtocol(url, emit, machine, on_alert, marks) if mode == "framed" else
                         ScannerProtocol(url, emit, machine, on_alert, pattern, raw_repeat))
        self._reader = ReconnectingReader(url, baud, self.protocol, backoff)

    @classmethod
    def from_config(cls, section: dict, on_read, **kw) -> "SerialLink":
        """From the event file's [serial] section: url, mode, baud, raw_pattern, raw_repeat_seconds."""
        if "url" not in section:
            raise LinkError("[serial] needs url (e.g. /dev/serial/by-id/..., hwgrep://2e8a:0005, socket://host:port)")
        return cls(section["url"], on_read, mode=section.get("mode", "framed"), baud=section.get("baud", 115200),
                   raw_pattern=section.get("raw_pattern"), raw_repeat=section.get("raw_repeat_seconds", 2.0), **kw)

    def start(self) -> "SerialLink":
        self._reader.start()
        return self

    def stop(self) -> None:
        self._reader.stop()

    def __enter__(self) -> "SerialLink":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def health(self) -> LinkHealth:
        return self.protocol.health()

    def marks(self) -> dict[str, int]:
        """Last seq delivered per cage boot: give it back as marks= after a restart."""
        return dict(getattr(self.protocol, "marks", {}))

    def receive(self, data: bytes) -> list[bytes]:
        """Bytes as read from the port (any part of a line); returns the frames to send back."""
        return self.protocol.data_received(data)

    def handle(self, line: bytes) -> list[bytes]:
        """Process one received line (no line end); returns the frames to send back."""
        return self.protocol.handle(line)


def _label_ball(text: str) -> int | None:
    """The ball of the one printed ball label in a scanner's line, or None (none, or two)."""
    balls = {ball_labels.parse_payload(found) for found in LABEL.findall(text)}
    return balls.pop() if len(balls) == 1 else None


class _ScannerLines(p.Lines):
    """A scanner's lines: ended by CR alone too (many scanners' default), by LF or by CR LF."""

    def feed(self, data: bytes) -> list[bytes]:
        return super().feed(data.replace(b"\r", b"\n"))


def _compile(pattern: str | None):
    if pattern is None:
        return None
    try:
        return re.compile(pattern)
    except re.error as error:
        raise LinkError(f"serial raw_pattern {pattern!r}: {error}") from None


def _shown(line: bytes) -> str:
    return line.decode("ascii", "replace")[:60]
