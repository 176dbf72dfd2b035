"""`companion bench journal`: commands per second with fsync, replay time of a whole game,
(--drills N) racing-writer and SIGKILL-and-retry drills with real `companion do` processes (the
commands the game declares, GameRules.drills), and
(--damage N) damaged copies opened by a reader and retried by a writer; and the benches a game
declares itself (GameRules.benches), each `companion bench NAME`."""
from __future__ import annotations

import functools
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..core import games
from . import CommandError, demo_of

BUSY = 3     # companion do's exit code when another writer holds the journal (cli/game.py)


def register(sub, groups) -> None:
    p = groups["bench"].add_parser("journal", help="journal write speed (fsync) and replay time of a whole game")
    p.add_argument("--players", type=int, default=12)
    p.add_argument("--turns", type=int, default=15)
    p.add_argument("--games", type=int, default=5, help="games to write and replay (default 5)")
    p.add_argument("--game", default=games.DEFAULT, help=f"whose demo night to write (default {games.DEFAULT})")
    p.add_argument("--dir", help="where to write the journals (default: a temporary folder; use the Pi's SD card to measure it)")
    p.add_argument("--drills", type=int, default=0, metavar="N",
                   help="instead: N racing-writer drills and N SIGKILL-and-retry drills with command ids")
    p.add_argument("--damage", type=int, default=0, metavar="N",
                   help="instead: open N copies of a journal with one random bit flipped, and N truncated ones")
    p.set_defaults(run=bench_journal)

    for bench in (bench for game in games.GAMES.values() for bench in game.benches):
        p = groups["bench"].add_parser(bench.name, help=bench.help)
        for flag, keywords in bench.options.items():
            p.add_argument(flag, **keywords)
        p.set_defaults(run=functools.partial(game_bench, bench))


def game_bench(bench: games.Bench, args) -> int:
    """A bench a game declares (GameRules.benches), given the CLI to run commands in process."""
    from . import main
    try:
        return bench.run(args, main)
    except games.Malformed as error:
        raise CommandError(str(error), 2)


def bench_journal(args) -> int:
    if args.drills:
        return bench_drills(args.drills, args.dir, demo_of(args.game, "drills"))
    if args.damage:
        return bench_damage(args.damage, args.dir)
    from ..core.journal import Journal
    from ..core.session import Session
    demo_script = demo_of(args.game)
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
    print(f"journal write (rollback journal, synchronous=EXTRA, hash chain, fsync per command): "
          f"median {statistics.median(rates):.0f} commands/s")
    print(f"replay (verify the chain and fold) of a {args.turns}-turn, {args.players}-player game: "
          f"median {statistics.median(replays):.1f} ms, max {max(replays):.1f} ms")
    return 0


def bench_drills(count: int, where: str | None, drills: games.Drills) -> int:
    with tempfile.TemporaryDirectory(dir=where) as folder:
        races = [racing_drill(Path(folder), i, drills) for i in range(count)]
        bad = [r for r in races if r["problem"]]
        print(f"racing writers: {count} drills, {sum(r['busy'] for r in races)} refused as busy, "
              f"{sum(r['applied'] for r in races)} commands applied, {len(bad)} broken", flush=True)
        kills = [kill_drill(Path(folder), i, random.Random(i), drills) for i in range(count)]
    for drill in bad + [k for k in kills if k["problem"]]:
        print(f"  {drill['problem']}")
    after_commit = sum(k["committed"] and not k["printed"] for k in kills)
    print(f"SIGKILL and retry: {count} drills, {after_commit} killed after the commit before \"ok\" was printed, "
          f"{sum(k['lost'] for k in kills)} lost, {sum(k['doubled'] for k in kills)} doubled")
    return 1 if bad or any(k["problem"] for k in kills) else 0


def bench_damage(count: int, where: str | None) -> int:
    """Damaged copies of a 120-batch journal whose commands carry ids: each opened by a reader (the
    same state or refused in one line), then by a writer that sends every command again with its id
    (none may be applied twice)."""
    from collections import Counter

    from ..core.journal import Journal
    from ..core.session import Session
    rng = random.Random(12)
    commands = [{**command, "id": f"c{number}"} for number, command in enumerate(games.demo()(6, seed=3)[:120])]
    with tempfile.TemporaryDirectory(dir=where) as folder:
        clean, damaged = Path(folder) / "clean.db", Path(folder) / "damaged.db"
        with Journal(clean) as journal:
            session = Session(journal)
            for command in commands:
                session.submit(command)
            batches = journal.count()
        data, index = clean.read_bytes(), _index_bytes(clean)
        for name, make in (("single-bit flips", lambda: _flipped(data, rng.randrange(len(data) * 8))),
                           ("single-bit flips in the id index's pages",
                            lambda: _flipped(data, rng.choice(index) * 8 + rng.randrange(8))),
                           ("truncations", lambda: data[:rng.randrange(len(data))])):
            seen, retried = Counter(), Counter()
            for _ in range(count):
                damaged.write_bytes(make())
                for judge, tally in ((lambda: judge_damaged(damaged, session.state), seen),
                                     (lambda: retry_damaged(damaged, commands), retried)):
                    try:
                        tally[judge()] += 1
                    except Exception as error:        # what the bench is here to find
                        tally[f"traceback {type(error).__name__}"] += 1
            print(f"{name} of a {len(data) // 1024} KB journal ({batches} batches): {count} opened, "
                  + ", ".join(f"{n} {what}" for what, n in seen.most_common())
                  + "; every command sent again by a writer: "
                  + ", ".join(f"{n} {what}" for what, n in retried.most_common()), flush=True)
    return 0


def retry_damaged(path: Path, commands: list[dict]) -> str:
    """Open a damaged copy as the writer and send every (journaled) command again with its id:
    "refused" (one line), "none applied twice", or "doubled"."""
    from ..core.journal import Journal, JournalError
    from ..core.session import Session
    try:
        with Journal(path, existing=True) as journal:
            session, before = Session(journal), journal.count()
            for command in commands:
                session.submit(command)
            return "doubled" if journal.count() > before else "none applied twice"
    except JournalError as error:
        return "refused" if "\n" not in str(error) else f"refused in several lines: {error}"


def _index_bytes(path: Path) -> list[int]:
    """The byte offsets of the command-id index's pages (SQLite's dbstat table; the root page alone
    where SQLite was built without it)."""
    db = sqlite3.connect(path)
    try:
        (size,), = db.execute("PRAGMA page_size").fetchall()
        try:
            pages = [page for (page,) in db.execute("SELECT pageno FROM dbstat WHERE name = 'commands_by_id'")]
        except sqlite3.Error:
            pages = [page for (page,) in db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'commands_by_id'")]
    finally:
        db.close()
    return [(page - 1) * size + offset for page in pages for offset in range(size)]


def _flipped(data: bytes, bit: int) -> bytes:
    damaged = bytearray(data)
    damaged[bit // 8] ^= 1 << bit % 8
    return bytes(damaged)


def judge_damaged(path: Path, expected) -> str:
    """Open a damaged copy of a journal: "refused" (one line), "identical" (the same state), or
    what went wrong (a traceback escapes)."""
    from ..core.journal import Journal, JournalError
    from ..core.session import Session
    try:
        with Journal(path, readonly=True) as journal:
            state = Session(journal).state
    except JournalError as error:
        return "refused" if "\n" not in str(error) else f"refused in several lines: {error}"
    return "identical" if state == expected else "a different state"


def _prepare(path: Path, commands: list[dict]) -> None:
    from ..core.journal import Journal
    from ..core.session import Session
    with Journal(path) as journal:
        session = Session(journal)
        for command in commands:
            if session.submit(command).status == "rejected":
                raise CommandError(f"drill preparation rejected: {command}")


def _do(path: Path, command: dict, stdout=subprocess.PIPE) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "companion", "do", "--journal", str(path), json.dumps(command)],
                            stdout=stdout, stderr=subprocess.PIPE, text=True)


def _full_pipe() -> tuple[int, int]:
    """A pipe already full: a process writing "ok" to it blocks there, after its commit (as when
    the operator's terminal or ssh link hangs), until it is killed."""
    read, write = os.pipe()
    os.set_blocking(write, False)
    try:
        while True:
            os.write(write, b"x" * 65536)
    except BlockingIOError:
        pass
    os.set_blocking(write, True)
    return read, write


def racing_drill(folder: Path, index: int, drills: games.Drills) -> dict:
    """Two `companion do` at once on one journal: one may be refused as busy, never both applied
    to one state; the journal always opens afterwards."""
    from ..core.journal import Journal, JournalError
    from ..core.session import Session
    prepared, pair = drills.races[index % len(drills.races)]
    path = folder / f"race{index}.db"
    _prepare(path, prepared)
    processes = [_do(path, command) for command in pair]
    answers = [(p.wait(timeout=60), *p.communicate()) for p in processes]
    drill = {"busy": 0, "applied": 0, "problem": None}
    for code, out, err in answers:
        if code == BUSY and "in use by" in err and err.count("\n") == 1:
            drill["busy"] += 1
        elif code in (0, 1) and not err:
            drill["applied"] += out.startswith("ok")
        else:
            drill["problem"] = f"race {index}: exit {code}: {(out + err).strip()[:200]}"
    try:
        with Journal(path, readonly=True) as journal:
            batches = list(journal.batches())
            Session(journal)
    except JournalError as error:
        drill["problem"] = f"race {index}: the journal does not open: {error}"
        return drill
    raced = batches[len(prepared):]
    if len(raced) != drill["applied"]:
        drill["problem"] = f"race {index}: {len(raced)} batches journaled, {drill['applied']} reported ok"
    if pair[0]["do"] != "undo" and len(raced) > 1:
        drill["problem"] = f"race {index}: two {pair[0]['do']} journaled for one state"
    return drill


def kill_drill(folder: Path, index: int, rng: random.Random, drills: games.Drills) -> dict:
    """`companion do` with an id, SIGKILLed (half the time right after its commit, before "ok" is
    out), then retried with the same id until it answers: the command is journaled exactly once."""
    from ..core.journal import Journal
    path = folder / f"kill{index}.db"
    _prepare(path, drills.prepared)
    command = {**drills.killed[index % len(drills.killed)], "id": f"drill-{index}"}
    with Journal(path, readonly=True) as watcher:
        if index % 2 == 0:                   # stuck writing "ok" after its commit
            read, write = _full_pipe()
            process = _do(path, command, stdout=write)
            os.close(write)
            while watcher.find(command["id"]) is None and process.poll() is None:
                time.sleep(0.005)
            time.sleep(0.05)
        else:                                # at any moment from start-up to the end
            process = _do(path, command)
            time.sleep(rng.uniform(0, 0.5))
        process.kill()
        out = process.communicate()[0] or ""
        if index % 2 == 0:
            os.close(read)
        committed = watcher.find(command["id"]) is not None
    for _ in range(20):
        retry = _do(path, command)
        out_retry, err_retry = retry.communicate(timeout=60)
        if retry.returncode != BUSY:
            break
    drill = {"committed": committed, "printed": out.startswith("ok"), "lost": 0, "doubled": 0, "problem": None}
    if retry.returncode != 0:
        drill["problem"] = f"kill {index}: the retry failed: {(out_retry + err_retry).strip()[:200]}"
    with Journal(path, readonly=True) as journal:
        sent = list(journal.batches())[len(drills.prepared):]     # the killed command's batches
    drill["lost"], drill["doubled"] = int(not sent), max(0, len(sent) - 1)
    if committed and "already applied" not in out_retry:
        drill["problem"] = f"kill {index}: committed before the kill, but the retry said {out_retry.strip()!r}"
    return drill
