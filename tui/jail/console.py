"""The jail card game's staff console: the table at a glance, each move in a few keys.

The session thread, the journal pane, undo and the keys are every game's (tui/game_console.py).
This console shows the rows (a space between groups), the jail with its progress towards the
round's end, the deck and discard pile, and every player's hand and display. A move is one key
and a short answer: t then "2l" takes from row 2's left end, p then "C3" plays three C, f then
"D" refills with the D drawn (blank: the deck is empty). The player is always the turn player;
whether the move is allowed is companion.jail's to say, and a refusal is shown in the bar.
"""
from __future__ import annotations

import re

from rich.text import Text
from textual.binding import Binding

from companion import views

from ..forms import CommandForm, Field, FormError
from companion.core.words import N_, _

from ..game_console import QUIT, UNDO, PanesConsole
from ..plain import DataTable, Label, Static
from .words import cards_text, phase_words, progress_text, row_text, scores_line

TAKE = re.compile(r"\s*([1-3])\s*(l|r|left|right)\s*", re.IGNORECASE)
KIND_COUNT = re.compile(r"\s*(\S+?)\s*(\d+)\s*")


def kinds_typed(text: str) -> list[str]:
    """A row or hand as typed: one letter a card ("AABBC"), or kinds between spaces ("Rat Rat Fox")."""
    return text.split() if " " in text.strip() else [letter for letter in text.strip()]


def take_typed(text: str) -> dict:
    match = TAKE.fullmatch(text)
    if not match:
        raise FormError(f"{text!r}: a row 1-3 and an end, l or r: e.g. 2l")
    return {"row": int(match[1]), "end": "left" if match[2].lower().startswith("l") else "right"}


def play_typed(text: str) -> dict:
    match = KIND_COUNT.fullmatch(text)
    if not match:
        raise FormError(f"{text!r}: a kind and how many: e.g. C3")
    return {"kind": match[1], "count": int(match[2])}


ROWS = [Field(f"row{no}", f"Row {no}, left to right (e.g. AABBBCDDEF)") for no in (1, 2, 3)]
# command -> (title, fields, the command's keys from the typed texts)
FORMS = {
    "take": ("Take: row and end", [Field("move", "Row 1-3 and end l/r, e.g. 2l")],
             lambda typed: take_typed(typed["move"])),
    "play": ("Play a group from the hand", [Field("move", "Kind and count, e.g. C3")],
             lambda typed: play_typed(typed["move"])),
    "refill": ("Refill: the card drawn", [Field("kind", "Kind drawn (blank: the deck is empty)")],
               lambda typed: {"kind": typed["kind"].strip() or None}),
    "layout": ("Lay out three rows of ten", ROWS,
               lambda typed: {"rows": [kinds_typed(typed[f"row{no}"]) for no in (1, 2, 3)]}),
}


class JailForm(CommandForm):
    """A form whose typed texts become the command's keys through the move's own reader."""

    TABLE = {name: (title, fields) for name, (title, fields, _) in FORMS.items()}

    def __init__(self, command: str, build, extra: dict | None = None, fields: list[Field] | None = None):
        if fields is not None:                          # the deal: one field per player
            self.TABLE = {command: ("Deal the hands (J2)", fields)}
        super().__init__(command, extra=extra)
        self.build = build

    def command_dict(self) -> dict:
        typed = {field.key: self.query_one(f"#field-{field.key}").value for field in self.fields}
        command = {"do": self.command, **self.extra, **self.build(typed)}
        self.app.session.rules.schema.parse(command)
        return command


class JailConsoleApp(PanesConsole):
    CSS_PATH = ["../theme.tcss", "../game_console.tcss", "console.tcss"]
    TITLE = "The jail card game: staff console"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (140, "-wide")]
    HARDWARE = ()

    GAME_PANE = ("table", N_("Table"))
    PLAYERS_TITLE, COLUMNS = N_("Players (turn order)"), (N_("No"), N_("Name"), N_("Hand"), N_("Shows"), N_("Rounds"),
                                                          N_("Total"))

    BINDINGS = [
        Binding("t", "move('take')", "take"),
        Binding("p", "move('play')", "play"),
        Binding("f", "move('refill')", "refill"),
        Binding("l", "move('layout')", "lay out rows"),
        Binding("d", "deal", "deal"),
        Binding("s", "reshuffle", "reshuffle"),
        UNDO,
        QUIT,
    ]

    # ---- showing the staff view

    def refresh_view(self) -> None:
        view = views.staff(self.session.state)
        self.query_one("#where", Label).update(
            f"{view['event']}   " + _("ROUND {round} / 3", round=view["round"]) + f"   {phase_words(view).upper()}")
        self.query_one("#table", Static).update(self.table_text(view))
        self.show_players(view)

    @staticmethod
    def table_text(view: dict) -> Text:
        text = Text()
        for no, row in enumerate(view["rows"], 1):
            mark = "◀" if view["taken"] and view["taken"][0] == no else " "
            text.append(f"{no} ", style="bold")
            text.append_text(row_text(view, row))
            text.append(f" {mark}\n")
        text.append("\n" + _("JAIL") + "   ", style="bold")
        text.append_text(cards_text(view, view["jail"]))
        text.append("\n" + _("The round ends at"), style="bold")
        text.append_text(progress_text(view))
        text.append("\n" + _("DECK {n}", n=sum(view["deck"].values())) + ": ", style="bold")
        text.append_text(cards_text(view, view["deck"]))
        text.append("\n" + _("Discard {n}", n=sum(view["discard"].values())) + ": ", style="bold")
        text.append_text(cards_text(view, view["discard"]))
        return text

    def show_players(self, view: dict) -> None:
        table = self.query_one("#players", DataTable)
        row = table.cursor_row
        table.clear()
        for p in view["players"]:
            turn = p["no"] == view["turn_player"]
            table.add_row(Text(str(p["no"]), style="bold #ffd400" if turn else ""), p["name"],
                          cards_text(view, p["hand"]), cards_text(view, p["display"]),
                          scores_line(p), str(p["total"]), key=str(p["no"]))
        if view["players"]:
            table.move_cursor(row=min(row, len(view["players"]) - 1))

    # ---- actions: every one builds a command and queues it

    def action_move(self, name: str) -> None:
        build = FORMS[name][2]
        player = self.session.state.turn_player
        extra = {"player": player} if name in ("take", "play", "refill") and player is not None else {}
        self.push_screen(JailForm(name, build, extra), self.send_from_form)

    def action_deal(self) -> None:
        order = list(self.session.state.players.values())
        fields = [Field(str(p.no), f"{p.name}'s hand (e.g. ABC)") for p in order]
        build = lambda typed: {"hands": {no: kinds_typed(text) for no, text in typed.items()}}
        self.push_screen(JailForm("deal", build, fields=fields), self.send_from_form)

    def action_reshuffle(self) -> None:
        self.send({"do": "reshuffle"})
