"""A journal that proves itself: hash-chained batches, verified on open; damage is refused in one
line naming what is wrong, never a traceback and never a silently different state."""
import json
import random
import sqlite3

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from companion.cli.bench import judge_damaged
from companion.core.journal import Journal, JournalDamaged
from companion.core.session import Session

from journal_games import DEMO, run, tamper
from journal_games import write_game as write_open


def write_game(path, lines=DEMO[:40]) -> Session:
    return write_open(path, lines, close=True)


def test_each_batch_carries_a_hash_chained_to_the_one_before(tmp_path):
    write_game(tmp_path / "j.db", DEMO[:5])
    batches = list(Journal(tmp_path / "j.db", readonly=True).batches())
    assert len({b.hash for b in batches}) == 5 and all(len(b.hash) == 64 for b in batches)
    code, out, err = run("journal", "verify", tmp_path / "j.db")
    assert (code, err) == (0, "") and out.startswith(
        f"{tmp_path / 'j.db'}: OK, 5 batches, hash chain, id index and SQLite integrity verified, replays; "
        "integrity only, not authenticity: a journal made without an event file (no seals)")


@pytest.mark.parametrize("change, batch", [
    ("UPDATE events SET data = replace(data, '19', '20') WHERE batch = 3", 3),      # a ball changed
    ("UPDATE commands SET status = 'invalid' WHERE batch = 7", 7),
    ("DELETE FROM events WHERE batch = 12", 12),
    ("UPDATE events SET batch = 9 WHERE batch = 10", 9),
    ("DELETE FROM commands WHERE batch = 4", 4),
])
def test_a_changed_journal_is_refused_naming_the_batch(tmp_path, change, batch):
    write_game(tmp_path / "j.db")
    tamper(tmp_path / "j.db", change)
    with pytest.raises(JournalDamaged, match=f"batch {batch} ") as refused:
        Journal(tmp_path / "j.db", readonly=True)
    assert refused.value.batch == batch
    for argv in (("journal", "verify"), ("status", "--journal"), ("do", "--journal"), ("journal", "show")):
        code, out, err = run(*argv, tmp_path / "j.db", *(['{"do":"begin_turn"}'] if argv[0] == "do" else []))
        assert code == 1 and out == "" and f"batch {batch} " in err and err.count("\n") == 1


def test_dropping_the_last_batches_is_refused(tmp_path):
    write_game(tmp_path / "j.db")
    tamper(tmp_path / "j.db", "DELETE FROM commands WHERE batch > 38")
    with pytest.raises(JournalDamaged, match="tip record names batch 40 but the chain ends at batch 38"):
        Journal(tmp_path / "j.db", readonly=True)


@pytest.mark.parametrize("content, what", [
    (b"", "empty file"),
    (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40, "not a companion journal"),
    (b"SQLite format 3\x00" + b"\xff" * 5000, "not a companion journal"),
])
def test_files_that_are_no_journal_are_one_line(tmp_path, content, what):
    (tmp_path / "x.db").write_bytes(content)
    for argv in (("journal", "verify"), ("status", "--journal"), ("do", "--journal"), ("journal", "export")):
        code, out, err = run(*argv, tmp_path / "x.db", *(['{"do":"begin_turn"}'] if argv[0] == "do" else []))
        assert code == 1 and what in err and err.count("\n") == 1, (argv, err)
    assert (tmp_path / "x.db").read_bytes() == content


def test_another_sqlite_file_is_not_a_journal(tmp_path):
    db = sqlite3.connect(tmp_path / "other.db")
    db.execute("CREATE TABLE photos (name TEXT)")
    db.commit()
    code, _, err = run("status", "--journal", tmp_path / "other.db")
    assert code == 1 and "not a companion journal (no journal tables)" in err


V1_SCHEMA = """
CREATE TABLE commands (batch INTEGER PRIMARY KEY, game TEXT NOT NULL, at TEXT NOT NULL,
    command TEXT NOT NULL, status TEXT NOT NULL, reason TEXT);
CREATE TABLE events (game TEXT NOT NULL, seq INTEGER NOT NULL, batch INTEGER NOT NULL,
    kind TEXT NOT NULL, data TEXT NOT NULL, UNIQUE (game, seq));
"""


def write_version_1(path, live: Session) -> None:
    """A journal as the companion wrote it before hashes (WAL, no meta table)."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(V1_SCHEMA)
    for b in Journal(live.journal.path, readonly=True).batches():
        db.execute("INSERT INTO commands VALUES (?, 'bingo', ?, ?, ?, ?)",
                   (b.number, b.at, json.dumps(b.command), b.status, b.reason))
        db.executemany("INSERT INTO events VALUES ('bingo', ?, ?, ?, ?)",
                       [(seq, b.number, kind, json.dumps(data)) for seq, kind, data in b.events])
    db.commit()
    db.close()


def test_an_older_journal_is_refused_and_salvage_upgrades_it(tmp_path):
    live = write_game(tmp_path / "new.db")
    write_version_1(tmp_path / "old.db", live)
    code, _, err = run("status", "--journal", tmp_path / "old.db")
    assert code == 1 and "older journal without a hash chain" in err and "companion journal salvage" in err
    code, out, _ = run("journal", "salvage", tmp_path / "old.db", "--out", tmp_path / "up.db")
    assert code == 0 and "all 40 batches" in out
    assert Session(Journal(tmp_path / "up.db", readonly=True)).state == live.state


def test_salvage_keeps_the_verified_prefix_of_a_damaged_journal(tmp_path):
    live = write_game(tmp_path / "j.db")
    tamper(tmp_path / "j.db", "UPDATE commands SET at = 'x' WHERE batch = 21")
    code, out, _ = run("journal", "salvage", tmp_path / "j.db", "--out", tmp_path / "good.db")
    assert code == 0 and "kept batches 1-20" in out and "batch 21" in out
    assert Session(Journal(tmp_path / "good.db", readonly=True)).state == write_game(None, DEMO[:20]).state
    assert run("journal", "salvage", tmp_path / "j.db", "--out", tmp_path / "good.db")[0] == 1  # never over a file
    assert live.state.turn > 0


# ---- fuzzing: single-bit flips and truncations of a real journal file

class Clean(tuple):
    def __repr__(self):                 # hypothesis prints the fixture with each failing example
        return "<clean journal>"


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clean")
    live = write_game(folder / "j.db")
    return Clean(((folder / "j.db").read_bytes(), live.state, folder))


@pytest.mark.slow
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bit=st.integers(min_value=0))
def test_single_bit_flips_are_refused_or_change_nothing(clean, bit):
    data, state, folder = clean
    damaged = bytearray(data)
    damaged[(bit // 8) % len(data)] ^= 1 << bit % 8
    (folder / "flip.db").write_bytes(bytes(damaged))
    assert judge_damaged(folder / "flip.db", state) in ("refused", "identical")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(length=st.integers(min_value=0))
def test_truncations_are_refused_or_change_nothing(clean, length):
    data, state, folder = clean
    (folder / "cut.db").write_bytes(data[:length % len(data)])
    assert judge_damaged(folder / "cut.db", state) in ("refused", "identical")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(bit=1_822_845_973_622_131_880_099_840, command="journal verify {j}")   # opened, then count() failed
@given(bit=st.integers(min_value=0), command=st.sampled_from([
    "journal verify {j}", "journal show {j}", "journal export {j}", "journal export --public {j}",
    "status --json --journal {j}", "do --journal {j} {buy}", "journal backup {j} {copy}",
    "journal salvage {j} --out {new}"]))
def test_journal_commands_on_damaged_files_answer_in_one_line(clean, bit, command):
    data, _, folder = clean
    damaged = bytearray(data)
    damaged[(bit // 8) % len(data)] ^= 1 << bit % 8
    (folder / "cmd.db").write_bytes(bytes(damaged))
    for leftover in ("copy.db", "new.db"):
        (folder / leftover).unlink(missing_ok=True)
    buy = json.dumps({"do": "buy", "player": 1, "item": "in", "id": "f"}, separators=(",", ":"))
    argv = command.format(j=folder / "cmd.db", buy=buy, copy=folder / "copy.db", new=folder / "new.db").split()
    code, _, err = run(*argv)
    assert code in (0, 1) and (code == 0 or err.count("\n") == 1), err
