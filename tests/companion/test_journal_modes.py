"""Files only their owner reads: the journal (account letters, private votes) and everything made
from it are created 0600 whatever the umask (0640 in a set-group-id folder, for its group); the
event file (the secret) stays 0600."""
import os
import sqlite3
import stat

import pytest

from companion.core.journal import Journal
from companion.core.session import salvage

from journal_games import DEMO, run, write_game


@pytest.fixture(autouse=True)
def umask_022():
    old = os.umask(0o022)               # the usual umask: new files 0644 unless made private
    yield
    os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_journal_its_rollback_journal_and_its_holder_file_are_the_owners_alone(tmp_path):
    session = write_game(tmp_path / "j.db", DEMO[:3])
    assert mode(tmp_path / "j.db") == 0o600 and mode(tmp_path / "j.db.writer") == 0o600
    db = sqlite3.connect(tmp_path / "j.db", isolation_level=None)   # a write under way: its -journal
    db.execute("BEGIN IMMEDIATE")
    db.execute("INSERT INTO meta VALUES ('probe', 'x')")
    assert mode(tmp_path / "j.db-journal") == 0o600
    db.execute("ROLLBACK")
    db.close()
    session.journal.close()


def test_backups_salvaged_copies_and_the_events_journal_are_0600(tmp_path):
    event = tmp_path / "event.toml"
    assert run("init", "--out", event, "--seed", 3)[0] == 0
    assert mode(event) == 0o600                                     # the secret
    assert run("start", "--event", event)[0] == 0
    assert mode(tmp_path / "night-1.db") == 0o600
    assert run("journal", "backup", tmp_path / "night-1.db", tmp_path / "copy.db")[0] == 0
    assert mode(tmp_path / "copy.db") == 0o600
    salvage(tmp_path / "night-1.db", tmp_path / "salvaged.db")
    assert mode(tmp_path / "salvaged.db") == 0o600


def test_a_writer_narrows_an_older_journal_made_0644(tmp_path):
    write_game(tmp_path / "j.db", DEMO[:2], close=True)
    os.chmod(tmp_path / "j.db", 0o644)
    Journal(tmp_path / "j.db", readonly=True).close()
    assert mode(tmp_path / "j.db") == 0o644                          # a reader changes nothing
    Journal(tmp_path / "j.db").close()
    assert mode(tmp_path / "j.db") == 0o600


def test_in_a_set_group_id_folder_the_group_reads_it(tmp_path):
    shared = tmp_path / "srv"
    shared.mkdir()
    os.chmod(shared, 0o2750)
    if not os.stat(shared).st_mode & stat.S_ISGID:
        pytest.skip("this file system does not keep set-group-id on folders")
    write_game(shared / "j.db", DEMO[:2]).journal.backup(shared / "copy.db")
    assert mode(shared / "j.db") == 0o640 and mode(shared / "copy.db") == 0o640
