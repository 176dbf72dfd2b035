"""Health is the truth: a device that is not delivering is red in the hardware pane and on the
staff panel's LEDs, and what the hardware sends or says is an alert there, never in the
operator's message bar."""
from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest

from tui.bingo.console import ConsoleApp
from tui.sources import Health, from_event

from screens_game import game
from screens_helpers import drive, settle, text_of


def event_with(**sections):
    return SimpleNamespace(sections=sections, id="test-night", secret="s3cret")


def pane(app) -> str:
    return str(app.query_one("#hardware").render())


def bar(app) -> str:
    return str(app.query_one("#outcome").render())


def test_a_camera_that_cannot_open_is_down_in_the_pane_and_on_the_leds(tmp_path):
    session, _ = game(tmp_path / "g.db", "turn1_voting")
    sources, problems = from_event(event_with(camera={"source": "/dev/video9"},
                                              panel={"pin_factory": "mock", "bounce_ms": 0}),
                                   lambda: session.state.place)
    assert problems == []
    app = ConsoleApp(session, sources=sources)

    async def body(pilot):
        await settle(pilot, lambda app: "ball reader  ● down" in text_of(app))
        assert "cannot open" in pane(pilot.app)
        assert "cannot open" in pane(pilot.app).split("ball reader: ", 1)[1]     # and its alert
        assert "cannot open" not in bar(pilot.app)
        panel = sources["panel"].panel
        assert panel.led_ok.value == 0                         # the fault LED, not the ok one

    drive(app, body, (120, 36))


class StalledSource:
    """A camera that opened, then never delivers a frame (a frozen USB camera)."""
    name, fps, paced = "stalled camera", 30.0, False

    def __init__(self):
        self.released = threading.Event()

    def open(self):
        pass

    def read(self):
        self.released.wait()
        return None

    def close(self):
        self.released.set()


class OneFrameSource(StalledSource):
    name = "one-frame camera"

    def __init__(self):
        super().__init__()
        self.sent = False

    def read(self):
        if not self.sent:
            self.sent = True
            return np.zeros((8, 8, 3), np.uint8)
        return super().read()


@pytest.mark.parametrize("source", [StalledSource, OneFrameSource])
def test_a_camera_with_no_frame_within_its_timeout_is_down(source):
    from drivers.camera import Camera
    camera = Camera(source())
    camera.no_frame_seconds = 0.3
    with camera:
        assert camera.problem() is None                       # within its timeout
        time.sleep(0.5)
        assert "no frame for" in camera.problem()


def test_the_reader_source_says_why_it_is_down():
    from tui.sources import ReaderSource
    reader = ReaderSource({"source": "/dev/video9"}, dict)
    notes = []
    reader.start(lambda *a, **k: None, lambda text, level="info": notes.append(level))
    try:
        health = reader.health()
        assert health.state == "down" and "cannot open" in health.detail and notes == ["error"]
    finally:
        reader.stop()


def test_calibrate_and_the_console_say_the_same_about_a_camera():
    """One check: Camera.start opens the source and keeps its error for health."""
    from drivers.camera import Camera, CameraError, open_source
    camera = Camera(open_source("/dev/video9"))
    with pytest.raises(CameraError) as raised:
        camera.start()
    assert camera.problem() == str(raised.value)


def test_a_cage_link_with_no_heartbeat_within_its_timeout_is_down(monkeypatch):
    from drivers import serial_link
    from tui.sources import LinkSource
    monkeypatch.setattr(serial_link, "STALE_SECONDS", 0.4)
    source = LinkSource({"url": "loop://"}, None)          # connected, but no cage talks on it
    source.start(lambda *a, **k: None, lambda *a, **k: None)
    try:
        deadline = time.monotonic() + 5
        while not source.link.health().connected and time.monotonic() < deadline:
            time.sleep(0.02)
        assert source.health().state == "degraded"        # within its timeout: waiting
        time.sleep(0.6)
        health = source.health()
        assert health.state == "down" and "no heartbeat" in health.detail
    finally:
        source.stop()


class BallAtTheWrongTime:
    """The ball reader seeing a ball while voting is open, and warning once."""

    def __init__(self):
        self.go = threading.Event()

    def start(self, send, note):
        def run():
            self.go.wait(10)
            send({"do": "draw_ball", "ball": 7})
            note("ball reader: label half hidden", "warning")
        threading.Thread(target=run, daemon=True).start()

    def health(self):
        return Health("ok", "")

    def stop(self):
        self.go.set()


def test_a_hardware_refusal_is_an_alert_and_the_operators_answer_stays_in_the_bar(tmp_path):
    session, _ = game(tmp_path / "g.db", "turn1_voting")
    reader = BallAtTheWrongTime()
    app = ConsoleApp(session, sources={"reader": reader})

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        before = app.handled
        await pilot.press("b")                                 # the operator's key: refused (voting)
        await settle(pilot, lambda app: app.handled > before)
        mine = bar(pilot.app)
        assert "begin_turn rejected" in mine
        reader.go.set()
        await settle(pilot, lambda app: "label half hidden" in pane(app) and app.handled > before + 1)
        assert "draw_ball ball=7 rejected: not now: voting is open" in pane(pilot.app)
        assert bar(pilot.app) == mine

    drive(app, body, (120, 36))


def test_a_device_asked_for_but_impossible_to_set_up_is_down_and_the_leds_say_so(tmp_path):
    session, _ = game(tmp_path / "g.db", "turn1_voting")
    sources, problems = from_event(event_with(serial={"url": "nonsense://x"},
                                              panel={"pin_factory": "mock", "bounce_ms": 0}),
                                   lambda: session.state.place)
    assert [p.split(":")[0] for p in problems] == ["cage link"]
    app = ConsoleApp(session, sources=sources, problems=problems)

    async def body(pilot):
        await settle(pilot, lambda app: "cage link    ● down" in text_of(app))
        assert sources["panel"].panel.led_ok.value == 0

    drive(app, body, (120, 36))


def test_a_camera_plugged_in_after_the_start_is_found_and_reads_balls(monkeypatch):
    """Staff start the console, then plug the camera in: it is looked for every REOPEN_S and, found, reads
    (before, it stayed down until the console was started again)."""
    from drivers import camera
    from tui.sources import ReaderSource
    monkeypatch.setattr(camera, "REOPEN_S", 0.1)
    plugged = []

    class Capture:
        def read(self):
            time.sleep(1 / 30)
            return True, np.zeros((480, 640, 3), np.uint8)

        def release(self):
            pass

    def opened(source):
        if not plugged:
            raise camera.CameraError(f"{source.name}: cannot open (is it connected, and is no other program using it?)")
        source._cap = Capture()
    monkeypatch.setattr(camera.OpenCVSource, "open", opened)
    reader = ReaderSource({"source": "/dev/video9", "workers": 1}, dict)
    notes = []
    reader.start(lambda *a, **k: None, lambda text, level="info": notes.append((level, text)))
    try:
        assert reader.health().state == "down" and "cannot open" in reader.health().detail
        plugged.append(True)
        deadline = time.monotonic() + 60
        while reader.health().state != "ok" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert reader.health().state == "ok", reader.health()
        assert notes[-1] == ("info", "ball reader: camera /dev/video9 found: reading balls"), notes
    finally:
        reader.stop()
