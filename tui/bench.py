"""`companion bench screens`: how soon the audience display shows a commit, and its memory.

A real display process runs on a pseudo-terminal (so it really draws), following a
journal that this process writes through a Session, as the console would. After each
commit that changes what the audience sees, the display reports through a pipe the
moment its screen was refreshed with that batch (COMPANION_DISPLAY_PROBE); the
latency is that moment minus the moment the commit returned. Both use the system's
monotonic clock, which is the same for every process.
"""
from __future__ import annotations

import fcntl
import os
import pty
import random
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

from companion import views
from companion.core import games
from companion.core.journal import Journal
from companion.core.session import Session

TARGET_MS = 200
TARGET_RSS_MB = 150




class Display:
    """`companion display` on a pty, with its probe pipe."""

    def __init__(self, journal: Path, size=(120, 34)):
        self.reads, probe = os.pipe()
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        env = {**os.environ, "COMPANION_DISPLAY_PROBE": str(probe), "TERM": "xterm-256color"}
        self.process = subprocess.Popen([sys.executable, "-m", "companion", "display", "--journal", str(journal)],
                                        stdin=slave, stdout=slave, stderr=slave, env=env, pass_fds=[probe],
                                        start_new_session=True)
        os.close(slave)
        os.close(probe)
        self.master = master
        self.buffer = b""
        threading.Thread(target=self._drain, daemon=True).start()   # a terminal that is never read blocks

    def _drain(self) -> None:
        try:
            while os.read(self.master, 65536):
                pass
        except OSError:
            pass

    def shown(self, batch: int, timeout: float = 10.0) -> float:
        """Wait until the display reports a refresh with `batch` (or later); when it was."""
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                number, at = line.split()
                if int(number) >= batch:
                    return float(at)
            left = deadline - time.monotonic()
            if left <= 0 or self.process.poll() is not None:
                raise TimeoutError(f"the display did not show batch {batch}")
            if select.select([self.reads], [], [], left)[0]:
                self.buffer += os.read(self.reads, 4096)

    def rss_mb(self) -> tuple[float, float]:
        """(now, peak) resident memory of the display process."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.master)
        os.close(self.reads)


def run(commits: int, seed: int, demo=None, out=print) -> int:
    """demo: the game's demo night (GameRules.demo; default the default game's)."""
    commands = (demo or games.demo())(players=6, seed=seed)
    with tempfile.TemporaryDirectory(prefix="bench-screens-") as folder:
        path = Path(folder) / "bench.db"
        session = Session(Journal(path))
        session.submit(commands[0])
        display = Display(path)
        try:
            display.shown(1, timeout=30)
            latencies = measure(session, display, commands[1:], commits, random.Random(seed))
            now, peak = display.rss_mb()
        finally:
            display.stop()
    return report(latencies, now, peak, out)


def measure(session: Session, display: Display, commands: list[dict], commits: int, rng) -> list[float]:
    latencies = []
    for command in commands:
        before = views.public(session.state)
        outcome = session.submit(command)
        committed = time.monotonic()
        if views.public(session.state) == before:
            continue                       # the audience sees no change: nothing to wait for
        latencies.append((display.shown(outcome.batch) - committed) * 1000)
        if len(latencies) >= commits:
            break
        time.sleep(rng.uniform(0.05, 0.25))   # commits land at any moment of the display's poll
    return latencies


def report(latencies: list[float], rss: float, peak: float, out) -> int:
    if not latencies:
        out("no commit changed the display: nothing measured")
        return 1
    ordered = sorted(latencies)
    median = statistics.median(ordered)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    fast, small = median <= TARGET_MS, peak <= TARGET_RSS_MB
    out(f"commit -> display shows it: {len(ordered)} commits, median {median:.0f} ms, "
        f"90th percentile {p90:.0f} ms, max {ordered[-1]:.0f} ms (target median <= {TARGET_MS} ms): "
        f"{'PASS' if fast else 'FAIL'}")
    out(f"display process memory: {rss:.0f} MB now, {peak:.0f} MB peak RSS "
        f"(target <= {TARGET_RSS_MB} MB): {'PASS' if small else 'FAIL'}")
    return 0 if fast and small else 1
