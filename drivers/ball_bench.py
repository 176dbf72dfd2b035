"""The live ball reader on the wall clock, for `companion bench balls`.

A rendered pass is played to the real BallReader through a real Camera: a frame arrives every
1/fps s of real time, a reader still busy misses it (the camera keeps only the newest frame,
never a queue), so a slow CPU shows as frames dropped and latency. `CpuQuota` holds this
process to a share of a core while it plays (a stand-in for a Raspberry Pi's slower cores).
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from vision import acceptance

from .ball_reader import BallReader, rule
from .camera import Camera, PlaybackSource

CGROUPS = Path("/sys/fs/cgroup")
# the quota's period: shorter than one decode, so a decode is stretched evenly instead of
# running at full speed until the period's budget is spent (measured here: 8 ms of CPU under
# 0.3 of a core took 12 ms median with a 100 ms period, 24 ms with 5 ms, 27 ms would be exact)
PERIOD_US = 5000
MIN_QUOTA_US = 1000            # the kernel's smallest quota


@dataclass
class Playback:
    messages: list            # (time.monotonic() it reached on_message, BallRead or Alert)
    shown_at: list[float]     # when each frame was handed to the camera
    reads: dict               # frame number -> the decoder's FrameRead, for the frames read
    dropped: int              # frames replaced by a newer one before a decoder was free
    images: list              # the frames played

    @property
    def kept(self) -> int:
        return len(self.reads)

    def replay(self, decoder, acceptor: acceptance.Acceptor) -> list:
        """The pass as a reader that never fell behind would have ruled it: every frame shown
        decoded (those the live run did not read, now, with `decoder`), fed to `acceptor` in
        frame order at the time it was shown, then its window left to close. The messages."""
        messages = []
        for i, t in enumerate(self.shown_at):
            result = self.reads[i] if i in self.reads else decoder.read(self.images[i])
            messages += rule(acceptor, t, result)
        if self.shown_at:
            messages += acceptor.tick(self.shown_at[-1] + acceptor.window)
        return messages


def play(images: list, fps: float, decoder, acceptor: acceptance.Acceptor, workers: int = 1) -> Playback:
    """The images through Camera and BallReader at `fps`, until the stream ends and the last ball is
    ruled. `decoder`: one and `workers` - 1 twins (threads), or a list (e.g. ProcessDecoders, kept
    from pass to pass)."""
    source = PlaybackSource(images, fps)
    camera = Camera(source)
    messages, reads = [], {}
    reader = BallReader(camera, decoder, acceptor, lambda m: messages.append((time.monotonic(), m)), workers,
                        on_read=reads.__setitem__)
    reader.start()
    reader.join(timeout=len(images) / fps + 60)
    reader.stop()
    return Playback(messages, source.shown_at, reads, camera.dropped, images)


class QuotaUnavailable(RuntimeError):
    pass


class CpuQuota:
    """Inside `with`, this process gets at most `share` of one core (0.3: 30% of one core), and
    so does each process `pids()` names (the decoding processes): `cores` cgroups of that share
    each stand for a Pi's cores, and process i goes to group i % cores (this one to group 0), so
    no process runs faster than one Pi core, as on a Pi. cgroup v2 `cpu.max`, else v1
    `cpu.cfs_quota_us`. Needs root and a writable /sys/fs/cgroup; QuotaUnavailable says in one
    line why not."""

    def __init__(self, share: float, cores: int = 1, pids=lambda: [], root: Path = CGROUPS):
        self.share, self.pids = share, pids
        period = max(PERIOD_US, round(MIN_QUOTA_US / share))
        quota = round(share * period)
        names = [f"companion-bench-{os.getpid()}"] + [f"companion-bench-{os.getpid()}-{i}" for i in range(1, cores)]
        try:
            if "cpu" in _read(root / "cgroup.controllers").split():                  # v2
                (root / "cgroup.subtree_control").write_text("+cpu")
                self.groups, self.home = [root / name for name in names], root / _own_cgroup("")
                limits = {"cpu.max": f"{quota} {period}"}
            elif (root / "cpu" / "cpu.cfs_quota_us").exists():                     # v1
                self.groups, self.home = [root / "cpu" / name for name in names], root / "cpu" / _own_cgroup("cpu")
                limits = {"cpu.cfs_period_us": str(period), "cpu.cfs_quota_us": str(quota)}
            else:
                raise QuotaUnavailable(f"{root}: no cpu controller (cgroup v2 cpu.max or v1 cpu.cfs_quota_us)")
            for group in self.groups:
                group.mkdir(exist_ok=True)
                for name, value in limits.items():
                    (group / name).write_text(value)
        except OSError as error:
            raise QuotaUnavailable(f"{error.filename or root}: cannot set a CPU quota ({error.strerror}; "
                                   "it needs root and a writable cgroup file system)") from None
        self.group = self.groups[0]
        self._placed: list[int] = []

    def __enter__(self) -> "CpuQuota":
        self._placed = [os.getpid(), *self.pids()]
        for i, pid in enumerate(self._placed):
            (self.groups[i % len(self.groups)] / "cgroup.procs").write_text(str(pid))
        return self

    def __exit__(self, *_) -> None:
        for pid in self._placed:
            try:
                (self.home / "cgroup.procs").write_text(str(pid))
            except OSError:         # a decoding process that has ended meanwhile
                pass

    def close(self) -> None:
        for group in self.groups:
            try:
                group.rmdir()
            except OSError:
                pass


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _own_cgroup(controller: str) -> str:
    """This process's cgroup path (relative) in the hierarchy of `controller` ("" for v2)."""
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        _, names, path = line.split(":", 2)
        mine = controller in names.split(",") if controller else names == ""
        if mine:
            return path.lstrip("/")
    return ""


class Slowed:
    """A decoder on a core `share` as fast as this one: each read lasts 1/share of its CPU time
    on the wall clock (sleeping the rest, as a slower core would still be busy). The stand-in
    where no cgroup can be written; it slows only the decoding, not the rest of the reader."""

    def __init__(self, decoder, share: float):
        self.decoder, self.share, self.name = decoder, share, decoder.name

    def read(self, image):
        start, cpu = time.perf_counter(), time.thread_time()
        result = self.decoder.read(image)
        time.sleep((time.thread_time() - cpu) * (1 / self.share - 1))
        result.ms = (time.perf_counter() - start) * 1000
        return result

    def twin(self) -> "Slowed":
        return Slowed(self.decoder.twin(), self.share)
