"""`companion calibrate`: setting up the ball reader before the doors open.

A worker thread takes the camera's newest frame, measures it (focus, exposure), runs
every decoder on it (read or not, and milliseconds), and posts one message; the UI only
draws. The operator moves the region of interest with the arrow keys, walks through
"show me every ball 1-27" to record each ball's read rate, times a test drop down the chute
to propose the exposure (vision.exposure), watches the cage link and the break-beam, and
saves the region and the best decoder into the event file's [camera].
"""
from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.worker import get_current_worker

from companion.core import event_file

from .boundary import Boundary, guarded
from .game_console import KeyBar
from .forms import Confirm
from .plain import Label, Static, Table
from .sources import NOT_CONNECTED, PanelSource, link_for
from .theme import THEME
from .widgets import HalfBlockImage

STEP = 8                 # pixels the region moves or grows per key press
GUIDED_FRAMES = 15       # frames looked at per ball in the guided check
DROP_GONE_FRAMES = 3     # frames captured since the ball was last seen that end a test drop
DROP_SECONDS = 10        # a test drop that shows no ball for this long ends


@dataclass
class DecoderStats:
    frames: int = 0
    reads: int = 0
    ms: float = 0.0

    def add(self, read: bool, ms: float) -> None:
        self.frames += 1
        self.reads += read
        self.ms += ms

    def line(self) -> tuple[str, str]:
        if not self.frames:
            return "-", "-"
        return f"{100 * self.reads / self.frames:.0f}%", f"{self.ms / self.frames:.1f}"


@dataclass
class Guided:
    """The walk through every ball: for each, how many of `per_ball` frames read it."""
    per_ball: int = GUIDED_FRAMES
    ball: int = 1
    seen: dict[int, tuple[int, int]] = field(default_factory=dict)   # ball -> (frames, frames that read it)

    def add(self, read: int | None) -> bool:
        """One frame with a ball in view; True when this ball has had its frames."""
        frames, good = self.seen.get(self.ball, (0, 0))
        self.seen[self.ball] = (frames + 1, good + (read == self.ball))
        return frames + 1 >= self.per_ball

    def rate(self, ball: int) -> float | None:
        frames, good = self.seen.get(ball, (0, 0))
        return good / frames if frames else None


def focus_and_exposure(gray) -> tuple[float, float, float, float]:
    """Focus (variance of the Laplacian), mean level, % clipped white, % crushed black."""
    import cv2
    focus = float(cv2.Laplacian(gray, cv2.CV_64F).var())
    return focus, float(gray.mean()), float((gray >= 250).mean() * 100), float((gray <= 5).mean() * 100)


def save_camera(path: Path, roi: tuple[int, int, int, int] | None, decoder: str) -> None:
    """Write roi and decoder into the event file's [camera] section, keeping every other line
    and comment; the new text must load cleanly before it replaces the file (atomically)."""
    text = path.read_text(encoding="utf-8")
    values = {"decoder": f'"{decoder}"'}
    if roi is not None:
        values["roi"] = "[" + ", ".join(str(int(v)) for v in roi) + "]"
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if re.match(r"\s*\[camera\]\s*(#.*)?$", line)), None)
    if start is None:
        lines += ["", "[camera]"] + [f"{k} = {v}" for k, v in values.items()]
    else:
        end = next((i for i in range(start + 1, len(lines)) if re.match(r"\s*\[", lines[i])), len(lines))
        for key, value in values.items():
            at = next((i for i in range(start + 1, end) if re.match(rf"\s*{key}\s*=", lines[i])), None)
            if at is None:
                lines.insert(start + 1, f"{key} = {value}")
                end += 1
            else:
                lines[at] = f"{key} = {value}"
    new = "\n".join(lines) + "\n"
    check = path.with_name(f".{path.name}.check")
    check.write_text(new, encoding="utf-8")
    try:
        from drivers.ball_reader import Settings
        Settings.from_section(event_file.load(check).sections["camera"])   # the reader must accept it too
    finally:
        check.unlink(missing_ok=True)
    event_file.write_atomic(path, new)


class CalibrateApp(Boundary, App):
    CSS_PATH = ["theme.tcss", "calibrate.tcss"]
    TITLE = "Ball reader calibration"
    BINDINGS = [
        Binding("up", "move(0, -1)", "ROI up"), Binding("down", "move(0, 1)", "ROI down"),
        Binding("left", "move(-1, 0)", "ROI left"), Binding("right", "move(1, 0)", "ROI right"),
        Binding("plus", "grow(1)", "ROI bigger"), Binding("minus", "grow(-1)", "ROI smaller"),
        Binding("r", "roi_from_ball", "ROI around ball"), Binding("x", "clear_roi", "whole frame"),
        Binding("d", "next_decoder", "choose decoder"),
        Binding("g", "guided", "check balls 1-27"), Binding("n", "next_ball", "next ball"),
        Binding("t", "test_drop", "test drop (exposure)"),
        Binding("s", "save", "save to event file"), Binding("ctrl+q", "quit", "quit", priority=True),
    ]
    failures = logging.getLogger("companion.calibrate")

    @dataclass
    class Measured(Message):
        """One frame, measured (sent by the camera thread)."""
        preview: object                  # the frame with the ROI and the ball drawn on it
        shape: tuple
        focus: float
        level: float
        white: float
        black: float
        reads: dict                      # decoder -> FrameRead
        asked: int | None = None         # the ball the guided check asked for when the frame was taken
        seq: int = 0                     # the frame's number in capture order
        ball: tuple | None = None        # the ball's outline in the frame: x, y, radius px

    @dataclass
    class CameraProblem(Message):
        text: str

    def __init__(self, event_path: Path, source: str | None = None, guided_frames: int = GUIDED_FRAMES,
                 lockstep: bool = False):
        super().__init__()
        self.guided_frames = guided_frames
        self.lockstep = lockstep         # a test's camera: every frame measured, none waited for (Camera)
        self.event_path = Path(event_path)
        self.event = event_file.load(self.event_path)
        self.section = dict(self.event.sections.get("camera", {}))
        if source:
            self.section["source"] = source
        self.roi = tuple(self.section["roi"]) if "roi" in self.section else None
        self.decoder = self.section.get("decoder", "zxing")
        self.stats: dict[str, DecoderStats] = {}
        self.guided: Guided | None = None
        self.circle = None
        self.shape = None
        self.frames = 0
        self.beams: list[float] = []
        self.link_reads: list[int] = []
        self.devices = {}
        self.settings = None             # the [camera] settings, once the camera thread has read them
        self.drop: list | None = None    # a test drop under way: (seq, (x, y, r) or None) per frame measured
        self.proposal = None             # the last test drop's vision.exposure.Proposal
        self.newest = -1                 # the newest frame measured (by the camera thread): older ones are not drawn

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield HalfBlockImage("", id="preview")
                yield Label("", id="camera")
            with Vertical(id="right"):
                yield Static("", id="measures")
                yield Static("", id="decoders")
                yield Static("", id="guided")
                yield Static("t: time a ball dropped down the chute", id="drop")
                yield Static("", id="hardware")
        yield Label("", id="outcome")
        yield KeyBar(self.BINDINGS, id="keys")

    def on_mount(self) -> None:
        self.register_theme(THEME)
        self.theme = THEME.name
        for name, title in (("preview", "Camera"), ("measures", "Picture"), ("decoders", "Decoders"),
                            ("guided", "Every ball"), ("drop", "Chute speed and exposure"),
                            ("hardware", "Link and beam")):
            self.pane(f"#{name}").border_title = title
        self.start_devices()
        self.watch_camera()
        self.set_interval(0.5, self.show_hardware)
        self.show_hardware()
        self.show_guided()

    def start_devices(self) -> None:
        sections = self.event.sections
        try:
            if "serial" in sections:
                self.devices["link"] = link_for(sections["serial"], None)
            if "panel" in sections:
                self.devices["panel"] = PanelSource(sections["panel"])
                self.devices["panel"].on_beam = lambda count: self.beams.append(time.monotonic())
        except (ImportError, OSError, ValueError) as error:
            self.say(str(error), "error")
        for device in self.devices.values():
            device.start(self._link_ball, lambda text, level="info": None)

    def _link_ball(self, command: dict, reply=None) -> None:
        self.link_reads.append(command.get("ball"))

    def on_unmount(self) -> None:
        for device in self.devices.values():
            device.stop()

    # ---- the camera thread

    @work(thread=True, exclusive=True, name="camera")
    def watch_camera(self) -> None:
        import cv2
        from drivers.ball_reader import Settings, SettingsError
        from drivers.camera import Camera, CameraError, SimSource, open_source
        from vision.balls import DECODERS, BallDecoder, DecoderUnavailable
        worker = get_current_worker()
        try:
            settings = self.settings = Settings.from_section(self.section)
            source = open_source(settings.source, settings.width, settings.height, settings.fps,
                                 settings.exposure_us, settings.gain)
            if isinstance(source, SimSource):     # the simulated camera shows the ball the check asks for
                source.ask(lambda: min(self.guided.ball, 27) if self.guided is not None else 1)
            camera = Camera(source, lockstep=self.lockstep).start()
        except (SettingsError, CameraError, OSError) as error:
            self.post_message(self.CameraProblem(f"camera: {error}"))
            return
        decoders = {}
        for name in DECODERS:
            try:
                decoder = BallDecoder(name, settings.ball_diameter, settings.fov, warn=lambda text: None,
                                      distance=settings.ball_distance)
            except (DecoderUnavailable, ImportError):
                decoder = None
            if decoder is None or decoder.name != name:        # it fell back to another decoder
                self.post_message(self.CameraProblem(f"decoder {name} is not available here"))
                continue
            decoders[name] = decoder
        try:
            while not worker.is_cancelled:
                frame = camera.get(timeout=0.2)
                if frame is None:
                    if camera.ended:
                        self.post_message(self.CameraProblem(f"camera: {camera.error or 'the stream ended'}"))
                        return
                    continue
                try:
                    measured = self.measure(frame.image, decoders, cv2, frame.seq)
                    self.newest = frame.seq
                    self.post_message(measured)
                except Exception as error:        # that frame only: the camera goes on
                    self.failed("measuring a frame", error)
        finally:
            camera.stop()

    def measure(self, image, decoders: dict, cv2, seq: int = 0) -> "CalibrateApp.Measured":
        """Focus, exposure and every decoder's read; during a test drop only where the ball is
        (decoding would take the frames the drop needs)."""
        asked = self.guided.ball if self.guided is not None else None
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        roi = self.roi
        region = gray[roi[1]:roi[1] + roi[3], roi[0]:roi[0] + roi[2]] if roi else gray
        reads = {}
        if self.drop is not None and decoders:
            circle = _ball_in(gray, next(iter(decoders.values())))
        else:
            for name, decoder in decoders.items():
                decoder.roi = roi
                reads[name] = decoder.read(image)
            circle = next((r.circle for r in reads.values() if r.circle is not None), None)
        preview = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        if roi:
            cv2.rectangle(preview, (roi[0], roi[1]), (roi[0] + roi[2], roi[1] + roi[3]), (0, 212, 255), 3)
        if circle is not None:
            cv2.circle(preview, (int(circle.x), int(circle.y)), int(circle.r), (85, 212, 0), 3)
        ball = None if circle is None else (circle.x, circle.y, circle.r)
        return self.Measured(preview, gray.shape, *focus_and_exposure(region), reads, asked, seq, ball)

    @guarded("showing a frame")
    def on_calibrate_app_measured(self, message: Measured) -> None:
        if self.gone("#preview"):
            return
        self.frames += 1
        self.shape = message.shape
        roi = self.roi
        chosen = message.reads.get(self.decoder) or next(iter(message.reads.values()), None)
        circle = chosen.circle if chosen else None
        self.circle = None if circle is None else (circle.x, circle.y, circle.r)    # FrameRead's: in the frame
        if self.drop is not None:
            self.timing_drop(message)
        for name, read in message.reads.items():
            self.stats.setdefault(name, DecoderStats()).add(read.ball is not None, read.ms)
        # a frame taken before the check asked for this ball does not count for it
        asked_now = self.guided is not None and message.asked == self.guided.ball
        if asked_now and chosen is not None and chosen.found and self.guided.add(chosen.ball):
            self.action_next_ball()
        if message.seq != self.newest:
            # every frame counts, but a screen slower than its camera (a busy machine) draws only the
            # newest: drawing each would queue old frames without end, and keys behind them
            return
        self.pane("#preview", HalfBlockImage).show(message.preview)
        self.pane("#camera", Label).update(
            f"{message.shape[1]}x{message.shape[0]}  ROI {list(roi) if roi else 'whole frame'}  "
            f"frames {self.frames}  ball {'found' if message.ball else 'not found'}")
        self.show_measures(message)
        self.show_decoders(message.reads)

    def on_calibrate_app_camera_problem(self, message: CameraProblem) -> None:
        if self.gone("#preview"):
            return
        self.say(message.text, "error")

    # ---- showing

    def show_measures(self, m: Measured) -> None:
        text = Text()
        text.append(f"focus    {m.focus:6.0f}", style="bold")
        text.append("  higher is sharper: turn the lens to the most\n")
        text.append(f"exposure {m.level:6.0f}", style="bold")
        text.append(f"  of 255; {m.white:.1f}% blown out, {m.black:.1f}% black\n")
        if m.white > 2:
            text.append("too bright: labels wash out; lower the exposure or the light\n", style="bold #ff7a00")
        elif m.level < 50:
            text.append("too dark: raise the exposure or the light\n", style="bold #ff7a00")
        self.pane("#measures", Static).update(text)

    def show_decoders(self, reads: dict) -> None:
        table = Table(box=None, expand=True)
        for column in ("decoder", "this frame", "read rate", "ms/frame"):
            table.add_column(column)
        for name, stats in self.stats.items():
            read = reads.get(name)
            if read is None:
                now = "-"
            elif read.ball:
                now = f"ball {read.ball}" + (" (matched)" if read.matched else "")
            else:
                now = read.why
            rate, ms = stats.line()
            style = "bold #ffd400" if name == self.decoder else ""
            table.add_row(("▶ " if name == self.decoder else "  ") + name, now, rate, ms, style=style)
        self.pane("#decoders", Static).update(table)

    def show_guided(self) -> None:
        text = Text()
        if self.guided is None:
            text.append("g: start. Hold each ball in the reader's view when asked.\n")
        elif self.guided.ball <= 27:
            text.append(f"Show ball {self.guided.ball} now", style="bold #ffd400")
            frames, good = self.guided.seen.get(self.guided.ball, (0, 0))
            text.append(f"   ({frames}/{self.guided.per_ball} frames)\n")
        else:
            text.append("All 27 balls done.\n", style="bold #00d455")
        if self.guided is not None:
            for ball in range(1, 28):
                rate = self.guided.rate(ball)
                style = ("#909090" if rate is None else "bold #00d455" if rate >= 0.8
                         else "bold #ffd400" if rate >= 0.5 else "bold #ff4d4d")
                text.append(f"{ball:>2}:{'--' if rate is None else f'{rate * 100:3.0f}%'}  ", style=style)
                if ball % 9 == 0:
                    text.append("\n")
        self.pane("#guided", Static).update(text)

    def timing_drop(self, message: Measured) -> None:
        """Record where the ball is in this frame of the test drop; once it has gone by, or
        none came in DROP_SECONDS, say the speed and the exposure proposed (or why not)."""
        from vision.exposure import DropError, ball_sightings, propose_exposure
        self.drop.append((message.seq, message.ball))
        seen = [(seq, *ball) for seq, ball in self.drop if ball is not None]
        # Counted in frames captured, not measured: a busy machine measures only some, and counting
        # those would run this ball's drop on into the next ball's, timing the two as one.
        gone = seen and message.seq - seen[-1][0] > DROP_GONE_FRAMES
        settings = self.settings
        if not gone and message.seq - self.drop[0][0] < DROP_SECONDS * settings.fps:
            return
        self.drop = None
        try:
            sightings = ball_sightings(seen, message.shape[1], message.shape[0])
            proposal = propose_exposure(sightings, settings.fps, settings.ball_diameter, settings.exposure_us)
        except DropError as error:
            self.pane("#drop", Static).update(Text(f"test drop: {error}", style="bold #ff7a00"))
            self.say(f"test drop: {error}", "warning")
            return
        self.proposal = proposal
        text = Text()
        for line in proposal.lines():
            text.append(line + "\n")
        text.append(f"set it in the event file's [camera]: exposure_us = {proposal.exposure_us}", style="bold")
        self.pane("#drop", Static).update(text)
        self.say(f"test drop: ball at {proposal.speed_m_s:.2f} m/s; propose exposure_us = {proposal.exposure_us}")

    @guarded("the link and beam pane")
    def show_hardware(self) -> None:
        if self.gone("#preview"):
            return
        text = Text()
        link = self.devices.get("link")
        health = link.health() if link else NOT_CONNECTED
        text.append("cage link    ", style="bold")
        text.append(f"{health.state}  {health.detail}\n")
        if self.link_reads:
            text.append(f"  balls from the link: {' '.join(map(str, self.link_reads[-9:]))}\n")
        panel = self.devices.get("panel")
        text.append("break-beam   ", style="bold")
        if panel is None:
            text.append("not connected\n")
        else:
            ago = f", last {time.monotonic() - self.beams[-1]:.1f} s ago" if self.beams else ""
            text.append(f"{len(self.beams)} breaks{ago}: drop a ball through it\n")
        self.pane("#hardware", Static).update(text)

    def pane(self, selector: str, kind=None):
        """A widget of the calibration screen, also while a dialog (the save question) is over it:
        the camera's frames and the health interval keep updating it."""
        return self.screen_stack[0].query_one(selector, kind)

    def show_failure(self, line: str) -> None:
        self.say(line, "error")

    def say(self, text: str, level: str = "info") -> None:
        label = self.pane("#outcome", Label)
        label.update(text)
        for name in ("info", "warning", "error"):
            label.set_class(name == level, f"-{name}")

    # ---- actions

    def _bounded(self, roi) -> tuple[int, int, int, int]:
        height, width = self.shape[:2] if self.shape else (10 ** 4, 10 ** 4)
        x, y, w, h = roi
        w, h = max(16, min(w, width)), max(16, min(h, height))
        return max(0, min(x, width - w)), max(0, min(y, height - h)), w, h

    def action_move(self, dx: int, dy: int) -> None:
        x, y, w, h = self.roi or (0, 0, *(self.shape[1::-1] if self.shape else (640, 480)))
        self.roi = self._bounded((x + dx * STEP, y + dy * STEP, w, h))

    def action_grow(self, by: int) -> None:
        x, y, w, h = self.roi or (0, 0, *(self.shape[1::-1] if self.shape else (640, 480)))
        self.roi = self._bounded((x - by * STEP, y - by * STEP, w + 2 * by * STEP, h + 2 * by * STEP))

    def action_roi_from_ball(self) -> None:
        if self.circle is None:
            self.say("no ball in view: put one in the cradle first", "warning")
            return
        x, y, r = self.circle
        self.roi = self._bounded((int(x - 1.8 * r), int(y - 1.8 * r), int(3.6 * r), int(3.6 * r)))
        self.say(f"region set around the ball: {list(self.roi)}")

    def action_clear_roi(self) -> None:
        self.roi = None
        self.say("region: the whole frame")

    def action_next_decoder(self) -> None:
        names = list(self.stats) or [self.decoder]
        self.decoder = names[(names.index(self.decoder) + 1) % len(names)] if self.decoder in names else names[0]
        self.say(f"decoder to save: {self.decoder}")

    def action_guided(self) -> None:
        self.guided = Guided(self.guided_frames)
        self.show_guided()

    def action_next_ball(self) -> None:
        if self.guided is not None and self.guided.ball <= 27:
            self.guided.ball += 1
        self.show_guided()

    def action_test_drop(self) -> None:
        if self.settings is None:
            self.say("no camera: a test drop needs one", "warning")
            return
        self.drop = []
        self.pane("#drop", Static).update(Text("drop a ball down the chute now", style="bold #ffd400"))
        self.say("test drop: drop a ball down the chute now")

    def action_save(self) -> None:
        def answered(yes: bool | None) -> None:
            if not yes:
                self.say("not saved")
                return
            try:
                save_camera(self.event_path, self.roi, self.decoder)
            except (OSError, event_file.EventFileError) as error:
                self.say(f"not saved: {error}", "error")
                return
            self.say(f"saved to {self.event_path}: [camera] roi = {list(self.roi) if self.roi else 'unset'}, "
                     f"decoder = {self.decoder}")

        self.push_screen(Confirm(f"Save ROI {list(self.roi) if self.roi else '(whole frame)'} and decoder "
                                 f"{self.decoder} into {self.event_path.name}?"), answered)


def _ball_in(gray, decoder):
    """The largest ball in the frame (vision.balls.find_balls at the decoder's rig settings), or None."""
    from vision.balls import View, ball_radius_px, find_balls
    view = View.of(gray.shape[1], gray.shape[0], decoder.fov)
    found = find_balls(gray, ball_radius_px(view, decoder.design.radius, decoder.distance), most=1)
    return found[0] if found else None
