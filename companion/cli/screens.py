"""Screen commands: console, display (and --serve), calibrate, screenshot, bench screens.

Textual, textual-serve and the drivers are imported inside each command (law 1). The console
and the display are those of the game the journal holds (its setup names it).
"""
from __future__ import annotations

from pathlib import Path

from ..core import games
from . import CommandError, demo_of
from .game import load_event


def register(sub, groups) -> None:
    p = sub.add_parser("console", help="the staff console: every action one key")
    p.add_argument("--event", help="event.toml (its journal and hardware)")
    p.add_argument("--journal", help="the game journal (default: the event file's)")
    p.add_argument("--scan", metavar="DIR", help="watch this folder for scanned card images")
    p.set_defaults(run=console)

    p = sub.add_parser("display", help="the audience display (read-only; --serve for browsers)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--journal", help="the game journal to follow")
    where.add_argument("--event", help="event.toml (its journal)")
    p.add_argument("--serve", action="store_true",
                   help="serve the audience page to browsers: one server, any number of viewers (/, /public.json, /events)")
    p.add_argument("--terminal-serve", action="store_true",
                   help="the old way: the terminal display drawn in browsers by textual-serve, one process per browser")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to serve on (default 127.0.0.1: this machine only; 0.0.0.0: the venue network)")
    p.add_argument("--port", type=int, default=8080, help="port to serve on (default 8080)")
    p.add_argument("--max-connections", type=int, metavar="N",
                   help="--serve: connections open at once (default: from the open-file limit, raised to the hard "
                        "limit at start); beyond it an idle one is closed, or HTTP 503 when all are busy")
    p.add_argument("--cert", help="--serve over HTTPS: the certificate chain (PEM)")
    p.add_argument("--key", help="--serve over HTTPS: the certificate's private key (PEM; default: in --cert)")
    p.add_argument("--max-viewers", type=int, default=4,
                   help="--terminal-serve: browsers served at once, one process each (default 4); one more gets HTTP 503")
    p.add_argument("--font-size", type=int, default=24, help="--terminal-serve: browser font size in pixels (default 24)")
    p.set_defaults(run=display)

    p = sub.add_parser("calibrate", help="set up the ball reader: preview, region, focus, decoders, every ball")
    p.add_argument("--event", required=True, help="event.toml (its [camera], [serial], [panel]; ROI saved here)")
    p.add_argument("--source", help="camera source for this run (overrides [camera] source), e.g. 0, sim, shots/")
    p.set_defaults(run=calibrate)

    p = groups["bench"].add_parser("screens", help="commit-to-display latency and the display's memory")
    p.add_argument("--commits", type=int, default=60, help="commits that change the display to time (default 60)")
    p.add_argument("--seed", type=int, default=1, help="seed of the simulated game (default 1)")
    p.add_argument("--game", default=games.DEFAULT, help=f"whose demo night to play (default {games.DEFAULT})")
    p.set_defaults(run=bench_screens)

    p = groups["bench"].add_parser("display", help="the audience page server under many SSE viewers (loopback)")
    p.add_argument("--viewers", default="300,1000,5000",
                   help="viewer counts to measure, comma-separated (default 300,1000,5000)")
    p.add_argument("--commits", type=int, default=20, help="commits that change the view, per count (default 20)")
    p.add_argument("--seed", type=int, default=1, help="seed of the simulated game (default 1)")
    p.add_argument("--game", default=games.DEFAULT, help=f"whose demo night to play (default {games.DEFAULT})")
    p.set_defaults(run=bench_display)

    p = sub.add_parser("screenshot", help="an SVG picture of a screen for a journal")
    p.add_argument("screen", choices=["console", "display"])
    p.add_argument("--journal", required=True, help="the game journal to show")
    p.add_argument("--out", required=True, help="the SVG file to write")
    p.add_argument("--size", help="WIDTHxHEIGHT in characters (default 120x34 display, 160x45 console)")
    p.set_defaults(run=screenshot)


def journal_of(args) -> Path:
    return Path(args.journal) if args.journal else load_event(args.event).journal


def game_of(path: Path) -> str:
    """The game a journal holds; the default game (games.DEFAULT) for a journal not there (yet) or empty."""
    from companion.core.commands import Malformed
    from companion.core.journal import Journal, JournalError
    from companion.core.session import rules_of
    if not path.exists():
        return games.DEFAULT
    try:
        journal = Journal(path, readonly=True)
        try:
            return rules_of(journal).name
        finally:
            journal.close()
    except JournalError as error:
        raise CommandError(str(error))
    except Malformed as error:
        raise CommandError(f"{path}: {error}")


def screen_for(which: str, game: str):
    """The "console" or "display" class of `game`, as the game declares it."""
    return games.rules(game).screens.load(which)


def display(args) -> int:
    path = journal_of(args)
    if args.serve and not args.terminal_serve:
        from tui.web.server import serve
        event = load_event(args.event) if args.event else None
        mqtt = event.sections.get("publish", {}).get("mqtt") if event else None
        if args.max_connections is not None and args.max_connections < 1:
            raise CommandError(f"--max-connections must be at least 1, not {args.max_connections}", 2)
        tls = tls_context(args.cert, args.key)
        try:
            return serve(path, args.host, args.port, mqtt, event.id if event else None, event, tls,
                         args.max_connections)
        except ValueError as error:
            raise CommandError(f"{args.event}: {error}")
        except OSError as error:
            raise CommandError(f"cannot serve the display on {args.host}:{args.port}: {error.strerror or error}")
    if args.terminal_serve:
        from tui.serve import serve_display
        if args.max_viewers < 1:
            raise CommandError(f"--max-viewers must be at least 1, not {args.max_viewers}", 2)
        try:
            return serve_display(path, args.host, args.port, args.font_size, args.max_viewers, game_of(path))
        except OSError as error:
            raise CommandError(f"cannot serve the display on {args.host}:{args.port}: {error.strerror or error}")
    game = game_of(path)
    try:
        log_beside(path, "display")
    except CommandError:            # a display may follow a journal it cannot write beside: its screen says it all
        pass
    while game:              # a display that finds another game in the journal hands over to its display
        game = screen_for("display", game)(path).run()
    return 0


def screenshot(args) -> int:
    from tui.headless import NotReady, SIZES, parse_size, picture
    path = Path(args.journal)
    if not path.exists():
        raise CommandError(f"{path}: no such journal")
    try:
        size = parse_size(args.size) if args.size else SIZES[args.screen]
    except ValueError as error:
        raise CommandError(str(error), 2)
    if args.screen == "display":
        app, ready = screen_for("display", game_of(path))(path), lambda app: app.view is not None
    else:
        app, ready = screen_for("console", game_of(path)).for_journal(path, readonly=True), lambda app: app.ready
    try:
        svg, _ = picture(app, size, ready)
    except NotReady as error:
        raise CommandError(f"{path}: {error}")
    Path(args.out).write_text(svg, encoding="utf-8")
    print(f"wrote {args.out} ({args.screen}, {size[0]}x{size[1]})")
    return 0


def console(args) -> int:
    from companion.core.journal import JournalError
    from tui.sources import from_event
    event = load_event(args.event) if args.event else None
    path = Path(args.journal) if args.journal else event.journal if event else None
    if path is None:
        raise CommandError("give --event event.toml (or --journal FILE)", 2)
    if not path.exists():
        raise CommandError(f"{path}: no such journal (start the game first: companion start --event ...)")
    if args.scan and event is None:
        raise CommandError("--scan needs --event (the cards are checked against its secret)", 2)
    game = game_of(path)
    try:
        app = screen_for("console", game).for_journal(path, backup=event.backup if event else None)
        log_beside(path)
    except JournalError as error:
        raise CommandError(str(error))
    if games.rules(game).screens.balls:
        app.sources, app.problems = from_event(event, lambda: app.session.state.place, args.scan, path,
                                               phase=lambda: app.session.state.phase)
    else:                                    # no balls: the scanner and the panel only
        app.sources, app.problems = from_event(event, dict, args.scan, path)
    app.run()
    return 0


def log_beside(journal: Path, screen: str = "console") -> None:
    """A screen's alerts (the console's hardware alerts; failures, tui/failures.py) also go to
    <journal>.log, a line each, with the screen's name."""
    import logging
    try:
        handler = logging.FileHandler(f"{journal}.log", encoding="utf-8")
    except OSError as error:
        raise CommandError(f"cannot write the {screen}'s log beside {journal}: {error.strerror or error}")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    logging.getLogger(f"companion.{screen}").addHandler(handler)


def calibrate(args) -> int:
    event = load_event(args.event)           # a bad event file: one clear line, before the screen
    log_beside(event.journal, "calibrate")
    from tui.calibrate import CalibrateApp
    CalibrateApp(Path(args.event), args.source).run()
    return 0


def tls_context(cert: str | None, key: str | None):
    """The server's TLS context for --cert/--key, or None without them."""
    if cert is None:
        if key is not None:
            raise CommandError("--key needs --cert (the certificate it belongs to)", 2)
        return None
    import ssl
    for option, path in (("--cert", cert), ("--key", key)):
        try:
            if path is not None:
                Path(path).read_bytes()
        except OSError as error:
            raise CommandError(f"{option}: cannot read {path}: {error.strerror or error}")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(cert, key)
    except ssl.SSLError as error:
        raise CommandError(f"--cert {cert}{f' --key {key}' if key else ''}: not a PEM certificate and its private "
                           f"key ({error.reason or error})")
    return context


def bench_screens(args) -> int:
    from tui.bench import run
    if args.commits < 1:
        raise CommandError("--commits must be at least 1", 2)
    try:
        return run(args.commits, args.seed, demo_of(args.game))
    except TimeoutError as error:
        raise CommandError(str(error))


def bench_display(args) -> int:
    try:
        counts = [int(n) for n in args.viewers.split(",")]
    except ValueError:
        raise CommandError(f"--viewers: give counts like 300,1000, not {args.viewers!r}", 2)
    if not counts or min(counts) < 1 or max(counts) > 5000 or args.commits < 1 or args.commits > 200:
        raise CommandError("--viewers counts must be 1-5000 and --commits 1-200", 2)
    demo = demo_of(args.game)
    from tui.web.bench import run
    try:
        return run(counts, args.commits, args.seed, demo=demo)
    except TimeoutError as error:
        raise CommandError(f"bench display: {error or 'timed out'}")
    except OSError as error:
        raise CommandError(f"bench display: {error}")
