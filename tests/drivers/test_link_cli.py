"""`companion sim cage`, `companion bench link`, `companion link watch`, `companion panel test`."""
import os
import queue
import subprocess
import sys
import time

import pytest

from companion.core import event_file
from companion.cli import main
from drivers.link_bench import Scenario, report, run
from drivers.cage_sim import Faults
from drivers.serial_link import SerialLink

COMPANION = [sys.executable, "-m", "companion"]


def test_a_small_bench_passes_and_reports_every_fault():
    scenario = Scenario(draws=120, unplug_every=50, unplug_seconds=0.3, reboot_every=60,
                        faults=Faults(corrupt=0.01, drop=0.02, duplicate=0.02, garbage=64), seed=4)
    result = run(scenario)
    assert result.passed, report(result)
    assert (result.drawn, result.delivered, result.lost, result.doubled) == (120, 120, 0, 0)
    assert result.faults.unplugs == 2 and len(result.reconnects) == 2
    assert result.faults.reboots == 2 and result.health.reboots == 2
    # every resend shown, across reboots: all but those a boot made in its last 100 ms (PROTOCOL.md, Counters)
    unkept = result.faults.unkept
    assert result.resent > 0 and result.resent - unkept <= result.health.retransmits <= result.resent
    text = "\n".join(report(result))
    for words in ("corrupted bytes", "dropped lines", "duplicated lines", "boot garbage", "unplug/replug",
                  "MCU reboots", "0 lost, 0 doubled", "median", "p95", "host shows", "0 malformed frames"):
        assert words in text


def test_bench_link_command(capsys):
    code = main(["bench", "link", "--draws", "40", "--socket", "--unplug-every", "30", "--reboot-every", "20",
                 "--unplug-seconds", "0.2"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "40 draws (one ball each) over socket at 115200 baud" in out
    assert "40 read, 40 delivered, 0 lost, 0 doubled" in out and "reconnect <= 2 s OK" in out


@pytest.mark.parametrize("argv, message", [
    (["bench", "link", "--corrupt", "2"], "--corrupt is a rate between 0 and 1"),
    (["bench", "link", "--draws", "0"], "--draws must be at least 1"),
    (["sim", "cage", "--socket", "x:y"], "give [HOST:]PORT"),
    (["sim", "cage", "--journal", "/nonexistent.db"], "no such journal"),
])
def test_bad_arguments_are_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_sim_cage_command_on_a_pty_with_a_journal(tmp_path):
    """The standalone simulator, fed by a game's journal, read by the host link."""
    event = tmp_path / "event.toml"
    event.write_text(event_file.example("Night", 2, 1, "s" * 32))
    assert main(["start", "--event", str(event)]) == 0
    assert main(["do", "--event", str(event), '{"do":"begin_turn"}', '{"do":"draw","balls":[1,2,3]}']) == 0
    link_path = tmp_path / "cage"
    sim = subprocess.Popen(COMPANION + ["sim", "cage", "--link", str(link_path), "--event", str(event),
                                        "--draws", "5", "--every", "0.05", "--seed", "1", "--corrupt", "0.01"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        while not os.path.lexists(link_path):
            assert time.monotonic() < deadline and sim.poll() is None, sim.stderr.read()
            time.sleep(0.02)
        q = queue.Queue()
        with SerialLink(str(link_path), q):
            balls = [q.get(timeout=10).ball for _ in range(5)]
            out, err = sim.communicate(timeout=15)   # it leaves once every ball is ACKed
    finally:
        sim.kill()
    assert sim.returncode == 0, err
    assert not {1, 2, 3} & set(balls) and len(set(balls)) == 5      # drawn balls stay out
    assert "set [serial] url" in out and out.count("draw ") == 5


def test_link_watch_and_panel_test_commands(tmp_path, capsys):
    event = tmp_path / "event.toml"
    event.write_text(event_file.example("Night", 2, 1, "s" * 32) +
                     '\n[serial]\nurl = "loop://"\n\n[panel]\npin_factory = "mock"\nmotor_seconds = 0.1\n')
    assert main(["link", "watch", "--event", str(event), "--seconds", "0.3"]) == 0
    out = capsys.readouterr().out    # loop:// echoes our own SYNC back: a port, but no cage on it
    assert "link connected, not healthy: heard never" in out and "frames 1," in out
    assert main(["panel", "test", "--event", str(event), "--seconds", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "motor: spinning 0.1 s" in out and "press the buttons" in out


def test_link_watch_shows_a_skipped_seq_as_an_alert(tmp_path, capsys):
    import threading
    from scripted_cage import PtyCage, frame
    event = tmp_path / "event.toml"
    event.write_text(event_file.example("Night", 2, 1, "s" * 32) + '\n[serial]\nurl = "loop://"\n')
    boot = "0007a3f1"
    with PtyCage() as cage:
        def play():
            cage.expect("SYNC")
            cage.say(frame("HELLO", boot, 0, "fw=1.1.0 reader=qr"), frame("BALL", boot, 1, "4"),
                     frame("BALL", boot, 3, "6"))
        player = threading.Thread(target=play)
        player.start()
        assert main(["link", "watch", "--event", str(event), "--url", cage.url, "--seconds", "1"]) == 0
        player.join(5)
    out = capsys.readouterr().out
    assert f"ball 4 from cage (boot {boot}, seq 1)" in out and "ball 6" not in out.split("ALERT")[0]
    assert f"ALERT: cage link: refused ball 6 of cage boot {boot} seq 3: seq 2 has not arrived" in out
    assert "gaps 1" in out
