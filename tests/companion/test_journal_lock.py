"""One writer per journal (ARCHITECTURE.md law 6): a second writer is refused at once, saying who holds it."""
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from companion.cli import bench, main
from companion.core import games
from companion.core.journal import Journal, JournalBusy
from companion.core.session import Session

from journal_games import DEMO
from journal_games import write_game as write_demo


def write_game(path, lines=DEMO[:3]) -> Session:
    return write_demo(path, lines)


def companion(*argv, timeout=60):
    return subprocess.run([sys.executable, "-m", "companion", *map(str, argv)],
                          capture_output=True, text=True, timeout=timeout)


def test_a_second_writer_is_refused_with_who_holds_it(tmp_path):
    writer = write_game(tmp_path / "j.db")
    with pytest.raises(JournalBusy) as refused:
        Journal(tmp_path / "j.db", holder="someone else")
    message = str(refused.value)
    assert f"pid {os.getpid()}" in message and "since 20" in message and "pytest" in message
    assert "only one writer" in message and "\n" not in message
    writer.journal.close()
    Journal(tmp_path / "j.db").close()                    # closed: the next writer may come


def test_readers_never_need_the_lock(tmp_path):
    writer = write_game(tmp_path / "j.db")
    assert Session(Journal(tmp_path / "j.db", readonly=True)).state == writer.state
    code = main(["status", "--journal", str(tmp_path / "j.db"), "--json"])
    assert code == 0


def test_do_is_refused_while_the_console_holds_the_journal(tmp_path):
    """The reported bug: console `b`, then `companion do ... draw`, then console `u y` left a journal
    no tool could open. Now the console's session holds the lock and the `do` is refused."""
    from tui.bingo.console import ConsoleApp
    write_game(tmp_path / "j.db", DEMO[:1]).journal.close()
    console = ConsoleApp.for_journal(tmp_path / "j.db")
    console.session.submit({"do": "begin_turn"})                       # console `b`
    refused = companion("do", "--journal", tmp_path / "j.db", json.dumps(DEMO[2]))
    assert refused.returncode == 3 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and "in use by" in refused.stderr and f"pid {os.getpid()}" in refused.stderr
    assert console.session.submit({"do": "undo"}).status == "ok"       # console `u y`
    console.session.journal.close()
    assert Session(Journal(tmp_path / "j.db", readonly=True)).state == write_game(None, DEMO[:1]).state


def test_a_killed_holder_leaves_the_lock_to_the_next_writer(tmp_path):
    write_game(tmp_path / "j.db").journal.close()
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from companion.core.journal import Journal; "
                               "j = Journal(sys.argv[1]); print('held', flush=True); time.sleep(60)",
                               str(tmp_path / "j.db")], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "held\n"
    with pytest.raises(JournalBusy, match=f"pid {holder.pid}"):
        Journal(tmp_path / "j.db")
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    Session(Journal(tmp_path / "j.db")).submit(DEMO[3])                   # the kernel dropped the lock


def test_do_on_an_empty_or_missing_file_does_not_start_a_new_game(tmp_path):
    (tmp_path / "empty.db").write_bytes(b"")
    result = companion("do", "--journal", tmp_path / "empty.db", json.dumps(DEMO[0]))
    assert result.returncode == 1 and "empty file" in result.stderr and result.stderr.count("\n") == 1
    assert (tmp_path / "empty.db").stat().st_size == 0
    result = companion("status", "--journal", tmp_path / "empty.db")
    assert result.returncode == 1 and "empty file" in result.stderr and "Traceback" not in result.stderr


def test_racing_writers_never_apply_two_commands_to_one_state(tmp_path):
    drills = [bench.racing_drill(tmp_path, i, games.drills()) for i in range(5)]
    assert [d["problem"] for d in drills] == [None] * 5
    assert all(d["busy"] + d["applied"] >= 1 for d in drills)


def test_the_drills_are_the_game_s_own_and_a_game_without_them_is_said_in_one_line(tmp_path, capsys):
    """bench.py names no game's command: the racing pairs and the killed command are the game's
    declaration (GameRules.drills); --game picks the game, as for the other journal benches."""
    assert games.drills().races and games.drills().killed
    assert main(["bench", "journal", "--drills", "1", "--game", "voters", "--dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "companion: --game voters: Voters has no journal drills; games with them: bingo\n"
    assert list(tmp_path.iterdir()) == []


def test_killed_and_retried_with_its_id_a_command_is_never_lost_nor_doubled(tmp_path):
    drills = [bench.kill_drill(tmp_path, i, random.Random(i), games.drills()) for i in range(5)]
    assert [d["problem"] for d in drills] == [None] * 5
    assert sum(d["lost"] + d["doubled"] for d in drills) == 0
    assert sum(d["committed"] and not d["printed"] for d in drills) >= 3     # the window the retry is for


def test_do_while_the_console_is_open_goes_through_the_console(tmp_path):
    """`companion do` is not refused by an open console: it hands its commands to the console's
    session (a unix socket beside the journal), which applies them in its order and shows them."""
    import asyncio

    from tui.bingo.console import ConsoleApp
    write_game(tmp_path / "j.db", DEMO[:2]).journal.close()
    app = ConsoleApp.for_journal(tmp_path / "j.db")
    results = {}

    async def body():
        async with app.run_test(size=(120, 34)) as pilot:
            while not app.ready:
                await pilot.pause(0.05)
            draw = {**DEMO[2], "id": "cage:1"}
            results["first"] = await asyncio.to_thread(companion, "do", "--journal", tmp_path / "j.db",
                                                       json.dumps(draw), '{"do":"draw","balls":[4,5,6]}')
            results["alone"] = await asyncio.to_thread(companion, "do", "--journal", tmp_path / "j.db", json.dumps(draw))
            results["again"] = await asyncio.to_thread(companion, "do", "--journal", tmp_path / "j.db", json.dumps(draw))
            results["bad"] = await asyncio.to_thread(companion, "do", "--journal", tmp_path / "j.db", '{"do":"dance"}')
            await pilot.pause(0.3)
            results["drawn"] = list(app.session.state.drawn)
            results["rows"] = len(app.batches)
    asyncio.run(body())
    first, again, bad = results["first"], results["again"], results["bad"]
    assert first.returncode == 1 and first.stdout.splitlines() == [
        "rejected: command 2 of 2: not now: voting is open; none of the 2 commands applied"], first
    assert results["alone"].returncode == 0 and results["alone"].stdout == "ok\n", results["alone"]
    assert again.returncode == 0 and "already applied as command 3" in again.stdout
    assert bad.returncode == 2 and "unknown command" in bad.stderr
    assert results["drawn"] == DEMO[2]["balls"] and results["rows"] == 3     # the console shows the draw
    assert not (tmp_path / "j.db.sock").exists()                             # closed with the console
    assert Session(Journal(tmp_path / "j.db", readonly=True)).state.drawn == DEMO[2]["balls"]
