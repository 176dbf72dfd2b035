"""The event journal: one SQLite file per event, append-only.

WAL with synchronous=FULL and one transaction per command, so a command is either
wholly on disk or not at all when the power goes. Rows are never edited: triggers
refuse UPDATE and DELETE, and mistakes are fixed by correction events.
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

GAME = "bingo"
SCHEMA = """
CREATE TABLE IF NOT EXISTS commands (
    batch INTEGER PRIMARY KEY, game TEXT NOT NULL, at TEXT NOT NULL,
    command TEXT NOT NULL, status TEXT NOT NULL, reason TEXT);
CREATE TABLE IF NOT EXISTS events (
    game TEXT NOT NULL, seq INTEGER NOT NULL, batch INTEGER NOT NULL REFERENCES commands(batch),
    kind TEXT NOT NULL, data TEXT NOT NULL, UNIQUE (game, seq));
CREATE TRIGGER IF NOT EXISTS commands_never_edited BEFORE UPDATE ON commands
    BEGIN SELECT RAISE(ABORT, 'journal rows are never edited'); END;
CREATE TRIGGER IF NOT EXISTS commands_never_deleted BEFORE DELETE ON commands
    BEGIN SELECT RAISE(ABORT, 'journal rows are never deleted'); END;
CREATE TRIGGER IF NOT EXISTS events_never_edited BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'journal rows are never edited'); END;
CREATE TRIGGER IF NOT EXISTS events_never_deleted BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'journal rows are never deleted'); END;
"""


class JournalError(Exception):
    pass


@dataclass
class Batch:
    """One accepted command and the events it produced."""
    number: int
    at: str
    command: dict
    status: str
    reason: str | None
    events: list[tuple[int, str, dict]]   # (seq, kind, data)


class Journal:
    def __init__(self, path: str | Path | None = None, readonly: bool = False):
        """path None keeps the journal in memory (rehearsals without a file)."""
        self.path = str(path) if path else ":memory:"
        try:
            if readonly:
                if not Path(self.path).exists():
                    raise JournalError(f"{self.path}: no such journal")
                self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True,
                                          isolation_level=None, check_same_thread=False)
            else:
                self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.executescript(SCHEMA)
            self.db.execute("SELECT count(*) FROM commands").fetchone()
        except sqlite3.DatabaseError as error:
            raise JournalError(f"{self.path}: not a companion journal ({error})") from None

    def close(self) -> None:
        self.db.close()

    def append(self, at: str, command: dict, status: str, reason: str | None,
               events: list[tuple[str, dict]]) -> int:
        """Write one command and its events in one transaction; returns its batch number."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            cursor = db.execute(
                "INSERT INTO commands (game, at, command, status, reason) VALUES (?, ?, ?, ?, ?)",
                (GAME, at, json.dumps(command, ensure_ascii=False), status, reason))
            batch = cursor.lastrowid
            seq = db.execute("SELECT coalesce(max(seq), 0) FROM events WHERE game = ?", (GAME,)).fetchone()[0]
            db.executemany(
                "INSERT INTO events (game, seq, batch, kind, data) VALUES (?, ?, ?, ?, ?)",
                [(GAME, seq + i, batch, kind, json.dumps(data, ensure_ascii=False))
                 for i, (kind, data) in enumerate(events, 1)])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return batch

    def batches(self, after: int = 0):
        """Accepted commands after batch number `after`, oldest first, with their events."""
        rows = self.db.execute(
            "SELECT c.batch, c.at, c.command, c.status, c.reason, e.seq, e.kind, e.data "
            "FROM commands c LEFT JOIN events e ON e.batch = c.batch "
            "WHERE c.game = ? AND c.batch > ? ORDER BY c.batch, e.seq", (GAME, after)).fetchall()
        current = None
        for number, at, command, status, reason, seq, kind, data in rows:
            if current is None or current.number != number:
                if current:
                    yield current
                current = Batch(number, at, json.loads(command), status, reason, [])
            if seq is not None:
                current.events.append((seq, kind, json.loads(data)))
        if current:
            yield current

    def count(self) -> int:
        return self.db.execute("SELECT count(*) FROM commands").fetchone()[0]

    def backup(self, path: str | Path) -> None:
        """A consistent copy while the game runs (VACUUM INTO)."""
        self.db.execute("VACUUM INTO ?", (str(path),))
