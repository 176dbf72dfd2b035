"""`companion demo`: a whole night on simulated hardware (the game's Screens.night, a module of its
screens); headless with --headless or when stdout is not a terminal."""
from __future__ import annotations

import importlib
import sys
import tempfile
import time
from pathlib import Path

from ..core import games
from . import CommandError


def register(sub, groups) -> None:
    p = sub.add_parser("demo", help="a whole demo night on simulated hardware (cage, camera, card scanner, players)")
    p.add_argument("--headless", action="store_true",
                   help="no screen: one line per turn and the ranking (the default when stdout is not a terminal)")
    p.add_argument("--seed", type=int, default=1, help="seed of every choice (default 1); the same seed prints the same lines")
    p.add_argument("--folder", help="the demo event's folder (default: a new one under /tmp); "
                                    "a folder holding a demo's journal resumes it")
    p.add_argument("--turns", type=int, default=15, help="turns of the demo game (default 15)")
    p.add_argument("--pace", type=float, help="seconds the simulated operator waits before each command "
                                              "(default 0 headless, 1 on screen)")
    p.add_argument("--port", type=int, default=8080, help="port the audience display is served on (default 8080)")
    p.add_argument("--cache", help="where the rasterised printed cards are kept (default ~/.cache/companion)")
    p.add_argument("--game", default=games.DEFAULT, help=f"whose night (default {games.DEFAULT})")
    p.set_defaults(run=demo)


def night_of(game: str):
    """The module of the game's demo night on simulated hardware (Screens.night)."""
    from ..core.commands import Malformed
    try:
        rules = games.rules(game)
    except Malformed as error:
        raise CommandError(f"--game {game}: {error}", 2)
    if rules.screens is None or rules.screens.night is None:
        having = [other.name for other in games.GAMES.values() if other.screens and other.screens.night]
        raise CommandError(f"--game {game}: {rules.title} has no demo night on simulated hardware; "
                           f"games with one: {', '.join(having)}", 2)
    return importlib.import_module(rules.screens.night)


def demo(args) -> int:
    from companion.core.event_file import EventFileError
    from companion.core.journal import JournalError
    night_module = night_of(args.game)
    DemoError, Night = night_module.DemoError, night_module.Night
    folder = Path(args.folder) if args.folder else Path(tempfile.mkdtemp(prefix=f"companion-demo-{args.seed}-"))
    headless = args.headless or not sys.stdout.isatty()
    print(f"demo event in {folder} (seed {args.seed})", file=sys.stderr)
    started = time.monotonic()
    try:
        night = Night(folder, args.seed, say=lambda line: print(line, flush=True),
                      cache=Path(args.cache) if args.cache else None, turns=args.turns,
                      pace=args.pace if args.pace is not None else 0.0 if headless else 1.0)
    except (DemoError, EventFileError, JournalError, OSError) as error:
        raise CommandError(str(error))
    try:
        if headless:
            night.start()
            night.run()
        else:
            print(f"audience display: {night_module.display_url(args.port)}  (P in the console pauses the players)",
                  file=sys.stderr, flush=True)
            night_module.run_on_screen(night, args.port)
    except (DemoError, JournalError) as error:
        raise CommandError(str(error))
    finally:
        night.stop()
    print(f"demo: {night.state.turn} turns, phase {night.state.phase}, in {time.monotonic() - started:.1f} s; "
          f"journal {night.event.journal}", file=sys.stderr)
    return 0
