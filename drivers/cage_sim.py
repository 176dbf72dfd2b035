"""A virtual cage on the other end of the cable: the firmware's own protocol logic
(cagelink.Cage) behind a pseudo-terminal or a TCP socket, with faults injected on the wire.

The host talks to it exactly as to the real cage: SerialLink(sim.url, ...). The cage draws
only balls that are in the referee's machine: pass `machine` as a callable (lambda:
session.state.place) or a list of balls; without it, all 27, refilled when empty.
"""
from __future__ import annotations

import os
import queue
import random
import select
import socket
import threading
import time
import tty
from concurrent.futures import Future
from dataclasses import dataclass

from . import protocol as p
from .serial_link import machine_balls


@dataclass
class Faults:
    corrupt: float = 0.0     # chance each byte on the wire (either way) is replaced by another
    drop: float = 0.0        # chance a whole line (either way) is lost
    duplicate: float = 0.0   # chance the cage sends a line twice
    garbage: int = 0         # random bytes the cage spews as it boots (a bootloader banner)


@dataclass
class FaultCounts:
    corrupted_bytes: int = 0
    corrupted_lines: int = 0
    dropped_to_host: int = 0
    dropped_to_cage: int = 0
    duplicated: int = 0
    garbage_bytes: int = 0
    unplugs: int = 0
    reboots: int = 0
    carried_over: int = 0    # balls unACKed at a reboot, kept in flash and sent after it
    resent: int = 0          # BALL frames the cage sent again, over every boot (its own count)
    unkept: int = 0          # of those, counted by a boot in its last moments, not yet on flash at its reboot


class Flash:
    """The Pico's flash: what the cage saves survives its reboots."""

    def __init__(self):
        self.saved: list = []
        self.counts = []

    def load(self) -> list:
        return list(self.saved)

    def save(self, pending) -> None:
        self.saved = list(pending)

    def load_counts(self):
        return list(self.counts)

    def save_counts(self, counts) -> None:
        self.counts = list(counts)


class PtyPort:
    """A pseudo-terminal pair. The host opens `link`, a stable symlink like the udev rule's
    /dev/plunder-cage: unplugging removes it and closes the pty, replugging makes a new pty
    behind the same name."""

    def __init__(self, link: str | None = None):
        self.link = link
        self.path: str | None = None
        self.master = self.slave = None

    @property
    def url(self) -> str:
        return self.link or self.path

    def plug(self) -> None:
        if self.link and os.path.exists(self.link) and not os.path.islink(self.link):
            raise FileExistsError(f"{self.link} exists and is not a link to a pty: choose another name")
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)            # no echo, no newline translation before the host opens it
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        if self.link:
            temporary = f"{self.link}.new"
            if os.path.lexists(temporary):
                os.unlink(temporary)
            os.symlink(self.path, temporary)
            os.replace(temporary, self.link)

    def unplug(self) -> None:
        if self.link and os.path.islink(self.link):
            os.unlink(self.link)
        for fd in (self.master, self.slave):
            if fd is not None:
                os.close(fd)
        self.master = self.slave = None

    close = unplug

    def fds(self) -> list:
        return [] if self.master is None else [self.master]

    def receive(self, ready) -> bytes:
        if self.master is None or self.master not in ready:
            return b""
        try:
            return os.read(self.master, 4096)
        except OSError:
            return b""

    def send(self, data: bytes) -> None:
        if self.master is not None:
            try:
                os.write(self.master, data)
            except OSError:   # buffer full: nobody is reading, the bytes are lost as on a wire
                pass


class SocketPort:
    """A TCP listener on 127.0.0.1 (the host opens socket://127.0.0.1:PORT). Unplugging drops
    the connection and stops listening; replugging listens again on the same port."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self.host, self.port = host, port
        self.listener: socket.socket | None = None
        self.client: socket.socket | None = None

    @property
    def url(self) -> str:
        return f"socket://{self.host}:{self.port}"

    def plug(self) -> None:
        self.listener = socket.create_server((self.host, self.port))
        self.port = self.listener.getsockname()[1]

    def unplug(self) -> None:
        for sock in (self.client, self.listener):
            if sock is not None:
                sock.close()
        self.client = self.listener = None

    close = unplug

    def fds(self) -> list:
        return [sock for sock in (self.client or self.listener,) if sock is not None]

    def receive(self, ready) -> bytes:
        if self.listener is not None and self.listener in ready:
            if self.client is not None:
                self.client.close()
            self.client, _ = self.listener.accept()
            self.client.setblocking(False)
            return b""
        if self.client is None or self.client not in ready:
            return b""
        try:
            data = self.client.recv(4096)
        except OSError:
            data = b""
        if not data:
            self.client.close()
            self.client = None
        return data

    def send(self, data: bytes) -> None:
        if self.client is not None:
            try:
                self.client.send(data)
            except OSError:
                pass


def _ms() -> int:
    return int(time.monotonic() * 1000)


class SimCage:
    """with SimCage(PtyPort("/tmp/cage")) as cage: cage.draw(); cage.unplug(0.5); cage.reboot()"""

    def __init__(self, port, machine=None, faults: Faults | None = None, seed=None,
                 baud: int = 115200, reader: str = "sim"):
        self.port, self.machine = port, machine
        self.faults = faults or Faults()
        self.counts = FaultCounts()
        self.rng = random.Random(seed)
        self.baud, self.reader = baud, reader
        self.flash = Flash()
        self.boot: str | None = None
        self.cage: p.Cage | None = None
        self.replugged_at: list[float] = []   # time.monotonic() of each replug
        self._left: set[int] = set()         # list mode: balls still in our own machine
        self._out: set[int] = set()          # callable mode: read, not yet recorded by the referee
        self._seen: set[int] | None = None   # callable mode: the machine at the last draw
        self._outbox: list[bytes] = []
        self._inbox = b""
        self._replug_at: float | None = None
        self._todo: queue.SimpleQueue = queue.SimpleQueue()
        self._wake_r, self._wake_w = os.pipe()
        self._stopping = False
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return self.port.url

    def start(self) -> "SimCage":
        self.port.plug()
        self._boot(garbage=False)
        self._thread = threading.Thread(target=self._loop, name="sim-cage", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping = True
        os.write(self._wake_w, b"x")
        if self._thread:
            self._thread.join(timeout=2)
        self.port.close()
        os.close(self._wake_r)
        os.close(self._wake_w)

    def __enter__(self) -> "SimCage":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- requests from other threads, carried out by the cage's own thread --

    def draw(self):
        """A ball leaves the cage and is read: (ball, boot, seq), or None if the machine is empty."""
        return self._call(self._draw)

    def read(self, ball: int):
        """The reader sees `ball`: (ball, boot, seq)."""
        return self._call(lambda: self._read(ball))

    def reboot(self) -> None:
        self._call(self._boot)

    def unplug(self, seconds: float) -> None:
        """Pull the cable; it goes back in after `seconds`."""
        self._call(lambda: self._unplug(seconds))

    def _call(self, fn):
        if self._thread is None or not self._thread.is_alive():
            raise RuntimeError("the simulated cage is not running")
        future = Future()
        self._todo.put((fn, future))
        os.write(self._wake_w, b"x")
        return future.result(timeout=10)

    # -- the cage's thread --

    def _loop(self) -> None:
        while not self._stopping:
            now = _ms()
            timeout = min(self.cage.next_due(now) / 1000, 0.05)
            ready, _, _ = select.select(self.port.fds() + [self._wake_r], [], [], timeout)
            if self._wake_r in ready:
                os.read(self._wake_r, 512)
            while not self._todo.empty():
                fn, future = self._todo.get()
                try:
                    future.set_result(fn())
                except Exception as error:   # hand any failure back to the caller's thread
                    future.set_exception(error)
            self._incoming(self.port.receive(ready))
            if self._replug_at is not None and time.monotonic() >= self._replug_at:
                self._replug_at = None
                self.port.plug()
                self.replugged_at.append(time.monotonic())
            self.cage.tick(_ms())
            self._flush()

    def _draw(self):
        ball = self._choose()
        return None if ball is None else self._read(ball)

    def _choose(self) -> int | None:
        if callable(self.machine):
            inside = machine_balls(self.machine())
            if self._seen is not None and inside - self._seen:
                self._out.clear()    # balls came back (a new turn): every earlier read was recorded
            self._out &= inside      # the referee has recorded the others: forget them
            self._seen = inside
            candidates = inside - self._out
        else:
            if not self._left:
                self._left = machine_balls(self.machine if self.machine is not None else p.BALLS)
            candidates = self._left
        if not candidates:
            return None
        ball = self.rng.choice(sorted(candidates))
        if callable(self.machine):
            self._out.add(ball)
        else:
            self._left.discard(ball)
        return ball

    def _read(self, ball: int):
        seq = self.cage.read(ball, _ms())
        self._flush()
        return ball, self.boot, seq

    def resent(self) -> int:
        """BALL frames resent so far, over every boot: what the host's retransmits should show."""
        return self.counts.resent + (self.cage.rtx if self.cage is not None else 0)

    def _boot(self, garbage: bool = True) -> None:
        if self.cage is not None:
            self.counts.resent += self.cage.rtx
            self.counts.unkept += self.cage.rtx - self.cage.kept[2]
            self.counts.reboots += 1
            self.counts.carried_over += len(self.flash.saved)
        self._outbox.clear()   # what was not on the wire yet dies with the RAM
        if garbage and self.faults.garbage:
            noise = bytes(self.rng.getrandbits(8) for _ in range(self.faults.garbage))
            self.counts.garbage_bytes += len(noise)
            self._write(noise)
        previous = self.boot
        while self.boot == previous:
            self.boot = f"{self.rng.getrandbits(32):08x}"
        self.cage = p.Cage(self.boot, self._outbox.append, self.flash, _ms(), reader=self.reader, repeat_ms=0)
        self.cage.start(_ms())

    def _unplug(self, seconds: float) -> None:
        self.counts.unplugs += 1
        self.port.unplug()
        self._inbox = b""
        self._replug_at = time.monotonic() + seconds

    def _incoming(self, data: bytes) -> None:
        self._inbox += data
        *lines, self._inbox = self._inbox.split(b"\n")
        for line in lines:
            if self.rng.random() < self.faults.drop:
                self.counts.dropped_to_cage += 1
                continue
            self.cage.feed(self._corrupt(line + b"\n"), _ms())

    def _flush(self) -> None:
        while self._outbox:
            line = self._outbox.pop(0)
            if self.rng.random() < self.faults.drop:
                self.counts.dropped_to_host += 1
                continue
            copies = 2 if self.rng.random() < self.faults.duplicate else 1
            self.counts.duplicated += copies - 1
            for _ in range(copies):
                self._write(self._corrupt(line))

    def _corrupt(self, line: bytes) -> bytes:
        if not self.faults.corrupt:
            return line
        data, hit = bytearray(line), False
        for i in range(len(data)):
            if self.rng.random() < self.faults.corrupt:
                data[i] = (data[i] + self.rng.randrange(1, 256)) % 256
                self.counts.corrupted_bytes += 1
                hit = True
        self.counts.corrupted_lines += hit
        return bytes(data)

    def _write(self, data: bytes) -> None:
        """Onto the wire at the baud rate: a pty has no speed of its own (10 bits a byte)."""
        self.port.send(data)
        time.sleep(len(data) * 10 / self.baud)
