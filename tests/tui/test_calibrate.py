"""Calibration under Pilot: a folder of rendered frames as the camera."""
from __future__ import annotations

import time

import pytest

from companion.core import event_file
from companion.cli import main
from tui.calibrate import CalibrateApp, save_camera
from tui.forms import Confirm

from screens_helpers import ball_frames, drive, settle, text_of


@pytest.fixture
def rig(tmp_path):
    frames = tmp_path / "frames"
    # 2 min of camera, paced slowly (every decoder reads each frame), and long enough that a busy
    # machine's test does not outlast it (40 s did: the stream ended before the last keys)
    ball_frames(frames, 1, 480)
    event = tmp_path / "event.toml"
    assert main(["init", "--out", str(event), "--players", "4", "--seed", "3"]) == 0
    with event.open("a") as out:
        out.write(f'\n[camera]  # the ball camera\nsource = "{frames}"\nfps = 4\n')
    return event


@pytest.mark.slow
def test_measures_decodes_guides_and_saves(rig):
    app = CalibrateApp(rig, guided_frames=3)

    async def body(pilot):
        await pilot.press("g")
        # each ball gets 3 frames; before the first, 6 s of CPU make the decoders and mount the screen,
        # which a load average of 15 stretched past 20 s
        await settle(pilot, lambda app: app.guided.ball >= 3, timeout=120)
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
        seen = app.frames               # read inside the region, the ball is where it was in the frame
        await settle(pilot, lambda app: app.frames > seen + 1, timeout=60)   # three decoders a frame, loaded
        assert app.circle == pytest.approx((x, y, r), abs=2)
        await pilot.press("s")
        await settle(pilot, lambda app: isinstance(app.screen, Confirm))    # a busy machine mounts it late
        await pilot.press("y")
        await settle(pilot, lambda app: "saved to" in text_of(app), timeout=30)

    drive(app, body, (150, 44))
    saved = event_file.load(rig).sections["camera"]
    assert saved["roi"] == list(app.roi) and saved["decoder"] == "zxing"
    assert "# the ball camera" in rig.read_text()          # the operator's comments stay


def test_a_screen_slower_than_its_camera_draws_the_newest_frame_not_a_queue_of_old_ones(tmp_path, monkeypatch):
    """A busy machine draws a frame slower than the camera takes them. Every frame measured counts
    (a test drop needs them all), but only the newest is drawn: no queue of old frames grows for
    the preview to lag behind and keys to wait behind (under load the save question once took 160 s)."""
    import cv2
    import numpy
    from tui.widgets import HalfBlockImage
    from vision.balls import BallDecoder, FrameRead
    frames = tmp_path / "frames"
    frames.mkdir()
    grey = cv2.imencode(".png", numpy.full((120, 160), 128, numpy.uint8))[1].tobytes()
    for n in range(2400):              # 2 min of camera: a busy machine draws a frame in seconds
        (frames / f"{n:04d}.png").write_bytes(grey)
    event = tmp_path / "event.toml"
    assert main(["init", "--out", str(event), "--players", "4", "--seed", "3"]) == 0
    with event.open("a") as out:
        out.write(f'\n[camera]\nsource = "{frames}"\nfps = 20\n')
    measured, behind = {}, []          # preview -> its frame's number; at each draw, frames measured since
    monkeypatch.setattr(BallDecoder, "read", lambda self, image: FrameRead(None, False, "no ball", self.name))
    measure, show = CalibrateApp.measure, HalfBlockImage.show

    def measuring(self, image, decoders, cv2, seq=0):
        message = measure(self, image, decoders, cv2, seq)
        measured[id(message.preview)] = seq
        return message

    def drawing(self, image):
        behind.append(max(measured.values()) - measured[id(image)])
        time.sleep(0.15)               # three camera frames a draw
        show(self, image)

    monkeypatch.setattr(CalibrateApp, "measure", measuring)
    monkeypatch.setattr(HalfBlockImage, "show", drawing)

    async def body(pilot):
        await settle(pilot, lambda app: len(behind) >= 8, timeout=90)
        assert pilot.app.frames > len(behind)          # frames not drawn were counted

    drive(CalibrateApp(event), body, (150, 44))
    assert max(behind) <= 3, behind


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


def test_a_test_drop_measures_the_chute_speed_and_proposes_the_exposure(tmp_path):
    """The simulated chute (balls entering at 0.6-1.3 m/s and speeding up): `t`, and the next
    ball that goes by gives the speed and the longest exposure keeping its blur within 7 px."""
    from vision.exposure import BLUR_LIMIT_PX
    event = tmp_path / "event.toml"
    assert main(["init", "--out", str(event), "--players", "4", "--seed", "3"]) == 0
    with event.open("a") as out:
        out.write('\n[camera]\nsource = "sim:chute"\nfps = 30\nexposure_us = 4000\nball_distance = [80, 130]\n')
    app = CalibrateApp(event, lockstep=True)     # each frame of the chute measured: no drop fails for frames lost to load

    async def body(pilot):
        await settle(pilot, lambda app: app.frames > 0, timeout=30)     # the decoders are ready
        for _ in range(5):          # a machine too busy to see the ball whole twice is told so: drop again
            await pilot.press("t")
            await settle(pilot, lambda app: app.drop is None, timeout=40)
            if app.proposal is not None:
                break
            assert "test drop: the test drop showed the whole ball in" in text_of(app)
        proposal = app.proposal
        assert proposal is not None, text_of(app)
        assert 0.5 <= proposal.speed_m_s <= 2.5
        assert proposal.exposure_us == int(BLUR_LIMIT_PX / proposal.speed_px_s * 1e6)
        assert proposal.light == pytest.approx(4000 / proposal.exposure_us)
        text = text_of(app)
        assert f"exposure_us = {proposal.exposure_us}" in text and "m/s" in text and "the light of now" in text

    drive(app, body, (150, 50))


def test_a_test_drop_on_a_busy_machine_never_times_two_balls_as_one(tmp_path):
    """Measuring only every tenth frame, the screen sees each ball once: the drop ends when the
    ball has not been seen for a few captured frames (not frames measured), so the next ball is
    not taken for the same one far down the chute, and the speed is not made up from the two."""
    event = tmp_path / "event.toml"
    assert main(["init", "--out", str(event), "--players", "4", "--seed", "3"]) == 0
    with event.open("a") as out:
        out.write('\n[camera]\nsource = "/nonexistent/*.png"\nfps = 30\n')     # settings, and no frames
    app = CalibrateApp(event)

    def measured(seq: int, ball: tuple | None):
        return app.Measured(None, (480, 640), 0.0, 0.0, 0.0, 0.0, {}, None, seq, ball)

    async def body(pilot):
        await settle(pilot, lambda app: app.settings is not None, timeout=10)
        await pilot.press("t")
        for seq, ball in ((0, None), (10, (320, 150, 40)), (20, None), (30, None), (40, (320, 200, 40)),
                          (50, None), (60, None), (70, None)):
            if app.drop is not None:
                app.timing_drop(measured(seq, ball))
        assert app.drop is None and app.proposal is None
        assert "the test drop showed the whole ball in 1 frame(s)" in text_of(app)

    drive(app, body, (150, 50))
