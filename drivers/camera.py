"""Camera capture: a source of frames, read in a thread.

Sources, chosen by configuration (the event file's [camera] source):
- "0", "1", ...           an OpenCV capture device by index
- "/dev/video0"           an OpenCV capture device by path
- "clip.mp4"              a video file (played at its own frame rate)
- "shots/*.jpg", "shots/" a folder or glob of images, in name order, at `fps`
- "pi"                    the Raspberry Pi camera through Picamera2
- "auto"                  Picamera2 when it is installed (a Pi), else device 0
- "sim", "sim:chute"      rendered balls passing a simulated cradle or chute (vision.sim.balls)
(and, for the benchmark, PlaybackSource: images already in memory, at `fps`)

Capture never waits for the consumer: the thread keeps only the newest frame, and a frame
replaced before anyone took it is counted in `dropped`. A slow decoder therefore always
reads the freshest frame instead of falling further and further behind. The last PASSED_KEPT
frames dropped are kept aside (`passed`): a reader with time to spare while a ball is still
unread may read them then (drivers.ball_reader), never before a new frame.
"""
from __future__ import annotations

import glob
import os
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.image_files import read_image

VIDEO_SUFFIXES = {".mp4", ".avi", ".mkv", ".mov", ".h264", ".mjpeg", ".webm"}
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}
NO_FRAME_SECONDS = 3.0      # a started camera with no new frame for this long is not working
PASSED_KEPT = 8             # dropped frames kept aside: a chute pass at 60 fps shows a ball in about 9
REOPEN_S = 2.0              # a live camera that failed (unplugged, its driver reset) is opened again this often


class CameraError(RuntimeError):
    pass


@dataclass(frozen=True)
class Frame:
    image: np.ndarray      # BGR (or grey) pixels
    t: float               # time.monotonic() when captured
    seq: int               # 0, 1, 2... in capture order (gaps are frames dropped)


class Source:
    """What Camera reads from. `paced`: frames come no faster than `fps` (files and the
    simulator); a device paces itself. `live`: a device, opened again when it fails."""
    name = "source"
    fps: float = 30.0
    paced = False
    live = False

    def open(self) -> None:
        pass

    def read(self) -> np.ndarray | None:
        """The next image, or None when the stream has ended."""
        raise NotImplementedError

    def close(self) -> None:
        pass


class OpenCVSource(Source):
    def __init__(self, device: int | str, width: int = 640, height: int = 480, fps: float = 30.0,
                 exposure_us: int | None = None, gain: float | None = None):
        self.device, self.width, self.height, self.fps = device, width, height, fps
        self.exposure_us, self.gain = exposure_us, gain
        self.unset: list[str] = []       # the exposure settings the device refused
        self.is_file = isinstance(device, str) and Path(device).suffix.lower() in VIDEO_SUFFIXES
        self.paced, self.live = self.is_file, not self.is_file
        self.name = f"video file {device}" if self.is_file else f"camera {device}"
        self._cap = None

    def open(self) -> None:
        if self.is_file and not Path(self.device).is_file():
            raise CameraError(f"{self.name}: no such file")
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            raise CameraError(f"{self.name}: cannot open (is it connected, and is no other program using it?)")
        if self.is_file:
            self.fps = cap.get(cv2.CAP_PROP_FPS) or self.fps
        else:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
            cap.set(cv2.CAP_PROP_FPS, self.fps)
            cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)        # the newest frame, not a queue of old ones
            self._set_exposure(cap)
        self._cap = cap

    def _set_exposure(self, cap) -> None:
        """A fixed exposure and gain where the device takes them (V4L2: manual exposure is
        auto-exposure mode 1, the time in 100 us units; gain in the device's own units)."""
        wanted = []
        if self.exposure_us is not None:
            wanted += [("auto exposure off", cv2.CAP_PROP_AUTO_EXPOSURE, 1),
                       ("exposure_us", cv2.CAP_PROP_EXPOSURE, self.exposure_us / 100)]
        if self.gain is not None:
            wanted.append(("gain", cv2.CAP_PROP_GAIN, self.gain))
        self.unset = [name for name, prop, value in wanted if not cap.set(prop, value)]

    def read(self) -> np.ndarray | None:
        ok, image = self._cap.read()
        if ok:
            return image
        if self.is_file:
            return None
        raise CameraError(f"{self.name}: stopped delivering frames")

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class Picamera2Source(Source):
    """The Raspberry Pi camera (libcamera). Picamera2 comes from apt (python3-picamera2)."""
    name = "Raspberry Pi camera"
    live = True

    def __init__(self, width: int = 640, height: int = 480, fps: float = 30.0,
                 exposure_us: int | None = None, gain: float | None = None):
        self.width, self.height, self.fps = width, height, fps
        self.exposure_us, self.gain = exposure_us, gain
        self.unset: list[str] = []       # the exposure settings this camera has no control for
        self._cam = None

    @staticmethod
    def available() -> bool:
        try:
            import picamera2  # noqa: F401
        except ImportError:
            return False
        return True

    def open(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise CameraError("source 'pi' needs Picamera2: sudo apt install python3-picamera2 "
                              "(and a virtualenv made with --system-site-packages)") from None
        try:
            cam = Picamera2()
            # "RGB888" is laid out B, G, R in memory: what OpenCV expects
            config = cam.create_video_configuration(main={"size": (self.width, self.height), "format": "RGB888"},
                                                    controls={"FrameRate": float(self.fps),
                                                              **self._exposure_controls(cam.camera_controls)})
            cam.configure(config)
            cam.start()
        except (RuntimeError, IndexError) as error:
            raise CameraError(f"{self.name}: {error}") from None
        self._cam = cam

    def _exposure_controls(self, available: dict) -> dict:
        """ExposureTime (us) and AnalogueGain as set, automatic exposure off, where the camera has them."""
        wanted = {"ExposureTime": self.exposure_us, "AnalogueGain": self.gain}
        controls = {name: value for name, value in wanted.items() if value is not None and name in available}
        self.unset = [name for name, value in wanted.items() if value is not None and name not in available]
        if controls and "AeEnable" in available:
            controls["AeEnable"] = False
        return controls

    def read(self) -> np.ndarray | None:
        return self._cam.capture_array("main")

    def close(self) -> None:
        if self._cam is not None:
            self._cam.stop()
            self._cam.close()
            self._cam = None


class FolderSource(Source):
    """Images from a folder or a glob, in name order, `fps` a second; `loop` to repeat."""
    paced = True

    def __init__(self, pattern: str, fps: float = 30.0, loop: bool = False):
        self.pattern, self.fps, self.loop = pattern, fps, loop
        self.name = f"images {pattern}"
        self.files: list[str] = []
        self._next = 0

    def open(self) -> None:
        pattern = os.path.join(self.pattern, "*") if os.path.isdir(self.pattern) else self.pattern
        self.files = sorted(f for f in glob.glob(pattern) if Path(f).suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CameraError(f"{self.name}: no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
        self._next = 0

    def read(self) -> np.ndarray | None:
        if self._next >= len(self.files):
            if not self.loop:
                return None
            self._next = 0
        path = self.files[self._next]
        self._next += 1
        try:
            return read_image(path)         # regular files only, within the byte and pixel limits
        except OSError as error:
            raise CameraError(str(error)) from None


class SimSource(Source):
    """Balls passing a simulated cradle or chute, rendered as the corpus renders them (each
    frame when it is due), with empty frames between balls. `balls()` says which ball comes
    next (default: random; None ends the stream)."""
    paced = True

    def __init__(self, kind: str = "cradle", fps: float = 30.0, seed: int | None = None, balls=None,
                 gap_seconds: float = 1.0, diameter: float = 40.0):
        if kind not in ("cradle", "chute"):
            raise CameraError(f"simulated camera: kind {kind!r} is not 'cradle' or 'chute'")
        self.kind, self.fps, self.gap = kind, fps, gap_seconds
        self.name = f"simulated {kind}"
        self._rng = np.random.default_rng(seed)
        self._balls = balls or (lambda: int(self._rng.integers(1, 28)))
        self._diameter = diameter
        self._pass, self._next, self._empty = None, 0, None
        self._asked = None
        self._again, self._lifted, self._held = False, 0, False
        self.passes: list[int] = []          # the balls sent, in order: the truth

    def ask(self, ball) -> None:
        """From now on show the ball ball() names (None: no ball, empty frames), and change at once
        when it changes: the ball the calibration check asks for, or the one the simulated cage dropped.
        A ball in the cradle rolls in once and rests there until taken, or until `again()` has staff
        roll it in again; one down the chute still asked for after the gap is dropped through again."""
        self._asked = ball

    def again(self) -> None:
        """Staff lift the ball shown and, after the gap, roll it in again (the reader asked them to turn it);
        a ball asked for that went down the chute they hold to the camera, at rest, until it is taken."""
        self._again = True

    def open(self) -> None:
        from vision import ball_labels
        from vision.sim import balls as ball_render
        self._render = ball_render
        self._renderer = ball_render.Renderer(ball_labels.Design(self._diameter))

    def read(self) -> np.ndarray | None:
        asked = self._asked() if self._asked else None
        if self._asked and self._pass is not None and self.passes[-1] != asked:
            self._pass, self._held = None, False     # another ball (or none) was asked for: this pass ends now
        if self._asked and asked is None:
            if self._empty is None:
                self._empty = self._render.single_frame(self._renderer, int(self._rng.integers(2 ** 31)), empty=True)[0]
            return self._empty
        if self._again and self._pass is not None:
            self._again, self._pass, self._lifted = False, None, int(self.gap * self.fps)
            self._held = self._asked is not None
        if self._lifted:
            self._lifted -= 1
            return self._empty
        if self._pass is None:
            ball = asked if asked is not None else self._balls()
            if ball is None:
                return None
            seed = int(self._rng.integers(2 ** 31))
            kind = "cradle" if self._held else self.kind
            self._pass = self._render.render_pass(self._renderer, kind, self.fps, ball, seed)
            self._empty = self._render.single_frame(self._renderer, seed, empty=True)[0]
            self._next = 0
            self.passes.append(ball)
        i, self._next = self._next, self._next + 1
        if i < len(self._pass):
            return self._pass.shot(i).image
        if self._asked and (self.kind == "cradle" or self._held):      # it rests until taken
            return self._pass.shot(len(self._pass) - 1).image
        if i >= len(self._pass) + int(self.gap * self.fps):
            self._pass = None
        return self._empty


class PlaybackSource(Source):
    """Images already in memory, `fps` a second on the wall clock, then the end of the stream:
    a rendered pass played to the live reader. `shown_at[i]`: when image i was handed over."""
    paced = True
    name = "playback"

    def __init__(self, images: list[np.ndarray], fps: float):
        self.images, self.fps = images, fps
        self.shown_at: list[float] = []

    def read(self) -> np.ndarray | None:
        if len(self.shown_at) >= len(self.images):
            return None
        self.shown_at.append(time.monotonic())
        return self.images[len(self.shown_at) - 1]


def open_source(spec: str, width: int = 640, height: int = 480, fps: float = 30.0,
                exposure_us: int | None = None, gain: float | None = None) -> Source:
    """The source a configuration string names (see the module's docstring); a camera gets a
    fixed exposure time and gain when they are given and it has the controls."""
    spec = str(spec).strip()
    exposure = {"exposure_us": exposure_us, "gain": gain}
    if spec.isdigit():
        return OpenCVSource(int(spec), width, height, fps, **exposure)
    if spec == "auto":
        if Picamera2Source.available():
            return Picamera2Source(width, height, fps, **exposure)
        return OpenCVSource(0, width, height, fps, **exposure)
    if spec in ("pi", "picamera2"):
        return Picamera2Source(width, height, fps, **exposure)
    if spec == "sim" or spec.startswith("sim:"):
        return SimSource(spec.partition(":")[2] or "cradle", fps)
    if spec.startswith("/dev/"):
        return OpenCVSource(spec, width, height, fps, **exposure)
    suffix = Path(spec).suffix.lower()
    if suffix in VIDEO_SUFFIXES:
        return OpenCVSource(spec, width, height, fps)
    if os.path.isdir(spec) or glob.has_magic(spec) or suffix in IMAGE_SUFFIXES:
        return FolderSource(spec, fps)
    raise CameraError(f"camera source {spec!r}: not a device index, /dev path, video file, image folder "
                      "or glob, 'pi', 'auto' or 'sim'")


def opened_again(source: Source, stop: threading.Event) -> bool:
    """A live source that failed or is missing (unplugged), opened again every REOPEN_S until it opens (True: left
    open) or stop is set (False): a camera plugged (back) in goes on."""
    while not stop.wait(REOPEN_S):
        source.close()
        try:
            source.open()
        except Exception:               # still unplugged: the error said first stays the one shown
            continue
        return True
    return False


class Camera:
    """Reads a source in its own thread; get() hands out the newest frame not yet taken.

    `lockstep` (files and the simulator, for tests): each frame waits until the one before was
    taken, with no pacing: none is dropped, and the stream runs as fast as its reader, however
    busy the machine (a frame's `seq` still counts frames at the source's fps)."""

    def __init__(self, source: Source, realtime: bool = True, lockstep: bool = False):
        self.source = source
        self.lockstep = lockstep
        self.realtime = realtime and source.paced and not lockstep     # files and the simulator: keep to their fps
        self.captured = 0
        self.dropped = 0
        self.error: str | None = None
        self.no_frame_seconds = NO_FRAME_SECONDS
        self._started_at: float | None = None
        self._last_frame_at: float | None = None
        self._slot: Frame | None = None
        self._passed: deque[Frame] = deque(maxlen=PASSED_KEPT)     # the newest frames dropped, oldest first
        self._ended = False
        self._stop = threading.Event()
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None

    def start(self) -> "Camera":
        try:
            self.source.open()
        except CameraError as error:
            self.error = str(error)
            raise
        self._started_at = time.monotonic()
        self._thread = threading.Thread(target=self._run, name=f"camera: {self.source.name}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        with self._ready:
            self._ready.notify_all()          # a lockstep capture waiting for its frame to be taken
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.source.close()
        with self._ready:
            self._ended = True
            self._ready.notify_all()

    def __enter__(self) -> "Camera":
        return self.start()

    def __exit__(self, *_) -> None:
        self.stop()

    @property
    def ended(self) -> bool:
        """The source has no more frames (or failed: see `error`) and the last one was taken."""
        with self._ready:
            return self._ended and self._slot is None

    def problem(self) -> str | None:
        """Why this camera is not delivering frames (None: it is): it could not open, failed,
        ended, was never started, or sent no frame for `no_frame_seconds`. The one health check
        for every screen (cheap: no locks, no I/O)."""
        if self.error:
            return self.error
        if self._started_at is None:
            return f"{self.source.name}: not started"
        if self._ended:
            return f"{self.source.name}: the stream ended"
        silent = time.monotonic() - (self._last_frame_at or self._started_at)
        if silent > self.no_frame_seconds:
            return f"{self.source.name}: no frame for {silent:.0f} s"
        return None

    def get(self, timeout: float | None = None) -> Frame | None:
        """The newest frame not yet taken; None on timeout or once the stream has ended."""
        with self._ready:
            self._ready.wait_for(lambda: self._slot is not None or self._ended, timeout)
            frame, self._slot = self._slot, None
            self._ready.notify_all()          # a lockstep capture may take the next
            return frame

    def passed(self, since: float) -> Frame | None:
        """The newest frame dropped that was captured at `since` or later, taken out of those kept
        aside (the ones before `since` are let go): None when there is none."""
        with self._ready:
            while self._passed and self._passed[0].t < since:
                self._passed.popleft()
            return self._passed.pop() if self._passed else None

    def _run(self) -> None:
        start, seq = time.monotonic(), 0
        while True:
            try:
                while not self._stop.is_set():
                    if self.realtime:
                        delay = start + seq / self.source.fps - time.monotonic()
                        if delay > 0 and self._stop.wait(delay):
                            break
                    image = self.source.read()
                    if image is None:
                        break
                    self._put(Frame(image, time.monotonic(), seq))
                    seq += 1
            except Exception as error:        # one place for capture failures: reported, never silent
                self.error = str(error) if isinstance(error, CameraError) else \
                    f"{self.source.name}: {type(error).__name__}: {error}"
                if self.source.live and opened_again(self.source, self._stop):
                    self.error = None
                    continue
            break
        with self._ready:
            self._ended = True
            self._ready.notify_all()

    def _put(self, frame: Frame) -> None:
        with self._ready:
            if self.lockstep:
                self._ready.wait_for(lambda: self._slot is None or self._stop.is_set())
            if self._slot is not None:
                self.dropped += 1
                self._passed.append(self._slot)
            self._slot = frame
            self._last_frame_at = frame.t
            self.captured += 1
            self._ready.notify_all()
