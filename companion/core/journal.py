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
  row and its event rows), and the `tip` row names the last batch and its hash. That proves
  integrity, which anyone can check and anyone who edits the file can recompute. A journal made
  with its event file (version 3 on) also seals each batch: HMAC-SHA256 of its hash keyed with the
  event's secret, which a forger without the secret cannot recompute. Opening verifies the whole
  chain, the tip, the id index and, given the secret, the seals; a damaged or forged file is
  refused naming the batch. A writer of a sealed journal finds the event file the journal names
  (`meta.event`) when it is not given one. Version 2 journals (the plain chain) are read and
  written as they are; salvage with the event file seals a copy.
- Names its game: every row's `game` column holds the game the setup (batch 1) chose (version 4).
  Versions 2 and 3 wrote "bingo" there whatever the game; the chain covers that column, so their
  rows stay as they are (written on the same way) and their game is the one their setup names.
- Rows are never edited: triggers refuse UPDATE and DELETE; mistakes are correction events.
- Idempotent: a command may carry an id (UNIQUE); find(id) returns the batch holding it, looked
  up among the ids of batches read and verified, never through SQLite's index alone (a damaged
  index page would hide an applied command); verify() checks the index against them.
- Owner-only: a writer creates the file 0600 (0640 in a set-group-id folder: its group reads it)
  and narrows an older, wider one; SQLite gives its rollback journal the same mode.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import hmac
import json
import os
import sqlite3
import stat
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from . import event_file

VERSION = 4                 # 1: WAL, no hash chain, no ids (before 2026-12-01); 2: no seals (before 2027-01);
                            # 3: the game column says "bingo" whatever the game (before 2026-12-03)
NAMES_GAME = 4              # the first version whose rows name their own game
OLD_GAME = "bingo"          # what the game column of every row of an older version says
SEAL = "hmac-sha256"        # meta.seal of a journal whose batches are sealed with the event's secret
GENESIS = "0" * 64          # the "previous hash" of batch 1
READER_WAIT_S = 10.0        # how long a reader waits for a writer's commit before giving up
SCHEMA = """
BEGIN IMMEDIATE;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE commands (
    batch INTEGER PRIMARY KEY, game TEXT NOT NULL, at TEXT NOT NULL, id TEXT,
    command TEXT NOT NULL, status TEXT NOT NULL, reason TEXT, hash TEXT NOT NULL, seal TEXT);
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
    BEGIN SELECT RAISE(ABORT, 'journal rows are never deleted'); END;""" for table in ("meta", "commands", "events"))
# (the transaction stays open: _create_if_new adds the meta rows and commits)
# what SQLite raises for a damaged file (a broken name in its schema does not even decode)
SQLITE_ERRORS = (sqlite3.Error, UnicodeDecodeError)
TEXT, NUMBER, OPTIONAL = (str,), (int,), (str, type(None))
COMMAND_TYPES = (NUMBER, TEXT, TEXT, OPTIONAL, TEXT, TEXT, OPTIONAL, TEXT, OPTIONAL)   # as SELECTed in _read
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
    game: str | None = None     # the game its rows name (None: an older version, whose rows say "bingo")


def chain(previous: str, row: tuple, events: list[tuple]) -> str:
    """The batch hash: previous hash, the command row (batch, game, at, id, command, status,
    reason) and its event rows (game, seq, batch, kind, data), exactly as stored."""
    text = json.dumps([previous, list(row), [list(event) for event in events]],
                      ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def seal(secret: str, digest: str) -> str:
    """A batch's seal: its chain hash, keyed with the event's secret."""
    return hmac.new(secret.encode("utf-8", "surrogatepass"), f"companion journal batch {digest}".encode(),
                    hashlib.sha256).hexdigest()


def file_mode(folder: str | Path) -> int:
    """0600: the journal holds account letters and private votes. 0640 in a set-group-id folder
    (chmod g+s): the folder's group (a service running as another user) reads it too."""
    try:
        shared = os.stat(folder).st_mode & stat.S_ISGID
    except OSError:
        shared = 0
    return 0o640 if shared else 0o600


def private_temporary(path: Path) -> str:
    """A new empty temporary file beside `path`, with the journal's mode (file_mode)."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, file_mode(path.parent))
    finally:
        os.close(fd)
    return temporary


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
                 holder: str | None = None, check: bool = True, event: event_file.EventFile | None = None):
        """path None keeps the journal in memory (rehearsals without a file). A writer (not
        readonly) takes the journal's lock; `existing` refuses a missing or empty file instead
        of starting a new journal in it (for commands that continue a game). check=False (salvage
        only, read-only) skips verifying on open and also reads version 1 journals. `event`: its
        secret seals a new journal and checks an existing one's seals (without it a reader checks
        integrity only, and a writer of a sealed journal reads the event file the journal names)."""
        path = None if str(path) == ":memory:" else path      # SQLite's name for memory, not a file to lock
        self.path = str(path) if path else ":memory:"
        self.readonly = readonly or not check
        self.version = VERSION
        self.event = event
        self.sealed = False                 # the batches carry seals (meta.seal)
        self._meta: dict = {}
        self._ids: dict[str, int] = {}      # command id -> batch, from verified batches up to _known
        self._known = (0, GENESIS)          # (batch, hash) of the last batch whose ids are in _ids
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
                if self.sealed and not self.readonly and self.event is None:
                    self.event = self.recorded_event()
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
                sealed = [("seal", SEAL), ("event", self._event_name())] if self.event else []
                self.db.executemany("INSERT INTO meta VALUES (?, ?)", [("schema", str(VERSION)), *sealed])
                self.db.execute("COMMIT")
        except SQLITE_ERRORS as error:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise self._not_a_journal(error) from None

    def _event_name(self) -> str:
        """How the journal names its event file: by its name when it lies beside the journal."""
        event = Path(self.event.path).resolve()
        return event.name if event.parent == Path(self.path).resolve().parent else str(event)

    def recorded_event(self) -> event_file.EventFile:
        """The event file a sealed journal names, read (a writer needs its secret to seal)."""
        named = self._meta.get("event")
        if not isinstance(named, str) or not named:
            raise JournalError(f"{self.path}: sealed with its event's secret, and names no event file; "
                               "give it (--event event.toml)")
        try:
            return event_file.load(event_file.beside(Path(self.path), Path(named)))
        except event_file.EventFileError as error:
            raise JournalError(f"{self.path}: sealed with the secret of the event file {named}, which does "
                               f"not load ({error}); give the event file (--event event.toml)") from None

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
            self._meta = dict(self._execute("SELECT key, value FROM meta"))
            version = self._meta.get("schema", "?")
            if version not in ("2", "3", str(VERSION)) or self._meta.get("seal", SEAL) != SEAL:
                raise JournalError(f"{self.path}: journal version {version!r} sealed {self._meta.get('seal')!r}, "
                                   f"this companion reads versions 2 to {VERSION} sealed {SEAL!r}")
            self.version = int(version)
            self.sealed = self.version >= 3 and "seal" in self._meta
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
            mode = file_mode(Path(self.path).parent)
            self._lock_fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), mode)
            _narrow(self._lock_fd, mode)
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

    @property
    def names_game(self) -> bool:
        """Its rows' game column holds the game (else it says "bingo", and the setup names the game)."""
        return self.version >= NAMES_GAME

    @property
    def authentic(self) -> bool:
        """Verifying checked the seals with the event's secret (not only the chain's integrity)."""
        return self.sealed and self.event is not None

    def proof(self) -> str:
        """What verifying this journal proves, in words."""
        if self.authentic:
            return f"authentic: every batch sealed with the secret of {self.event.path}"
        if self.sealed:
            return ("integrity only, not authenticity: the seals were not checked without the event's "
                    "secret (give --event event.toml)")
        why = "a version 2 journal (a plain sha256 chain, before seals)" if self.version == 2 else \
            "a journal made without an event file (no seals)"
        return (f"integrity only, not authenticity: {why}, whose chain anyone who edits the file can "
                "recompute; `companion journal salvage --event` seals a copy")

    def holds(self, game: str) -> str:
        """Which schema the file has and where its game (the one its setup names) is written."""
        if self.names_game:
            return f"journal version {self.version}: its rows name its game, {game}"
        return (f"journal version {self.version}: its rows say {OLD_GAME} whatever the game, as this version "
                f"wrote them, and its setup names the game, {game} (kept as written: the chain covers them)")

    def older(self, game: str) -> str | None:
        """Said when a journal of an older version is opened to play on: what it is read as."""
        if self.version == VERSION:
            return None
        return (f"{self.path}: {self.holds(game)}; read as version {VERSION}, its game {game}; "
                + SALVAGE_HINT.format(path=self.path) + f" of version {VERSION}")

    def verify(self, thorough: bool = False) -> int:
        """Check every batch's hash (and seal, given the event's secret), the tip, and the command-id
        index against the batches; thorough adds SQLite's own integrity check. Returns the number of
        batches."""
        last = Batch(0, "", {}, "", None, [], hash=GENESIS)
        ids: dict[str, int] = {}
        with self._snapshot():
            if thorough:
                self._check_integrity()
            for last in self.batches():
                self._remember(ids, last)
            tip = self._one("SELECT batch, hash FROM tip")
            if (tip or (0, GENESIS)) != (last.number, last.hash):
                what = f"names batch {tip[0]}" if tip else "is missing"
                raise JournalDamaged(self.path, f"the journal's tip record {what} but the chain ends at batch "
                                                f"{last.number}", last.number + 1)
            self._check_index(ids)
        self._ids, self._known = ids, (last.number, last.hash)
        return last.number

    def _check_integrity(self) -> None:
        problems = [line for (line,) in self._query("PRAGMA integrity_check")]
        if problems != ["ok"]:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise JournalDamaged(self.path, f"SQLite's integrity check: {problems[0]}{more}")

    def _remember(self, ids: dict[str, int], batch: Batch) -> None:
        if batch.id is None:
            return
        if batch.id in ids:
            raise self._damaged(batch.number, f"repeats the command id of batch {ids[batch.id]}")
        ids[batch.id] = batch.number

    def _check_index(self, ids: dict[str, int]) -> None:
        """SQLite's command-id index holds exactly the ids of the chained batches."""
        if self.version < 2:
            return
        if not self._one("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'commands_by_id'"):
            raise JournalDamaged(self.path, "the command-id index is missing")
        indexed = self._query("SELECT id, batch FROM commands INDEXED BY commands_by_id WHERE id IS NOT NULL")
        entries = set(indexed)
        for command_id, number in ids.items():
            if (command_id, number) not in entries:
                raise self._damaged(number, "is missing from the command-id index")
        if len(indexed) != len(ids):
            raise JournalDamaged(self.path, f"the command-id index holds {len(indexed)} ids, the batches {len(ids)}")

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
        """The batch that holds the command with this id, if any: looked up among the ids of the
        batches read and verified (those after the last one known are read first), not through
        SQLite's index, which a damaged page could make miss an applied command."""
        with self._snapshot():
            for batch in self.batches(self._known[0]):
                self._remember(self._ids, batch)
                self._known = (batch.number, batch.hash)
            number = self._ids.get(command_id)
            return None if number is None else self._read(number, self._stored_hash(number - 1))

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
            return "batch, game, at, NULL, command, status, reason, '', NULL"
        if self.version == 2:                                  # no seals
            return "batch, game, at, id, command, status, reason, hash, NULL"
        return "batch, game, at, id, command, status, reason, hash, seal"

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
        _, game, at, command_id, command, status, reason, digest, stamp = row
        if self.version > 1 and chain(previous, row[:7], events) != digest:
            raise self._damaged(number, "does not match its hash")
        if any(other != game for other, *_ in events):
            raise self._damaged(number, f"has events of another game than its command's ({game!r})")
        if not self.names_game and game != OLD_GAME:
            raise self._damaged(number, f"names the game {game!r}, where version {self.version} wrote {OLD_GAME!r}")
        if self.sealed and stamp is None:
            raise self._damaged(number, "has no seal")
        if self.authentic and not hmac.compare_digest(stamp.encode("utf-8", "surrogatepass"),
                                                      seal(self.event.secret, digest).encode()):
            raise self._damaged(number, "does not match its seal (changed without the event's secret, "
                                        "or sealed by another event)")
        try:
            return Batch(number, at, json.loads(command), status, reason,
                         [(seq, kind, json.loads(data)) for _, seq, _, kind, data in events], command_id, digest,
                         game if self.names_game else None)
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
        known, ids = self._known, dict(self._ids)     # what find() knew: rolled back with the batches
        try:
            db.execute("BEGIN IMMEDIATE")
            yield
            db.execute("COMMIT")
        except (sqlite3.Error, UnicodeEncodeError) as error:
            self._roll_back(known, ids)
            raise JournalError(f"{self.path}: {_readable(error)}: command not written "
                               "(every command before it is kept)") from None
        except BaseException:
            self._roll_back(known, ids)
            raise

    def _roll_back(self, known: tuple[int, str], ids: dict[str, int]) -> None:
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")
        self._known, self._ids = known, ids

    def append(self, at: str, command: dict, status: str, reason: str | None,
               events: list[tuple[str, dict]], command_id: str | None = None, *, game: str) -> int:
        """Write one command of `game` and its events in one transaction (or in the transaction()
        it is made in); returns its batch number."""
        db = self.db
        with self.transaction():
            number, previous = db.execute("SELECT batch, hash FROM tip").fetchone() or (0, GENESIS)
            number += 1
            game = self._stored_game(game, number)
            seq = db.execute("SELECT coalesce(max(seq), 0) FROM events").fetchone()[0]
            row = (number, game, at, command_id, json.dumps(command, ensure_ascii=False), status, reason)
            rows = [(game, seq + i, number, kind, json.dumps(data, ensure_ascii=False))
                    for i, (kind, data) in enumerate(events, 1)]
            digest = chain(previous, row, rows)
            if self.version >= 3:
                db.execute("INSERT INTO commands (batch, game, at, id, command, status, reason, hash, seal) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (*row, digest, self._seal(digest)))
            else:
                db.execute("INSERT INTO commands (batch, game, at, id, command, status, reason, hash) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (*row, digest))
            db.executemany("INSERT INTO events (game, seq, batch, kind, data) VALUES (?, ?, ?, ?, ?)", rows)
            db.execute("INSERT OR REPLACE INTO tip (one, batch, hash) VALUES (1, ?, ?)", (number, digest))
            if self._known[0] == number - 1:        # the ids known stay those of every batch up to _known
                if command_id is not None:
                    self._ids[command_id] = number
                self._known = (number, digest)
        return number

    def _stored_game(self, game: str, number: int) -> str:
        """What the game column of batch `number` holds: the game (its own since batch 1), or in
        an older version "bingo", as that version wrote it."""
        if not self.names_game:
            return OLD_GAME
        first = self.db.execute("SELECT game FROM commands WHERE batch = 1").fetchone() if number > 1 else None
        if first and first[0] != game:
            raise JournalError(f"{self.path}: holds a game of {first[0]}; a command of {game} does not belong in it")
        return game

    def _seal(self, digest: str) -> str | None:
        return seal(self.event.secret, digest) if self.sealed else None

    def backup(self, path: str | Path) -> None:
        """A consistent copy while the game runs (SQLite's backup API), made atomically:
        a temporary file beside `path`, synced, then renamed over it."""
        path = Path(path)
        temporary = private_temporary(path)
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


def _narrow(fd: int, mode: int) -> None:
    """Take from an existing file the permissions `mode` does not give (an older journal made 0644)."""
    current = stat.S_IMODE(os.fstat(fd).st_mode)
    if current & ~mode:
        with contextlib.suppress(OSError):          # not the owner: the file stays as it is
            os.fchmod(fd, current & mode)


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
