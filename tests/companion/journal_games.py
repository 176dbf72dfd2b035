"""Helpers for the journal tests: demo games written through a session, the CLI run in-process."""
import contextlib
import io
import json
import sqlite3
from pathlib import Path

from companion.bingo.demo import demo_script
from companion.cli import main
from companion.core import journal
from companion.core.journal import GENESIS, Journal, chain, seal
from companion.core.session import Session

DEMO = demo_script(6, seed=3)
EXAMPLES = Path(__file__).parents[2] / "examples"


def example(name: str, count: int) -> list[dict]:
    """The first `count` commands of examples/NAME.jsonl."""
    lines = (EXAMPLES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip() and not line.startswith("#")][:count]


def write_game(path, lines=DEMO[:10], close: bool = False) -> Session:
    """The demo's first lines through a session on `path` (None: in memory); its journal, the
    writer, stays open unless `close`."""
    session = Session(Journal(path))
    for line in lines:
        assert session.submit(line).status != "rejected", line
    if close:
        session.journal.close()
    return session


def tamper(path, *statements: str) -> None:
    """What a hand with sqlite3 could do: drop the guards, change rows."""
    db = sqlite3.connect(path)
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        db.execute(f"DROP TRIGGER {name}")
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()


def run(*argv) -> tuple[int, str, str]:
    """companion ARGV in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(map(str, argv)))
    return code, out.getvalue(), err.getvalue()


def forge(path, sql: str, strip_seals: bool = False) -> None:
    """What a forger with sqlite3 and this code does: drop the guards, change a row, recompute the
    plain sha256 chain and the tip (and, stripping the seals, pass the journal off as unsealed)."""
    strip = ("UPDATE commands SET seal = NULL", "DELETE FROM meta WHERE key IN ('seal', 'event')")
    tamper(path, sql, *(strip if strip_seals else ()))
    db = sqlite3.connect(path)
    previous = GENESIS
    for row in db.execute("SELECT batch, game, at, id, command, status, reason FROM commands ORDER BY batch").fetchall():
        events = db.execute("SELECT game, seq, batch, kind, data FROM events WHERE batch = ? ORDER BY seq",
                            (row[0],)).fetchall()
        previous = chain(previous, row, events)
        db.execute("UPDATE commands SET hash = ? WHERE batch = ?", (previous, row[0]))
    db.execute("UPDATE tip SET hash = ?", (previous,))
    db.commit()
    db.close()


def write_old(path, lines, version: int, event=None) -> None:
    """The lines through a session in memory, written into a file the way `version` (2 or 3) stored
    them: "bingo" in every row's game column, whatever the game; version 3 sealed given `event`."""
    live = write_game(None, lines)
    db = sqlite3.connect(path)
    schema = journal.SCHEMA if version > 2 else journal.SCHEMA.replace(", seal TEXT)", ")")     # 2: no seals
    db.executescript(schema + "COMMIT;")
    sealed = [("seal", journal.SEAL), ("event", str(event.path))] if event else []
    db.executemany("INSERT INTO meta VALUES (?, ?)", [("schema", str(version)), *sealed])
    previous = GENESIS
    for b in live.journal.batches():
        row = (b.number, "bingo", b.at, b.id, json.dumps(b.command, ensure_ascii=False), b.status, b.reason)
        events = [("bingo", seq, b.number, kind, json.dumps(data, ensure_ascii=False)) for seq, kind, data in b.events]
        previous = chain(previous, row, events)
        stamp = [seal(event.secret, previous) if event else None] if version > 2 else []
        db.execute(f"INSERT INTO commands VALUES ({', '.join('?' * (len(row) + 1 + len(stamp)))})",
                   (*row, previous, *stamp))
        db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?)", events)
    db.execute("INSERT INTO tip VALUES (1, ?, ?)", (b.number, previous))
    db.commit()
    db.close()
