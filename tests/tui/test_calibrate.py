"""Calibration under Pilot: a folder of rendered frames as the camera."""
from __future__ import annotations

import pytest

from companion import event_file
from companion.cli import main
from tui.calibrate import CalibrateApp, save_camera
from tui.forms import Confirm

from screens_helpers import ball_frames, drive, settle, text_of


@pytest.fixture
def rig(tmp_path):
    frames = tmp_path / "frames"
    ball_frames(frames, 1, 100)              # 25 s of camera, paced slowly: every decoder reads each frame
    event = tmp_path / "event.toml"
    assert main(["init", "--out", str(event), "--players", "4", "--seed", "3"]) == 0
    with event.open("a") as out:
        out.write(f'\n[camera]  # the ball camera\nsource = "{frames}"\nfps = 4\n')
    return event


def test_measures_decodes_guides_and_saves(rig):
    app = CalibrateApp(rig, guided_frames=3)

    async def body(pilot):
        await pilot.press("g")
        await settle(pilot, lambda app: app.guided.ball >= 3, timeout=20)    # each ball gets 3 frames
        text = text_of(pilot.app)
        assert "focus" in text and "ball 1" in text and "zxing" in text and "▀" in text
        assert app.guided.rate(1) == 1.0 and app.guided.rate(2) == 0.0   # only ball 1 was ever shown
        assert " 1:100%" in text and f"Show ball {app.guided.ball} now" in text
        await pilot.press("r")
        roi = app.roi
        x, y, r = app.circle
        assert roi[0] <= x <= roi[0] + roi[2] and roi[1] <= y <= roi[1] + roi[3]
        await pilot.press("right", "plus")
        assert app.roi[0] == roi[0] + 8 - 8 and app.roi[2] == roi[2] + 16
        await pilot.press("s")
        await settle(pilot, lambda app: isinstance(app.screen, Confirm))    # a busy machine mounts it late
        await pilot.press("y")
        await settle(pilot, lambda app: "saved to" in text_of(app), timeout=30)

    drive(app, body, (150, 44))
    saved = event_file.load(rig).sections["camera"]
    assert saved["roi"] == list(app.roi) and saved["decoder"] == "zxing"
    assert "# the ball camera" in rig.read_text()          # the operator's comments stay


def test_save_refuses_what_would_not_load(tmp_path):
    event = tmp_path / "event.toml"
    assert main(["init", "--out", str(event), "--players", "4", "--seed", "3"]) == 0
    before = event.read_text()
    with pytest.raises(ValueError, match="roi"):
        save_camera(event, (0, 0, 8, 8), "zxing")              # the reader wants at least 16 px
    assert event.read_text() == before


def test_no_camera_is_said_not_crashed(tmp_path):
    event = tmp_path / "event.toml"
    assert main(["init", "--out", str(event), "--players", "4", "--seed", "3"]) == 0
    with event.open("a") as out:
        out.write('\n[camera]\nsource = "/nonexistent/*.png"\n')

    async def body(pilot):
        await settle(pilot, lambda app: "camera:" in text_of(app), timeout=10)
        assert "not connected" in text_of(pilot.app)

    drive(CalibrateApp(event), body, (150, 44))
