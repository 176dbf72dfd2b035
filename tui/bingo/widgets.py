"""Plunder Bingo's widgets, shared by its console and display: the ball board, the draw, the tally,
balances by letter and the final ranking.

Each widget is fed a piece of a view (views.public or views.staff) and holds no rules;
reactives whose watchers toggle CSS classes carry the look, so the .tcss decides colours.
"""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical
from textual.reactive import reactive
from textual.widgets import Digits

from companion.core.words import _, languages, say, stacked

from ..plain import Label, Static, Table
from ..widgets import money

PLACES = ("machine", "drawn", "valid", "pool", "trash", "excluded")     # each its own msgid too
LETTERS = ("X", "Y", "Z")


def places_of(balls: dict) -> dict[int, str]:
    """Ball number -> place, from a view's "balls" section."""
    return {ball: place for place in PLACES for ball in balls.get(place, [])}



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
