"""The journal: durable settings, append-only rows, restart = replay, crash safety."""
import json
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from companion.bingo.commands import parse, to_dict
from companion.bingo.demo import demo_script
from companion.core.journal import Journal, JournalError
from companion.core.session import Game, Session

DEMO = demo_script(6, seed=3)


def write_game(path, lines=DEMO):
    session = Session(Journal(path))
    for line in lines:
        assert session.submit(line).status != "rejected"
    return session


def test_rollback_journal_and_full_sync(tmp_path):
    journal = Journal(tmp_path / "j.db")
    assert journal.db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert journal.db.execute("PRAGMA synchronous").fetchone()[0] == 3   # EXTRA: FULL + directory sync


def test_the_db_file_alone_holds_every_committed_batch(tmp_path):
    """A reader open (as the display is), 60 commands, then only the .db file is copied."""
    writer = write_game(tmp_path / "j.db", DEMO[:1])
    reader = Journal(tmp_path / "j.db", readonly=True)
    game, last = Game(), 0
    for line in DEMO[1:61]:
        writer.submit(line)
        for batch in game.follow(reader, after=last):
            last = batch.number
    assert game.state == writer.state
    (tmp_path / "copy.db").write_bytes((tmp_path / "j.db").read_bytes())
    assert Session(Journal(tmp_path / "copy.db", readonly=True)).state == writer.state


def test_restart_replays_to_the_same_state(tmp_path):
    live = write_game(tmp_path / "j.db")
    live.journal.close()
    assert Session(Journal(tmp_path / "j.db")).state == live.state
    assert live.state.phase == "finished"


def test_rows_are_never_edited_or_deleted(tmp_path):
    session = write_game(tmp_path / "j.db", DEMO[:5])
    for sql in ("UPDATE events SET data = '{}'", "DELETE FROM events", "UPDATE commands SET status = 'x'"):
        with pytest.raises(sqlite3.DatabaseError, match="never"):
            session.journal.db.execute(sql)


def test_undo_is_a_correction_event_and_replays(tmp_path):
    session = write_game(tmp_path / "j.db", DEMO[:4])
    before = session.state
    session.submit(DEMO[4])
    outcome = session.submit({"do": "undo"})
    assert outcome.status == "ok" and session.state == before
    kinds = [kind for batch in session.journal.batches() for _, kind, _ in batch.events]
    assert kinds[-1] == "Undone" and len(list(session.journal.batches())) == 6   # nothing erased
    assert Session(Journal(tmp_path / "j.db", readonly=True)).state == before


def test_undo_with_nothing_to_take_back_is_rejected():
    assert Session(Journal()).submit({"do": "undo"}).reason == "nothing to undo"


def test_readers_follow_new_batches_without_writing(tmp_path):
    writer = write_game(tmp_path / "j.db", DEMO[:3])
    reader, game = Journal(tmp_path / "j.db", readonly=True), Game()
    last = [b.number for b in game.follow(reader)][-1]
    writer.submit(DEMO[3])
    assert [b.number for b in game.follow(reader, after=last)] == [last + 1]
    assert game.state == writer.state
    with pytest.raises(sqlite3.OperationalError):
        reader.db.execute("INSERT INTO commands (game, at, command, status) VALUES ('bingo', '', '{}', 'ok')")


def test_backup_while_running(tmp_path):
    session = write_game(tmp_path / "j.db", DEMO[:10])
    session.journal.backup(tmp_path / "copy.db")
    assert Session(Journal(tmp_path / "copy.db")).state == session.state


def test_a_file_that_is_not_a_journal_is_named(tmp_path):
    (tmp_path / "photo.db").write_bytes(b"\xff\xd8 not sqlite at all" * 100)
    with pytest.raises(JournalError, match="photo.db: not a companion journal"):
        Journal(tmp_path / "photo.db")
    with pytest.raises(JournalError, match="no such journal"):
        Journal(tmp_path / "missing.db", readonly=True)


def _count(path) -> int:
    try:
        return Journal(path, readonly=True).count()
    except JournalError:   # not created yet
        return 0


def test_killed_mid_game_loses_nothing_that_was_committed(tmp_path):
    """SIGKILL while a game is being written; every committed command survives whole."""
    script = tmp_path / "game.jsonl"
    lines = demo_script(12, seed=5)
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    journal = tmp_path / "j.db"
    process = subprocess.Popen([sys.executable, "-m", "companion", "replay", str(script), "--journal", str(journal)],
                               stdout=subprocess.DEVNULL)
    while _count(journal) < 20:
        time.sleep(0.01)
        assert process.poll() is None, "the game finished before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait()
    restarted = Session(Journal(journal))
    written = restarted.journal.count()
    assert 20 <= written < len(lines)
    assert [b.command for b in restarted.journal.batches()] == [to_dict(parse(line)) for line in lines[:written]]
    assert restarted.state == write_game(None, lines[:written]).state
    for line in lines[written:]:                       # the game goes on after the restart
        assert restarted.submit(line).status != "rejected"
    assert restarted.state.phase == "finished"
