"""What every game's audience display shares: following the journal read-only, waiting for a
journal that is not there (yet), the probe `companion bench screens` listens on, and ending a
served display whose server has gone.

A thread follows the journal (opened read-only) and posts the public view whenever what the
audience sees changes; the UI thread only draws. It never writes, so any number of displays (a
terminal, every browser tab of a served display) can follow one game. A game's display
(tui/bingo/display.py for Plunder Bingo) composes its widgets, yields status_line() and draws the
public view in show(). A display that finds another game in its journal (one it waited for)
exits with that game's name, for `companion display` to start that game's display instead.

A view that raises on a state nobody foresaw (building it, or drawing it) is one line in the status
line and the log (tui/failures.py); the screen keeps what it last drew, and the next view that
draws is drawn whole.
"""
from __future__ import annotations

import logging
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from textual import work
from textual.app import App, ComposeResult
from textual.message import Message
from textual.worker import get_current_worker

from companion import views
from companion.core.games import DEFAULT
from companion.core.journal import Journal, JournalError

from .boundary import Boundary
from .feed import Feed
from .plain import Label
from .theme import THEME

SERVER_PID = "COMPANION_SERVER_PID"   # set by tui.serve: the server a served display belongs to


class GameDisplay(Boundary, App):
    """A game's audience display: subclasses name their GAME, compose their widgets with
    status_line() and implement show(view, deadline)."""

    GAME = DEFAULT
    failures = logging.getLogger("companion.display")

    CSS = """
    #status { dock: bottom; height: 1; color: #ff4d4d; display: none; }
    #status.-shown { display: block; }
    """

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

    def status_line(self) -> ComposeResult:
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
                shown = self.public_of(feed)
                if shown is not None and shown != last:
                    self.post_message(self.Changed(*shown, feed.last))
                    last = shown
            time.sleep(self.poll)
        if feed:
            feed.journal.close()

    def public_of(self, feed: Feed) -> tuple[dict, float | None] | None:
        """In the thread: what the audience sees now, or None (and a failure line) if it cannot be built."""
        try:
            return views.public(feed.state), feed.deadline()
        except Exception as error:
            self.failed("building the audience view", error)
            return None

    def on_game_display_changed(self, message: Changed) -> None:
        game = message.view.get("game", DEFAULT)      # Plunder Bingo's view names no game
        if game != self.GAME:
            self.exit(game)
            return
        try:
            self.show(message.view, message.deadline)
        except Exception as error:
            self.view = None                          # the next view is drawn whole, over what this one left
            self.failed("drawing the audience view", error)
            return
        self.recovered()
        self.query_one("#status", Label).remove_class("-shown")
        self.shown_batch = message.batch
        if self.probe is not None:
            self.call_after_refresh(self._report_shown, message.batch)

    def on_game_display_waiting(self, message: Waiting) -> None:
        self.say(message.reason)

    def show_failure(self, line: str) -> None:
        self.say(line)

    def say(self, text: str) -> None:
        status = self.query_one("#status", Label)
        status.update(text)
        status.add_class("-shown")

    def _report_shown(self, batch: int) -> None:
        os.write(self.probe, f"{batch} {time.monotonic()}\n".encode())

    def show(self, view: dict, deadline: float | None = None) -> None:
        raise NotImplementedError
