"""The whole night on simulated hardware (ARCHITECTURE.md testing ladder 5):
`companion demo --headless` plays through the cage link, the card scanner and the session, prints
the same lines for the same seed, and a demo killed with SIGKILL during voting, during a robbery's
resolution and during the cash count resumes from its journal to the same end as a run straight through."""
from __future__ import annotations

import dataclasses
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from companion.core.journal import Journal, JournalError
from companion.core.session import Game
from tui.bingo.demo import prepare

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


def state_of(folder: Path):
    """The night as its journal holds it now (None before the journal has a batch)."""
    night = Follower(folder)
    night.reached(lambda state: False)
    return night.game.state if night.last else None


def comparable(state) -> dict:
    return dataclasses.asdict(state)


def made_once(tmp_path_factory, name: str, make) -> Path:
    """The folder `name`, made by make(folder) once a test run: under xdist the workers share it in
    their common folder (one makes it, the others wait for it)."""
    shared = tmp_path_factory.getbasetemp()
    if "PYTEST_XDIST_WORKER" in os.environ:
        shared = shared.parent                                  # this run's, shared by its workers
    folder = shared / name
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not folder.exists():
            making = Path(tempfile.mkdtemp(dir=shared))      # a make that fails midway leaves no half folder
            make(making)
            making.rename(folder)
    return folder


def set_up(tmp_path_factory, folder: Path) -> Path:
    """folder holding the demo's event file and printed cards, as prepare() writes them: printed once
    a test run (seconds of CPU each time), not again for each night."""
    template = made_once(tmp_path_factory, "demo-prepared", lambda made: prepare(made, SEED, TURNS))
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("event.toml", "cards.pdf", "demo-seed"):
        shutil.copy2(template / name, folder / name)
    return folder


def clean_run(tmp_path_factory) -> tuple[Path, str]:
    """The demo played straight through, once a test run: this module and test_demo_faults compare with it."""
    def play(folder: Path) -> None:
        out, _ = finished(set_up(tmp_path_factory, folder))
        (folder / "demo.out").write_text(out, encoding="utf-8")
    folder = made_once(tmp_path_factory, "demo-clean", play)
    return folder, (folder / "demo.out").read_text(encoding="utf-8")


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


@pytest.mark.slow
def test_killed_during_voting_resolution_and_count_it_ends_as_the_clean_run(tmp_path_factory, tmp_path):
    """Each kill waits for its moment in the journal, SIGKILLs the demo, and starts it again on its folder.
    The clean run is asked for at the end: another worker may be playing it meanwhile."""
    moments = [("voting", lambda s: s.phase == "voting" and s.turn == 2 and len(s.ballots) >= 1),
               ("a robbery's resolution", lambda s: s.phase == "resolve" and bool(s.robberies)),
               ("the cash count", lambda s: s.phase == "counting" and any(p.cash is not None for p in s.players.values()))]
    night = Follower(set_up(tmp_path_factory, tmp_path))
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
    clean_folder, clean_out = clean_run(tmp_path_factory)
    assert comparable(state_of(tmp_path)) == comparable(state_of(clean_folder))
    assert out == clean_out                                     # the same lines, the same ranking
    verified = subprocess.run([sys.executable, "-m", "companion", "journal", "verify", str(tmp_path / "demo-night.db"),
                               "--event", str(tmp_path / "event.toml")], capture_output=True, text=True)
    assert verified.returncode == 0 and "authentic" in verified.stdout, verified.stderr   # sealed with its secret


def test_a_folder_holding_another_seeds_demo_is_refused_in_one_line(tmp_path):
    from tui.bingo.demo import DemoError, prepare
    (tmp_path / "demo-seed").write_text("1\n")
    with pytest.raises(DemoError, match="holds the demo of seed 1: give that --seed"):
        prepare(tmp_path, 2)
