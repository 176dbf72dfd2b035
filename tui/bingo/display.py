"""Plunder Bingo's audience display for the projector: read-only, views.public only.

Following the journal, waiting for it and ending when orphaned are every game's
(tui/game_display.py); this display draws the turn, the draw, the balls, the accounts and
the ranking.
"""
from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Digits

from companion.core.words import _

from ..game_display import GameDisplay
from ..plain import Label
from ..widgets import Countdown
from .widgets import Accounts, BallBoard, DrawPanel, Ranking

PHASES = {              # msgids: the words are in companion/locale
    "new": "Waiting for the game", "ready": "Get ready", "draw": "Drawing the balls",
    "voting": "Vote now!", "resolve": "Votes counted", "turn_over": "Turn over",
    "final": "Final robbery cards", "counting": "Counting the cash", "finished": "Final ranking",
}


class DisplayApp(GameDisplay):
    CSS_PATH = ["../theme.tcss", "display.tcss"]
    TITLE = "Plunder Bingo"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (25, "-tall")]

    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            with Vertical(id="turnbox"):
                yield Label(_("TURN"), classes="caption")
                yield Digits("-", id="turn")
            yield Label(_(PHASES["new"]), id="phase")
            yield Countdown(id="timer")
        yield DrawPanel(id="draw")
        with Horizontal(id="lower"):
            yield BallBoard(id="board")
            with Vertical(id="side"):
                yield Label(_("ACCOUNTS"), classes="caption")
                yield Accounts(id="accounts")
        yield Ranking(id="ranking")
        yield from self.status_line()

    def show(self, view: dict, deadline: float | None = None) -> None:
        """Update only the parts whose data changed: each update costs a layout."""
        before = self.view or {}
        self.view = view
        self.query_one(Countdown).deadline = deadline
        if view["turn"] != before.get("turn"):
            self.query_one("#turn", Digits).update(str(view["turn"]) if view["turn"] else "-")
        if view["phase"] != before.get("phase"):
            self.query_one("#phase", Label).update(_(PHASES[view["phase"]]) if view["phase"] in PHASES else view["phase"])
        if (view["balls"], view["tally"], view["phase"]) != (before.get("balls"), before.get("tally"), before.get("phase")):
            self.query_one(DrawPanel).show(view)
            self.query_one(BallBoard).show(view["balls"])
        if view["accounts"] != before.get("accounts"):
            self.query_one(Accounts).show(view["accounts"])
        ranking = view.get("ranking")
        self.screen.set_class(bool(ranking), "-finished")
        if ranking and ranking != before.get("ranking"):
            self.query_one(Ranking).show(ranking)
