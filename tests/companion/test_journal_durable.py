"""Nothing lives only beside the .db: backups (command and [event] backup), a full disk and a
read-only medium each say what they are, and nothing committed is lost."""
import contextlib
import os
import subprocess
import sys
import uuid

import pytest

from companion.core.journal import Journal, JournalError
from companion.core.session import Session

from journal_games import DEMO, run, write_game


def test_journal_backup_copies_a_running_game_and_verifies_the_copy(tmp_path):
    live = write_game(tmp_path / "j.db")                  # the writer is still open
    (tmp_path / "usb").mkdir()
    code, out, err = run("journal", "backup", tmp_path / "j.db", tmp_path / "usb")
    assert code == 0 and out == f"{tmp_path / 'usb' / 'j.db'}: backup of {tmp_path / 'j.db'}, 10 batches, " \
                                "hash chain verified\n"
    assert Session(Journal(tmp_path / "usb" / "j.db", readonly=True)).state == live.state
    assert os.listdir(tmp_path / "usb") == ["j.db"]       # no temporary file left
    assert run("journal", "backup", tmp_path / "j.db", tmp_path / "j.db")[0] == 2


def test_a_backup_that_fails_leaves_the_previous_copy_whole(tmp_path, monkeypatch):
    live = write_game(tmp_path / "j.db", DEMO[:3])
    live.journal.backup(tmp_path / "copy.db")
    before = (tmp_path / "copy.db").read_bytes()
    live.submit(DEMO[3])

    def no_sync(path):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr("companion.core.journal._fsync", no_sync)
    with pytest.raises(OSError):
        live.journal.backup(tmp_path / "copy.db")
    assert (tmp_path / "copy.db").read_bytes() == before and sorted(os.listdir(tmp_path)) == ["copy.db", "j.db",
                                                                                             "j.db.writer"]


def event_with_backup(tmp_path, backup: str):
    event = tmp_path / "event.toml"
    assert run("init", "--out", event, "--seed", 4)[0] == 0
    text = event.read_text()
    event.write_text(text.replace('journal = "night-1.db"', f'journal = "night-1.db"\nbackup = "{backup}"', 1))
    return event


def test_the_event_backup_is_copied_after_setup_and_each_turn(tmp_path):
    (tmp_path / "usb").mkdir()
    event = event_with_backup(tmp_path, "usb/night-1.db")
    copy = tmp_path / "usb" / "night-1.db"
    assert run("start", "--event", event)[0] == 0
    assert Journal(copy, readonly=True).count() == 1
    assert run("do", "--event", event, '{"do":"begin_turn"}')[0] == 0
    assert run("do", "--event", event, '{"do":"draw","balls":[1,2,3]}')[0] == 0
    assert Journal(copy, readonly=True).count() == 2       # copied at the turn's start, not at each draw
    assert Session(Journal(copy, readonly=True)).state.turn == 1


def test_a_failing_backup_is_one_warning_and_the_game_goes_on(tmp_path):
    event = event_with_backup(tmp_path, "/nonexistent-usb-stick/night-1.db")
    code, _, err = run("start", "--event", event)
    assert code == 0 and err.count("\n") == 1 and "warning: backup to /nonexistent-usb-stick/night-1.db failed" in err
    code, out, err = run("do", "--event", event, '{"do":"begin_turn"}')
    assert code == 0 and out == "ok\n" and err.count("\n") == 1 and "the game goes on" in err
    assert Journal(tmp_path / "night-1.db", readonly=True).count() == 2


def test_a_full_disk_is_one_line_and_loses_nothing_committed(tmp_path):
    session = write_game(tmp_path / "j.db", DEMO[:3])
    pages = session.journal.db.execute("PRAGMA page_count").fetchone()[0]
    session.journal.db.execute(f"PRAGMA max_page_count = {pages}")      # the disk as SQLite sees it: full
    committed = []
    with pytest.raises(JournalError) as full:
        for line in DEMO[3:]:
            state = session.state
            session.submit(line)
            committed.append(line)
    assert "the disk is full: command not written (every command before it is kept)" in str(full.value)
    assert "\n" not in str(full.value) and session.state == state
    session.journal.close()
    assert Session(Journal(tmp_path / "j.db", readonly=True)).state == write_game(None, DEMO[:3] + committed).state


def test_a_read_only_medium_is_named_as_such(tmp_path, monkeypatch):
    write_game(tmp_path / "j.db").journal.close()
    real_open = os.open

    def read_only(path, flags, *args):
        if str(path) == str(tmp_path / "j.db") and flags & os.O_RDWR:
            raise OSError(30, "Read-only file system")
        return real_open(path, flags, *args)
    monkeypatch.setattr(os, "open", read_only)
    code, _, err = run("do", "--journal", tmp_path / "j.db", '{"do":"begin_turn"}')
    assert code == 1 and "the medium is read-only" in err and "not a companion journal" not in err
    assert run("status", "--journal", tmp_path / "j.db")[0] == 0     # readers still read it


@pytest.fixture
def tiny_disk(tmp_path):
    """A real 400 KB filesystem (tmpfs), when this test may mount one (root on Linux)."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", f"tmpfs-{uuid.uuid4().hex[:6]}",
                                            str(mount)], capture_output=True).returncode:
        pytest.skip("needs root to mount a small tmpfs")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def companion(*argv):
    return subprocess.run([sys.executable, "-m", "companion", *map(str, argv)], capture_output=True, text=True,
                          timeout=60)


def test_a_real_full_disk_and_a_real_read_only_medium(tiny_disk):
    path = tiny_disk / "night.db"
    write_game(path, DEMO[:2]).journal.close()
    fill = os.open(tiny_disk / "fill", os.O_WRONLY | os.O_CREAT)
    with contextlib.suppress(OSError):
        while True:
            os.write(fill, b"\0" * 4096)
    os.close(fill)
    full = companion("do", "--journal", path, '{"do":"draw","balls":[12,18,19]}')
    assert full.returncode == 1 and "the disk is full" in full.stderr and full.stderr.count("\n") == 1
    (tiny_disk / "fill").unlink()
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_disk)], check=True)
    refused = companion("do", "--journal", path, '{"do":"draw","balls":[12,18,19]}')
    assert refused.returncode == 1 and "the medium is read-only" in refused.stderr
    status = companion("status", "--journal", path)
    assert status.returncode == 0 and "turn 1" in status.stdout


CUT_OFF_WRITER = """
import os, signal, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA cache_size=1")              # spill the transaction into the .db before it commits
db.execute("BEGIN IMMEDIATE")
for i in range(2000):
    db.execute("INSERT INTO meta VALUES (?, ?)", (f"k{i}", "x" * 200))
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_reader_opens_a_journal_whose_writer_was_killed_mid_write(tmp_path):
    """The display may be the first to open the file after a power cut: the hot rollback journal is
    rolled back, and the reader sees every committed batch."""
    live = write_game(tmp_path / "j.db")
    live.journal.close()
    subprocess.run([sys.executable, "-c", CUT_OFF_WRITER, str(tmp_path / "j.db")])
    assert (tmp_path / "j.db-journal").exists()
    code, out, err = run("status", "--journal", tmp_path / "j.db", "--json")
    assert code == 0 and err == ""
    assert Session(Journal(tmp_path / "j.db", readonly=True)).state == live.state
