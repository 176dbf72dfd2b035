"""The live ball reader on the wall clock, for `companion bench balls`.

A rendered pass is played to the real BallReader through a real Camera: a frame arrives every
1/fps s of real time, a reader still busy misses it (the camera keeps only the newest frame,
never a queue), so a slow CPU shows as frames dropped and latency. `CpuQuota` holds this
process to a share of a core while it plays (a stand-in for a Raspberry Pi's slower cores).
"""
from __future__ import annotations

import contextlib
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from vision import acceptance
from vision.sim.balls import PASS_KINDS, seed_for

from .ball_reader import BallReader, close_decoders, process_decoders, rule
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
    dropped: int              # frames replaced by a newer one before a decoder was free, never read
    late: int                 # frames replaced so, read after (BallReader.late)
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
    return Playback(messages, source.shown_at, reads, reader.missed, reader.late, images)


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


# --- the bench: passes played to the live reader, stickers, blurred and adversarial frames ---

WINDOW_MS = {"cradle": 1500, "chute": 400}     # the acceptance window each rig is set up with
TARGETS = {"cradle": 99.9, "chute": 99.0, "median_ms": 10.0, "latency_ms": 150.0}


@dataclass(frozen=True)
class Run:
    """What `companion bench balls` was asked for (checked by the CLI)."""
    passes: int
    kinds: list                  # (kind, fps) of PASS_KINDS
    seed: int
    workers: int                 # decoding processes of the live reader
    share: float | None          # each held to this share of a core (--cpu-quota), None: full speed
    cores: int
    jobs: int                    # processes reading the blurred and adversarial frames
    frames: int                  # frames in each of those sets


def run(settings: Run, decoders: dict) -> dict:
    """Every sticker, the passes played to the live reader on the wall clock, the blurred and
    adversarial frames: the report, a dict per decoder."""
    import cv2
    from vision.sim import balls as ball_render

    cv2.setNumThreads(1)
    stats = {name: Stats() for name in dict.fromkeys(d.name for d in decoders.values())}   # after any fallback
    held, live = _held(settings, decoders)
    print(f"companion bench balls: {settings.passes} passes ({', '.join(f'{k} {f} fps' for k, f in settings.kinds)}), "
          f"decoders {', '.join(stats)}, {settings.workers} decoding {held.workers} live, {settings.jobs} job(s) for "
          f"the frame sets; each pass played to the live reader on the wall clock {held.describe}; decode times are "
          f"wall-clock ms; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    try:
        if held.live:
            print(f"  decoding processes started and warm in {held.warm():.1f} s; their memory "
                  f"{held.memory_mb():.0f} MB together", flush=True)
        started = time.monotonic()
        renderer = ball_render.Renderer()
        for name, ok, ball in _label_checks(renderer, decoders, settings.seed):
            stats[name].label(ok, ball)
        print(f"  every sticker of every ball: done in {(time.monotonic() - started) / 60:.1f} min", file=sys.stderr)
        started = time.monotonic()
        for done, k in enumerate(pass_indices(settings.passes, settings.kinds), 1):
            kind, fps = PASS_KINDS[k % len(PASS_KINDS)]
            ball = k % 27 + 1                   # 27 and 4 share no factor: every kind sees every ball
            p = ball_render.render_pass(renderer, kind, fps, ball, seed_for(settings.seed, f"pass{k}"))
            for name, decoder in live.items():
                record = bench_pass(p, decoder, settings.workers, held)
                stats[name].add(record)
                if record["outcome"] != "accepted":
                    print(not_accepted(k, p, name, record), file=sys.stderr)
            _progress(done, settings.passes, started)
        if held.live:
            print(f"  decoding processes' memory after the passes: {held.memory_mb():.0f} MB together", flush=True)
    finally:
        held.close()
    started = time.monotonic()
    frames = [(settings.seed, kind, list(range(i, min(i + FRAME_CHUNK, n))), list(stats))
              for kind, n in [("blur", 3 * settings.frames)] + [(name, settings.frames) for name in _scene_sets()]
              for i in range(0, n, FRAME_CHUNK)]
    for records in _map(_frames_chunk, frames, settings.jobs):
        for record in records:
            stats[record["decoder"]].add_frame(record)
    print(f"  blurred and adversarial frames: done in {(time.monotonic() - started) / 60:.1f} min", file=sys.stderr)
    return {name: s.summary() for name, s in stats.items()}


def not_accepted(k: int, p, decoder: str, record: dict) -> str:
    """A pass not accepted, named as seed_for(seed, f"pass{k}") renders it again alone."""
    return (f"  pass{k} ({p.kind} {p.fps:g} fps, ball {p.ball}, {decoder}): {record['outcome']}"
            + (", lost because the reader fell behind" if record["behind"] else ""))


def pass_indices(count: int, kinds: list) -> list[int]:
    """The first `count` passes of a full run's sequence (kind k % 4, ball k % 27 + 1) that are of `kinds`."""
    per_cycle = len(kinds)
    cycle = [i for i, kind in enumerate(PASS_KINDS) if kind in kinds]
    return [n // per_cycle * len(PASS_KINDS) + cycle[n % per_cycle] for n in range(count)]


def _map(function, items: list, jobs: int):
    """function over items, in worker processes when jobs > 1 (results as they finish)."""
    if jobs == 1:
        yield from map(function, items)
        return
    from concurrent.futures import ProcessPoolExecutor, as_completed
    with ProcessPoolExecutor(jobs) as pool:
        for future in as_completed([pool.submit(function, item) for item in items]):
            yield future.result()


_WORKER: dict = {}


def _worker(names: list[str]) -> None:
    """This process's renderer and decoders (set up once: the codebook and textures take a while)."""
    import cv2
    from vision import balls
    from vision.sim import balls as ball_render
    if not _WORKER:
        cv2.setNumThreads(1)
        _WORKER["renderer"] = ball_render.Renderer()
        # deblurring on, as over a chute, so that what must name no wrong ball is read that way too
        _WORKER["decoders"] = {name: balls.BallDecoder(name, warn=lambda text: None, distance=ball_render.RIG_DISTANCE,
                                                       fall_deg=FRAME_SETS_FALL_DEG) for name in names}


FRAME_CHUNK = 25
FRAME_SETS_FALL_DEG = 30.0     # the fall direction the blurred and adversarial frames are read with


def _scene_sets() -> tuple:
    from vision.sim import ball_scenes
    return ball_scenes.SETS


def _frames_chunk(job) -> list[dict]:
    """Render blurred or adversarial frames and read each with every decoder."""
    from vision.sim import ball_scenes
    seed, kind, indices, names = job
    _worker(names)
    records = []
    for k in indices:
        frame_seed = seed_for(seed, f"{kind}{k}")
        if kind == "blur":        # spread evenly over 0-16 px (the golden ratio's multiples, mod 1)
            blur = (k * 0.6180339887 % 1.0) * (ball_scenes.BLUR_BANDS[-1][1] + 1)
            image, truth = ball_scenes.blurred_frame(_WORKER["renderer"], frame_seed, blur)
        else:
            image, truth = ball_scenes.adversarial_frame(_WORKER["renderer"], kind, frame_seed)
        for name, decoder in _WORKER["decoders"].items():
            result = decoder.read(image)
            records.append({"decoder": name, "set": kind, "truth": truth["balls"], "blur": truth.get("blur"),
                            "ball": result.ball, "wrong": result.ball is not None and result.ball not in truth["may_name"],
                            "alert": bool(result.alert or result.conflict)})
    return records


class Stats:
    def __init__(self):
        self.passes: dict[str, dict] = {}
        self.ms: list[float] = []            # frames showing a ball: decode wall-clock ms
        self.empty_ms: list[float] = []      # frames without one
        self.frames_read = self.frames_matched = self.frames_seen = self.frames_leaning = self.leaning_elsewhere = 0
        self.false_finds = self.empty_frames = 0
        self.latency: dict[str, list[float]] = {}
        self.labels_ok = self.labels = 0
        self.balls_failed: set[int] = set()
        self.dropped = self.processed = 0
        self.sets: dict[str, dict] = {}
        self.bands: dict[str, list[int]] = {}          # band -> [frames, read]

    def add_frame(self, r: dict) -> None:
        if r["set"] == "blur":
            if r["truth"]:
                band = self.bands.setdefault(_band(r["blur"]), [0, 0])
                band[0] += 1
                band[1] += r["ball"] in r["truth"]
            return
        k = self.sets.setdefault(r["set"], {"frames": 0, "wrong": 0, "named": 0, "alerts": 0})
        k["frames"] += 1
        k["wrong"] += r["wrong"]
        k["named"] += r["ball"] is not None
        k["alerts"] += r["alert"]

    def label(self, ok: bool, ball: int) -> None:
        self.labels += 1
        self.labels_ok += ok
        if not ok:
            self.balls_failed.add(ball)

    def add(self, r: dict) -> None:
        k = self.passes.setdefault(r["kind"], {"passes": 0, "accepted": 0, "misread": 0, "alerts": {}, "none": 0,
                                               "kept": 0, "dropped": 0, "late": 0, "behind": 0})
        k["passes"] += 1
        k["behind"] += r["behind"]
        k["kept"] += r["processed"]
        k["dropped"] += r["dropped"]
        k["late"] += r["late"]
        outcome = r["outcome"]
        if outcome in ("accepted", "misread", "none"):
            k[outcome] += 1
        else:
            k["alerts"][outcome] = k["alerts"].get(outcome, 0) + 1
        if r["latency_ms"] is not None:
            self.latency.setdefault(r["kind"], []).append(r["latency_ms"])
        self.ms += r["ms"]
        self.empty_ms += r["empty_ms"]
        self.frames_seen += len(r["ms"])
        self.frames_read += r["frames_read"]
        self.frames_matched += r["frames_matched"]
        self.frames_leaning += r["frames_leaning"]
        self.leaning_elsewhere += r["leaning_elsewhere"]
        self.empty_frames += len(r["empty_ms"])
        self.false_finds += r["false_finds"]
        self.dropped += r["dropped"]
        self.processed += r["processed"]

    def summary(self) -> dict:
        import numpy as np

        def stat(values, q):
            return round(float(np.percentile(values, q)), 2) if values else None
        kinds = {}
        for name, k in sorted(self.passes.items(), key=lambda item: _kind_order(item[0])):
            lat = self.latency.get(name, [])
            kinds[name] = {**k, "success_pct": round(100 * k["accepted"] / k["passes"], 3),
                           "latency_ms": {"median": stat(lat, 50), "p95": stat(lat, 95),
                                          "max": round(max(lat), 1) if lat else None}}
        return {"passes": sum(k["passes"] for k in self.passes.values()),
                "misreads": sum(k["misread"] for k in self.passes.values()), "kinds": kinds,
                "lost_behind": sum(k["behind"] for k in self.passes.values()),
                "labels": {"stickers_read": self.labels_ok, "stickers": self.labels,
                           "balls_all_read": 27 - len(self.balls_failed), "balls_failed": sorted(self.balls_failed)},
                "frame": {"read_pct": round(100 * self.frames_read / max(self.frames_seen, 1), 2),
                          "matched_pct": round(100 * self.frames_matched / max(self.frames_seen, 1), 2),
                          "leaning_pct": round(100 * self.frames_leaning / max(self.frames_seen, 1), 2),
                          "leaning_elsewhere": self.leaning_elsewhere,
                          "frames": self.frames_seen,
                          "ms_median": stat(self.ms, 50), "ms_p95": stat(self.ms, 95),
                          "empty_ms_median": stat(self.empty_ms, 50),
                          "false_ball_pct": round(100 * self.false_finds / max(self.empty_frames, 1), 2)},
                "dropped_pct": round(100 * self.dropped / max(self.dropped + self.processed, 1), 2),
                "blur_bands": {band: {"frames": n, "read_pct": round(100 * read / max(n, 1), 2)}
                               for band, (n, read) in sorted(self.bands.items(), key=lambda b: int(b[0].strip(">").split("-")[0]))},
                "sets": {name: self.sets[name] for name in _scene_sets() if name in self.sets},
                "wrong_in_sets": sum(k["wrong"] for k in self.sets.values())}


def _band(blur: float) -> str:
    from vision.sim import ball_scenes
    for low, high in ball_scenes.BLUR_BANDS:
        if blur < high + 0.5:
            return f"{low}-{high}"
    return f">{ball_scenes.BLUR_BANDS[-1][1]}"


BAND_TARGETS = {"0-1": 95.0, "2-7": 95.0, "8-15": 60.0}     # frames read, %, per band


def _kind_order(kind: str) -> int:
    return [f"{k} {f} fps" for k, f in PASS_KINDS].index(kind)


def _label_checks(renderer, decoders: dict, seed: int):
    """Every sticker of every ball, turned up to 15 degrees from the camera, evenly lit:
    yields (decoder, decoded right (not only matched), ball)."""
    import numpy as np
    from vision import ball_labels
    from vision.sim import balls as ball_render
    rng = np.random.default_rng(seed)
    for ball in ball_labels.BALLS:
        look = ball_render.plain_look(renderer, ball, seed + ball)
        for copy in range(ball_labels.COPIES):
            image = ball_render.label_view(renderer, look, copy, rng.uniform(0, 15), int(rng.integers(2 ** 31)))
            for decoder in decoders.values():
                result = decoder.read(image)
                yield decoder.name, result.ball == ball and not result.matched, ball


def _held(settings: "Run", decoders: dict):
    """How the passes are held to a Pi's speed (--cpu-quota): a cgroup quota, each process held to
    one Pi core, else decoders slowed in proportion to their CPU time (threads); and the decoders
    the live reader uses: a list of decoding processes per decoder, started once for every pass."""
    share = settings.share
    started = time.monotonic()
    live = {name: process_decoders(d, settings.workers) for name, d in decoders.items()}
    if share is None:
        return _Held(contextlib.nullcontext(), "at full speed", lambda: _close(live), live, started), live
    what = f"{share:g} of a core x {settings.cores}"
    try:
        quota = CpuQuota(share, settings.cores, lambda: [d.worker.pid for team in live.values() for d in team])
    except QuotaUnavailable as error:
        _close(live)
        print(f"companion: {error}: instead each decode is stretched to 1/{share:g} of its CPU time", file=sys.stderr)
        return _Held(contextlib.nullcontext(), f"with decodes stretched to {what}"), \
            {name: Slowed(d, share) for name, d in decoders.items()}
    return _Held(quota, f"held to {what} (cgroup CPU quotas, one a process and core)",
                 lambda: (_close(live), quota.close()), live, started), live


def _memory_mb(pid: int) -> float:
    """A process's share of the memory it uses (Linux: Pss, a page shared by n processes counted as 1/n
    in each, so the sum over processes counts it once), 0 where it cannot be read."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as usage:
            return next(int(line.split()[1]) / 1024 for line in usage if line.startswith("Pss:"))
    except (OSError, StopIteration, ValueError):
        return 0.0


def _close(live: dict) -> None:
    close_decoders([decoder for team in live.values() for decoder in team])


class _Held:
    """How the passes are held (`context`), and the live decoding processes by decoder (None: the
    decoders are slowed threads), started at `started`."""

    def __init__(self, context, describe: str, close=lambda: None, live: dict | None = None, started: float = 0.0):
        self.context, self.describe, self.close, self.live, self.started = context, describe, close, live, started
        self.workers = "process(es)" if live else "thread(s)"

    def warm(self) -> float:
        """Wait until every decoding process is warm, held as it will read, so that the first pass is
        not what waits for it: the seconds since they were started."""
        with self:
            for decoder in self._processes():
                decoder.ready()
        return time.monotonic() - self.started

    def memory_mb(self) -> float:
        """The decoding processes' memory together (_memory_mb's sum)."""
        return sum(_memory_mb(decoder.worker.pid) for decoder in self._processes())

    def _processes(self) -> list:
        return [decoder for team in self.live.values() for decoder in team]

    def __enter__(self):
        return self.context.__enter__()

    def __exit__(self, *exc):
        return self.context.__exit__(*exc)


def bench_pass(p, decoder, workers: int = 1, held=None) -> dict:
    """One pass played to the live reader on the wall clock (inside `held`, e.g. a CPU quota):
    what happened, frames kept and dropped, each frame's decode time, and for a pass not
    accepted whether it was lost because the reader fell behind (`behind`: a replay with every
    frame decoded, after the run and outside `held`, accepts its ball)."""
    images = [p.shot(i).image for i in range(len(p))]
    for one in decoder if isinstance(decoder, list) else [decoder]:
        _calibrated(one).fall_deg = p.fall_deg         # the rig's fall direction, as calibration gives it
    with held or contextlib.nullcontext():
        run = play(images, p.fps, decoder, _acceptor(p), workers)
    record = {"kind": f"{p.kind} {p.fps:g} fps", "ms": [], "empty_ms": [], "frames_read": 0, "frames_matched": 0,
              "frames_leaning": 0, "leaning_elsewhere": 0, "false_finds": 0}
    for i, result in run.reads.items():
        if p.visible[i]:
            record["ms"].append(round(result.ms, 3))
            record["frames_read"] += result.ball == p.ball
            record["frames_matched"] += result.ball == p.ball and result.matched
            record["frames_leaning"] += result.leaning == p.ball
            record["leaning_elsewhere"] += result.leaning not in (None, p.ball)
        else:
            record["empty_ms"].append(round(result.ms, 3))
            record["false_finds"] += result.found
    reads = [(at, m) for at, m in run.messages if isinstance(m, acceptance.BallRead)]
    alerts = [m for _, m in run.messages if isinstance(m, acceptance.Alert)]
    latency = None
    if any(m.ball != p.ball for _, m in reads):
        outcome = "misread"
    elif reads:
        outcome = "accepted"
        first = p.visible.index(True)
        latency = round((reads[0][0] - run.shown_at[first]) * 1000, 2)
    else:
        outcome = alerts[0].kind if alerts else "none"
    behind = outcome != "accepted" and _accepts(run.replay(_calibrated(_first(decoder)), _acceptor(p)), p.ball)
    return {**record, "outcome": outcome, "latency_ms": latency, "dropped": run.dropped, "late": run.late,
            "processed": run.kept, "behind": behind}


def _acceptor(p):
    """A fresh acceptor with the window of the pass's rig."""
    return acceptance.Acceptor(window_ms=WINDOW_MS[p.kind])


def _first(decoder):
    return decoder[0] if isinstance(decoder, list) else decoder


def _accepts(messages: list, ball: int) -> bool:
    """The messages accept `ball` and no other."""
    balls = {m.ball for m in messages if isinstance(m, acceptance.BallRead)}
    return balls == {ball}


def _calibrated(decoder):
    """The BallDecoder behind a decoder (Slowed and ProcessDecoder wrap one), whose rig
    settings the bench sets."""
    return getattr(decoder, "decoder", decoder)


def _progress(done: int, total: int, started: float) -> None:
    step = max(1, total // 50)
    if done % step and done != total:
        return
    elapsed = time.monotonic() - started
    eta = elapsed / done * (total - done)
    print(f"  passes {done}/{total} ({100 * done / total:.0f}%)  elapsed {elapsed / 60:.1f} min, "
          f"about {eta / 60:.1f} min to go", file=sys.stderr, flush=True)


def print_report(report: dict) -> None:
    print()
    for name, r in report.items():
        print(f"{name}: {r['passes']} passes, misreads {r['misreads']}  "
              f"(target 0: {_met(r['misreads'] == 0, r['misreads'], '')})")
        for kind, k in r["kinds"].items():
            target = TARGETS[kind.split()[0]]
            lat = k["latency_ms"]
            alerts = ", ".join(f"{a} {n}" for a, n in sorted(k["alerts"].items())) or "none"
            print(f"  {kind:15} read {k['accepted']:5}/{k['passes']:<5} = {k['success_pct']:7.3f}%  "
                  f"(target {target}%: {_met(k['success_pct'] >= target, k['success_pct'] - target, '%')})  "
                  f"latency median {lat['median']} ms, p95 {lat['p95']} ms  frames kept {k['kept']}, dropped "
                  f"{k['dropped']} ({100 * k['dropped'] / max(k['kept'] + k['dropped'], 1):.1f}%; read late, of the "
                  f"dropped: {k['late']}), "
                  f"lost to falling behind {k['behind']}  alerts: {alerts}")
        labels, f = r["labels"], r["frame"]
        print(f"  labels: {labels['stickers_read']}/{labels['stickers']} stickers decoded, "
              f"{labels['balls_all_read']}/27 balls with every sticker decoded"
              + (f" (failed: {labels['balls_failed']})" if labels["balls_failed"] else ""))
        median = f["ms_median"] or 0.0
        print(f"  per frame with a ball: read {f['read_pct']}% ({f['matched_pct']}% by matching the printed labels), "
              f"not read but leaning to it {f['leaning_pct']}% (to another ball: {f['leaning_elsewhere']} frames), "
              f"decode {f['ms_median']} ms median, "
              f"{f['ms_p95']} ms p95 (target median {TARGETS['median_ms']:g} ms: "
              f"{_met(median <= TARGETS['median_ms'], median - TARGETS['median_ms'], ' ms')}); "
              f"empty frames {f['empty_ms_median']} ms, a ball wrongly found in {f['false_ball_pct']}%")
        if r["blur_bands"]:
            print("  frames read by motion blur: " + "; ".join(
                f"{band} px {b['read_pct']}% of {b['frames']}"
                + (f" (target {BAND_TARGETS[band]:g}%: {_met(b['read_pct'] >= BAND_TARGETS[band], b['read_pct'] - BAND_TARGETS[band], '%')})"
                   if band in BAND_TARGETS else "") for band, b in r["blur_bands"].items()))
        for name, k in r["sets"].items():
            print(f"  {name:22} {k['frames']:4} frames: wrong ball named {k['wrong']} (target 0: "
                  f"{_met(k['wrong'] == 0, k['wrong'], '')}), a ball named {k['named']}, conflict/alert raised {k['alerts']}")
        medians = [k["latency_ms"]["median"] for k in r["kinds"].values() if k["latency_ms"]["median"] is not None]
        if medians:
            worst, target = max(medians), TARGETS["latency_ms"]
            print(f"  latency, first frame with the ball to accepted: worst median {worst} ms (target {target:g} ms: "
                  f"{_met(worst <= target, worst - target, ' ms')}); frames dropped while busy {r['dropped_pct']}%")
        lost = r["lost_behind"]
        print(f"  passes lost because the reader fell behind: {lost} (target 0: {_met(lost == 0, lost, '')}; "
              "a pass not accepted that every frame, decoded, would have accepted)")
        print()


def _met(ok: bool, by: float, unit: str) -> str:
    return "met" if ok else f"MISSED by {abs(by):.3g}{unit}"
