"""`companion bench voters`: the replay time of a long Voters night (`companion replay --json`, in
process), declared in Voters' GameRules.benches."""
from __future__ import annotations

import contextlib
import io
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from ..core.commands import Malformed
from ..core.games import Bench


def voters_night(games: int, players: int, seed: int = 1) -> list[dict]:
    """A Voters night: each game a new dealer, every other player bets (a few cards invalid, a few
    bets replaced, now and then one drops out), then the open or, one game in ten, no game (V6)."""
    rng = random.Random(seed)
    night = [{"do": "setup", "game": "voters", "event": "Bench night",
              "players": [{"no": no, "name": f"Player {no}"} for no in range(1, players + 1)]}]
    for game in range(1, games + 1):
        dealer = (game - 1) % players + 1
        night.append({"do": "deal", "dealer": dealer, "stake": rng.choice([100, 500, 1000])})
        for player in (no for no in range(1, players + 1) if no != dealer and rng.random() > 0.1):
            for _ in range(2 if rng.random() < 0.1 else 1):
                number = rng.randrange(10) if rng.random() > 0.05 else None
                night.append({"do": "bet", "player": player, "number": number})
            if game <= 99:                        # number cards print the game in two digits
                night[-1]["serial"] = f"N{player:02d}{game:02d}"
        night += [{"do": "close"}, {"do": "no_game" if rng.random() < 0.1 else "open"}]
    return night


def bench_voters(args, companion) -> int:
    """companion: the CLI's main(argv), which runs `companion replay` in this process."""
    if args.games < 1 or not 3 <= args.players <= 99:
        raise Malformed("a Voters bench night needs 1 or more games and 3-99 players")
    night = voters_night(args.games, args.players)
    times, cpu = [], []
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "voters-bench.jsonl"
        script.write_text("".join(json.dumps(command) + "\n" for command in night), encoding="utf-8")
        for _ in range(max(args.runs, 1)):
            out = io.StringIO()
            started, started_cpu = time.perf_counter(), time.process_time()
            with contextlib.redirect_stdout(out):
                code = companion(["replay", str(script), "--json"])
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
            if code != 0:
                return code                       # replay said why on stderr
    view = json.loads(out.getvalue())
    settled = sum(game["result"] is not None for game in view["games"])
    print(f"companion replay --json of a {args.games}-game, {args.players}-player Voters script "
          f"({len(night)} commands, {settled} games settled): median {statistics.median(times) * 1000:.0f} ms, "
          f"max {max(times) * 1000:.0f} ms over {len(times)} runs, CPU time median {statistics.median(cpu) * 1000:.0f} ms "
          f"(target < 1 s; load average {os.getloadavg()[0]:.1f})")
    return 0


BENCH = Bench("voters", "replay time of a long Voters night (`companion replay`, in process)", bench_voters, {
    "--games": {"type": int, "default": 100, "help": "games in the script (default 100)"},
    "--players": {"type": int, "default": 8},
    "--runs": {"type": int, "default": 5, "help": "replays to time (default 5); the median is reported"}})
