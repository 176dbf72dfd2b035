"""The event journal: one SQLite file per event, append-only, one writer, hash-chained.

- One writer: a writer takes an exclusive flock on the .db file for its life (the kernel
  drops it when the process dies); a second writer is refused at once, told who holds it
  (the holder's command, pid and start time, kept beside the journal in `<file>.writer`).
  Readers never lock.
- Durable in the .db alone: a rollback journal (journal_mode=DELETE) with
  synchronous=EXTRA (FULL, plus a directory sync once the rollback journal is deleted, so a
  commit cannot be undone by a power cut), one transaction per command (or per group of
  commands: transaction() holds several appends, all kept or none). Copying the .db
  file after a command copies every committed batch.
- Proves itself: each batch stores sha256(previous hash, the batch as stored: its command
  row and its event rows), and the `tip` row names the last batch and its hash. Opening
  verifies the whole chain and the tip; a damaged file is refused naming the batch.
- Rows are never edited: triggers refuse UPDATE and DELETE; mistakes are correction events.
- Idempotent: a command may carry an id (UNIQUE); find(id) returns the batch holding it.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

GAME = "bingo"
VERSION = 2                 # 1: WAL, no hash chain, no ids (before 2026-12-01)
GENESIS = "0" * 64          # the "previous hash" of batch 1
READER_WAIT_S = 10.0        # how long a reader waits for a writer's commit before giving up
SCHEMA = """
BEGIN IMMEDIATE;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE commands (
    batch INTEGER PRIMARY KEY, game TEXT NOT NULL, at TEXT NOT NULL, id TEXT,
    command TEXT NOT NULL, status TEXT NOT NULL, reason TEXT, hash TEXT NOT NULL);
CREATE UNIQUE INDEX commands_by_id ON commands (id);
CREATE TABLE events (
    game TEXT NOT NULL, seq INTEGER NOT NULL, batch INTEGER NOT NULL REFERENCES commands(batch),
    kind TEXT NOT NULL, data TEXT NOT NULL, UNIQUE (game, seq));
CREATE INDEX events_by_batch ON events (batch, seq);
CREATE TABLE tip (one INTEGER PRIMARY KEY CHECK (one = 1), batch INTEGER NOT NULL, hash TEXT NOT NULL);
""" + "".join(f"""
CREATE TRIGGER {table}_never_edited BEFORE UPDATE ON {table}
    BEGIN SELECT RAISE(ABORT, 'journal rows are never edited'); END;
CREATE TRIGGER {table}_never_deleted BEFORE DELETE ON {table}
    BEGIN SELECT RAISE(ABORT, 'journal rows are never deleted'); END;""" for table in ("meta", "commands", "events")) + f"""
INSERT INTO meta VALUES ('schema', '{VERSION}');
COMMIT;
"""
# what SQLite raises for a damaged file (a broken name in its schema does not even decode)
SQLITE_ERRORS = (sqlite3.Error, UnicodeDecodeError)
TEXT, NUMBER, OPTIONAL = (str,), (int,), (str, type(None))
COMMAND_TYPES = (NUMBER, TEXT, TEXT, OPTIONAL, TEXT, TEXT, OPTIONAL, TEXT)   # as SELECTed in _read
EVENT_TYPES = (TEXT, NUMBER, NUMBER, TEXT, TEXT)
SALVAGE_HINT = "`companion journal salvage {path} --out NEW.db` copies the good batches into a new journal"


class JournalError(Exception):
    """One line naming the file and what is wrong (SQLite's own messages may quote a schema's lines)."""

    def __init__(self, message: str):
        super().__init__(" ".join(message.split()))


class JournalBusy(JournalError):
    """Another writer holds the journal."""


class JournalDamaged(JournalError):
    """The file is not what was written: a batch fails its hash, or rows are missing."""

    def __init__(self, path: str, what: str, batch: int | None = None):
        super().__init__(f"{path}: {what}: the file is damaged or was changed; " + SALVAGE_HINT.format(path=path))
        self.what, self.batch = what, batch


@dataclass
class Batch:
    """One accepted command and the events it produced."""
    number: int
    at: str
    command: dict
    status: str
    reason: str | None
    events: list[tuple[int, str, dict]]   # (seq, kind, data)
    id: str | None = None
    hash: str = ""


def chain(previous: str, row: tuple, events: list[tuple]) -> str:
    """The batch hash: previous hash, the command row (batch, game, at, id, command, status,
    reason) and its event rows (game, seq, batch, kind, data), exactly as stored."""
    text = json.dumps([previous, list(row), [list(event) for event in events]],
                      ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def describe_process() -> str:
    """`companion do`, `companion console`...: how another writer is told who holds the lock."""
    program = Path(sys.argv[0]) if sys.argv and sys.argv[0] else Path("python")
    name = program.parent.name if program.name == "__main__.py" else program.name
    if not name or name.startswith("-"):            # python -c ...
        name = "python"
    words = [word for word in sys.argv[1:3] if not word.startswith("-")][:1]
    return " ".join([name, *words])


class Journal:
    def __init__(self, path: str | Path | None = None, readonly: bool = False, existing: bool = False,
                 holder: str | None = None, check: bool = True):
        """path None keeps the journal in memory (rehearsals without a file). A writer (not
        readonly) takes the journal's lock; `existing` refuses a missing or empty file instead
        of starting a new journal in it (for commands that continue a game). check=False (salvage
        only, read-only) skips verifying on open and also reads version 1 journals."""
        path = None if str(path) == ":memory:" else path      # SQLite's name for memory, not a file to lock
        self.path = str(path) if path else ":memory:"
        self.readonly = readonly or not check
        self.version = VERSION
        self._lock_fd: int | None = None
        self._holder_file = Path(f"{self.path}.writer") if path else None
        if path and (readonly or existing):
            _check_present(Path(self.path))
        if path and not readonly:
            self._lock(holder or describe_process())
        try:
            self.db = self._connect()
            if not self.readonly and not existing:
                self._create_if_new()
            with self._snapshot():
                self._check_schema(old_ok=not check)
                if check:
                    self.verify()
            if not self.readonly:
                self._query("PRAGMA journal_mode=DELETE")
                self._query("PRAGMA synchronous=EXTRA")
        except BaseException:
            self.close()
            raise

    # ---- opening

    def _connect(self) -> sqlite3.Connection:
        try:
            if self.readonly:      # read-write but query_only: SQLite may roll back a killed writer's
                db = sqlite3.connect(f"file:{self.path}?mode=rw", uri=True, isolation_level=None,   # hot journal
                                     check_same_thread=False, timeout=0)       # busy: see _execute
                db.execute("PRAGMA query_only=1")
                return db
            return sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10)
        except SQLITE_ERRORS as error:
            raise self._not_a_journal(error) from None

    def _create_if_new(self) -> None:
        try:
            if not self._tables():
                self.db.executescript(SCHEMA)
        except SQLITE_ERRORS as error:
            raise self._not_a_journal(error) from None

    def _tables(self) -> set[str]:
        return {name for (name,) in self._execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def _check_schema(self, old_ok: bool = False) -> None:
        try:
            tables = self._tables()
            if not tables:
                raise JournalError(f"{self.path}: holds no journal (an empty database); "
                                   "`companion start --event ...` begins a game")
            if "meta" not in tables:
                if "commands" in tables and old_ok:
                    self.version = 1
                    return
                if "commands" in tables:
                    raise JournalError(f"{self.path}: an older journal without a hash chain (version 1); "
                                       + SALVAGE_HINT.format(path=self.path) + " of this version")
                raise JournalError(f"{self.path}: not a companion journal (no journal tables)")
            row = next(iter(self._execute("SELECT value FROM meta WHERE key = 'schema'")), None)
            if row is None or row[0] != str(VERSION):
                raise JournalError(f"{self.path}: journal version {row[0] if row else '?'!r}, this companion "
                                   f"reads version {VERSION}")
        except SQLITE_ERRORS as error:
            raise self._not_a_journal(error) from None

    def _not_a_journal(self, error: Exception) -> JournalError:
        if "readonly database" in str(error):
            return JournalError(f"{self.path}: a write was cut off here and its rollback needs a writable "
                                "medium (the medium is read-only)")
        return JournalError(f"{self.path}: not a companion journal ({_readable(error)})")

    @contextlib.contextmanager
    def _snapshot(self):
        """One read transaction, so one shared lock for all its reads: a writer's commit cannot fall
        between them, and a reader waits for a busy writer once rather than at every statement."""
        if self.db.in_transaction:
            yield
            return
        try:
            self.db.execute("BEGIN")
        except SQLITE_ERRORS as error:
            raise self._not_a_journal(error) from None
        try:
            yield
        finally:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")

    def _lock(self, holder: str) -> None:
        try:
            self._lock_fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError as error:
            raise JournalError(f"{self.path}: cannot open for writing: {_os_reason(error)}") from None
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._lock_fd)
            self._lock_fd = None
            raise JournalBusy(f"{self.path}: in use by {self._who()}; only one writer at a time: "
                              "give the command there (or close it), then retry") from None
        since = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        try:
            _write_atomic(self._holder_file, json.dumps({"command": holder, "pid": os.getpid(), "since": since}))
        except OSError:
            pass            # who holds it is a courtesy; the lock is what counts

    def _who(self) -> str:
        try:
            holder = json.loads(self._holder_file.read_text(encoding="utf-8"))
            return f"`{holder['command']}` (pid {holder['pid']}, since {holder['since']})"
        except (OSError, ValueError, KeyError, TypeError):
            return "another process (it has not said which yet)"

    def close(self) -> None:
        db = getattr(self, "db", None)
        if db is not None:
            db.close()
        if self._lock_fd is not None:
            try:
                if json.loads(self._holder_file.read_text(encoding="utf-8")).get("pid") == os.getpid():
                    self._holder_file.unlink()
            except (OSError, ValueError, AttributeError):
                pass
            os.close(self._lock_fd)
            self._lock_fd = None

    def __del__(self) -> None:          # a writer dropped without close() must not keep the lock
        if getattr(self, "_lock_fd", None) is not None:
            self.close()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- reading, verified

    def verify(self) -> int:
        """Check every batch's hash and the tip; returns the number of batches."""
        last = Batch(0, "", {}, "", None, [], hash=GENESIS)
        with self._snapshot():
            for last in self.batches():
                pass
            tip = self._one("SELECT batch, hash FROM tip")
        if (tip or (0, GENESIS)) != (last.number, last.hash):
            what = f"names batch {tip[0]}" if tip else "is missing"
            raise JournalDamaged(self.path, f"the journal's tip record {what} but the chain ends at batch "
                                            f"{last.number}", last.number + 1)
        return last.number

    def batches(self, after: int = 0, one_by_one: bool = False):
        """Accepted commands after batch number `after`, oldest first, each checked against its hash.
        one_by_one reads a batch at a time, so a file damaged further on still yields its good start."""
        if one_by_one:
            previous, rows = self._stored_hash(after), self._rows_one_by_one(after)
        else:
            with self._snapshot():
                previous, rows = self._stored_hash(after), self._rows(after)
        expected = after + 1
        for row, events in rows:
            if row[0] != expected:
                raise self._damaged(expected, "is missing")
            batch = self._checked(row, events, previous)
            previous, expected = batch.hash, expected + 1
            yield batch

    def _rows(self, after: int) -> list[tuple[tuple, list]]:
        commands = self._query(f"SELECT {self._columns()} FROM commands WHERE batch > ? ORDER BY batch",
                               (after,))
        if not commands:
            return []
        events: dict[int, list] = {}
        for event in self._query("SELECT game, seq, batch, kind, data FROM events WHERE batch > ? AND batch <= ? "
                                 "ORDER BY batch, seq", (after, commands[-1][0])):
            events.setdefault(event[2], []).append(event)
        return [(row, events.get(row[0], [])) for row in commands]

    def _rows_one_by_one(self, after: int):
        number = after + 1
        while row := self._one(f"SELECT {self._columns()} FROM commands WHERE batch = ?", (number,)):
            yield row, self._query("SELECT game, seq, batch, kind, data FROM events WHERE batch = ? ORDER BY seq",
                                   (number,))
            number += 1
        if (self._one("SELECT max(batch) FROM commands")[0] or 0) > number:
            raise self._damaged(number, "is missing")

    def find(self, command_id: str) -> Batch | None:
        """The batch that holds the command with this id, if any."""
        row = self._one("SELECT batch FROM commands WHERE id = ?", (command_id,))
        if row is None:
            return None
        return self._read(row[0], self._stored_hash(row[0] - 1))

    def count(self) -> int:
        return self._one("SELECT count(*) FROM commands")[0]

    def _stored_hash(self, number: int) -> str:
        if number == 0:
            return GENESIS
        if self.version == 1:
            return ""
        row = self._one("SELECT hash FROM commands WHERE batch = ?", (number,))
        if row is None or not isinstance(row[0], str):
            raise self._damaged(number, "is missing")
        return row[0]

    def _columns(self) -> str:
        if self.version == 1:                                  # no ids, no hashes
            return "batch, game, at, NULL, command, status, reason, ''"
        return "batch, game, at, id, command, status, reason, hash"

    def _read(self, number: int, previous: str) -> Batch:
        row = self._one(f"SELECT {self._columns()} FROM commands WHERE batch = ?", (number,))
        if row is None:
            raise self._damaged(number, "is missing")
        events = self._query("SELECT game, seq, batch, kind, data FROM events WHERE batch = ? ORDER BY seq",
                             (number,))
        return self._checked(row, events, previous)

    def _checked(self, row: tuple, events: list[tuple], previous: str) -> Batch:
        number = row[0]
        if not (_typed(row, COMMAND_TYPES) and all(_typed(event, EVENT_TYPES) for event in events)):
            raise self._damaged(number, "has a value of the wrong type")
        if row[1] != GAME or self.version > 1 and chain(previous, row[:-1], events) != row[-1]:
            raise self._damaged(number, "does not match its hash")
        _, _, at, command_id, command, status, reason, digest = row
        try:
            return Batch(number, at, json.loads(command), status, reason,
                         [(seq, kind, json.loads(data)) for _, seq, _, kind, data in events], command_id, digest)
        except ValueError as error:     # only a journal this code did not write can get here
            raise self._damaged(number, f"does not decode ({error})") from None

    def _one(self, sql: str, parameters: tuple = ()) -> tuple | None:
        rows = self._query(sql, parameters)
        return rows[0] if rows else None

    def _execute(self, sql: str, parameters: tuple = ()) -> list[tuple]:
        """All rows. A reader retries every 2 ms while a writer commits (SQLite's own busy handler
        backs off to 100 ms steps, and would miss the few idle milliseconds between commands)."""
        deadline = time.monotonic() + READER_WAIT_S
        while True:
            try:
                return self.db.execute(sql, parameters).fetchall()
            except sqlite3.OperationalError as error:
                if not (self.readonly and "locked" in str(error) and time.monotonic() < deadline):
                    raise
                time.sleep(0.002)

    def _query(self, sql: str, parameters: tuple = ()) -> list[tuple]:
        try:
            return self._execute(sql, parameters)
        except SQLITE_ERRORS as error:
            raise JournalError(f"{self.path}: cannot read: {_readable(error)}; "
                               + SALVAGE_HINT.format(path=self.path)) from None

    def _damaged(self, number: int, what: str) -> JournalDamaged:
        return JournalDamaged(self.path, f"batch {number} {what}", number)

    # ---- writing

    @contextlib.contextmanager
    def transaction(self):
        """One write transaction: what is appended inside is committed at its end, or (an exception
        inside) none of it. Inside another transaction, it is part of that one."""
        if self.readonly:
            raise JournalError(f"{self.path}: opened read-only")
        db = self.db
        if db.in_transaction:
            yield
            return
        try:
            db.execute("BEGIN IMMEDIATE")
            yield
            db.execute("COMMIT")
        except (sqlite3.Error, UnicodeEncodeError) as error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise JournalError(f"{self.path}: {_readable(error)}: command not written "
                               "(every command before it is kept)") from None
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def append(self, at: str, command: dict, status: str, reason: str | None,
               events: list[tuple[str, dict]], command_id: str | None = None) -> int:
        """Write one command and its events in one transaction (or in the transaction() it is
        made in); returns its batch number."""
        db = self.db
        with self.transaction():
            number, previous = db.execute("SELECT batch, hash FROM tip").fetchone() or (0, GENESIS)
            number += 1
            seq = db.execute("SELECT coalesce(max(seq), 0) FROM events WHERE game = ?", (GAME,)).fetchone()[0]
            row = (number, GAME, at, command_id, json.dumps(command, ensure_ascii=False), status, reason)
            rows = [(GAME, seq + i, number, kind, json.dumps(data, ensure_ascii=False))
                    for i, (kind, data) in enumerate(events, 1)]
            digest = chain(previous, row, rows)
            db.execute("INSERT INTO commands (batch, game, at, id, command, status, reason, hash) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (*row, digest))
            db.executemany("INSERT INTO events (game, seq, batch, kind, data) VALUES (?, ?, ?, ?, ?)", rows)
            db.execute("INSERT OR REPLACE INTO tip (one, batch, hash) VALUES (1, ?, ?)", (number, digest))
        return number

    def backup(self, path: str | Path) -> None:
        """A consistent copy while the game runs (SQLite's backup API), made atomically:
        a temporary file beside `path`, synced, then renamed over it."""
        path = Path(path)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.close(fd)
        try:
            copy = sqlite3.connect(temporary)
            try:
                self.db.backup(copy)
            finally:
                copy.close()
            _fsync(temporary)
            os.replace(temporary, path)
            _fsync(path.parent)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _check_present(path: Path) -> None:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise JournalError(f"{path}: no such journal") from None
    except OSError as error:
        raise JournalError(f"{path}: cannot open: {_os_reason(error)}") from None
    if size == 0:
        raise JournalError(f"{path}: an empty file (0 bytes), not a journal; "
                           "`companion start --event ...` begins a game in a new file")


def _typed(values: tuple, kinds: tuple) -> bool:
    return all(type(value) in allowed for value, allowed in zip(values, kinds))


def _readable(error: Exception) -> str:
    text = str(error)
    if isinstance(error, UnicodeEncodeError):
        return "text that is not valid Unicode"
    if "disk is full" in text:
        return "the disk is full"
    if "readonly" in text or "read-only" in text:
        return "the medium is read-only"
    return text


def _os_reason(error: OSError) -> str:
    return {errno.EROFS: "the medium is read-only", errno.EACCES: "no permission to write it",
            errno.EPERM: "no permission to write it", errno.ENOSPC: "the disk is full",
            errno.EISDIR: "it is a folder"}.get(error.errno, error.strerror or str(error))


def _write_atomic(path: Path, text: str) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _fsync(path: str | Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
