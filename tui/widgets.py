"""Widgets shared by the console and the display: the ball board, the draw, the tally,
balances by letter, the countdown, and a half-block picture for crops and camera frames.

Each widget is fed a piece of a view (views.public or views.staff) and holds no rules;
reactives whose watchers toggle CSS classes carry the look, so the .tcss decides colours.
"""
from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Digits

from companion.core.words import _, languages, say, stacked

from .plain import DataTable, Label, Static, Table

PLACES = ("machine", "drawn", "valid", "pool", "trash", "excluded")     # each its own msgid too
LETTERS = ("X", "Y", "Z")


def places_of(balls: dict) -> dict[int, str]:
    """Ball number -> place, from a view's "balls" section."""
    return {ball: place for place in PLACES for ball in balls.get(place, [])}


def money(n: int) -> str:
    return f"{n:,}"


# Background and text colour of a ball in each place: bright, saturated, readable on a
# washed-out projector. The one place for these colours (the legend uses them too).
PLACE_COLOURS = {"machine": ("#3c3c3c", "#e8e8e8"), "drawn": ("#ffd400", "#000000"),
                 "valid": ("#00d455", "#000000"), "pool": ("#2f7bff", "#ffffff"),
                 "trash": ("#ff7a00", "#000000"), "excluded": ("#5c0000", "#ffb0b0")}


class Ball(Static):
    """One ball of the board; its place is a CSS class (-machine, -drawn, ...)."""

    DEFAULT_CSS = "\n".join(f"Ball.-{place} {{ background: {bg}; color: {fg}; }}"
                            for place, (bg, fg) in PLACE_COLOURS.items())
    place: reactive[str] = reactive("machine")

    def __init__(self, number: int):
        super().__init__(str(number), id=f"ball-{number}", classes="ball -machine")
        self.number = number

    def watch_place(self, old: str, new: str) -> None:
        self.update_classes({f"-{old}": False, f"-{new}": True})     # one style update, not two


class BallBoard(Vertical):
    """The 27 balls in three rows of nine, coloured by place, with a legend."""

    def compose(self) -> ComposeResult:
        with Grid(classes="balls"):
            for number in range(1, 28):
                yield Ball(number)
        yield Static(self._legend(), classes="legend")

    @staticmethod
    def _legend() -> Text:
        text = Text(justify="center")
        for place in PLACES:
            bg, fg = PLACE_COLOURS[place]
            strike = " strike" if place == "excluded" else ""
            text.append(f" {_(place)} ", style=f"bold{strike} {fg} on {bg}")
            text.append(" ")
        return text

    def show(self, balls: dict) -> None:
        where = places_of(balls)
        for ball in self.query(Ball):
            ball.place = where.get(ball.number, "machine")


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


class DrawnBall(Vertical):
    """X, Y or Z: the ball in big digits, and its votes once counted."""

    def __init__(self, letter: str):
        super().__init__(id=f"option-{letter}", classes="option")
        self.letter = letter

    def compose(self) -> ComposeResult:
        yield Label(self.letter, classes="letter")
        yield Digits("", classes="digits")
        yield Label("", classes="votes")

    shown: tuple = ()

    def show(self, ball: int | None, votes: int | None = None, won: bool = False) -> None:
        if (ball, votes, won) == self.shown:
            return                 # redrawing the same thing costs a layout on a Pi
        self.shown = (ball, votes, won)
        self.query_one(Digits).update("" if ball is None else f"{ball:>2}")
        caption = "" if votes is None else "\n".join(
            say("1 vote" if votes == 1 else "{n} votes", language, n=votes) + ("  ✔ " + say("VALID", language) if won else "")
            for language in languages())                 # "ja+en": the Japanese line above the English
        self.query_one(".votes", Label).update(caption)
        self.update_classes({"-empty": ball is None, "-won": won, "-lost": votes is not None and not won})


class DrawPanel(Vertical):
    """This turn's X/Y/Z while voting; the counted result after voting closes."""

    def compose(self) -> ComposeResult:
        with Horizontal(classes="options"):
            for letter in LETTERS:
                yield DrawnBall(letter)
        yield Label("", classes="verdict")

    def show(self, view: dict) -> None:
        drawn, tally, phase = view["balls"]["drawn"], view["tally"], view["phase"]
        counted = tally is not None and not drawn and phase in ("resolve", "turn_over")
        options = tally["options"] if counted else dict(zip(LETTERS, drawn))
        for option in self.query(DrawnBall):
            ball = options.get(option.letter)
            if counted and ball is not None:
                option.show(ball, tally["votes"].get(option.letter, 0), ball in tally["valid"])
            else:
                option.show(ball)
        self.query_one(".verdict", Label).update(verdict(tally) if counted else "")
        self.set_class(counted and tally["void"], "-void")


def verdict(tally: dict | None) -> str:
    if not tally:
        return ""
    if not tally["options"]:
        return _("No draw this turn")
    invalid = "   (" + _("{n} invalid", n=tally["invalid"]) + ")" if tally["invalid"] else ""
    if tally["void"]:
        return _("VOID: not enough valid votes; all balls go to the pool") + invalid
    return _("Valid: {balls}", balls="  ".join(str(b) for b in tally["valid"])) + invalid


class TallyLine(Static):
    """The last count in one line of text (small screens, the console)."""

    def show(self, tally: dict | None) -> None:
        if not tally:
            self.update(_("No count yet"))
            return
        counts = "   ".join(f"{letter} {ball}: {tally['votes'].get(letter, 0)}"
                           for letter, ball in tally["options"].items())
        self.update(f"{counts}   →  {verdict(tally)}" if counts else verdict(tally))


class Accounts(Static):
    """Balances by account letter as last announced (R13): never a name.
    As many columns as fit, so a small terminal shows them all in a few lines."""

    accounts: list[dict] = []

    def show(self, accounts: list[dict]) -> None:
        self.accounts = accounts
        self.update(self._table())

    def on_resize(self) -> None:
        self.update(self._table())

    def _table(self):
        if not self.accounts:
            return Text(_("Balances are shown when announced"), style="italic")
        columns = max(1, min(len(self.accounts), (self.size.width or 40) // 20))
        table = Table(box=None, expand=True, show_header=False, padding=(0, 1))
        for _column in range(columns):
            table.add_column(justify="right", style="bold #ffd400", width=1)
            table.add_column(justify="right")
        rows = [self.accounts[i:i + columns] for i in range(0, len(self.accounts), columns)]
        for row in rows:
            cells = []
            for account in row:
                style = "bold #ff4d4d" if account["balance"] < 0 else ""
                cells += [account["account"], Text(money(account["balance"]), style=style)]
            table.add_row(*cells)
        return table


class Ranking(Static):
    """The final ranking: rank, name, final money, and a ★ beside each player who beat the
    secretariat (no debt, R2), with how many did."""

    def show(self, ranking: list[dict]) -> None:
        beaten = [row for row in ranking if row.get("beats_secretariat")]
        table = Table(box=None, expand=True, padding=(0, 2),
                      caption="★ " + stacked("beat the secretariat (no debt): {beaten} of {players}",
                                                       beaten=len(beaten), players=len(ranking)))
        table.add_column(_("Rank"), justify="right", style="bold")
        table.add_column(_("Player"))
        table.add_column(_("Final L$"), justify="right")
        table.add_column("", width=1)
        for row in ranking:
            style = "bold #ffd400" if row["rank"] == 1 else ""
            table.add_row(f"{row['rank']}.", row["name"], money(row["final"]),
                          "★" if row in beaten else "", style=style)
        self.update(table)


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
