"""The cage link under fire: many draws through the simulated cage and the real host link,
with faults on the wire, unplugs and reboots; counts every ball lost or doubled.

One draw = one ball leaving the cage and read. The draws come from a model of the
referee's machine shared by the cage (it draws only balls in the machine) and the host
(a ball not in the machine raises an alert): the host removes each ball it receives, and
the machine refills when empty. After an unplug two more balls are read while the cable
is out; a reboot lands right after a read, before its ACK.
"""
from __future__ import annotations

import queue
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .cage_sim import Faults, FaultCounts, PtyPort, SimCage, SocketPort
from .protocol import BALLS
from .serial_link import LinkHealth, SerialLink

WAIT_SECONDS = 10.0   # a ball not delivered within this is given up on (counted lost if it never comes)
BURST = 2             # balls read while the cable is out


@dataclass
class Scenario:
    draws: int = 10_000
    faults: Faults = field(default_factory=lambda: Faults(corrupt=0.01, drop=0.01, duplicate=0.01, garbage=64))
    unplug_every: int = 500
    unplug_seconds: float = 0.5
    reboot_every: int = 1000
    baud: int = 115200
    transport: str = "pty"     # pty | socket
    seed: int = 1


@dataclass
class Result:
    scenario: Scenario
    drawn: int
    delivered: int             # draws that reached the host at least once
    lost: int                  # draws that never reached it
    doubled: int               # deliveries beyond the first of the same draw
    phantoms: int              # deliveries of balls never drawn
    out_of_order: int
    alerts: int
    latencies: list[float]     # seconds, ball read -> host callback
    reconnects: list[float]    # seconds, replug -> port open again
    faults: FaultCounts
    health: LinkHealth
    seconds: float
    resent: int                # BALL frames the cage resent over every boot (its own count)

    @property
    def reconnect_ok(self) -> bool:
        return len(self.reconnects) == self.faults.unplugs and all(r <= 2.0 for r in self.reconnects)

    @property
    def passed(self) -> bool:
        return not (self.lost or self.doubled or self.phantoms or self.out_of_order) and self.reconnect_ok


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class _Machine:
    """The referee's machine as far as the bench needs it: thread-safe, refilled when empty."""

    def __init__(self):
        self.lock = threading.Lock()
        self.balls = set(BALLS)

    def contents(self) -> set[int]:
        with self.lock:
            return set(self.balls)

    def take(self, ball: int) -> None:
        with self.lock:
            self.balls.discard(ball)
            if not self.balls:
                self.balls = set(BALLS)


def run(scenario: Scenario = Scenario(), progress=None) -> Result:
    machine = _Machine()
    arrivals: queue.Queue = queue.Queue()

    def on_read(read) -> None:
        machine.take(read.ball)
        arrivals.put((time.monotonic(), read))

    with tempfile.TemporaryDirectory(prefix="cage-bench-") as folder:
        port = PtyPort(str(Path(folder) / "cage")) if scenario.transport == "pty" else SocketPort()
        with SimCage(port, machine.contents, scenario.faults, scenario.seed, scenario.baud) as sim, \
                SerialLink(sim.url, on_read, baud=scenario.baud, machine=machine.contents) as link:
            return _Run(scenario, sim, link, arrivals, progress).go()


class _Run:
    def __init__(self, scenario, sim, link, arrivals, progress):
        self.s, self.sim, self.link, self.arrivals = scenario, sim, link, arrivals
        self.progress = progress or (lambda text: None)
        self.drawn_at: dict[tuple, float] = {}     # (boot, seq) -> when read
        self.order: list[tuple] = []               # (boot, seq) in draw order
        self.got: list[tuple] = []                 # (boot, seq) in arrival order
        self.latencies: list[float] = []
        self.reconnects: list[float] = []
        self.alerts = 0
        self.outstanding: set[tuple] = set()

    def go(self) -> Result:
        started = time.monotonic()
        _until(lambda: self.link.health().connected, 5)
        burst = 0
        for n in range(1, self.s.draws + 1):
            self._draw()
            if n % self.s.unplug_every == 0:
                self.sim.unplug(self.s.unplug_seconds)
                burst = BURST
            elif burst:
                burst -= 1
            if n % self.s.reboot_every == 0:
                self.sim.reboot()
            if not burst:
                self._wait(WAIT_SECONDS)
                self._note_reconnect()
            if n % 1000 == 0 or n == self.s.draws:
                self.progress(f"  {n:>6}/{self.s.draws} draws read, {len(set(self.got))} delivered, "
                              f"{len(self.got) - len(set(self.got))} doubled, {time.monotonic() - started:.0f} s")
        self._wait(WAIT_SECONDS)
        _until(self._reconnected, 5)    # the last unplug may not have held up any ball
        self._note_reconnect()
        _until(lambda: self.link.health().boot_id == self.sim.boot, 5)   # the last reboot's HELLO or heartbeat
        time.sleep(0.5)   # anything still coming (a late double) arrives now
        shown = lambda: self.sim.resent() - self.sim.counts.unkept    # what the HBs and ENDs can carry
        _until(lambda: self.link.health().retransmits >= shown(), 10)
        while not self.arrivals.empty():
            self._collect(0)
        return self._result(time.monotonic() - started)

    def _draw(self) -> None:
        for _ in range(3):
            t0 = time.monotonic()
            drawn = self.sim.draw()
            if drawn:
                ball, boot, seq = drawn
                self.drawn_at[(boot, seq)] = t0
                self.order.append((boot, seq))
                self.outstanding.add((boot, seq))
                return
            self._wait(WAIT_SECONDS)   # the machine is empty until the host takes what is on the way
        raise RuntimeError("the simulated machine stayed empty")

    def _wait(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while self.outstanding and time.monotonic() < deadline:
            self._collect(deadline - time.monotonic())

    def _collect(self, seconds: float) -> None:
        try:
            at, read = self.arrivals.get(timeout=max(seconds, 0.001))
        except queue.Empty:
            return
        key = (read.boot_id, read.seq)
        self.got.append(key)
        self.alerts += read.alert is not None
        if key in self.outstanding:
            self.outstanding.discard(key)
            self.latencies.append(at - self.drawn_at[key])

    def _reconnected(self) -> bool:
        replugs, opened = self.sim.replugged_at, self.link.health().connected_at or 0
        return len(replugs) == self.sim.counts.unplugs and (not replugs or opened >= replugs[-1])

    def _note_reconnect(self) -> None:
        if len(self.reconnects) < len(self.sim.replugged_at):
            opened = self.link.health().connected_at or 0
            replugged = self.sim.replugged_at[len(self.reconnects)]
            if opened >= replugged:
                self.reconnects.append(opened - replugged)

    def _result(self, seconds: float) -> Result:
        drawn, got = set(self.order), set(self.got)
        firsts = [key for key in dict.fromkeys(self.got) if key in drawn]
        expected = [key for key in self.order if key in got]
        return Result(self.s, len(self.order), len(drawn & got), len(drawn - got), len(self.got) - len(got),
                      len(got - drawn), sum(a != b for a, b in zip(firsts, expected)), self.alerts,
                      self.latencies, self.reconnects, self.sim.counts, self.link.health(), seconds,
                      self.sim.resent())


def _until(condition, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


def report(result: Result) -> list[str]:
    s, f, h = result.scenario, result.faults, result.health
    ms = lambda seconds: f"{seconds * 1000:.1f} ms"
    reconnect = (f"median {statistics.median(result.reconnects):.2f} s, max {max(result.reconnects):.2f} s"
                 if result.reconnects else "none measured")
    verdict = lambda ok: "OK" if ok else "FAILED"
    return [
        f"faults injected, seen and recovered ({s.transport}, {s.baud} baud, {result.seconds:.0f} s):",
        f"  corrupted bytes   {f.corrupted_bytes} in {f.corrupted_lines} lines (both ways) -> "
        f"host dropped {h.crc_errors} damaged lines, cage dropped {h.cage_errors}",
        f"  dropped lines     {f.dropped_to_host} to host, {f.dropped_to_cage} to cage -> "
        f"cage resent {result.resent} frames (timer, NAK, SYNC or damaged line), {f.unkept} not yet on flash "
        f"at a reboot; host shows {h.retransmits}",
        f"  duplicated lines  {f.duplicated} -> host suppressed {h.duplicates} repeats "
        f"(duplicates and resends whose ACK was lost)",
        f"  boot garbage      {f.garbage_bytes} bytes over {f.reboots} boots -> skipped (noise before a frame, or a damaged line)",
        f"  unplug/replug     {f.unplugs} -> host reconnected {h.reconnects} times; "
        f"back {reconnect} after replug",
        f"  MCU reboots       {f.reboots} -> host saw {h.reboots} new boot ids; "
        f"{f.carried_over} unACKed balls kept in flash and delivered after the reboot",
        f"draws: {result.drawn} read, {result.delivered} delivered, {result.lost} lost, {result.doubled} doubled, "
        f"{result.phantoms} never drawn, {result.out_of_order} out of order, {result.alerts} alerts",
        f"refused by the host: {h.malformed} malformed frames, {h.gaps} out of sequence",
        f"latency, ball read -> host: median {ms(statistics.median(result.latencies))}, "
        f"p95 {ms(percentile(result.latencies, 0.95))}, max {ms(max(result.latencies))}"
        if result.latencies else "latency: nothing delivered",
        f"targets: zero lost {verdict(not result.lost)}, zero doubled {verdict(not result.doubled)}, "
        f"in order {verdict(not result.out_of_order)}, "
        f"reconnect <= 2 s {verdict(result.reconnect_ok)}",
    ]
