"""The one failure boundary of every screen and of the page server: an exception nobody expected
(a bug in a game's rules, a view that chokes on a strange state, a listener, a worker, a key's
action) is one line naming what failed and where, on screen and in the log, and the program goes
on. A traceback is a bug, and so is a screen that exits because one part of it failed.

The page servers (no screen, no Textual) use Once; a Textual app mixes in tui.boundary.Boundary,
built on the same two.
"""
from __future__ import annotations

import logging
import traceback
from pathlib import Path


def failure_line(where: str, error: BaseException) -> str:
    """An exception nobody expected, in one line: what, and the line of code it came from."""
    frames = traceback.extract_tb(error.__traceback__)
    at = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"{where} failed: {type(error).__name__}: {error}{at}"


class Once:
    """Logs a failure as one error line, and the same failure met again (a poll that fails on every
    round, a frame that fails on every frame, a page asked for again) not again until recovered()."""

    REMEMBERED = 100               # distinct lines kept; beyond, they are said again (never a flood)

    def __init__(self, log: logging.Logger):
        self.log = log
        self.seen: set[str] = set()

    def __call__(self, where: str, error: BaseException) -> str | None:
        """The line, when it is new (and so logged); None when it was said already."""
        return self.said(failure_line(where, error))

    def said(self, line: str) -> str | None:
        if line in self.seen:
            return None
        if len(self.seen) >= self.REMEMBERED:
            self.seen.clear()
        self.seen.add(line)
        self.log.error(line)
        return line

    def recovered(self) -> None:
        """What failed works again: a failure met next is said, even one said before."""
        self.seen.clear()
