"""Widgets every game's screens share: the countdown, a half-block picture for crops and camera
frames, a table that keeps its header and newest row in view, and money as the screens write it.
(Plunder Bingo's own, the ball board, the draw, the tally, balances by letter and the ranking, are
tui/bingo/widgets.py.)

Each widget is fed a piece of a view (views.public or views.staff) and holds no rules;
reactives whose watchers toggle CSS classes carry the look, so the .tcss decides colours.
"""
from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Digits

from companion.core.words import _

from .plain import DataTable, Label, Static


def money(n: int) -> str:
    return f"{n:,}"


class Countdown(Vertical):
    """Minutes and seconds left to vote; "--:--" when voting is not open.
    Big digits for the display, one line of text (big=False) for the console."""

    deadline: reactive[float | None] = reactive(None)
    urgent_below = 30
    text = "--:--"

    def __init__(self, big: bool = True, **kwargs):
        super().__init__(**kwargs)
        self.big = big

    def compose(self) -> ComposeResult:
        if self.big:
            yield Label(_("TIME"), classes="caption")
            yield Digits("--:--", classes="clock")
        else:
            yield Label("--:--", classes="clock")

    def on_mount(self) -> None:
        self.call_later(self.tick)           # is_mounted turns True only once on_mount has returned
        self.set_interval(0.5, self.tick)

    def watch_deadline(self) -> None:
        self.tick()

    def tick(self) -> None:
        if not self.is_mounted:
            return
        clock = getattr(self.app, "clock", time.time)
        left = None if self.deadline is None else max(0, round(self.deadline - clock()))
        text = "--:--" if left is None else f"{left // 60:02d}:{left % 60:02d}"
        if text != self.text:
            self.text = text
            self.query_one(".clock").update(text)
        self.update_classes({"-idle": left is None, "-urgent": left is not None and left <= self.urgent_below})


class HalfBlockImage(Static):
    """A picture in the terminal: each character cell shows two pixels with '▀'.

    Takes a BGR (or grey) numpy array and fits it to the widget, keeping the aspect.
    """

    image = None

    def show(self, image) -> None:
        self.image = image
        self.update(self.render_image(image, self.size.width or 40, self.size.height or 12))

    def on_resize(self) -> None:
        if self.image is not None:
            self.update(self.render_image(self.image, self.size.width, self.size.height))

    @staticmethod
    def render_image(image, columns: int, rows: int) -> Text:
        import numpy as np   # numpy only when a picture is shown
        if image is None:
            return Text("no picture", style="italic")
        if image.ndim == 2:
            image = np.stack([image] * 3, axis=-1)
        h, w = image.shape[:2]
        scale = min(max(columns, 1) / w, 2 * max(rows, 1) / h, 1.0)
        width, height = max(1, int(w * scale)), max(2, int(h * scale) // 2 * 2)
        ys = (np.arange(height) * h // height)[:, None]
        xs = (np.arange(width) * w // width)[None, :]
        small = image[ys, xs][..., ::-1]   # nearest neighbour, BGR -> RGB
        text = Text()
        for y in range(0, height, 2):
            for top, bottom in zip(small[y], small[y + 1]):
                text.append("▀", style=f"#{top[0]:02x}{top[1]:02x}{top[2]:02x} on #{bottom[0]:02x}{bottom[1]:02x}{bottom[2]:02x}")
            if y + 2 < height:
                text.append("\n")
        return text


class AlignedTable(DataTable):
    """A DataTable whose header follows its columns, and whose newest row stays in view while
    its cursor is on it (a log, as the console's journal pane).

    Textual 8.2.8 learns a table's new height and column widths only on idle, after the rows
    were added: it kept the header row's rendering cached, so a table filled anew could show a
    narrow, misaligned header; and a scroll to the end asked for when the rows were added could
    run before the new height was known, leaving the newest row below the view; and the table
    shrinking later (a pane beside it grew) left it there too."""

    def _update_dimensions(self, new_rows) -> None:
        super()._update_dimensions(new_rows)
        self._forget_header()
        self._keep_newest_in_view()

    def on_resize(self) -> None:          # a pane beside it grew: the newest row must not drop out of view
        self._keep_newest_in_view()

    def _keep_newest_in_view(self) -> None:
        if self.row_count and self.cursor_row == self.row_count - 1:
            self.call_after_refresh(self.scroll_end, animate=False)

    def _update_column_widths(self, updated_cells) -> None:     # cells updated in place widen columns too
        super()._update_column_widths(updated_cells)
        self._forget_header()

    def _forget_header(self) -> None:
        self._clear_caches()
        self.refresh()
