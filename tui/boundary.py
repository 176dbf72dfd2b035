"""The failure boundary of tui/failures.py for Textual apps: a worker that raises, a key's action
that raises, a guarded handler that raises is one line in the app's log and on its screen, and
the app goes on."""
from __future__ import annotations

import functools
import logging
import threading
from dataclasses import dataclass

from textual.css.query import NoMatches
from textual.message import Message
from textual.worker import Worker, WorkerState

from .failures import Once, failure_line


def guarded(where: str):
    """A method of a Boundary app (a message handler, a timer's callback) whose exception is a
    failure line naming `where`: the app goes on."""
    def wrap(method):
        @functools.wraps(method)
        def guarded_method(self, *args):
            try:
                return method(self, *args)
            except Exception as error:
                self.failed(where, error)
        return guarded_method
    return wrap


class Boundary:
    """Mixed into a Textual App (class X(Boundary, App)): a worker that raises, a key's action that
    raises, and whatever the app hands to failed() is one line in the log (`failures`, the app's
    logger) and shown by show_failure(); the app goes on."""

    failures = logging.getLogger("companion.screens")

    @dataclass
    class Failed(Message):
        line: str

    def __init__(self, *args, **options):
        super().__init__(*args, **options)
        self.said_once = Once(self.failures)

    def failed(self, where: str, error: BaseException) -> str:
        """Any thread: report an exception nobody expected; returns its line. On the app's own
        thread it is shown at once (a message could arrive after a later success had cleared it)."""
        line = failure_line(where, error)
        if threading.get_ident() == self._thread_id:
            self.on_boundary_failed(self.Failed(line))
        else:
            self.post_message(self.Failed(line))
        return line

    def on_boundary_failed(self, message: Failed) -> None:
        if self.said_once.said(message.line) is not None:
            try:
                self.show_failure(message.line)
            except NoMatches:             # the screen is going (the app is closing): the log has it
                pass

    def gone(self, pane: str) -> bool:
        """The app is closing: its panes (`pane` among them) have gone, yet a message, a timer or a
        thread's post can still arrive; what it would show is in the journal or the log."""
        return not self.screen_stack or not self.screen_stack[0].query(pane)

    def recovered(self) -> None:
        """What failed works again: the same failure, met next, is said again."""
        self.said_once.recovered()

    def show_failure(self, line: str) -> None:
        raise NotImplementedError

    def run_worker(self, work, *args, **options) -> Worker:
        """Every worker of the app: one that raises is a failure line, never the app's end."""
        return super().run_worker(work, *args, **{**options, "exit_on_error": False})

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.failed(f"the {event.worker.name or 'worker'} thread", event.worker.error)

    async def run_action(self, action, *args, **options) -> bool:
        """A key's action that raises: a failure line, and the key counts as handled."""
        try:
            return await super().run_action(action, *args, **options)
        except Exception as error:
            self.failed(f"the action {action if isinstance(action, str) else 'of a key'}", error)
            return True
