"""Helpers for the journal tests: demo games written through a session, the CLI run in-process."""
import contextlib
import io
import sqlite3

from companion.bingo.demo import demo_script
from companion.cli import main
from companion.journal import Journal
from companion.session import Session

DEMO = demo_script(6, seed=3)


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
