"""A failure is one line: what the libraries underneath say on stderr (gpiozero's fallback warnings,
OpenCV's and FFmpeg's logs) does not appear around it, nor under the console's screen."""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

COMPANION = [sys.executable, "-m", "companion"]


def event_with(tmp_path: Path, hardware: str) -> Path:
    event = tmp_path / "event.toml"
    subprocess.run([*COMPANION, "init", "--out", str(event), "--players", "3", "--seed", "1"], check=True,
                   capture_output=True, timeout=60)
    event.write_text(event.read_text() + hardware)
    subprocess.run([*COMPANION, "start", "--event", str(event)], check=True, capture_output=True, timeout=60)
    return event


@pytest.mark.skipif(bool(glob.glob("/dev/gpiochip*")), reason="this machine has GPIO: the panel would start")
def test_a_panel_without_gpio_is_one_line_without_gpiozeros_fallback_warnings(tmp_path):
    event = event_with(tmp_path, "\n[panel]\n")
    run = subprocess.run([*COMPANION, "panel", "test", "--event", str(event)], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 2 and run.stderr.splitlines() == \
        [f"companion: {event}: [panel] GPIO: Unable to load any default pin factory!"], run.stderr


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (apt-get install tmux)")
def test_a_camera_that_cannot_open_is_one_line_in_the_console_and_nothing_from_opencv(tmp_path):
    (tmp_path / "broken.mp4").write_bytes(b"not a video")
    event = event_with(tmp_path, '\n[camera]\nsource = "broken.mp4"\n')
    socket_name = f"quiet-test-{os.getpid()}"
    written = tmp_path / "terminal.log"       # all the console wrote to its terminal (the screen redraws over it)
    command = "sleep 1; " + " ".join([*COMPANION, "console", "--event", str(event)])
    tmux = ["tmux", "-L", socket_name]
    subprocess.run([*tmux, "new-session", "-d", "-s", "console", "-x", "120", "-y", "34", "-c", str(tmp_path),
                    command], check=True, timeout=30)
    subprocess.run([*tmux, "pipe-pane", "-t", "console", f"cat > {written}"], check=True, timeout=30)
    try:
        screen, deadline = "", time.monotonic() + 60
        while "cannot open" not in screen and time.monotonic() < deadline:
            time.sleep(0.5)
            screen = subprocess.run([*tmux, "capture-pane", "-p", "-t", "console"],
                                    capture_output=True, text=True).stdout
        assert "cannot open" in screen and "broken.mp4" in screen, screen
        chatter = [line for line in written.read_text(errors="replace").splitlines() if "WARN" in line or "moov" in line]
        assert not chatter, chatter
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
