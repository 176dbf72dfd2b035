"""Auction Bluff's audience display for the projector: read-only, views.public only.

Following the journal is every game's (tui/game_display.py). It shows what the rulebook announces
(D8): during the declarations each valid one as accepted, the one that would be selected now
marked; per judged period the declaration selected and the win or elimination; who owns which
gem. At the end: the true counts, the dice each player holds, the winner, or no winner, and each
player's result. The public view has no die's face, and none of those before the end, to show.
"""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical

from companion.core.words import _, stacked

from ..game_display import GameDisplay
from ..plain import Label, Static, Table
from .words import OUTCOMES, declared, final_line, held_dice, names, outcome_line, phase_words, yen

WON, OUT, GONE = "bold #000000 on #00d455", "bold #ffffff on #c0392b", "#808080"
STYLES = {"won": WON, "eliminated": OUT, "no_declaration": OUT}


class Verdict(Static):
    """The last judged period in big words, or the end."""

    def show(self, view: dict) -> None:
        who = names(view)
        if not view["periods"]:
            self.update(Text(_("No period judged yet"), style="italic", justify="center"))
            return
        last = view["periods"][-1]
        word, style = _(OUTCOMES[last["result"]]), STYLES[last["result"]]
        chosen = last["selected"]
        headline = f" {who.get(chosen['player'], '?')}: {word} " if chosen else f" {word} "
        self.update(Text.assemble((headline, style), "\n", (outcome_line(last, who, stacked), "bold"), "\n",
                                  (final_line(view, stacked), "bold #ffd400"), justify="center"))


class Declarations(Static):
    """D8: the open period's declarations as accepted, the one that would be selected now marked."""

    def show(self, view: dict) -> None:
        who = names(view)
        lines = [Text(f" {'▶' if d['leading'] else ' '} {who.get(d['player'], '?')}: {declared(d)} ",
                      style="bold #000000 on #ffd400" if d["leading"] else "")
                 for d in view.get("declarations", [])]
        self.update(Text("\n").join(lines) if lines else Text(_("None yet"), style="italic"))


class Periods(Static):
    """Every judged period: the declaration selected, the true count, the outcome."""

    def show(self, view: dict) -> None:
        who = names(view)
        table = Table(expand=True, box=None, padding=(0, 1), header_style="bold #ffd400")
        for label, justify in ((stacked("Period"), "right"), (stacked("Declarer"), "left"), (stacked("Declared"), "center"),
                               (stacked("True count"), "center"), (stacked("Outcome"), "left")):
            table.add_column(label, justify=justify, no_wrap=True, overflow="ellipsis")
        for p in view["periods"]:
            chosen = p["selected"]
            table.add_row(str(p["no"]), who.get(chosen["player"], "?") if chosen else _("nobody"),
                          declared(chosen) if chosen else "–",
                          "–" if p.get("true_count") is None else str(p["true_count"]),
                          Text(_(OUTCOMES[p["result"]]), style=STYLES[p["result"]]))
        self.update(table)


class Gems(Static):
    """Who owns which gem, who is eliminated and, at the end, the dice each holds and each result."""

    def show(self, view: dict) -> None:
        table = Table(expand=True, box=None, padding=(0, 1), header_style="bold #ffd400")
        for label in (stacked("Player"), stacked("Gem")):                        # "ja+en": two-line headers
            table.add_column(label, no_wrap=True, overflow="ellipsis")
        table.add_column(stacked("Dice held"), no_wrap=True, overflow="ellipsis", ratio=1)    # what gives way
        table.add_column(stacked("Result"), justify="right", no_wrap=True)
        for p in view["players"]:
            style = GONE if p["eliminated"] else "bold" if p["no"] == view["winner"] else ""
            result = "" if p["result"] is None else yen(p["result"])
            table.add_row(Text(p["name"] + (" (" + _("out") + ")" if p["eliminated"] else ""), style=style), _(p["gem"]),
                          held_dice(p.get("dice")),
                          Text(result, style="bold #00d455" if (p["result"] or 0) > 0 else "bold #ff4d4d"))
        self.update(table)


class BluffDisplayApp(GameDisplay):
    CSS_PATH = ["../theme.tcss", "display.tcss"]
    TITLE = "Auction Bluff"
    GAME = "bluff"

    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield Label("", id="event")
            yield Label(_("Waiting for the game"), id="phase")
            yield Label("", id="wild")
        with Vertical(id="main"):
            yield Verdict(id="verdict")
            yield Label(_("DECLARATIONS (▶ would be selected now)"), classes="caption", id="declarations-caption")
            yield Declarations(id="declarations")
            yield Label(_("PERIODS"), classes="caption")
            yield Periods(id="periods")
            yield Label(_("GEMS"), classes="caption")
            yield Gems(id="gems")
        yield from self.status_line()

    def show(self, view: dict, deadline: float | None = None) -> None:
        self.view = view              # the follower posts a view only when it changed
        self.query_one("#event", Label).update(view["event"])
        self.query_one("#phase", Label).update(phase_words(view, stacked))
        self.query_one("#wild", Label).update(stacked("★ is wild") if view["star_wild"] else stacked("★ is not wild"))
        self.query_one(Verdict).show(view)
        open_auction = view["phase"] == "declare"
        self.query_one("#declarations-caption").display = self.query_one(Declarations).display = open_auction
        self.query_one(Declarations).show(view)
        self.query_one(Periods).show(view)
        self.query_one(Gems).show(view)
