"""Ball labels and the ball camera: print labels, read photos, make a corpus, benchmark.

OpenCV, ReportLab and the vision package are imported inside each command (law 1)."""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from . import CommandError

# (kind, frames a second) of the benchmark's passes, in equal shares
PASS_KINDS = (("cradle", 30), ("cradle", 60), ("chute", 30), ("chute", 60))
WINDOW_MS = {"cradle": 1500, "chute": 400}     # the acceptance window each rig is set up with
PI_SHARES = {"pi4": 0.3, "pi5": 0.6}          # one Pi core as a share of one core here (README: how chosen)
TARGETS = {"cradle": 99.9, "chute": 99.0, "median_ms": 10.0, "latency_ms": 150.0}


def register(sub, groups) -> None:
    p = groups["print"].add_parser("balls", help="ball label sticker sheets (PDF): 12 stickers per ball, balls 1-27")
    p.add_argument("--out", required=True, help="the PDF to write, e.g. balls.pdf")
    p.add_argument("--diameter", type=float, default=40.0, help="ball diameter in mm (default 40)")
    p.add_argument("--balls", help="only these balls, e.g. 1-9,17 (default: 1-27)")
    p.add_argument("--inverted", action="store_true", help="light codes on black stickers")
    p.set_defaults(run=print_balls)

    p = groups["read"].add_parser("balls", help="read ball labels in still images: the ball, or why not")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--decoder", help="zxing, pyzbar or opencv (default: the event file's, else zxing)")
    p.add_argument("--json", action="store_true", help="one JSON object per image")
    p.add_argument("--event", help="event.toml: use its [camera] settings (decoder, roi, fov, ball_diameter)")
    p.add_argument("--diameter", type=float, help="ball diameter in mm (default 40)")
    p.add_argument("--fov", type=float, help="the camera's horizontal field of view in degrees (default 62.2)")
    p.set_defaults(run=read_balls)

    p = groups["corpus"].add_parser("balls", help="rendered ball frames and passes with ground truth")
    p.add_argument("--n", type=int, required=True, help="single frames (about 1 in 10 without a ball)")
    p.add_argument("--out", required=True, help="folder to write")
    p.add_argument("--passes", type=int, help="passes of each kind: cradle and chute at 30 and 60 fps "
                                              "(default: n / 20, at least 1)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--diameter", type=float, default=40.0)
    p.set_defaults(run=corpus_balls)

    p = groups["bench"].add_parser("balls", help="ball reading: misreads, pass success, decode time, latency")
    p.add_argument("--passes", type=int, default=5000, help="passes in all, shared equally by the kinds (default 5000)")
    p.add_argument("--kinds", default=",".join(_kind_key(k) for k in PASS_KINDS),
                   help="only these kinds of pass, e.g. cradle60,chute30 (default: all four); each pass is the "
                        "one a full run draws at its place, so a figure for a kind needs no full run")
    p.add_argument("--decoder", action="append", help="only this decoder (repeat for several; default all)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="worker processes reading the blurred and adversarial "
                   "frames (the passes are played one at a time, on the wall clock)")
    p.add_argument("--workers", type=int, help="decoding processes of the live reader (the [camera] workers "
                   "setting; default 3, with --cpu-quota one fewer than --cores, at least 2: a core for the rest, and a "
                   "second reading on while one is slow on a hard frame)")
    shares = ", ".join(f"{k} {v:g}" for k, v in PI_SHARES.items())
    p.add_argument("--cpu-quota", help="play the passes held to this share of one core: a number (0.3 = 30%%), "
                   f"or pi4 / pi5 for the share standing for one of their cores ({shares})")
    p.add_argument("--cores", type=int, default=1, help="with --cpu-quota: cores of that speed the reader may use, "
                   "each process held to one (a Pi 4 or 5 has 4; default 1: every process shares one)")
    p.add_argument("--frames", type=int, default=100, help="frames in each set that must name no wrong ball "
                   "(a sticker sheet, a hand or page, two balls, not-a-label codes, mirrored stickers), and "
                   "three times as many blurred 0-15 px for the read rate by blur (default 100)")
    p.add_argument("--json", help="also write the figures to this JSON file")
    p.set_defaults(run=bench_balls)


# --- print ---

def print_balls(args) -> int:
    from vision import ball_labels
    if not 10 <= args.diameter <= ball_labels.MAX_DIAMETER:
        raise CommandError(f"--diameter {args.diameter:g}: give the ball's diameter in mm, 10-{ball_labels.MAX_DIAMETER} "
                           f"(a larger ball's stickers do not fit {ball_labels.ACROSS} across an A4 page)", 2)
    balls = _ball_list(args.balls) if args.balls else list(ball_labels.BALLS)
    design = ball_labels.Design(args.diameter)
    try:
        pages = ball_labels.write_pdf(args.out, design, balls, args.inverted)
    except OSError as error:
        raise CommandError(f"{args.out}: cannot write ({error.strerror})")
    print(f"{args.out}: {pages} page(s), {len(balls)} ball(s) x {ball_labels.COPIES} stickers; "
          f"sticker {design.sticker:.1f} mm, QR {design.qr:.1f} mm (module {design.module:.2f} mm), "
          f"numerals {design.numeral_box[1]:.1f} mm; print at 100%")
    return 0


def _ball_list(text: str) -> list[int]:
    balls: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        try:
            first, last = int(lo), int(hi or lo)
        except ValueError:
            raise CommandError(f"--balls {text!r}: write numbers and ranges, e.g. 1-9,17", 2) from None
        if not 1 <= first <= last <= 27:
            raise CommandError(f"--balls {text!r}: balls are 1-27", 2)
        balls += [b for b in range(first, last + 1) if b not in balls]
    return balls


# --- read ---

def read_balls(args) -> int:
    from drivers.ball_reader import Settings, SettingsError
    from vision.balls import BallDecoder
    from vision.image_files import read_image

    section = _camera_section(args.event) if args.event else {}
    try:
        settings = Settings.from_section(section)
    except SettingsError as error:
        raise CommandError(f"{args.event}: {error}", 2)
    decoder_name = args.decoder or settings.decoder
    try:
        decoder = BallDecoder(decoder_name, args.diameter or settings.ball_diameter, args.fov or settings.fov,
                              settings.roi, warn=lambda text: print(f"companion: {text}", file=sys.stderr),
                              distance=settings.ball_distance)
    except ValueError as error:
        raise CommandError(str(error), 2)
    failed = 0
    for path in args.images:
        try:
            image = read_image(path)        # regular files only, within the byte and pixel limits
        except OSError as error:
            failed += 1
            print(f"companion: {path}: {error.strerror}", file=sys.stderr)
            continue
        result = decoder.read(image)
        if args.json:
            print(json.dumps({"image": path, **result.to_json()}, ensure_ascii=False))
        elif result.ball is not None:
            how = f", {result.why}" if result.matched else ""
            print(f"{path}: ball {result.ball}{how}  ({result.decoder}, {result.ms:.1f} ms)")
        else:
            print(f"{path}: none: {result.why}  ({result.decoder}, {result.ms:.1f} ms)")
    return 1 if failed else 0


def _camera_section(path: str) -> dict:
    from ..core import event_file
    try:
        return event_file.load(path).sections.get("camera", {})
    except event_file.EventFileError as error:
        raise CommandError(str(error), 2)


# --- corpus ---

def corpus_balls(args) -> int:
    from vision import ball_labels
    from vision.sim import balls as ball_render

    if args.n < 0 or (args.passes is not None and args.passes < 0):
        raise CommandError("--n and --passes count frames and passes: 0 or more", 2)
    out = Path(args.out)
    renderer = ball_render.Renderer(ball_labels.Design(args.diameter))
    try:
        (out / "frames").mkdir(parents=True, exist_ok=True)
        (out / "passes").mkdir(exist_ok=True)
        with open(out / "frames" / "truth.jsonl", "w", encoding="utf-8") as truth:
            for i in range(args.n):
                empty = i % 10 == 9
                _, jpeg, facts = ball_render.single_frame(renderer, args.seed * 1_000_003 + i, empty=empty)
                name = f"{i:05d}.jpg"
                (out / "frames" / name).write_bytes(jpeg)
                truth.write(json.dumps({"image": name, **facts}) + "\n")
        passes = max(1, args.n // 20) if args.passes is None else args.passes
        with open(out / "passes" / "truth.jsonl", "w", encoding="utf-8") as truth:
            for k in range(passes):
                for kind, fps in PASS_KINDS:
                    name = f"{kind}{fps}-{k:04d}"
                    ball = (k * len(PASS_KINDS) + PASS_KINDS.index((kind, fps))) % 27 + 1
                    p = ball_render.render_pass(renderer, kind, fps, ball, _seed(args.seed, name))
                    folder = out / "passes" / name
                    folder.mkdir(exist_ok=True)
                    frames = []
                    for j in range(len(p)):
                        shot = p.shot(j)
                        (folder / f"{j:03d}.jpg").write_bytes(shot.jpeg)
                        frames.append({"image": f"{j:03d}.jpg", "t": round(shot.t, 5), "visible": shot.visible})
                    truth.write(json.dumps({"pass": name, "kind": kind, "fps": fps, "ball": ball,
                                            "first_visible": p.first_visible, "frames": frames}) + "\n")
    except OSError as error:
        raise CommandError(f"{out}: cannot write ({error.strerror})")
    print(f"{out}: {args.n} frames in frames/ and {passes * len(PASS_KINDS)} passes in passes/, "
          "each with truth.jsonl")
    return 0


def _seed(seed: int, name: str) -> int:
    import zlib
    return seed * 1_000_003 + zlib.crc32(name.encode())


# --- bench ---

def bench_balls(args) -> int:
    import cv2
    from drivers.ball_reader import Settings
    from vision import balls
    from vision.sim import balls as ball_render

    cv2.setNumThreads(1)
    kinds = _kinds(args.kinds)
    if args.passes < len(kinds):
        raise CommandError(f"--passes {args.passes}: at least {len(kinds)} (one of each kind)", 2)
    if args.workers is None:
        args.workers = max(args.cores - 1, 2) if args.cpu_quota else Settings.workers
    if args.jobs < 1 or args.workers < 1 or args.frames < 0:
        raise CommandError("--jobs and --workers: at least 1; --frames: 0 or more", 2)
    names = args.decoder or list(balls.DECODERS)
    decoders = {}
    for name in names:
        try:
            decoders[name] = balls.BallDecoder(name, warn=lambda text: print(f"companion: {text}", file=sys.stderr),
                                               distance=ball_render.RIG_DISTANCE)
        except (ValueError, balls.DecoderUnavailable) as error:
            raise CommandError(str(error), 2)
    names = [d.name for d in decoders.values()]        # after any fallback
    stats = {name: _Stats() for name in dict.fromkeys(names)}
    held, live = _held(args, decoders)
    print(f"companion bench balls: {args.passes} passes ({', '.join(f'{k} {f} fps' for k, f in kinds)}), "
          f"decoders {', '.join(stats)}, {args.workers} decoding {held.workers} live, {args.jobs} job(s) for the frame sets; "
          f"each pass played to the live reader on the wall clock {held.describe}; decode times are wall-clock ms; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    started = time.monotonic()
    renderer = ball_render.Renderer()
    for name, ok, ball in _label_checks(renderer, decoders, args.seed):
        stats[name].label(ok, ball)
    print(f"  every sticker of every ball: done in {(time.monotonic() - started) / 60:.1f} min", file=sys.stderr)
    started = time.monotonic()
    try:
        for done, k in enumerate(_pass_indices(args.passes, kinds), 1):
            kind, fps = PASS_KINDS[k % len(PASS_KINDS)]
            ball = k % 27 + 1                   # 27 and 4 share no factor: every kind sees every ball
            p = ball_render.render_pass(renderer, kind, fps, ball, _seed(args.seed, f"pass{k}"))
            for name, decoder in live.items():
                stats[name].add(_bench_pass(p, decoder, args.workers, held))
            _progress(done, args.passes, started)
    finally:
        held.close()
    started = time.monotonic()
    frames = [(args.seed, kind, list(range(i, min(i + FRAME_CHUNK, n))), list(stats))
              for kind, n in [("blur", 3 * args.frames)] + [(name, args.frames) for name in _scene_sets()]
              for i in range(0, n, FRAME_CHUNK)]
    for records in _map(_frames_chunk, frames, args.jobs):
        for record in records:
            stats[record["decoder"]].add_frame(record)
    print(f"  blurred and adversarial frames: done in {(time.monotonic() - started) / 60:.1f} min", file=sys.stderr)
    report = {name: s.summary() for name, s in stats.items()}
    _print_report(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


def _kind_key(kind: tuple[str, int]) -> str:
    return f"{kind[0]}{kind[1]}"


def _kinds(text: str) -> list[tuple[str, int]]:
    keys = {_kind_key(k): k for k in PASS_KINDS}
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in keys]
    if unknown or not names:
        raise CommandError(f"--kinds {text!r}: name kinds of pass from {', '.join(keys)}, comma-separated", 2)
    return [k for k in PASS_KINDS if _kind_key(k) in names]


def _pass_indices(count: int, kinds: list) -> list[int]:
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
        frame_seed = _seed(seed, f"{kind}{k}")
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


class _Stats:
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
                                               "kept": 0, "dropped": 0, "behind": 0})
        k["passes"] += 1
        k["behind"] += r["behind"]
        k["kept"] += r["processed"]
        k["dropped"] += r["dropped"]
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


def _held(args, decoders: dict):
    """How the passes are held to a Pi's speed (--cpu-quota): a cgroup quota, each process held to
    one Pi core, else decoders slowed in proportion to their CPU time (threads); and the decoders
    the live reader uses: a list of decoding processes per decoder, started once for every pass."""
    import contextlib
    from drivers import ball_bench
    from drivers.ball_reader import process_decoders
    share = quota_share(args)
    live = {name: process_decoders(d, args.workers) for name, d in decoders.items()}
    if share is None:
        return _Held(contextlib.nullcontext(), "at full speed", lambda: _close(live)), live
    what = f"{share:g} of a core x {args.cores}"
    try:
        quota = ball_bench.CpuQuota(share, args.cores, lambda: [d.worker.pid for team in live.values() for d in team])
    except ball_bench.QuotaUnavailable as error:
        _close(live)
        print(f"companion: {error}: instead each decode is stretched to 1/{share:g} of its CPU time", file=sys.stderr)
        return _Held(contextlib.nullcontext(), f"with decodes stretched to {what}", workers="thread(s)"), \
            {name: ball_bench.Slowed(d, share) for name, d in decoders.items()}
    return _Held(quota, f"held to {what} (cgroup CPU quotas, one a process and core)",
                 lambda: (_close(live), quota.close())), live


def quota_share(args) -> float | None:
    """--cpu-quota as a share of one core (None: not given); --cores checked with it."""
    if args.cpu_quota is None:
        return None
    text = args.cpu_quota.strip().lower()
    try:
        share = PI_SHARES[text] if text in PI_SHARES else float(text)
    except ValueError:
        share = 0.0
    if not 0.01 <= share <= 1 or args.cores < 1:
        raise CommandError(f"--cpu-quota {args.cpu_quota!r}: a share of one core, 0.01-1, or "
                           f"{' / '.join(PI_SHARES)}; --cores at least 1", 2)
    return share


def _close(live: dict) -> None:
    for team in live.values():
        for decoder in team:
            decoder.close()


class _Held:
    def __init__(self, context, describe: str, close=lambda: None, workers: str = "process(es)"):
        self.context, self.describe, self.close, self.workers = context, describe, close, workers

    def __enter__(self):
        return self.context.__enter__()

    def __exit__(self, *exc):
        return self.context.__exit__(*exc)


def _bench_pass(p, decoder, workers: int = 1, held=None) -> dict:
    """One pass played to the live reader on the wall clock (inside `held`, e.g. a CPU quota):
    what happened, frames kept and dropped, each frame's decode time, and for a pass not
    accepted whether it was lost because the reader fell behind (`behind`: a replay with every
    frame decoded, after the run and outside `held`, accepts its ball)."""
    import contextlib
    from drivers import ball_bench
    from vision import acceptance
    images = [p.shot(i).image for i in range(len(p))]
    for one in decoder if isinstance(decoder, list) else [decoder]:
        _calibrated(one).fall_deg = p.fall_deg         # the rig's fall direction, as calibration gives it
    with held or contextlib.nullcontext():
        run = ball_bench.play(images, p.fps, decoder, _acceptor(p), workers)
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
    return {**record, "outcome": outcome, "latency_ms": latency, "dropped": run.dropped, "processed": run.kept,
            "behind": behind}


def _acceptor(p):
    """A fresh acceptor with the window of the pass's rig."""
    from vision import acceptance
    return acceptance.Acceptor(window_ms=WINDOW_MS[p.kind])


def _first(decoder):
    return decoder[0] if isinstance(decoder, list) else decoder


def _accepts(messages: list, ball: int) -> bool:
    """The messages accept `ball` and no other."""
    from vision import acceptance
    balls = {m.ball for m in messages if isinstance(m, acceptance.BallRead)}
    return balls == {ball}


def _calibrated(decoder):
    """The BallDecoder behind a decoder (ball_bench.Slowed and ProcessDecoder wrap one), whose rig
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


def _print_report(report: dict) -> None:
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
                  f"{k['dropped']} ({100 * k['dropped'] / max(k['kept'] + k['dropped'], 1):.1f}%), "
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
