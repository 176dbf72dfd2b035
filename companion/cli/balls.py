"""Ball labels and the ball camera: print labels, read photos, make a corpus, benchmark.

OpenCV, ReportLab and the vision package are imported inside each command (law 1)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..core.columns import literal
from . import CommandError

# (kind, frames a second) of the benchmark's passes, in equal shares
PI_SHARES = {"pi4": 0.3, "pi5": 0.6}          # one Pi core as a share of one core here (README: how chosen)


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
    p.add_argument("--kinds", help="only these kinds of pass, e.g. cradle60,chute30 (default: all four, the "
                        "cradle and the chute at 30 and 60 fps); each pass is the "
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
        shown = literal(path)       # a file's name is anyone's: no byte that is no UTF-8, newline or escape as it is
        try:
            image = read_image(path)        # regular files only, within the byte and pixel limits
        except OSError as error:
            failed += 1
            print(f"companion: {shown}: {error.strerror}", file=sys.stderr)
            continue
        result = decoder.read(image)
        if args.json:
            print(json.dumps({"image": shown, **result.to_json()}, ensure_ascii=False))
        elif result.ball is not None:
            how = f", {result.why}" if result.matched else ""
            print(f"{shown}: ball {result.ball}{how}  ({result.decoder}, {result.ms:.1f} ms)")
        else:
            print(f"{shown}: none: {result.why}  ({result.decoder}, {result.ms:.1f} ms)")
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
                for kind, fps in ball_render.PASS_KINDS:
                    name = f"{kind}{fps}-{k:04d}"
                    ball = (k * len(ball_render.PASS_KINDS) + ball_render.PASS_KINDS.index((kind, fps))) % 27 + 1
                    p = ball_render.render_pass(renderer, kind, fps, ball, ball_render.seed_for(args.seed, name))
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
    print(f"{out}: {args.n} frames in frames/ and {passes * len(ball_render.PASS_KINDS)} passes in passes/, "
          "each with truth.jsonl")
    return 0




# --- bench (its runner lives beside the live reader: drivers/ball_bench.py) ---

def bench_balls(args) -> int:
    from drivers import ball_bench
    from drivers.ball_reader import Settings
    from vision import balls
    from vision.sim import balls as ball_render

    kinds = _kinds(args.kinds, ball_render.PASS_KINDS)
    if args.passes < len(kinds):
        raise CommandError(f"--passes {args.passes}: at least {len(kinds)} (one of each kind)", 2)
    if args.workers is None:
        args.workers = max(args.cores - 1, 2) if args.cpu_quota else Settings.workers
    if args.jobs < 1 or args.workers < 1 or args.frames < 0:
        raise CommandError("--jobs and --workers: at least 1; --frames: 0 or more", 2)
    share = quota_share(args)
    decoders = {}
    for name in args.decoder or list(balls.DECODERS):
        try:
            decoders[name] = balls.BallDecoder(name, warn=lambda text: print(f"companion: {text}", file=sys.stderr),
                                               distance=ball_render.RIG_DISTANCE)
        except (ValueError, balls.DecoderUnavailable) as error:
            raise CommandError(str(error), 2)
    report = ball_bench.run(ball_bench.Run(args.passes, kinds, args.seed, args.workers, share, args.cores,
                                           args.jobs, args.frames), decoders)
    ball_bench.print_report(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


def _kinds(text: str | None, all_kinds: tuple) -> list[tuple[str, int]]:
    keys = {f"{kind}{fps}": (kind, fps) for kind, fps in all_kinds}
    if text is None:
        return list(all_kinds)
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in keys]
    if unknown or not names:
        raise CommandError(f"--kinds {text!r}: name kinds of pass from {', '.join(keys)}, comma-separated", 2)
    return [keys[name] for name in keys if name in names]


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
