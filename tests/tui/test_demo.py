"""The whole night on simulated hardware (ARCHITECTURE.md testing ladder 5):
`companion demo --headless` plays through the cage link, the card scanner and the session, prints
the same lines for the same seed, and a demo killed with SIGKILL during voting, during a robbery's
resolution and during the cash count resumes from its journal to the same end as a run straight through."""
from __future__ import annotations

import asyncio
import dataclasses
import fcntl
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from companion.core.words import languages, say
from companion.core.journal import Journal, JournalError
from companion.core.session import Game
from tui.bingo.demo import Night, console_class

from screens_helpers import drive, settle, text_of

SEED, TURNS = 154, 4        # seed 154: lines in turn 2 (a three-way tie), a robbery resolved in turn 3
PACE = 0.3                  # the operator's pause: each phase lasts long enough to be killed in


def demo(folder: Path, pace: float = 0.0) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "companion", "demo", "--headless", "--seed", str(SEED),
                             "--turns", str(TURNS), "--folder", str(folder), "--pace", str(pace)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finished(folder: Path) -> tuple[str, str]:
    process = demo(folder)
    out, err = process.communicate(timeout=240)
    assert process.returncode == 0, err
    return out, err


def state_of(folder: Path):
    path = folder / "demo-night.db"
    try:
        journal = Journal(path, readonly=True)
    except JournalError:             # not made yet, or still empty
        return None
    try:
        game = Game()
        for _ in game.follow(journal):
            pass
        return game.state
    finally:
        journal.close()


class Follower:
    """The demo's journal followed batch by batch as it grows: a moment that lasts a single batch
    is seen even when the demo is faster than the polling."""

    def __init__(self, folder: Path):
        self.path, self.game, self.last = folder / "demo-night.db", Game(), 0

    def reached(self, moment) -> bool:
        try:
            journal = Journal(self.path, readonly=True)
        except JournalError:             # not made yet, or still empty
            return False
        try:
            for batch in self.game.follow(journal, self.last):
                self.last = batch.number
                if moment(self.game.state):
                    return True
            return False
        finally:
            journal.close()


def comparable(state) -> dict:
    return dataclasses.asdict(state)


def clean_run(tmp_path_factory) -> tuple[Path, str]:
    """The demo played straight through, once a test run: this module and test_demo_faults compare
    with it. Under xdist the workers share it in their common folder (one plays it, the others wait)."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        folder = tmp_path_factory.mktemp("clean")
        return folder, finished(folder)[0]
    shared = tmp_path_factory.getbasetemp().parent          # this run's, shared by its workers
    folder, out = shared / "demo-clean", shared / "demo-clean.out"
    with open(shared / "demo-clean.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not out.exists():
            playing = Path(tempfile.mkdtemp(dir=shared))      # a run that fails midway leaves no half folder
            text, _ = finished(playing)
            playing.rename(folder)
            out.write_text(text, encoding="utf-8")
    return folder, out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    return clean_run(tmp_path_factory)


def test_the_demo_plays_every_turn_through_cage_scanner_and_review(clean):
    folder, out = clean
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines[:TURNS]] == [f"turn {t:2d}" for t in range(1, TURNS + 1)]
    assert lines[TURNS].startswith("final submission")
    assert [line.split(":")[0] for line in lines[TURNS + 1:]] == [f"rank {n}" for n in (1, 2, 3, 4, 5, 6)]
    for line in lines[TURNS + 1:]:                                   # R2: no debt, a star
        final = int(line.split(" final ")[1].split(" ")[0].replace(",", ""))
        assert line.endswith(" ★ beat the secretariat") == (final >= 0), line
    state = state_of(folder)
    assert state.phase == "finished"
    journal = Journal(folder / "demo-night.db", readonly=True)
    batches = list(journal.batches())
    journal.close()
    done = [b.command["do"] for b in batches]
    assert done.count("draw_ball") == 3 * TURNS
    assert not any((b.id or "").startswith("cage:") for b in batches if b.command["do"] == "draw_ball")  # the camera read them
    assert "hold" in done and "rule" in done                     # some cards went to review
    assert "rob" in done and "buy" in done
    scanned = (folder / "scan" / "scan-log.jsonl").read_text().splitlines()
    assert len(scanned) >= 6 * TURNS                              # every vote came through the scan folder
    assert list((folder / "scan" / "review").iterdir())


def test_killed_during_voting_resolution_and_count_it_ends_as_the_clean_run(clean, tmp_path):
    """Each kill waits for its moment in the journal, SIGKILLs the demo, and starts it again on its folder."""
    clean_folder, clean_out = clean
    moments = [("voting", lambda s: s.phase == "voting" and s.turn == 2 and len(s.ballots) >= 1),
               ("a robbery's resolution", lambda s: s.phase == "resolve" and bool(s.robberies)),
               ("the cash count", lambda s: s.phase == "counting" and any(p.cash is not None for p in s.players.values()))]
    night = Follower(tmp_path)
    for what, moment in moments:
        process = demo(tmp_path, PACE)
        deadline = time.monotonic() + 180
        while not night.reached(moment):
            assert process.poll() is None, f"the demo ended before {what}: {process.stderr.read()}"
            assert time.monotonic() < deadline, f"no {what} within 180 s"
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        process.stdout.close()
        process.stderr.close()
    out, _ = finished(tmp_path)
    assert comparable(state_of(tmp_path)) == comparable(state_of(clean_folder))
    assert out == clean_out                                     # the same lines, the same ranking
    verified = subprocess.run([sys.executable, "-m", "companion", "journal", "verify", str(tmp_path / "demo-night.db"),
                               "--event", str(tmp_path / "event.toml")], capture_output=True, text=True)
    assert verified.returncode == 0 and "authentic" in verified.stdout, verified.stderr   # sealed with its secret


def test_on_screen_the_console_shows_the_night_and_one_key_pauses_the_players(tmp_path):
    night = Night(tmp_path, SEED, turns=TURNS, pace=0.1)
    app = console_class()(night, "http://127.0.0.1:8080")
    pending = night._pending

    async def body(pilot):
        await settle(pilot, lambda app: night.state.phase == "voting" and app.batches, timeout=120)
        assert "P  " + say("pause/resume demo players", languages()[0]) in text_of(pilot.app)   # the key bar's words
        await pilot.press("P")
        assert night.paused and "simulated players paused" in text_of(pilot.app)
        await pilot.pause(1.0)                                     # the command under way lands
        await settle(pilot, lambda app: not pending(), timeout=30)  # and the cards already dropped
        await pilot.pause(0.5)
        held = max(app.batches)
        await pilot.pause(1.5)
        assert max(app.batches) == held                            # nobody plays while paused
        await pilot.press("P")
        await settle(pilot, lambda app: max(app.batches) > held, timeout=60)
        await pilot.press("ctrl+q")                                 # the players leave before the screen

    try:
        drive(app, body, (160, 45))
    finally:
        night.stop()


def test_resumed_after_the_staff_played_the_players_carry_on_from_where_the_staff_left(tmp_path):
    """P, then the operator closes the voting themselves, then P: the players do not retry their
    stale close_voting (refused, and the players stopped); they end the turn and begin the next."""
    night = Night(tmp_path, SEED, turns=TURNS, pace=0.1)
    app = console_class()(night, "http://127.0.0.1:8080")

    async def body(pilot):
        await settle(pilot, lambda app: night.state.phase == "voting" and app.batches, timeout=120)
        turn = night.state.turn
        await pilot.press("P")
        await pilot.pause(1.0)                                     # the command under way lands
        await settle(pilot, lambda app: not night._pending(), timeout=30)
        await pilot.press("t")                                     # the staff close the voting
        await settle(pilot, lambda app: night.state.phase == "resolve", timeout=30)
        await pilot.press("P")
        await settle(pilot, lambda app: night.state.turn == turn + 1, timeout=90)
        assert "demo players stopped" not in text_of(pilot.app)
        await pilot.press("ctrl+q")

    try:
        drive(app, body, (160, 45))
    finally:
        night.stop()


def test_the_audience_displays_address_stays_on_the_demo_console(tmp_path):
    """The message bar answers every key: the address is under the demo's turn log instead."""
    from test_small_terminal import TableOnly
    from screens_game import game
    session, _ = game(tmp_path / "d.db", "turn1_voting")
    app = console_class()(TableOnly(session), "http://127.0.0.1:8123")

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        assert "audience display http://127.0.0.1:8123" in text_of(pilot.app)
        await pilot.press("t")                                     # an answer in the message bar
        await settle(pilot, lambda app: app.handled)
        assert "✔ close_voting" in text_of(pilot.app)
        assert "audience display http://127.0.0.1:8123" in text_of(pilot.app)

    drive(app, body, (80, 24))


def test_on_a_terminal_the_demo_prints_the_displays_address_before_the_console_opens(tmp_path, capsys, monkeypatch):
    import types
    import tui.bingo.demo
    from companion.cli import main
    said_before = []
    night = types.SimpleNamespace(state=types.SimpleNamespace(turn=0, phase="ready"),
                                  event=types.SimpleNamespace(journal=tmp_path / "j.db"), stop=lambda: None)
    monkeypatch.setattr(tui.bingo.demo, "Night", lambda *args, **kwargs: night)
    monkeypatch.setattr(tui.bingo.demo, "run_on_screen", lambda night, port: said_before.append(capsys.readouterr().err))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["demo", "--folder", str(tmp_path), "--port", "8123"]) == 0
    assert len(said_before) == 1 and "audience display: http://127.0.0.1:8123" in said_before[0]


def headless_lines(folder: Path, turns: int) -> list[str]:
    """What `companion demo --headless` prints for the journal in folder."""
    lines: list[str] = []
    night = Night(folder, SEED, say=lines.append, turns=turns)
    night.tell()
    night.stop()
    return lines


async def quit_app(pilot) -> None:
    await pilot.press("ctrl+q")
    await settle(pilot, lambda app: app.return_code is not None)


def logged_on_screen(folder: Path) -> list[str]:
    """The demo console's log of lines once its players are done (the night played to its end),
    after ctrl+q, which must close the console within 5 s: the players' worker has finished, and
    Textual's wait_for_complete([]) would wait for every worker, the session's too, which never ends."""
    night = Night(folder, SEED, turns=1)
    app = console_class()(night)
    playing = lambda app: any(w.group == "demo players" for w in app.workers)      # noqa: E731

    async def body(pilot):
        await settle(pilot, lambda app: night.state.phase == "finished" and not playing(app), timeout=120)
        await settle(pilot, lambda app: "rank 6" in text_of(app))
        app.logged = [strip.text.rstrip() for strip in app.query_one("#turns").lines]
        try:
            await asyncio.wait_for(quit_app(pilot), 5)
        except TimeoutError:
            app.workers.cancel_all()      # ends the session's worker, or the app would never close
            pytest.fail("ctrl+q did not quit within 5 s of the players' end")

    try:
        drive(app, body, (200, 50))
    finally:
        night.stop()
    return app.logged


def test_on_screen_each_turns_line_is_logged_and_ctrl_q_quits_once_the_players_are_done(tmp_path):
    played = logged_on_screen(tmp_path)
    resumed = logged_on_screen(tmp_path)          # the console opened again on the finished night
    told = headless_lines(tmp_path, 1)
    assert told[0].startswith("turn  1: X=") and len(told) == 1 + 1 + 6      # a turn, the final, the ranking
    assert played == told and resumed == told


def test_a_folder_holding_another_seeds_demo_is_refused_in_one_line(tmp_path):
    from tui.bingo.demo import DemoError, prepare
    (tmp_path / "demo-seed").write_text("1\n")
    with pytest.raises(DemoError, match="holds the demo of seed 1: give that --seed"):
        prepare(tmp_path, 2)
