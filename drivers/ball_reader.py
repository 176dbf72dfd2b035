"""The ball reader: camera frames in, accepted balls and alerts out, through a callback.

    reader = BallReader.from_settings(Settings.from_section(event.sections.get("camera", {})),
                                      on_message=post, places=lambda: session.state.place)
    panel.on_beam = reader.beam          # the break-beam, when fitted, opens the window
    reader.start()

on_message receives vision.acceptance.BallRead (submit message.command(), i.e.
{"do": "draw_ball", "ball": B}) or Alert (show it to the operator; nothing is drawn). It is
called from the reader's thread: a screen should post it to its own thread.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable

import cv2

from vision import acceptance
from vision.acceptance import Alert, BallRead  # noqa: F401  (what on_message receives)
from vision.balls import DEFAULT_DECODER, DEFAULT_DISTANCE, DEFAULT_FOV, BallDecoder, FrameRead
from vision.worker import ProcessWorker, WorkerDied, WorkerFailed, close_all

from . import settings as section_settings
from .camera import Camera, CameraError, open_source


class SettingsError(ValueError):
    pass


@dataclass(frozen=True)
class Settings:
    """The event file's [camera] section, with defaults."""
    source: str = "auto"
    width: int = 640
    height: int = 480
    fps: int = 30
    roi: tuple[int, int, int, int] | None = None
    fov: float = DEFAULT_FOV
    decoder: str = DEFAULT_DECODER
    window_ms: int = acceptance.DEFAULT_WINDOW_MS
    agree: int = acceptance.DEFAULT_AGREE
    gone_ms: int = acceptance.DEFAULT_GONE_MS
    ball_diameter: float = 40.0
    ball_distance: tuple[float, float] = DEFAULT_DISTANCE   # mm, camera to ball centre: nearest, farthest
    workers: int = 3                 # decoding processes (a Pi 4 or 5 has 4 cores: one left for the rest)
    fall_deg: float | None = None    # which way balls cross the image (degrees, 0 = rightwards, 90 = down)
    exposure_us: int | None = None   # a fixed exposure time (None: the camera's automatic exposure)
    gain: float | None = None        # a fixed analogue gain (None: automatic)

    @classmethod
    def from_section(cls, section: dict) -> "Settings":
        """Raises SettingsError naming the key (each value's type and range: event_file.SECTIONS)."""
        settings = section_settings.from_section(cls, section, "camera", SettingsError, roi=tuple,
                                                 ball_distance=_distance)
        if not settings.ball_diameter / 2 < settings.ball_distance[0]:
            raise SettingsError(f"[camera] ball_distance {list(settings.ball_distance)}: the nearest must be more "
                                "than the ball's radius (mm from the camera to the ball's centre)")
        if settings.exposure_us is not None and not settings.exposure_us <= 1_000_000 / settings.fps:
            raise SettingsError(f"[camera] exposure_us {settings.exposure_us!r}: 10 to {1_000_000 / settings.fps:g} "
                                "(no longer than one frame at fps)")
        return settings

    def decoder_for(self, warn=print, prepare: bool = True) -> BallDecoder:
        return BallDecoder(self.decoder, self.ball_diameter, self.fov, self.roi, warn=warn,
                           distance=self.ball_distance, fall_deg=self.fall_deg, prepare=prepare)

    def acceptor_for(self, places: Callable[[], dict] | None = None) -> acceptance.Acceptor:
        return acceptance.Acceptor(self.window_ms, self.agree, self.gone_ms, places)


def _distance(value: list) -> tuple[float, float]:
    """[nearest, farthest] in mm from the camera to the ball's centre (each in range: event_file)."""
    if not value[0] <= value[1]:
        raise SettingsError(f"[camera] ball_distance must be [nearest, farthest] in mm from the camera to the "
                            f"ball's centre, not {value!r}")
    return float(value[0]), float(value[1])


class ProcessDecoder:
    """A BallDecoder in a process of its own, read from one of the reader's threads (which waits
    without holding the interpreter lock): frames decoded side by side on a Pi's cores. `decoder`
    holds the settings; its fall direction is sent with each frame (calibration may change it).
    The process warms its decoder as it starts (BallDecoder.warm), before any frame comes."""

    def __init__(self, decoder: BallDecoder, number: int = 1):
        self.decoder = decoder
        self.worker = ProcessWorker(_DecoderInProcess, (_settings_of(decoder),), f"ball decoder {number}")

    @property
    def name(self) -> str:
        return self.decoder.name

    def read(self, image) -> FrameRead:
        return self.worker.call("read", image, self.decoder.fall_deg)

    def ready(self) -> FrameRead:
        """Wait until the process is started and warm: what its warm-up frame read."""
        return self.worker.call("warmed")

    def close(self) -> None:
        self.worker.close()


def process_decoders(decoder: BallDecoder, count: int) -> list[ProcessDecoder]:
    return [ProcessDecoder(decoder, n) for n in range(1, count + 1)]


def close_decoders(decoders: list[ProcessDecoder]) -> None:
    """Their processes stopped together (vision.worker.close_all), not one after another."""
    close_all([decoder.worker for decoder in decoders])


def _settings_of(decoder: BallDecoder) -> dict:
    return {"decoder": decoder.name, "diameter": decoder.design.diameter, "fov": decoder.fov, "roi": decoder.roi,
            "mode": decoder.mode, "distance": decoder.distance, "fall_deg": decoder.fall_deg}


class _DecoderInProcess:
    """The decoder inside a ProcessDecoder's process."""

    def __init__(self, settings: dict):
        self.decoder = BallDecoder(**settings, warn=lambda _: None)
        self.warm_read = self.decoder.warm()

    def warmed(self) -> FrameRead:
        return self.warm_read

    def read(self, image, fall_deg: float | None) -> FrameRead:
        self.decoder.fall_deg = fall_deg
        return self.decoder.read(image)


class BallReader:
    """Takes the newest frames, reads them (`workers` side by side: `decoder` and its twins, or a
    list of decoders, one a worker), feeds the acceptor in the order the frames were taken (but
    for a frame still being read when the frames after it already agree: _decide_early);
    messages go to on_message, and each frame's read, with its sequence number, to on_read when
    given (the benchmark's record). A decoder that fails on a frame is an alert; the frame is skipped.

    A decoder with no new frame to read while the acceptor's window is open without a verdict
    reads a frame the camera dropped since the window opened (Camera.passed, the newest first):
    a reader that fell behind on a fast pass reads the ball's frames it missed in the time the
    empty frames after it leave, before the window closes, and never ahead of a new frame."""

    def __init__(self, camera: Camera, decoder: BallDecoder | list, acceptor: acceptance.Acceptor,
                 on_message: Callable[[object], None], workers: int = 1,
                 on_read: Callable[[int, object], None] | None = None):
        self.camera, self.acceptor = camera, acceptor
        self.decoders = list(decoder) if isinstance(decoder, list) else \
            [decoder] + [decoder.twin() for _ in range(workers - 1)]
        self.decoder = self.decoders[0]
        self.owned: list = []            # decoders to close with the reader (processes it started)
        self.on_message, self.on_read = on_message, on_read
        self.frames = 0                  # frames read (the camera counts those dropped)
        self.late = 0                    # of them, frames the camera had dropped, read after (Camera.passed)
        self.last = None                 # the last frame's FrameRead, for a status line
        self._lock = threading.Lock()    # the acceptor and the queue below: workers and the beam
        self._take = threading.Lock()    # frames are taken one worker at a time, so in order
        self._taken: deque[int] = deque()          # frames being read, in the order taken
        self._done: dict[int, tuple] = {}          # frames read, waiting for an earlier one
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def from_settings(cls, settings: Settings, on_message: Callable[[object], None],
                      places: Callable[[], dict] | None = None, warn=print) -> "BallReader":
        source = open_source(settings.source, settings.width, settings.height, settings.fps,
                             settings.exposure_us, settings.gain)
        decoders = process_decoders(settings.decoder_for(warn, prepare=False), settings.workers)
        reader = cls(Camera(source), decoders, settings.acceptor_for(places), on_message)
        reader.owned = decoders
        return reader

    def start(self) -> "BallReader":
        try:
            self.camera.start()
        except CameraError:
            self._close_owned()
            raise
        self._thread = threading.Thread(target=self._run, name="ball reader", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.camera.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._close_owned()

    def _close_owned(self) -> None:
        close_decoders(self.owned)
        self.owned = []

    def __enter__(self) -> "BallReader":
        return self.start()

    def __exit__(self, *_) -> None:
        self.stop()

    @property
    def missed(self) -> int:
        """Frames the camera dropped that no decoder read after."""
        return self.camera.dropped - self.late

    def join(self, timeout: float | None = None) -> None:
        """Wait until the camera's stream has ended and every frame is read."""
        if self._thread is not None:
            self._thread.join(timeout)

    def beam(self, *_) -> None:
        """The break-beam callback (drivers.panel's on_beam): a ball is passing."""
        with self._lock:
            messages = self.acceptor.beam(time.monotonic())
        self._send(messages)

    def _run(self) -> None:
        threads = [threading.Thread(target=self._work, args=(d,), name=f"ball decoder {i}", daemon=True)
                   for i, d in enumerate(self.decoders)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if not self._stop.is_set():             # the stream ended: rule on the last ball now
            with self._lock:
                messages = self.acceptor.tick(time.monotonic() + self.acceptor.window)
            self._send(messages)
        if self.camera.error:
            self._send([Alert("camera", f"camera: {self.camera.error}", time.monotonic())])

    def _work(self, decoder: BallDecoder) -> None:
        while not self._stop.is_set():
            with self._take:
                frame = self.camera.get(timeout=0) or self._passed() or self.camera.get(timeout=0.1)
                if frame is not None:
                    with self._lock:
                        self._taken.append(frame.seq)
            if frame is None:
                with self._lock:
                    # a frame still being read may be the window's last witness: its own time
                    # rules on the window when it is fed, not the clock before it
                    messages = [] if self._taken else self.acceptor.tick(time.monotonic())
                self._send(messages)
                if self.camera.ended:
                    break
                continue
            try:
                result, failed = decoder.read(frame.image), []
            except (WorkerDied, WorkerFailed) as error:
                result, failed = None, [Alert("decoder", f"frame {frame.seq} not read: {error}", time.monotonic())]
            with self._lock:
                self._done[frame.seq] = (frame.t, result)
                messages = self._feed_in_order()
            self._send(failed + messages)

    def _passed(self):
        """A frame dropped since the open window opened, to read now; None with no window open or
        past its end on the clock (where the stream ends with the pass, as on the bench, no empty
        frame after it closes the window)."""
        with self._lock:
            since = self.acceptor.open_since(time.monotonic())
        frame = None if since is None else self.camera.passed(since)
        self.late += frame is not None
        return frame

    def _feed_in_order(self) -> list:
        messages = []
        while self._taken and self._taken[0] in self._done:
            messages += self._feed(self._taken.popleft())
        return messages + self._decide_early()

    def _decide_early(self) -> list:
        """Frames read while an earlier one is still being read (a slow frame, often the ball
        coming into view): when they already make a ball agree, rule now, as if the frames still
        being read had been dropped; those are fed once read, before any frame after them."""
        ready = [seq for seq in self._taken if seq in self._done]
        trial = self.acceptor.trial() if ready else None
        for n, seq in enumerate(ready, 1):
            if any(isinstance(m, BallRead) for m in self._rule(trial, seq)):
                messages = []
                for deciding in ready[:n]:
                    self._taken.remove(deciding)
                    messages += self._feed(deciding)
                return messages
        return []

    def _feed(self, seq: int) -> list:
        """A frame read, to the acceptor (its decoder failed: said already, nothing to feed)."""
        messages = self._rule(self.acceptor, seq)
        _, result = self._done.pop(seq)
        if result is not None:
            self.frames += 1
            self.last = result
            if self.on_read:
                self.on_read(seq, result)
        return messages

    def _rule(self, acceptor: acceptance.Acceptor, seq: int) -> list:
        t, result = self._done[seq]
        return [] if result is None else rule(acceptor, t, result)

    def _send(self, messages: list) -> None:
        for message in messages:
            self.on_message(message)


def rule(acceptor: acceptance.Acceptor, t: float, result: FrameRead) -> list:
    """One frame's read, taken at `t`, to the acceptor: its messages."""
    return acceptor.frame(t, result.found, result.ball, result.conflict, result.alert,
                          result.witnessed, result.leaning)


__all__ = ["BallReader", "Settings", "SettingsError", "CameraError", "BallRead", "Alert"]
