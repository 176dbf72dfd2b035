"""The audience display for the projector: read-only, views.public only.

A thread follows the journal (opened read-only) and posts the public view whenever what
the audience sees changes; the UI thread only draws. It never writes, so any number of
displays (a terminal, every browser tab of the served display) can follow one game.
"""
from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from textual import work
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Digits, Label
from textual.worker import get_current_worker

from companion import views
from companion.journal import Journal, JournalError

from .feed import Feed
from .widgets import Accounts, BallBoard, Countdown, DrawPanel, Ranking
from .theme import THEME

SERVER_PID = "COMPANION_SERVER_PID"   # set by tui.serve: the server a served display belongs to

PHASES = {
    "new": "Waiting for the game", "ready": "Get ready", "draw": "Drawing the balls",
    "voting": "Vote now!", "resolve": "Votes counted", "turn_over": "Turn over",
    "final": "Final robbery cards", "counting": "Counting the cash", "finished": "Final ranking",
}


class DisplayApp(App):
    CSS_PATH = ["theme.tcss", "display.tcss"]
    TITLE = "Plunder Bingo"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (25, "-tall")]

    @dataclass
    class Changed(Message):
        """What the audience sees changed (sent by the journal-following thread)."""
        view: dict
        deadline: float | None
        batch: int

    @dataclass
    class Waiting(Message):
        """The journal cannot be read (yet): why."""
        reason: str

    def __init__(self, journal: str | Path, poll: float = 0.05, clock=time.time):
        super().__init__()
        self.journal_path = Path(journal)
        self.poll = poll
        self.clock = clock
        self.view: dict | None = None
        self.shown_batch = 0
        probe = os.environ.get("COMPANION_DISPLAY_PROBE")   # `companion bench screens` listens here
        self.probe = int(probe) if probe else None

    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            with Vertical(id="turnbox"):
                yield Label("TURN", classes="caption")
                yield Digits("-", id="turn")
            yield Label(PHASES["new"], id="phase")
            yield Countdown(id="timer")
        yield DrawPanel(id="draw")
        with Horizontal(id="lower"):
            yield BallBoard(id="board")
            with Vertical(id="side"):
                yield Label("ACCOUNTS", classes="caption")
                yield Accounts(id="accounts")
        yield Ranking(id="ranking")
        yield Label("", id="status")

    def on_mount(self) -> None:
        self.register_theme(THEME)
        self.theme = THEME.name
        self.follow()
        if "web_driver" in os.environ.get("TEXTUAL_DRIVER", ""):     # served by textual-serve
            self.server = int(os.environ.get(SERVER_PID) or os.getppid())
            self.exit_if_orphaned()
            self.set_interval(1.0, self.exit_if_orphaned)

    def exit_if_orphaned(self) -> None:
        """A served display whose server has gone (killed, crashed) must not linger."""
        if os.getppid() != self.server:
            self.exit()

    @work(thread=True, exclusive=True, name="follow journal")
    def follow(self) -> None:
        """Fold new batches every `poll` seconds; post only when the public view changes."""
        worker = get_current_worker()
        feed, last = None, None
        while not worker.is_cancelled:
            try:
                if feed is None:
                    feed, last = Feed(Journal(self.journal_path, readonly=True)), None
                new = feed.poll()
            except (JournalError, sqlite3.Error) as error:
                self.post_message(self.Waiting(f"waiting for the journal: {error}"))
                feed = None
                time.sleep(1)
                continue
            if new or last is None:
                shown = (views.public(feed.state), feed.deadline())
                if shown != last:
                    self.post_message(self.Changed(*shown, feed.last))
                    last = shown
            time.sleep(self.poll)
        if feed:
            feed.journal.close()

    def on_display_app_changed(self, message: Changed) -> None:
        self.show(message.view, message.deadline)
        self.shown_batch = message.batch
        if self.probe is not None:
            self.call_after_refresh(self._report_shown, message.batch)

    def on_display_app_waiting(self, message: Waiting) -> None:
        status = self.query_one("#status", Label)
        status.update(message.reason)
        status.add_class("-shown")

    def _report_shown(self, batch: int) -> None:
        os.write(self.probe, f"{batch} {time.monotonic()}\n".encode())

    def show(self, view: dict, deadline: float | None = None) -> None:
        """Update only the parts whose data changed: each update costs a layout."""
        before = self.view or {}
        self.view = view
        self.query_one("#status", Label).remove_class("-shown")
        self.query_one(Countdown).deadline = deadline
        if view["turn"] != before.get("turn"):
            self.query_one("#turn", Digits).update(str(view["turn"]) if view["turn"] else "-")
        if view["phase"] != before.get("phase"):
            self.query_one("#phase", Label).update(PHASES.get(view["phase"], view["phase"]))
        if (view["balls"], view["tally"], view["phase"]) != (before.get("balls"), before.get("tally"), before.get("phase")):
            self.query_one(DrawPanel).show(view)
            self.query_one(BallBoard).show(view["balls"])
        if view["accounts"] != before.get("accounts"):
            self.query_one(Accounts).show(view["accounts"])
        ranking = view.get("ranking")
        self.screen.set_class(bool(ranking), "-finished")
        if ranking and ranking != before.get("ranking"):
            self.query_one(Ranking).show(ranking)
