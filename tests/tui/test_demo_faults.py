"""The demo's other fault drills, each on the demo's real paths (tui.bingo.demo.Night: the
simulated cage on a pseudo-terminal behind the cage link, the card scanner on its watched folder,
the session on the event's journal) with test_demo's seed, each ending as the clean run ends:
the cage unplugged mid-draw, garbage dropped in the scan folder, the journal's disk filling up.
And the operator's keys on a turn's happy path with the readers working.

The camera that opens but delivers no frame is tests/tui/test_health.py's
test_a_camera_with_no_frame_within_its_timeout_is_down (not repeated here)."""
from __future__ import annotations

import contextlib
import os
import struct
import subprocess
import sys
import threading
import uuid
import zlib

import pytest

from companion.core.journal import JournalError
from tui.bingo.demo import Night, console_class

from screens_helpers import drive, settle
from test_demo import SEED, TURNS, clean_run, comparable, set_up, state_of


def night_of(tmp_path_factory, folder, lines):
    """The balls come over the cage link here (the cage's own reader): the drills pull its cable."""
    night = Night(set_up(tmp_path_factory, folder), SEED, say=lines.append, turns=TURNS, camera=False)
    night.start()
    return night


def ended_as_clean(night, folder, lines, tmp_path_factory):
    """Asked for at the end, the clean run (test_demo's) may be played meanwhile on another worker."""
    clean_folder, out = clean_run(tmp_path_factory)
    assert night.state.phase == "finished"
    assert comparable(state_of(folder)) == comparable(state_of(clean_folder))
    assert "".join(line + "\n" for line in lines) == out          # the same turns, the same ranking
    verified = subprocess.run([sys.executable, "-m", "companion", "journal", "verify", str(folder / "demo-night.db")],
                              capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr


@pytest.mark.slow
def test_the_cage_unplugged_mid_draw_loses_and_doubles_no_ball(tmp_path_factory, tmp_path):
    """Turn 2: the cable is pulled before its second ball is read (the BALL frame waits in the cage);
    turn 3: pulled just after its first ball is read (the ACK may be lost). Plugged back after 1 s."""
    lines: list[str] = []
    night = night_of(tmp_path_factory, tmp_path, lines)
    read, pulled = night.cage.read, []

    def unplugging_read(ball):
        s = night.state
        if s.turn == 2 and len(s.drawn) == 1 and 2 not in pulled:
            pulled.append(2)
            night.cage.unplug(1.0)
            return read(ball)
        got = read(ball)
        if s.turn == 3 and not s.drawn and 3 not in pulled:
            pulled.append(3)
            night.cage.unplug(1.0)
        return got

    night.cage.read = unplugging_read
    try:
        night.run()
        assert pulled == [2, 3] and night.cage.counts.unplugs == 2 and len(night.cage.replugged_at) == 2
        draws = [b for b in night.session.journal.batches() if b.command["do"] == "draw_ball"]
        assert len(draws) == 3 * TURNS and len({b.id for b in draws}) == len(draws)
        assert len({b.command["ball"] for b in draws}) == 3 * TURNS    # no ball twice
    finally:
        night.stop()
    ended_as_clean(night, tmp_path, lines, tmp_path_factory)


def huge_png() -> bytes:
    """A valid PNG header claiming 100000 x 100000 pixels, and no picture behind it."""
    ihdr = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk + os.urandom(200)


@pytest.mark.slow
def test_garbage_in_the_scan_folder_is_rejected_with_a_reason_and_the_night_goes_on(tmp_path_factory, tmp_path):
    """Dropped as turn 2's voting opens, before the players' cards: an empty file, random bytes named
    .jpg, a FIFO named .jpg (opening it for reading would block forever) and a huge-header PNG."""
    lines: list[str] = []
    night = night_of(tmp_path_factory, tmp_path, lines)
    scan, cards, dropped = tmp_path / "scan", night._cards, []
    garbage = {"empty.jpg": "empty file", "noise.jpg": "not an image", "fifo.jpg": "not a regular file (a FIFO)",
               "huge.png": "100000x100000 pixels, over the limit"}

    def with_garbage(drops):
        if night.state.turn == 2 and night.state.phase == "voting" and not dropped:
            (scan / "empty.jpg").write_bytes(b"")
            (scan / "noise.jpg").write_bytes(os.urandom(5000))
            os.mkfifo(scan / "fifo.jpg")
            (scan / "huge.png").write_bytes(huge_png())
            dropped.append(True)
        return cards(drops)

    night._cards = with_garbage
    try:
        night.run()
    finally:
        night.stop()
    assert dropped
    assert sorted(p.name for p in (scan / "rejected").iterdir()) == sorted(garbage)
    import json
    logged = {os.path.basename(r["image"]): r for r in map(json.loads, (scan / "scan-log.jsonl").read_text().splitlines())}
    for name, why in garbage.items():
        assert logged[name]["decision"] == "rejected" and why in logged[name]["reason"], logged[name]
    assert not [p for p in scan.iterdir() if p.name in garbage]
    ended_as_clean(night, tmp_path, lines, tmp_path_factory)


@pytest.fixture
def tiny_disk(tmp_path):
    """A real 40 MB filesystem (tmpfs) for the whole demo folder, when this test may mount one."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a small tmpfs (CI runs as root)")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=40m", f"tmpfs-{uuid.uuid4().hex[:6]}", str(mount)],
                          capture_output=True, text=True)
    if made.returncode:
        pytest.skip(f"cannot mount a tmpfs: {made.stderr.strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=True)


@pytest.mark.slow
def test_a_full_disk_refuses_the_command_in_one_line_loses_nothing_and_the_night_goes_on(tmp_path_factory, tiny_disk):
    """At turn 2's end the disk is filled; the operator's next command (begin turn 3) is refused in
    one line, the journal still verifies with every committed batch; space freed, the demo goes on."""
    lines: list[str] = []
    folder = tiny_disk / "demo"
    night = night_of(tmp_path_factory, folder, lines)
    try:
        night.run(lambda: night.state.phase == "turn_over" and night.state.turn == 2)
        committed = night.session.journal.count()
        fill = os.open(tiny_disk / "fill", os.O_WRONLY | os.O_CREAT)
        with contextlib.suppress(OSError):
            while True:
                os.write(fill, b"\0" * 65536)
        os.close(fill)
        with pytest.raises(JournalError) as refused:
            night.session.submit({"do": "begin_turn", "id": "demo:begin:3"})
        assert "the disk is full" in str(refused.value) and "\n" not in str(refused.value)
        assert night.state.phase == "turn_over" and night.session.journal.count() == committed
        verified = subprocess.run([sys.executable, "-m", "companion", "journal", "verify", str(folder / "demo-night.db")],
                                  capture_output=True, text=True)
        assert verified.returncode == 0, verified.stderr
        (tiny_disk / "fill").unlink()
        night.run()
    finally:
        night.stop()
    ended_as_clean(night, folder, lines, tmp_path_factory)


@pytest.mark.slow
def test_a_turns_happy_path_with_the_readers_working_takes_three_operator_keys(tmp_path_factory, tmp_path):
    """The console with the demo's simulated cage and card scanner, no simulated operator: the staff
    press b (begin turn), t (close voting), n (end turn); the cage gives the balls and the players'
    cards come through the scan folder by themselves. Turn 1 of seed 154 holds no card for review."""
    night = Night(set_up(tmp_path_factory, tmp_path), SEED, turns=TURNS)
    night.run = lambda *args, **kwargs: None      # the demo's players and operator stay away: the keys are ours
    app = console_class()(night)
    keys: list[str] = []

    def table():        # the cage turned by the staff, the cards dropped by the players: no key
        night._draw()
        night._cards(night.players.votes(night.state))

    async def body(pilot):
        async def press(key):
            keys.append(key)
            await pilot.press(key)
        await settle(pilot, lambda app: night.state.phase == "ready", timeout=30)
        await press("b")
        await settle(pilot, lambda app: night.state.phase == "draw", timeout=30)
        hands = threading.Thread(target=table, daemon=True)
        hands.start()
        await settle(pilot, lambda app: not hands.is_alive(), timeout=60)
        s = night.state
        assert s.phase == "voting" and len(s.ballots) == len(s.players) and not s.held
        await press("t")
        await settle(pilot, lambda app: night.state.phase == "resolve", timeout=30)
        await press("n")
        await settle(pilot, lambda app: night.state.phase == "turn_over" and night.state.turn == 1, timeout=30)

    try:
        drive(app, body, (160, 45))
    finally:
        night.stop()
    assert keys == ["b", "t", "n"] and len(keys) <= 3


def test_a_stalled_wait_is_reported_with_each_sources_health(tmp_path_factory, tmp_path, monkeypatch):
    """The demo waiting in vain says what its sources say (on screen the alerts go to the console, not
    to the demo): the wait's message is all a failed run leaves."""
    import tui.bingo.demo as demo
    from tui.sources import Health
    monkeypatch.setattr(demo, "WAIT_S", 0.05)
    night = Night(set_up(tmp_path_factory, tmp_path), SEED, turns=TURNS, camera=False)
    night.sources = {"reader": type("Reader", (), {"health": lambda self: Health("down", "12 frames read, 3 dropped")})()}
    with pytest.raises(demo.DemoError) as stalled:
        night._wait(lambda: False, "ball 27")
    assert str(stalled.value) == "waited 0 s for ball 27 (reader: down: 12 frames read, 3 dropped)"
