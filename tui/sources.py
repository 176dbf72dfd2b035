"""What the console listens to besides the keyboard: the ball reader (camera), the cage
link (serial), the card scanner (a watched folder) and the staff panel (GPIO). Each is
optional; an absent one shows as "not connected".

A source runs its own threads (law 4) and talks back only through two callables:
`send(command, reply=None)` queues a command for the session exactly as a key press
would (reply, if given, is called with the Outcome from the session's thread, and the
source then says itself what went wrong; without one, the console shows a refusal), and
`note(text, level="info")`: a warning or error is an alert in the console's hardware
pane. `health()` must be a cheap snapshot: the console calls it on the UI thread once a
second; "ok" only while the device is delivering (a camera that cannot open or sends no
frames, a cage with no heartbeat, is "down": red on screen and on the panel's LEDs).

Hardware is chosen by configuration: the event file's [camera], [serial] and [panel]
sections, and the scanner folder given to `companion console --scan`.
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol

from companion.core.columns import clipped, literal
from companion.core.event_file import write_atomic

SLOTS = {"reader": "ball reader", "link": "cage link", "scanner": "card scanner", "panel": "staff panel"}


@dataclass(frozen=True)
class Health:
    state: str          # ok | degraded | down | not connected
    detail: str = ""


NOT_CONNECTED = Health("not connected")


class Source(Protocol):
    def start(self, send: Callable, note: Callable) -> None: ...
    def health(self) -> Health: ...
    def stop(self) -> None: ...


NO_ANSWER = "the console did not answer in time"
NAME_COLUMNS, REASON_COLUMNS = 60, 160      # a scanned photo's name and the reason, as the console shows them
JOURNAL_WAIT_S = 5.0        # how long the cage link waits for the journal before acknowledging a ball


def ask(send: Callable, command: dict, timeout: float = 10.0) -> tuple[str, str | None]:
    """Send a command and wait for its outcome (for drivers that must know, e.g. where to
    file a scanned card). Call it from a driver's thread, never from the UI thread."""
    answered, box = threading.Event(), {}

    def reply(outcome) -> None:
        box["outcome"] = outcome
        answered.set()

    send(command, reply)
    if not answered.wait(timeout):
        return "rejected", NO_ANSWER
    return box["outcome"].status, box["outcome"].reason


class ReaderSource:
    """[camera]: drivers.ball_reader reads balls leaving the cage; each accepted ball is a draw_ball."""

    def __init__(self, section: dict, places: Callable[[], dict]):
        from drivers.ball_reader import Settings
        self.settings = Settings.from_section(section)
        self.places, self.reader, self.problem = places, None, ""
        self.shows: Callable[[], int | None] | None = None     # a simulated camera shows this ball
        self._simulated = None                                 # that camera, once it is told what to show
        self._stop = threading.Event()

    def start(self, send, note) -> None:
        from drivers.ball_reader import BallReader, CameraError
        from vision.acceptance import BallRead

        def on_message(message) -> None:
            if isinstance(message, BallRead):
                note(f"ball reader: ball {message.ball} ({message.reads} of {message.frames} frames agree)")
                send(message.command())
            else:
                note(f"ball reader: {message.message}", "warning")
                if message.kind == "unreadable" and self._simulated is not None:   # simulated staff turn the ball
                    self._simulated.again()
        try:
            self._start_reader(on_message, note)
        except (CameraError, ValueError, OSError) as error:
            self.problem = str(error)
            note(f"ball reader: {error}", "error")
            if isinstance(error, CameraError) and self.reader is not None and self.reader.camera.source.live:
                threading.Thread(target=self._wait_for_camera, args=(on_message, note), name="ball reader: camera",
                                 daemon=True).start()

    def _start_reader(self, on_message, note) -> None:
        from drivers.ball_reader import BallReader
        self.reader = BallReader.from_settings(self.settings, on_message, places=self.places,
                                               warn=lambda text: note(f"ball reader: {text}", "warning"))
        if self.shows is not None and hasattr(self.reader.camera.source, "ask"):
            self._simulated = self.reader.camera.source
            self._simulated.ask(self.shows)
        self.reader.start()

    def _wait_for_camera(self, on_message, note) -> None:
        """A live camera missing at the start (not plugged in yet) looked for every REOPEN_S, as one unplugged
        later is: once it opens, the reader starts (its decoding processes only then)."""
        from drivers.camera import CameraError, opened_again
        source = self.reader.camera.source
        while opened_again(source, self._stop):
            source.close()          # the reader opens it again itself
            try:
                self._start_reader(on_message, note)
            except (CameraError, OSError):      # gone again at once: still down, looked for again
                continue
            if self._stop.is_set():
                self.reader.stop()
            else:
                note(f"ball reader: {source.name} found: reading balls")
            return

    def beam(self, count: int) -> None:
        if self.reader is not None:
            self.reader.beam(count)

    def health(self) -> Health:
        if self.reader is None:
            return Health("down", self.problem)
        camera, last = self.reader.camera, self.reader.last
        detail = f"{self.reader.frames} frames read, {self.reader.missed} dropped"
        problem = camera.problem()
        if problem:
            return Health("down", f"{problem}; {detail}")
        if last is not None:
            detail += f"; last {last.ms:.0f} ms: {last.why}"
        return Health("ok", detail)

    def stop(self) -> None:
        self._stop.set()
        if self.reader is not None:
            self.reader.stop()


class LinkSource:
    """[serial]: drivers.serial_link, the cage's reader (or a barcode scanner) on a serial port.

    With the game's `journal`, a ball is acknowledged to the cage only once the journal has the
    draw (the cage resends what it has no ACK for: a power cut loses nothing), and the cage's
    sequence marks are kept beside the journal (`<journal>.cage-marks`), so a ball the cage
    resends after the Pi restarts is known as already delivered instead of drawn twice."""

    def __init__(self, section: dict, places: Callable[[], dict] | None, journal: Path | None = None):
        from drivers.serial_link import SerialLink
        self.marks_file = None if journal is None else Path(f"{journal}.cage-marks")
        self.problem = ""
        marks = self._load_marks()
        self.link = SerialLink.from_config(section, self._read, machine=places, marks=marks,   # checks the URL now
                                           on_alert=self._alert)
        self.send = self.note = None

    def _load_marks(self) -> dict:
        if self.marks_file is None or not self.marks_file.exists():
            return {}
        try:
            marks = json.loads(self.marks_file.read_text(encoding="utf-8"))
            if isinstance(marks, dict) and all(isinstance(v, int) for v in marks.values()):
                return marks
        except (OSError, ValueError):
            pass
        self.problem = (f"{self.marks_file.name} is unreadable: starting without it (a ball the cage "
                        "resends after a restart may be refused as already drawn)")
        return {}

    def _alert(self, text: str) -> None:
        if self.note is not None:
            self.note(f"cage link: {text}", "warning")

    def _read(self, read) -> None:
        if read.alert:
            self.note(f"cage link: {read.alert}", "warning")
        command = {"do": "draw_ball", "ball": read.ball}
        if read.boot_id is not None:            # a resend after a restart is journaled once, marks or not
            command["id"] = f"cage:{read.boot_id}:{read.seq}"
        if self.marks_file is None:
            self.send(command)
            return
        status, reason = ask(self.send, command, JOURNAL_WAIT_S)
        if reason == NO_ANSWER:
            self.note(f"cage link: ball {read.ball} queued, but the journal has not answered yet", "warning")
        elif status != "ok":
            self.note(f"cage link: ball {read.ball} not drawn: {reason}", "warning")
        if self.link.mode == "framed":          # a plain scanner has no sequence to keep
            write_atomic(self.marks_file, json.dumps(self.link.marks()))

    def start(self, send, note) -> None:
        self.send, self.note = send, note
        if self.problem:
            note(f"cage link: {self.problem}", "warning")
        self.link.start()

    def health(self) -> Health:
        h = self.link.health()
        beat = "" if h.heartbeat_age is None else f", heard {h.heartbeat_age:.1f} s ago"
        detail = f"{h.reads} balls, {h.crc_errors} damaged, {h.reconnects} reconnects{beat}"
        if h.ok:
            return Health("ok", detail)
        state, why = self._not_ok(h)
        return Health(state, f"{why}; {detail}")

    @staticmethod
    def _not_ok(h) -> tuple[str, str]:
        """The link's own verdict (LinkHealth.ok) said no: why, and whether it is still within
        its timeout (degraded: opening, or waiting for the first heartbeat) or down."""
        from drivers.serial_link import STALE_SECONDS
        if not h.connected:
            if h.connected_at is None and h.last_error is None:
                return "degraded", f"opening {h.url}"
            return "down", h.last_error or f"{h.url}: not connected"
        if h.heartbeat_age is None:
            waited = time.monotonic() - h.connected_at
            if waited < STALE_SECONDS:
                return "degraded", "waiting for the cage's first heartbeat"
            return "down", f"no heartbeat from the cage in {waited:.0f} s"
        if h.heartbeat_age >= STALE_SECONDS:
            return "down", f"no heartbeat for {h.heartbeat_age:.0f} s"
        if h.alert_age is not None and h.alert_age < STALE_SECONDS:
            return "degraded", h.alert
        return "down", f"the cage's reader reports a fault ({h.reader})"

    def stop(self) -> None:
        self.link.stop()


def in_view(dropped: int | None, places: Callable[[], dict]) -> int | None:
    """The ball a simulated camera over the cage's exit sees: the one dropped, until the referee has it drawn."""
    return dropped if dropped is not None and places().get(dropped) == "machine" else None


class SimulatedCage(LinkSource):
    """[serial] url = "sim": the simulated cage (drivers.cage_sim) on a pseudo-terminal, started
    with the console, behind the same cage link. While the game waits for balls (the draw phase)
    it drops one every DRAW_EVERY_S, as staff turning the cage would: read by its own reader (a
    BALL frame), or, with a simulated camera watching, shown to the camera, which reads it."""

    DRAW_EVERY_S = 1.5

    def __init__(self, section: dict, places: Callable[[], dict], journal: Path | None = None,
                 phase: Callable[[], str] | None = None):
        import random
        from drivers.cage_sim import PtyPort, SimCage
        self.cage = SimCage(PtyPort(), machine=places).start()
        self.places, self.phase, self._turning = places, phase, threading.Event()
        self.camera, self.dropped, self._rng = False, None, random.Random()
        super().__init__({**section, "url": self.cage.url}, places, journal)

    def in_view(self) -> int | None:
        return in_view(self.dropped, self.places)

    def start(self, send, note) -> None:
        super().start(send, note)
        threading.Thread(target=self._turn, name="simulated cage turning", daemon=True).start()

    def _turn(self) -> None:
        while not self._turning.wait(self.DRAW_EVERY_S):
            if self.phase is None or self.phase() != "draw":
                continue
            if not self.camera:
                self.cage.draw()
            elif self.in_view() is None:
                machine = sorted(ball for ball, where in self.places().items() if where == "machine")
                self.dropped = self._rng.choice(machine) if machine else None

    def stop(self) -> None:
        self._turning.set()
        super().stop()
        self.cage.stop()


class ScannerSource:
    """A folder the card scanner writes into: vision.cards scans each image and files it by
    the referee's answer (done/, review/, rejected/)."""

    def __init__(self, folder: Path, event):
        from vision.cards import Scanner, settings_for, workers_for
        if not Path(folder).is_dir():
            raise OSError(f"{folder}: no such folder")
        self.folder, self.scanner = Path(folder), Scanner(event.id, event.secret, settings_for(event))
        self.workers = workers_for(event)
        self.scanned, self.last, self.problem, self.trouble, self._stop = 0, "", "", "", threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, send, note) -> None:
        from vision.cards import FolderWatcher
        watcher = FolderWatcher(self.scanner, self.folder, lambda command: ask(send, command), self.workers)

        def on_result(result) -> None:
            self.scanned += 1
            # the photo's name and the reason (which may name it) shown literally: anyone's file name
            self.last = f"{clipped(literal(Path(result.image).name), NAME_COLUMNS)}: {result.decision}"
            reason = f": {clipped(literal(result.reason), REASON_COLUMNS)}" if result.reason else ""
            if result.decision not in ("counted", "ignored"):
                note(f"card scanner: {self.last}{reason}",
                     "info" if result.decision == "review" else "warning")
            if result.decision == "review" and not result.crop:
                note(f"card scanner: {self.last}: held without its crop (the crops folder cannot be written: "
                     "a full disk?); rule it from the paper card", "warning")

        def on_trouble(error: OSError | None) -> None:      # the folder failing (tried again), then working again
            self.trouble = "" if error is None else f"{clipped(literal(str(error)), REASON_COLUMNS)}; trying again"
            note(f"card scanner: {self.trouble or 'the folder works again'}", "error" if error else "info")

        def run() -> None:
            try:
                watcher.run(on_result, self._stop.is_set, on_trouble=on_trouble)
            except Exception as error:       # said in the console, never a silent dead thread
                self.problem = f"stopped: {type(error).__name__}: {clipped(literal(str(error)), REASON_COLUMNS)}"
                note(f"card scanner {self.problem}", "error")

        self._thread = threading.Thread(target=run, name="card scanner", daemon=True)
        self._thread.start()

    def health(self) -> Health:
        if self._thread is None or not self._thread.is_alive():
            return Health("down", self.problem)
        if self.trouble:
            return Health("degraded", self.trouble)
        return Health("ok", f"{self.scanned} cards" + (f"; last {self.last}" if self.last else ""))

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


class PanelSource:
    """[panel]: drivers.panel's buttons send their commands; the break-beam opens the reader's window."""

    def __init__(self, section: dict):
        from drivers.panel import Panel
        self.on_beam: Callable[[int], None] = lambda count: None
        self.send = self.note = None
        self.panel = Panel.from_config(section, on_button=self._button, on_beam=lambda count: self.on_beam(count))

    def _button(self, name: str) -> None:
        from drivers.panel import BUTTON_COMMANDS
        if self.send is None:
            return
        self.note(f"staff panel: {name} pressed")
        if name in BUTTON_COMMANDS:
            self.send(dict(BUTTON_COMMANDS[name]))

    def start(self, send, note) -> None:
        self.send, self.note = send, note

    def health(self) -> Health:
        return Health("ok", f"{self.panel.balls} balls through the beam")

    def signal(self, remaining: float | None, hardware_ok: bool) -> None:
        """Called by the console once a second: seconds left in the turn (None: no turn
        running) for the buzzer, and whether the other hardware is healthy for the LEDs."""
        self.panel.update_turn(remaining)
        self.panel.show_link(hardware_ok)

    def stop(self) -> None:
        self.panel.close()


class Unavailable:
    """A device the event file asks for that could not be set up (bad settings, no driver):
    down, saying why, so the screen and the panel's LEDs do not take it for absent."""

    def __init__(self, problem: str):
        self.problem = problem

    def start(self, send, note) -> None:
        pass

    def health(self) -> Health:
        return Health("down", self.problem)

    def stop(self) -> None:
        pass


def link_for(section: dict, places, journal: Path | None = None, phase=None) -> LinkSource:
    """The [serial] section's cage link; url = "sim": the simulated cage, started here."""
    if section.get("url") == "sim":
        return SimulatedCage(section, places, journal, phase)
    return LinkSource(section, places, journal)


def from_event(event, places: Callable[[], dict], scan_folder: str | None = None, journal: Path | None = None,
               phase: Callable[[], str] | None = None) -> tuple[dict[str, Source], list[str]]:
    """The sources an event file configures: ({slot: source}, [problems]). A slot whose
    section is absent stays "not connected"; one that cannot be built is Unavailable (down)
    and says why, once. `journal`: the game's journal file, for the cage link (see LinkSource)."""
    sections = event.sections if event is not None else {}
    sources, problems = {}, []
    makers = {
        "reader": ("camera" in sections, lambda: ReaderSource(sections["camera"], places)),
        "link": ("serial" in sections, lambda: link_for(sections["serial"], places, journal, phase)),
        "scanner": (scan_folder is not None, lambda: ScannerSource(Path(scan_folder), event)),
        "panel": ("panel" in sections, lambda: PanelSource(sections["panel"])),
    }
    for slot, (wanted, make) in makers.items():
        if not wanted:
            continue
        try:
            sources[slot] = make()
            continue
        except ImportError as error:
            problem = f"not installed ({error})"
        except (OSError, ValueError) as error:
            problem = str(error)
        problems.append(f"{SLOTS[slot]}: {problem}")
        sources[slot] = Unavailable(problem)
    if isinstance(sources.get("panel"), PanelSource) and isinstance(sources.get("reader"), ReaderSource):
        sources["panel"].on_beam = sources["reader"].beam
    if isinstance(sources.get("link"), SimulatedCage) and isinstance(sources.get("reader"), ReaderSource) \
            and str(sections["camera"].get("source", "")).startswith("sim"):
        sources["link"].camera = True
        sources["reader"].shows = sources["link"].in_view     # a simulated camera: the ball the cage dropped
    return sources, problems
