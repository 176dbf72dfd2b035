"""Voters' dealer console: the game at a glance, every action one key.

The session thread, the journal, hardware and review panes, undo and rulings are every game's
(tui/game_console.py); this console adds the current game (the staff see every number) and the
ledger. Every key builds a command and queues it: the rules are companion.voters'.
"""
from __future__ import annotations

from rich.text import Text
from textual.binding import Binding

from companion import views
from companion.core.columns import pad

from companion.core.words import N_, _

from ..game_console import HELD, QUIT, UNDO, PanesConsole
from ..plain import DataTable, Label, Static
from ..widgets import money
from .forms import VotersForm
from .words import current, names, phase_words, result_line, signed


class VotersConsoleApp(PanesConsole):
    CSS_PATH = ["../theme.tcss", "../game_console.tcss", "console.tcss"]
    TITLE = "Voters: dealer's console"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (140, "-wide")]
    HARDWARE = ("scanner", "panel")
    PLAYERS = "#ledger"
    RULE_KEYS = "h (or 0)"
    FORM = VotersForm

    GAME_PANE = ("game", N_("Game"))
    PLAYERS_TITLE, COLUMNS = N_("Ledger"), (N_("No"), N_("Name"), N_("Net"), N_("Games dealt"))

    BINDINGS = [
        Binding("d", "form('deal')", "deal"),
        Binding("b", "form('bet')", "bet card"),
        Binding("c", "send('close')", "close bets"),
        Binding("o", "send('open')", "open"),
        Binding("n", "send('no_game')", "no game"),
        Binding("w", "form('void')", "void card"),
        UNDO,
        Binding("h", "rule_number", "held: number…"),
        *HELD,
        QUIT,
    ]

    # ---- showing the staff view

    def refresh_view(self) -> None:
        view = views.staff(self.session.state)
        game = current(view)
        where = _("GAME {no}", no=game["no"]) if game else _("No game yet: d deals the first")
        self.query_one("#where", Label).update(f"{view['event']}   {where}   {phase_words(view).upper()}")
        self.query_one("#game", Static).update(self.game_text(game, names(view)))
        self.show_ledger(view)
        self.show_review(view["held"])

    @staticmethod
    def game_text(game: dict | None, who: dict[int, str]) -> Text:
        text = Text()
        if game is None:
            text.append(_("No game yet: d deals the first"), style="italic")
            return text
        text.append("   ".join((_("Dealer {name}", name=f"{game['dealer']} {who.get(game['dealer'], '?')}"),
                                _("stake {stake}", stake=money(game["stake"])), _("POT {pot}", pot=money(game["pot"]))))
                    + "\n", style="bold")
        text.append(_("Bets ({n}):", n=len(game["bets"])) + "\n")
        for no, number in sorted(game["bets"].items(), key=lambda item: int(item[0])):
            shown = _("invalid card") if number is None else str(number)
            text.append(f"  {no:>2} {pad(who.get(int(no), '?'), 20)} {shown}\n",
                        style="#ffd400" if number is None else "")
        if game["result"]:
            text.append(result_line(game, who), style="bold #00d455")
        return text

    def show_ledger(self, view: dict) -> None:
        table = self.query_one("#ledger", DataTable)
        row = table.cursor_row
        dealt = {}
        for game in view["games"]:
            dealt[game["dealer"]] = dealt.get(game["dealer"], 0) + 1
        table.clear()
        for p in view["players"]:
            style = "bold #00d455" if p["net"] > 0 else "bold #ff4d4d" if p["net"] < 0 else ""
            table.add_row(str(p["no"]), p["name"], Text(signed(p["net"]), style=style),
                          str(dealt.get(p["no"], 0)), key=str(p["no"]))
        if view["players"]:
            table.move_cursor(row=min(row, len(view["players"]) - 1))

    # ---- actions: every one builds a command and queues it

    def defaults(self, name: str) -> dict:
        """Pre-filled fields: the player whose row is selected; the last game's stake."""
        player = self.selected_player()
        games = views.staff(self.session.state)["games"]
        if name == "deal":
            return {"dealer": player, "stake": games[-1]["stake"] if games else None}
        return {"player": player} if name == "bet" else {}

    def action_rule_number(self) -> None:
        held = self._held_or_say()
        if held is None:
            return
        if held["card"].get("do") != "bet":
            self.show_outcome(f"✖ {held['serial']} is a {held['card'].get('do')} card: a, 0 or R", "error")
            return

        def ruled(answer: dict | None) -> None:
            if answer is not None:
                self.send({"do": "rule", "serial": held["serial"], "card": {**held["card"], **answer}})

        self.push_screen(VotersForm("held_number"), ruled)
