"""The jail card game's audience display for the projector: read-only, views.public only.

Following the journal is every game's (tui/game_display.py). It shows the three rows (a space
between groups), the jail with how near the round is to its end (J4: 6+ cards of 2 kinds, or 2+
of 6 kinds), each player's display, hand size and scores, and the winner at the end. The public
view holds no hand, deck or discard pile, so neither can this screen.
"""
from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical

from companion.core.words import _, stacked

from ..game_display import GameDisplay
from ..plain import Label, Static, Table
from .words import cards_text, colour, names, phase_words, progress_words, row_text, scores_line

BAR = 12                     # a progress bar's cells


def progress_bar(part: dict) -> Text:
    done = min(part["kinds"], part["needed"])
    cells = round(BAR * done / part["needed"])
    style = "bold #ff4d4d" if done >= part["needed"] - 1 else "bold #ffd400"
    text = Text(progress_words(part) + " ", style="bold")
    text.append("█" * cells, style=style)
    text.append("░" * (BAR - cells), style="#505050")
    text.append(f" {part['kinds']}/{part['needed']}")
    return text


def jail_drawing(view: dict) -> Group:
    counts = Text()
    for kind, count in view["jail"].items():
        counts.append(f" {kind} ", style=f"bold #000000 on {colour(view, kind)}")
        counts.append(f" {count}   ")
    if not view["jail"]:
        counts.append(_("empty"), style="italic #808080")
    return Group(counts, Text(""), *(progress_bar(part) for part in view["progress"]))


def rows_drawing(view: dict) -> Group:
    lines = []
    for no, row in enumerate(view["rows"], 1):
        line = Text(f"{no}  ", style="bold #ffd400")
        line.append_text(row_text(view, row))
        lines.append(line)
    return Group(*lines)


def players_drawing(view: dict) -> Table:
    table = Table(box=None, expand=True, padding=(0, 1), header_style="bold #c8c8c8")
    for label, justify, wraps in ((stacked("Player"), "left", False), (stacked("Hand"), "right", False),
                                  (stacked("Shows"), "left", True), (stacked("Rounds"), "left", False),
                                  (stacked("Total"), "right", False)):      # "ja+en": a header on two lines
        table.add_column(label, justify=justify, no_wrap=not wraps)
    winners = view["winner"] or []
    for p in view["players"]:
        turn = p["no"] == view["turn_player"] and view["phase"] not in ("round_over", "finished")
        style = "bold #000000 on #ffd400" if p["no"] in winners else "bold #ffd400" if turn else "bold"
        table.add_row(Text(("▶ " if turn else "  ") + p["name"], style=style), str(p["hand_size"]),
                      cards_text(view, p["display"]), scores_line(p), Text(str(p["total"]), style="bold"))
    return table


class JailDisplayApp(GameDisplay):
    CSS_PATH = ["../theme.tcss", "display.tcss"]
    TITLE = "The jail card game"
    GAME = "jail"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]

    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield Label("", id="round")
            yield Label(_("Waiting for the game"), id="phase")
            yield Label("", id="deck")
        with Horizontal(id="main"):
            with Vertical(id="play"):
                yield Label(_("ROWS"), classes="caption")
                yield Static("", id="rows")
                yield Label(_("JAIL"), classes="caption")
                yield Static("", id="jail")
            with Vertical(id="side"):
                yield Label(_("PLAYERS"), classes="caption")
                yield Static("", id="players")
                yield Static("", id="verdict")
        yield from self.status_line()

    def show(self, view: dict, deadline: float | None = None) -> None:
        self.view = view              # the follower posts a view only when it changed
        self.query_one("#round", Label).update(stacked("ROUND {round} / 3", round=view["round"]))
        self.query_one("#phase", Label).update(phase_words(view, stacked))
        self.query_one("#deck", Label).update(stacked("DECK {n}", n=view["deck_size"]))
        self.query_one("#rows", Static).update(rows_drawing(view))
        self.query_one("#jail", Static).update(jail_drawing(view))
        self.query_one("#players", Static).update(players_drawing(view))
        self.query_one("#verdict", Static).update(self.verdict(view))

    @staticmethod
    def verdict(view: dict) -> Text:
        if view["winner"]:
            who = names(view)
            return Text(" " + _("WINNER: {names}", names=", ".join(who.get(no, "?") for no in view["winner"])) + " ",
                        style="bold #000000 on #00d455", justify="center")
        if view["rounds"]:
            last = view["rounds"][-1]
            who = names(view)
            scored = ", ".join(f"{who.get(int(no), '?')} {score}" for no, score in last["scores"].items())
            return Text(_("Round {n}: {scores}", n=last["no"], scores=scored), style="#c8c8c8")
        return Text("")
