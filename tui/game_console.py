"""What every game's staff console shares: one session thread, the journal pane, the hardware
pane with its alerts, the review queue with the card's crop, undo and rulings, and the keys.

The console holds no rules: each key builds a command dict and queues it; one worker thread
submits the queue through the Session (so commands keep their order and the UI never waits on
the disk) and posts the Outcome back. Rejections stay visible in the message bar until the next
command. What the hardware sends and says is an alert in the hardware pane instead, so the bar
keeps the answer to the operator's own keys. A game's console (tui/bingo/console.py for Plunder Bingo)
composes these panes with its own, binds its keys and shows its view in refresh_view().
"""
from __future__ import annotations

import logging
import queue
import sqlite3
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.widget import Widget
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from companion.core.columns import clipped, display_width, literal
from companion.core.commands import Malformed
from companion.core.review import crop_file
from companion.core.words import N_, _, languages, say
from companion.core.journal import Journal, JournalError
from companion.core.door import Door
from companion.core.session import Outcome, Session

from .boundary import Boundary, guarded
from .feed import Feed
from .forms import CommandForm, Confirm
from .plain import DataTable, Label, OptionList, Static
from .sources import NOT_CONNECTED, SLOTS, Health, PanelSource, Source
from .theme import THEME
from .widgets import AlignedTable, Countdown, HalfBlockImage

HEALTH_STYLE = {"ok": "bold #00d455", "degraded": "bold #ffd400", "down": "bold #ff4d4d",
                "not connected": "#909090"}
ALERT_STYLE = {"warning": "#ffd400", "error": "#ff4d4d"}
ALERTS_SHOWN = 3            # the newest hardware alerts under the health lines
SHOWN_FINDINGS = 8          # a held card's findings listed under why it was held; the rest counted
SHOWN_MESSAGE = 160         # terminal columns of each finding's message shown (on one line)
UNDO = Binding("u", "undo", "undo")
HELD = [Binding("a", "rule_as_read", "held: as read"), Binding("0", "rule_invalid", "held: invalid"),
        Binding("R", "rule_as", "held: rule as…")]
QUIT = Binding("ctrl+q", "quit", "quit", priority=True)
log = logging.getLogger("companion.console")


def summary(command: dict) -> str:
    """One line for the journal pane."""
    if command.get("do") == "setup":
        return f"setup {command.get('event', '')} ({len(command.get('players', []))} players)"
    return " ".join([command.get("do", "?")] + [f"{key}={shown(value)}" for key, value in command.items()
                                                if key != "do" and value not in ("", None)])


def shown(value) -> str:
    """A command's value in few characters: a card inside hold/rule as its summary, ["B","C"] as BC,
    rows of kinds as AAB/CDD, {gem or player: ...} as key:value pairs."""
    if isinstance(value, dict):
        return summary(value) if "do" in value else " ".join(f"{key}:{shown(item)}" for key, item in value.items())
    if isinstance(value, list):
        if all(isinstance(item, str) for item in value):
            return "".join(value)
        return ("/" if all(isinstance(item, list) for item in value) else " ").join(map(shown, value))
    return str(value)


class KeyBar(Widget):
    """Every key and what it does (a binding's description is a msgid), wrapped so that a key never
    leaves its words, measured in terminal columns (Japanese: two a character); as tall as its lines
    at the width it gets, so no key (quit, the demo's pause) is ever cut off. It speaks the first
    chosen language only ("ja+en": Japanese): in both, the keys would take half of an 80x24 console
    and push its panes off the screen."""

    DEFAULT_CSS = "KeyBar { height: auto; }"

    def __init__(self, bindings: list[Binding], **kwargs):
        super().__init__(**kwargs)
        self.pairs = [(b.key.replace("ctrl+", "^"), say(b.description, languages()[0])) for b in bindings]

    def keys_text(self, width: int) -> Text:
        width, text, used = max(20, width), Text(), 0
        for key, words in self.pairs:
            size = display_width(key) + display_width(words) + 4
            if used and used + size > width:
                text.append("\n")
                used = 0
            text.append(f" {key} ", style="bold #000000 on #ffd400")
            text.append(f" {words} ")
            used += size
        return text

    def render(self) -> Text:
        return self.keys_text(self.content_region.width)

    def get_content_height(self, container, viewport, width: int) -> int:
        return self.keys_text(width).plain.count("\n") + 1


class GameConsole(Boundary, App):
    """A game's console: subclasses compose the panes below with their own, bind their keys
    (with UNDO, HELD and QUIT) and implement refresh_view()."""

    HARDWARE = tuple(SLOTS)          # the sources this game's hardware pane lists
    PLAYERS = "#players"             # the table whose selected row is "the player" in forms
    RULE_KEYS = "R (or 0)"           # the keys that rule a held card with fields the scanner did not read
    FORM = CommandForm               # the form of a typed command: the game's, with its commands' table

    @dataclass
    class Submitted(Message):
        """The session's answer to one command (sent by the session thread)."""
        command: dict
        outcome: Outcome
        batches: list
        deadline: float | None
        origin: str | None = None       # the hardware slot that sent it; None: the operator
        answered: bool = False          # the sender had the outcome itself (and says what matters)

    @dataclass
    class Note(Message):
        """A line from a hardware source or the session thread."""
        text: str
        level: str = "info"     # info | warning | error
        hardware: bool = False  # from a hardware source: an alert in the hardware pane

    @dataclass
    class CropLoaded(Message):
        serial: str
        image: object           # numpy array, or None
        problem: str = ""

    def __init__(self, session: Session, sources: dict[str, Source] | None = None,
                 problems: list[str] | None = None, clock=time.time):
        super().__init__()
        self.session = session
        self.sources = sources or {}
        self.problems = problems or []
        self.clock = clock
        self.commands: queue.Queue = queue.Queue()
        self.ready = False               # the journal is loaded and shown
        self.handled = 0                 # outcomes received (tests wait on it)
        self.last_outcome: Outcome | None = None
        self.batches: dict[int, dict] = {}
        self.held: list[dict] = []
        self.alerts: deque[tuple[str, str, str]] = deque(maxlen=ALERTS_SHOWN)   # (time, text, level)
        self.deadline: float | None = None  # the game's clock, if it has one (Plunder Bingo's turn)

    @classmethod
    def for_journal(cls, path: str | Path, readonly: bool = False, backup: Path | None = None,
                    **kwargs) -> "GameConsole":
        """A writer console holds the journal's lock while it is open; backup: [event] backup."""
        return cls(Session(Journal(path, readonly=readonly, existing=True), backup=backup), **kwargs)

    def on_unmount(self) -> None:
        for source in self.sources.values():
            source.stop()
        if getattr(self, "door", None):
            self.door.close()

    # ---- the session thread: the only place that touches the journal

    def send(self, command: dict, reply=None, origin: str | None = None) -> None:
        """Queue a command (any thread): keys, forms and hardware sources all come here.
        reply(outcome), if given, is called from the session thread. `origin`: the hardware
        slot it came from; a source that gives no reply has a refusal shown as an alert."""
        self.commands.put((command, reply, origin))

    def sender(self, slot: str):
        """The send() a hardware source gets: its commands carry where they came from."""
        return lambda command, reply=None: self.send(command, reply, slot)

    def note(self, text: str, level: str = "info") -> None:
        """Any thread: show a line in the message bar."""
        self.post_message(self.Note(text, level))

    def hardware_note(self, text: str, level: str = "info") -> None:
        """Any thread: the note() a hardware source gets (its warnings and errors are alerts)."""
        self.post_message(self.Note(text, level, hardware=True))

    @work(thread=True, exclusive=True, name="session", exit_on_error=False)
    def run_session(self) -> None:
        worker = get_current_worker()
        feed = Feed(self.session.journal)
        loaded = feed.poll()
        self.post_message(self.Submitted({}, Outcome("ok"), loaded, feed.deadline()))
        self.post_message(self.Note(f"journal {Path(self.session.journal.path).name}: {len(loaded)} commands"))
        older = self.session.journal.older(self.session.rules.name)
        if older:
            self.post_message(self.Note(older, "warning", hardware=True))     # kept in view with the alerts
        while not worker.is_cancelled:
            try:
                command, reply, origin = self.commands.get(timeout=0.1)
            except queue.Empty:
                continue
            try:
                outcome = self.session.submit(command)
            except Malformed as error:
                outcome = Outcome("rejected", str(error))
            except (sqlite3.Error, JournalError) as error:
                outcome = Outcome("rejected", f"the journal refused the write: {error}")
            except Exception as error:        # a bug in the rules: that command only is lost, never the night
                outcome = Outcome("rejected", f"not applied: {self.failed(summary(command), error)}")
            if reply is not None:
                reply(outcome)
            self.post_message(self.Submitted(command, outcome, feed.poll(), feed.deadline(),
                                             origin, reply is not None))

    # ---- the one failure boundary (tui/failures.py): what nobody expected is one alert line

    failures = log

    def show_failure(self, line: str) -> None:
        self.keep_alert(line, "error")

    @guarded("drawing the staff view")
    def show_view(self) -> None:
        """The game's refresh_view(): a view that raises on a strange state leaves the panes as they were."""
        self.refresh_view()

    def on_game_console_submitted(self, message: Submitted) -> None:
        if self.gone("#journal"):
            return
        outcome = message.outcome
        for batch in message.batches:
            self.batches[batch.number] = batch.command
            self.add_journal_row(batch)
        self.deadline = message.deadline
        for clock in self.query(Countdown):
            clock.deadline = message.deadline
        self.show_view()
        if message.command:
            name = message.command.get("do") or "companion do"
            words = {"ok": f"✔ {name}", "invalid": f"⚠ {name}: card invalid", "rejected": f"✖ {name} rejected"}
            detail = f": {outcome.reason}" if outcome.reason else ""
            level = {"ok": "info", "invalid": "warning", "rejected": "error"}[outcome.status]
            if message.origin is None:
                self.show_outcome(words[outcome.status] + detail, level)
            elif outcome.status != "ok" and not message.answered:
                mark = "✖" if outcome.status == "rejected" else "⚠"
                self.alert(f"{SLOTS[message.origin]}: {mark} {summary(message.command)} {outcome.status}{detail}",
                           level)
            self.handled += 1
            self.last_outcome = outcome
            if outcome.warning:
                self.alert(outcome.warning, "warning")
        self.ready = True

    def on_game_console_note(self, message: Note) -> None:
        if message.hardware:
            self.alert(message.text, message.level)
        else:
            self.show_outcome(message.text, message.level)

    def alert(self, text: str, level: str) -> None:
        """A hardware warning or error, newest first under the health lines, and in the log (info is
        not kept: the board and the review queue already show what a working device did)."""
        if level in ALERT_STYLE:
            log.log(logging.ERROR if level == "error" else logging.WARNING, text)
            self.keep_alert(text, level)

    def keep_alert(self, text: str, level: str) -> None:
        self.alerts.appendleft((time.strftime("%H:%M:%S", time.localtime(self.clock())), text, level))
        self.show_health()

    def show_outcome(self, text: str, level: str) -> None:
        label = self.query_one("#outcome", Label)
        label.update(text)
        for name in ("info", "warning", "error"):
            label.set_class(name == level, f"-{name}")

    # ---- the panes every game's console has: journal, hardware, review queue

    def add_journal_row(self, batch) -> None:
        table = self.query_one("#journal", DataTable)
        style = {"ok": "", "invalid": "#ffd400", "rejected": "#ff4d4d"}.get(batch.status, "")
        command = summary(batch.command) + (f"  ({batch.reason})" if batch.reason else "")
        table.add_row(str(batch.number), batch.at[11:19], Text(batch.status, style=style), command)
        table.move_cursor(row=table.row_count - 1)        # the newest row: AlignedTable keeps it in view

    def show_health(self) -> None:
        try:
            hardware = self.query_one("#hardware", Static)
        except NoMatches:                    # the interval can fire while the app shuts down
            return
        text, healths = Text(), {}
        for slot in self.HARDWARE:
            name, source = SLOTS[slot], self.sources.get(slot)
            try:
                health = source.health() if source else NOT_CONNECTED
            except Exception as error:      # a broken driver must not take the console down
                health = Health("down", f"health check failed: {error}")
            healths[slot] = health
            text.append(f"{name:<13}", style="bold")
            text.append(f"● {health.state}", style=HEALTH_STYLE.get(health.state, ""))
            text.append(f"  {health.detail}\n" if health.detail else "\n")
        for at, line, level in self.alerts:
            text.append(f"{at} {line}\n", style=ALERT_STYLE[level])
        hardware.update(text)
        self.signal_panel(healths)

    def signal_panel(self, healths: dict[str, Health]) -> None:
        """The staff panel's buzzer follows the turn clock; its LEDs, the other hardware's health."""
        panel = self.sources.get("panel")
        if not isinstance(panel, PanelSource):           # absent, or configured but Unavailable
            return
        remaining = None if self.deadline is None else self.deadline - self.clock()
        panel.signal(remaining, all(h.state == "ok" for slot, h in healths.items()
                                    if slot != "panel" and slot in self.sources))

    def show_review(self, held: list[dict]) -> None:
        if held == self.held:
            return
        self.held = held
        review = self.query_one("#review", OptionList)
        highlighted = review.highlighted
        review.clear_options()
        review.add_options([Option(f"{h['serial']}  {h['card'].get('do')}: {h['reason']}", id=h["serial"])
                            for h in held])
        self.query_one("#review-box").border_title = _("Review queue ({n})", n=len(held))
        if held:
            review.highlighted = min(highlighted or 0, len(held) - 1)
        else:
            self.query_one("#review-detail", Static).update(_("Nothing waiting for review"))
            self.show_crop(None)

    @guarded("showing the held card")
    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        held = self.current_held()
        if held is None:
            return
        detail = Text()
        detail.append(f"{held['serial']}: {summary(held['card'])}", style="bold")
        for name, by_value in held.get("scores", {}).items():          # the scanner's bubble scores
            detail.append(f"  {name}: " + "  ".join(f"{value} {score:.2f}" for value, score in by_value.items()))
        detail.append(f"\n{_('why held')}: {held['reason']}")      # the keys to rule are in the footer
        findings = held.get("findings", [])
        for finding in findings[:SHOWN_FINDINGS]:
            detail.append(f"\n  {finding['code']}: {clipped(finding['message'], SHOWN_MESSAGE)}")
        if len(findings) > SHOWN_FINDINGS:
            detail.append("\n  " + _("… and {n} more", n=len(findings) - SHOWN_FINDINGS))
        self.query_one("#review-detail", Static).update(detail)
        self.load_crop(held["serial"], held.get("crop", ""))

    @work(thread=True, group="crop", name="crop", exit_on_error=False)
    def load_crop(self, serial: str, path: str) -> None:
        """Card crops are files the scanner wrote; read them off the UI thread."""
        if not path:
            self.post_message(self.CropLoaded(serial, None, "no crop saved"))
            return
        try:
            from vision.image_files import read_image
        except ImportError:
            self.post_message(self.CropLoaded(serial, None, f"crop {path} (OpenCV not installed)"))
            return
        try:       # read by Python, decoded from memory: OpenCV's own file reading crashes on some names
            image, problem = read_image(self.crop_file(path)), ""
        except OSError as error:
            image, problem = None, f"cannot read crop {path}: {error.strerror or error}"
        self.post_message(self.CropLoaded(serial, image, problem))

    def crop_file(self, path: str) -> Path:
        return crop_file(path, self.session.journal.path)

    @guarded("showing the held card's crop")
    def on_game_console_crop_loaded(self, message: CropLoaded) -> None:
        held = self.current_held()
        if held is None or held["serial"] != message.serial:
            return
        self.show_crop(message.image, message.problem)

    def show_crop(self, image, problem: str = "") -> None:
        """The held card's picture, or why there is none; None and no problem: nothing at all
        (the widget forgets the old picture, or a resize would draw it again)."""
        crop = self.query_one("#crop", HalfBlockImage)
        if image is None:
            crop.image = None
            crop.update(Text(clipped(literal(problem), SHOWN_MESSAGE), style="italic"))     # a crop's path is anyone's
        else:
            crop.show(image)

    # ---- actions: every one builds a command and queues it

    def action_send(self, name: str) -> None:
        self.send({"do": name})

    def action_form(self, name: str) -> None:
        self.push_screen(self.FORM(name, self.defaults(name)), self.send_from_form)

    def send_from_form(self, command: dict | None) -> None:
        if command is not None:
            self.send(command)

    def action_undo(self) -> None:
        target = self.session.game.undoable()
        if target is None:
            self.show_outcome("✖ undo: nothing to undo", "error")
            return
        what = summary(self.batches.get(target, {}))

        def answered(yes: bool | None) -> None:
            if yes:
                self.send({"do": "undo"})
            else:
                self.show_outcome("undo cancelled", "info")

        self.push_screen(Confirm(f"Take back command #{target}: {what}?"), answered)

    def current_held(self) -> dict | None:
        review = self.query_one("#review", OptionList)
        if not self.held:
            return None
        return self.held[review.highlighted if review.highlighted is not None else 0]

    def _held_or_say(self) -> dict | None:
        held = self.current_held()
        if held is None:
            self.show_outcome("✖ no card is waiting for review", "error")
        return held

    def action_rule_as_read(self) -> None:
        held = self._held_or_say()
        if held is None:
            return
        unread = [key for key, value in held["card"].items() if value is None]
        if unread:          # a held card carries only what the scanner read: nothing to rule "as read"
            self.show_outcome(f"✖ {held['serial']}: {', '.join(unread)} not read; rule it with {self.RULE_KEYS}", "error")
            return
        self.send({"do": "rule", "serial": held["serial"], "card": held["card"]})

    def action_rule_invalid(self) -> None:
        held = self._held_or_say()
        if held:
            self.send({"do": "rule", "serial": held["serial"], "invalid": "operator: not readable as marked"})

    def action_rule_as(self) -> None:
        held = self._held_or_say()
        if held is None:
            return
        kind = held["card"].get("do")
        values = {k: v for k, v in held["card"].items() if k != "do"}

        def ruled(card: dict | None) -> None:
            if card is not None:
                self.send({"do": "rule", "serial": held["serial"], "card": card})

        self.push_screen(self.FORM(kind, values), ruled)

    # ---- what a game's console composes and calls

    def start(self) -> None:
        """From the game's on_mount: titles, the journal's columns, the session thread, the door for
        `companion do`, the hardware sources and the health clock."""
        self.query_one("#hardware").border_title = _("Hardware")
        self.query_one("#review-box").border_title = _("Review queue")
        self.query_one("#journal").border_title = _("Journal")
        journal = self.query_one("#journal", DataTable)
        for label in ("#", N_("time"), N_("status"), N_("command")):
            journal.add_column(_(label), key=label)
        self.run_session()
        self.door = Door.for_session(self.session, self.send)     # `companion do` while the console is open
        for slot, source in self.sources.items():
            try:
                source.start(self.sender(slot), self.hardware_note)
            except Exception as error:     # one broken device must not keep the console from starting
                self.alert(f"{SLOTS[slot]}: {error}", "error")
        for problem in self.problems:
            self.alert(problem, "warning")
        self.set_interval(1.0, self.show_health)
        self.show_health()

    def review_pane(self) -> ComposeResult:
        with Vertical(id="review-box"):
            yield OptionList(id="review")
            yield Static("", id="review-detail")
            yield HalfBlockImage("", id="crop")

    def bars(self) -> ComposeResult:
        yield Label("", id="outcome")
        yield KeyBar(self.BINDINGS, id="keys")

    def refresh_view(self) -> None:
        raise NotImplementedError

    def defaults(self, name: str) -> dict:
        """Pre-filled fields of the form for command `name`."""
        return {}

    def selected_player(self) -> int | None:
        """The player no. in the selected row of the PLAYERS table (its first column)."""
        table = self.query_one(self.PLAYERS, DataTable)
        if not table.row_count:
            return None
        return int(str(table.get_row_at(table.cursor_row)[0]))     # a cell is Text (tui.plain)


class PanesConsole(GameConsole):
    """The console layout most games use: the game's pane above the hardware and review panes; the
    players table, any PANES below it, then the journal. (A separate class: Textual calls every
    on_mount along the classes, and Plunder Bingo's console mounts its own layout.)"""

    GAME_PANE = ("game", N_("Game"))                  # (id, title); titles and columns are msgids
    PLAYERS_TITLE, COLUMNS = N_("Players"), (N_("No"), N_("Name"))
    PANES: tuple[tuple[str, str], ...] = ()           # (id, title) of Statics between players and journal

    def compose(self) -> ComposeResult:
        with Horizontal(id="status"):
            yield Label("", id="where")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Static("", id=self.GAME_PANE[0])
                yield Static("", id="hardware")
                yield from self.review_pane()
            with Vertical(id="middle"):
                yield AlignedTable(id=self.PLAYERS.lstrip("#"), cursor_type="row", zebra_stripes=True)
                for pane, _ in self.PANES:
                    yield Static("", id=pane)
                yield AlignedTable(id="journal", cursor_type="row")
        yield from self.bars()

    def on_mount(self) -> None:
        self.register_theme(THEME)
        self.theme = THEME.name
        for pane, title in (self.GAME_PANE, *self.PANES):
            self.query_one(f"#{pane}").border_title = _(title)
        players = self.query_one(self.PLAYERS, DataTable)
        players.border_title = _(self.PLAYERS_TITLE)
        for label in self.COLUMNS:
            players.add_column(_(label), key=label)
        self.start()
        players.focus()
