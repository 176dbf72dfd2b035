"""Camera sources and the capture thread: sources by name, dropping not blocking, errors."""
import time

import cv2
import numpy as np
import pytest

from drivers import camera
from drivers.camera import Camera, CameraError, FolderSource, OpenCVSource, Picamera2Source, SimSource, open_source


def numbered_images(folder, n, size=(64, 48)):
    folder.mkdir(exist_ok=True)
    for i in range(n):
        image = np.full((size[1], size[0], 3), i * 5 % 256, np.uint8)
        cv2.imwrite(str(folder / f"{i:03d}.png"), image)
    return folder


@pytest.mark.parametrize("spec, kind", [
    ("0", OpenCVSource), ("2", OpenCVSource), ("/dev/video0", OpenCVSource), ("clip.mp4", OpenCVSource),
    ("shots/*.jpg", FolderSource), ("frame.png", FolderSource), ("pi", Picamera2Source),
    ("sim", SimSource), ("sim:chute", SimSource)])
def test_sources_are_chosen_by_configuration(spec, kind):
    assert isinstance(open_source(spec), kind)


def test_a_source_that_is_none_of_them_is_an_error_naming_the_choices():
    with pytest.raises(CameraError, match="device index.*glob.*'sim'"):
        open_source("webcam please")
    with pytest.raises(CameraError, match="'cradle' or 'chute'"):
        open_source("sim:slide")


def test_auto_means_the_pi_camera_when_picamera2_is_there(monkeypatch):
    monkeypatch.setattr(Picamera2Source, "available", staticmethod(lambda: True))
    assert isinstance(open_source("auto"), Picamera2Source)
    monkeypatch.setattr(Picamera2Source, "available", staticmethod(lambda: False))
    source = open_source("auto")
    assert isinstance(source, OpenCVSource) and source.device == 0


def test_without_picamera2_the_pi_source_says_how_to_get_it():
    if Picamera2Source.available():
        pytest.skip("Picamera2 is installed here")
    with pytest.raises(CameraError, match="python3-picamera2"):
        Picamera2Source().open()


def test_a_slow_consumer_never_blocks_capture_old_frames_are_dropped_and_counted(tmp_path):
    folder = numbered_images(tmp_path / "shots", 40)
    cam = Camera(FolderSource(str(folder)), realtime=False).start()
    taken = []
    while True:
        frame = cam.get(timeout=2)
        if frame is None:
            break
        taken.append(frame.seq)
        time.sleep(0.02)                    # a slow reader
    cam.stop()
    assert cam.captured == 40 and cam.error is None
    assert len(taken) + cam.dropped == 40
    assert cam.dropped > 0
    assert taken == sorted(taken) and taken[-1] == 39        # always the newest; the last one is not lost


def test_in_lockstep_a_slow_reader_takes_every_frame_and_a_paced_source_keeps_no_time(tmp_path):
    """A test's simulated camera: no frame dropped for a slow reader, none waited for at 1 fps."""
    folder = numbered_images(tmp_path / "shots", 20)
    taken, started = [], time.monotonic()
    with Camera(FolderSource(str(folder), fps=1), lockstep=True) as cam:
        while (frame := cam.get(timeout=10)) is not None:
            taken.append(frame.seq)
            time.sleep(0.01)                    # a slow reader
    assert taken == list(range(20)) and cam.dropped == 0 and cam.error is None
    assert time.monotonic() - started < 10     # 20 s of camera at its fps


def test_a_lockstep_camera_stops_while_its_frame_waits_to_be_taken(tmp_path):
    cam = Camera(FolderSource(str(numbered_images(tmp_path / "shots", 5))), lockstep=True).start()
    time.sleep(0.2)
    started = time.monotonic()
    cam.stop()
    assert time.monotonic() - started < 2 and not cam._thread.is_alive()


def test_a_paced_source_keeps_its_frame_rate_and_a_quick_reader_misses_nothing(tmp_path):
    folder = numbered_images(tmp_path / "shots", 10)
    with Camera(FolderSource(str(folder), fps=10)) as cam:       # 100 ms a frame: room for a loaded machine
        frames = []
        while (frame := cam.get(timeout=2)) is not None:
            frames.append(frame)
    assert [f.seq for f in frames] == list(range(10)) and cam.dropped == 0
    assert frames[-1].t - frames[0].t == pytest.approx(9 / 10, abs=0.2)


def test_a_video_file_plays_through(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 100, (64, 48))
    for i in range(6):
        writer.write(np.full((48, 64, 3), 40 * i, np.uint8))
    writer.release()
    source = open_source(str(path))
    with Camera(source, lockstep=True) as cam:      # every frame, however loaded the machine
        frames = []
        while (frame := cam.get(timeout=2)) is not None:
            frames.append(frame)
    assert len(frames) == 6 and frames[0].image.shape == (48, 64, 3) and source.fps == pytest.approx(100)


def test_missing_files_and_bad_images_are_clear_errors(tmp_path):
    with pytest.raises(CameraError, match="no images"):
        FolderSource(str(tmp_path / "nothing" / "*.jpg")).open()
    with pytest.raises(CameraError, match="no such file"):
        OpenCVSource(str(tmp_path / "gone.mp4")).open()
    (tmp_path / "bad.jpg").write_bytes(b"not a jpeg")
    cam = Camera(FolderSource(str(tmp_path / "*.jpg")), realtime=False).start()
    assert cam.get(timeout=2) is None
    cam.stop()
    assert "bad.jpg" in cam.error and "not an image" in cam.error


def test_the_simulated_camera_sends_balls_and_remembers_which(monkeypatch):
    balls = iter([7, None])
    source = SimSource("chute", fps=60, seed=3, balls=lambda: next(balls), gap_seconds=0.1)
    with Camera(source, realtime=False) as cam:
        frames, deadline = 0, time.monotonic() + 60     # the first pass renders slowly on a busy machine
        while not cam.ended and time.monotonic() < deadline:
            if cam.get(timeout=1) is not None:
                frames += 1
            time.sleep(0.002)
        assert cam.ended, "the stream never ended"
    assert source.passes == [7]
    assert cam.captured > 5 and frames + cam.dropped == cam.captured
    assert camera.VIDEO_SUFFIXES and camera.IMAGE_SUFFIXES


def test_a_ball_the_simulated_camera_is_asked_to_show_rolls_in_once_and_stays_until_taken():
    """The simulated cage's ball rests in the cradle until the referee has it: rolled in again, a
    slow console would see it twice and read it again."""
    source = SimSource("cradle", fps=30, seed=4, gap_seconds=0.1)
    shown = [9]
    source.ask(lambda: shown[0])
    source.open()
    frames = [source.read() for _ in range(80)]        # a pass in the cradle lasts at most 0.9 s (27 frames)
    assert source.passes == [9] and np.array_equal(frames[-1], frames[-20])
    shown[0] = None
    assert not np.array_equal(source.read(), frames[-1])
    shown[0] = 12
    source.read()
    assert source.passes == [9, 12]


def test_staff_asked_to_turn_the_ball_lift_it_and_roll_it_in_again():
    """The reader could not read it: staff lift the ball (frames with no ball, the acceptor sees it
    leave) and roll it in again, a new pass."""
    source = SimSource("cradle", fps=30, seed=4, gap_seconds=0.5)
    source.ask(lambda: 9)
    source.open()
    after = [source.read() for _ in range(80)][-1]
    assert source.passes == [9]
    source.again()
    lifted = [source.read() for _ in range(15)]
    assert all(np.array_equal(frame, lifted[0]) for frame in lifted) and source.passes == [9]
    source.read()
    assert source.passes == [9, 9] and after is not None


def test_a_ball_down_the_simulated_chute_still_asked_for_is_dropped_through_again():
    """Staff drop it again (the calibration's test drop waits for the next ball down the chute)."""
    source = SimSource("chute", fps=30, seed=4, gap_seconds=0.1)
    source.ask(lambda: 9)
    source.open()
    for _ in range(200):
        source.read()
        if len(source.passes) == 2:
            break
    assert source.passes == [9, 9]


def test_a_ball_from_the_chute_staff_are_asked_to_turn_they_hold_to_the_camera_until_taken():
    """However slow the reader, a ball it could not read on its way down is then shown at rest
    (the simulated demo's staff turn it to the camera, as the reader's alert asks)."""
    source = SimSource("chute", fps=30, seed=4, gap_seconds=0.1)
    shown = [9]
    source.ask(lambda: shown[0])
    source.open()
    while len(source.passes) < 1:
        source.read()
    source.again()
    frames = [source.read() for _ in range(200)]
    assert source.passes == [9, 9]                       # held, not dropped through again and again
    assert np.array_equal(frames[-1], frames[-50])
    shown[0] = 12
    for _ in range(200):
        source.read()
    assert source.passes[:3] == [9, 9, 12] and len(source.passes) > 3    # the next ball falls down the chute


class Unplugged(camera.Source):
    """A live camera: 5 frames, then unplugged (reads fail, and so does the first open after), then plugged back."""
    name, live = "camera 0", True

    def __init__(self):
        self.reads, self.opens, self.plugged = 0, 0, True

    def open(self):
        self.opens += 1
        if not self.plugged:
            raise CameraError("camera 0: cannot open (is it connected?)")

    def read(self):
        self.reads += 1
        if self.reads == 6:
            self.plugged = False
        if not self.plugged:
            raise CameraError("camera 0: stopped delivering frames")
        time.sleep(0.01)
        return np.zeros((4, 4, 3), np.uint8)


def test_a_live_camera_unplugged_is_down_and_opened_again_until_it_is_back(monkeypatch):
    """As the cage link finds its port again: the camera says why it is down, tries every REOPEN_S, and once plugged
    back delivers frames with the same counting (its frames' numbers go on), never ending the reader's stream."""
    monkeypatch.setattr(camera, "REOPEN_S", 0.05)
    source = Unplugged()
    cam = Camera(source).start()
    try:
        deadline = time.monotonic() + 5
        while cam.problem() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert cam.problem() == "camera 0: stopped delivering frames" and not cam.ended
        while source.opens < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert cam.problem() is not None and not cam.ended          # the first open after failed too
        source.plugged = True
        while cam.captured < 10 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert cam.problem() is None and cam.captured >= 10 and cam.get(timeout=1).seq >= 9
    finally:
        cam.stop()
