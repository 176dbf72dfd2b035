"""Voters' audience display for the projector: read-only, views.public only.

Following the journal is every game's (tui/game_display.py). While the bets come in it shows
who has bet and never a number (the public view has none); at the open, every number, the
unique ones highlighted, the winner or DOBON in big type and the pot; always the ledger.
"""
from __future__ import annotations

from rich.align import Align
from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.renderables.digits import Digits

from companion.core.words import _

from ..game_display import GameDisplay
from ..plain import Label, Static, Table
from ..widgets import money
from .words import current, names, phase_words, result_line, signed

UNIQUE, TWICE, INVALID = "bold #00d455", "#808080", "#ff4d4d"
CARD_WIDTH = 16                     # columns per player card at the open
# DOBON in letters five rows high (Textual's big digits have no O or N)
BIG = {"D": ["████ ", "█   █", "█   █", "█   █", "████ "],
       "O": [" ███ ", "█   █", "█   █", "█   █", " ███ "],
       "B": ["████ ", "█   █", "████ ", "█   █", "████ "],
       "N": ["█   █", "██  █", "█ █ █", "█  ██", "█   █"]}


def big(word: str, style: str) -> Text:
    return Text("\n".join("  ".join(BIG[letter][row] for letter in word) for row in range(5)),
                style=style, justify="center")


def grid(cells: list, per_row: int) -> Table:
    table = Table.grid(expand=True, padding=(0, 1))
    for _ in range(per_row):
        table.add_column(ratio=1, justify="center")
    for at in range(0, len(cells), per_row):
        row = cells[at:at + per_row]
        table.add_row(*row, *[""] * (per_row - len(row)))
    return table


class Fitted(Static):
    """A pane drawn from what it was last shown, again whenever its width changes."""

    shown: tuple = ()

    def show(self, *shown) -> None:
        self.shown = shown
        self.update(self.drawing(*shown))

    def on_resize(self) -> None:
        if self.shown:
            self.update(self.drawing(*self.shown))

    def drawing(self, *shown):
        raise NotImplementedError


class Bets(Fitted):
    """Who has bet (while betting: names only), or every number at the open."""

    def drawing(self, game: dict | None, players: list[dict]):
        if game is None:
            return Text(_("The dealer deals the first game"), style="italic", justify="center")
        per_row = max(1, (self.size.width or 80) // CARD_WIDTH)
        if game["result"] in ("won", "dobon"):           # numbers only once the game is settled
            return grid([self._card(p, game) for p in players if str(p["no"]) in game["bets"]], per_row)
        bettors = set(game.get("bettors") or map(int, game.get("bets", {})))
        cells = []
        for p in players:
            if p["no"] == game["dealer"]:
                continue
            mark, style = ("✔", "bold #00d455") if p["no"] in bettors else ("·", "#707070")
            cells.append(Text(f"{mark} {p['name']}", style=style, overflow="ellipsis", no_wrap=True))
        return grid(cells, max(1, per_row // 2))

    @staticmethod
    def _card(player: dict, game: dict) -> Group:
        number = game["bets"][str(player["no"])]
        if number is None:
            face, note, style = Text("✖", style=INVALID, justify="center"), _("invalid card"), INVALID
        elif number in game["unique"]:
            face, note, style = Align.center(Digits(str(number), UNIQUE)), _("unique"), UNIQUE
        else:
            face, note, style = Align.center(Digits(str(number), TWICE)), _("duplicated"), TWICE
        winner = player["no"] == game["winner"] and game["result"] == "won"
        name = Text(player["name"], style="bold #000000 on #ffd400" if winner else "bold",
                    overflow="ellipsis", no_wrap=True, justify="center")
        return Group(name, face, Text(_("WINNER") if winner else note, style=style, justify="center"))


class Verdict(Static):
    """The winner, or DOBON, in big type, once the game is settled."""

    def show(self, game: dict | None, who: dict[int, str]) -> None:
        if game is None or game["result"] is None:
            self.update("")
            return
        line = Text(result_line(game, who), style="bold", justify="center")
        if game["result"] == "dobon":
            self.update(Group(big("DOBON", "bold #ff4d4d"), line))
        elif game["result"] == "won":
            self.update(Group(Text(" " + _("{name} WINS", name=who.get(game["winner"], "?")) + " ", style="bold #000000 on #00d455",
                                   justify="center"), line))
        else:
            self.update(line)


class Ledger(Fitted):
    """Each player's net winnings across the games, in as many columns as fit."""

    def drawing(self, players: list[dict], dealer: int | None) -> Table:
        columns = max(1, (self.size.width or 40) // 36)
        table = Table(box=None, expand=True, show_header=False, padding=(0, 1))
        for _column in range(columns):
            table.add_column(ratio=1, overflow="ellipsis", no_wrap=True)
            table.add_column(justify="right")
        cells = []
        for p in players:
            style = "bold #00d455" if p["net"] > 0 else "bold #ff4d4d" if p["net"] < 0 else ""
            cells += [p["name"] + (" (" + _("dealer") + ")" if p["no"] == dealer else ""), Text(signed(p["net"]), style=style)]
        for at in range(0, len(cells), 2 * columns):
            row = cells[at:at + 2 * columns]
            table.add_row(*row, *[""] * (2 * columns - len(row)))
        return table


class VotersDisplayApp(GameDisplay):
    CSS_PATH = ["../theme.tcss", "display.tcss"]
    TITLE = "Voters"
    GAME = "voters"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (25, "-tall")]

    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield Label("", id="game-no")
            yield Label(_("Waiting for the game"), id="phase")
            yield Label("", id="pot")
        yield Label("", id="deal")
        with Horizontal(id="main"):
            with Vertical(id="play"):
                yield Bets(id="bets")
                yield Verdict(id="verdict")
            with Vertical(id="side"):
                yield Label(_("LEDGER"), classes="caption")
                yield Ledger(id="ledger")
        yield from self.status_line()

    def show(self, view: dict, deadline: float | None = None) -> None:
        self.view = view              # the follower posts a view only when it changed
        game, who = current(view), names(view)
        self.query_one("#phase", Label).update(phase_words(view))
        self.query_one("#game-no", Label).update(_("GAME {no}", no=game["no"]) if game else view["event"])
        self.query_one("#pot", Label).update(_("POT {pot}", pot=money(game["pot"])) if game else "")
        self.query_one("#deal", Label).update(self._deal_line(game, who))
        self.query_one(Bets).show(game, view["players"])
        self.query_one(Verdict).show(game, who)
        self.query_one(Ledger).show(view["players"], game["dealer"] if game else None)

    @staticmethod
    def _deal_line(game: dict | None, who: dict[int, str]) -> str:
        if game is None:
            return ""
        count = len(game["bets"]) if "bets" in game else len(game["bettors"])
        bets = _("1 bet") if count == 1 else _("{n} bets", n=count)
        return "   ·   ".join((_("Dealer {name}", name=who.get(game["dealer"], "?")),
                                 _("stake {stake}", stake=money(game["stake"])), bets))
