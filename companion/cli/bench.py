"""`companion bench journal`: commands per second with fsync, and replay time of a whole game."""
from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path


def register(sub, groups) -> None:
    p = groups["bench"].add_parser("journal", help="journal write speed (fsync) and replay time of a whole game")
    p.add_argument("--players", type=int, default=12)
    p.add_argument("--turns", type=int, default=15)
    p.add_argument("--games", type=int, default=5, help="games to write and replay (default 5)")
    p.add_argument("--dir", help="where to write the journals (default: a temporary folder; use the Pi's SD card to measure it)")
    p.set_defaults(run=bench_journal)


def bench_journal(args) -> int:
    from ..bingo.demo import demo_script
    from ..journal import Journal
    from ..session import Session

    rates, replays = [], []
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        for game in range(args.games):
            script = demo_script(args.players, seed=game, turns=args.turns)
            path = Path(folder) / f"game{game}.db"
            session = Session(Journal(path))
            started = time.perf_counter()
            for command in script:
                session.submit(command)
            rates.append(len(script) / (time.perf_counter() - started))
            session.journal.close()
            started = time.perf_counter()
            replayed = Session(Journal(path, readonly=True))
            replays.append((time.perf_counter() - started) * 1000)
            assert replayed.state == session.state, "replay differs from the live game"
            print(f"game {game + 1}/{args.games}: {len(script)} commands, {rates[-1]:.0f} commands/s, "
                  f"replay {replays[-1]:.1f} ms", flush=True)
    print(f"journal write (WAL, synchronous=FULL, fsync per command): median {statistics.median(rates):.0f} commands/s")
    print(f"replay of a {args.turns}-turn, {args.players}-player game: median {statistics.median(replays):.1f} ms, "
          f"max {max(replays):.1f} ms")
    return 0
