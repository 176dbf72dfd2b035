"""Plunder Bingo's staff console: the whole game at a glance, every action one key.

The session thread, the journal, hardware and review panes, undo and rulings are every game's
(tui/game_console.py); this console adds the balls, the count, the players and the robberies.
"""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical

from companion import views
from companion.bingo import commands as c
from companion.bingo.decide import Rejected, decide
from companion.bingo.evolve import fold
from companion.bingo.rules import ROBBERY_PERCENT

from companion.core.words import N_, _

from ..game_console import HELD, QUIT, UNDO, GameConsole, summary
from ..plain import DataTable, Label, Static
from ..theme import THEME
from ..widgets import AlignedTable, Countdown, money
from .forms import BingoForm
from .widgets import BallBoard, TallyLine

PHASES = {"new": "NOT SET UP",   # msgids "ready": "READY", "draw": "DRAW", "voting": "VOTING", "resolve": "RESOLVE",
          "turn_over": "TURN OVER", "final": "FINAL ROBBERIES", "counting": "CASH COUNT", "finished": "FINISHED"}


class ConsoleApp(GameConsole):
    CSS_PATH = ["../theme.tcss", "../game_console.tcss"]
    TITLE = "Plunder Bingo: staff console"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (140, "-wide")]
    FORM = BingoForm

    BINDINGS = [
        Binding("b", "send('begin_turn')", "begin turn"),
        Binding("d", "form('draw')", "draw"),
        Binding("v", "form('vote')", "vote card"),
        Binding("V", "form('tally')", "typed tally"),
        Binding("r", "form('rob')", "robbery card"),
        Binding("p", "form('buy')", "sell special"),
        Binding("i", "form('inout')", "IN/OUT"),
        Binding("c", "form('change')", "change"),
        Binding("e", "form('exclude')", "exclusion"),
        Binding("t", "send('close_voting')", "close voting"),
        Binding("o", "form('order_lines')", "order lines"),
        Binding("n", "send('end_turn')", "end turn"),
        Binding("f", "send('begin_final')", "begin final"),
        Binding("g", "send('end_final')", "end final"),
        Binding("m", "form('cash')", "cash count"),
        Binding("F", "send('finish')", "finish game"),
        Binding("w", "form('void')", "void card"),
        UNDO,
        Binding("1", "rule_vote('X')", "held: X"),
        Binding("2", "rule_vote('Y')", "held: Y"),
        Binding("3", "rule_vote('Z')", "held: Z"),
        *HELD,
        QUIT,
    ]

    # ---- layout

    def compose(self) -> ComposeResult:
        with Horizontal(id="status"):
            yield Label("", id="where")
            yield Label("", id="drawn")
            yield Countdown(big=False, id="timer")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield BallBoard(id="board")
                yield TallyLine("", id="count")
                yield Static("", id="hardware")
                yield from self.review_pane()
            with Vertical(id="middle"):
                yield AlignedTable(id="players", cursor_type="row", zebra_stripes=True)
                yield Static("", id="robbery")
                yield AlignedTable(id="journal", cursor_type="row")
        yield from self.bars()

    def on_mount(self) -> None:
        self.register_theme(THEME)
        self.theme = THEME.name
        self.query_one("#board").border_title = _("Balls")
        self.query_one("#count").border_title = _("Count")
        self.query_one("#players").border_title = _("Players")
        self.query_one("#robbery").border_title = _("Robbery and moves")
        players = self.query_one("#players", DataTable)
        for label in (N_("No"), N_("Name"), N_("Acct"), N_("Balance"), N_("Lines"), N_("Items"), N_("Card")):
            players.add_column(_(label), key=label)
        self.start()
        players.focus()

    # ---- showing the staff view

    def refresh_view(self) -> None:
        state = self.session.state
        view = views.staff(state)
        drawn = view["balls"]["drawn"]
        self.query_one("#where", Label).update(
            f"{view['event'] or _('no event yet')}   " + _("Turn {turn}/{turns}", turn=view["turn"], turns=state.rules.turns)
            + "   " + (_(PHASES[view["phase"]]) if view["phase"] in PHASES else view["phase"]))
        self.query_one("#drawn", Label).update("   ".join(f"{l} {b}" for l, b in zip("XYZ", drawn)) or "")
        self.query_one(BallBoard).show(view["balls"])
        self.show_count(view)
        self.show_players(view, set(view["balls"]["valid"]))
        if view["phase"] == "finished":
            self.show_results(view["players"])
        else:
            self.show_robbery(view, state.rights_turn())
        self.show_review(view["open"].get("held", []))

    def show_count(self, view: dict) -> None:
        count = self.query_one("#count", TallyLine)
        if view["phase"] == "voting":
            ballots = view["open"]["votes"]
            counts = {letter: sum(1 for b in ballots if b["choice"] == letter) for letter in "XYZ"}
            invalid = sum(1 for b in ballots if b["choice"] is None)
            options = "   ".join(f"{l} {ball}: {counts[l]}" for l, ball in zip("XYZ", view["balls"]["drawn"]))
            count.update(f"{options}   " + _("invalid: {n}", n=invalid) + "   " + _("({n} cards so far)", n=len(ballots)))
        else:
            count.show(view["tally"])

    def show_players(self, view: dict, valid: set[int]) -> None:
        table = self.query_one("#players", DataTable)
        row = table.cursor_row
        table.clear()
        for p in view["players"]:
            lines = " ".join(f"{l['ordinal']}:{l['line']}·t{l['turn']}" for l in p["lines"]) or "-"
            items = " ".join(f"{k}×{n}" for k, n in p["items"].items()) or "-"
            card = Text()
            for n in p["card"]:
                card.append(f"{n:>2} ", style="bold #00d455" if n in valid else "")
            balance = Text(money(p["balance"]), style="bold #ff4d4d" if p["balance"] < 0 else "")
            table.add_row(str(p["no"]), p["name"], p["account"], balance, lines, items, card, key=str(p["no"]))
        if view["players"]:
            table.move_cursor(row=min(row, len(view["players"]) - 1))

    def show_robbery(self, view: dict, rights_turn: int | None) -> None:
        names = {p["no"]: p["name"] for p in view["players"]}
        used = {(r["robber"], r["ordinal"]): r["serial"] for r in view["open"]["robberies"]}
        text = Text()
        text.append((_("Rights now (lines of turn {turn}):", turn=rights_turn) if rights_turn
                     else _("No robbery rights now")) + "\n", style="bold")
        for p in view["players"]:
            for line in p["lines"]:
                if line["turn"] == rights_turn:
                    serial = used.get((p["no"], line["ordinal"]))
                    text.append(f"  {p['no']} {p['name']}: line {line['ordinal']} ({line['line']}) "
                                f"{ROBBERY_PERCENT[line['ordinal']]}%")
                    text.append(f"  used by {serial}\n" if serial else "  unused\n",
                                style="#00d455" if serial else "#ffd400")
        robberies = view["open"]["robberies"]
        text.append(_("Robbery cards received: {n}", n=len(robberies)) + "\n", style="bold")
        for r in robberies:
            text.append(f"  {r['serial']}  {r['robber']} {names.get(r['robber'], '?')} → "
                        f"{r['victim']} {names.get(r['victim'], '?')}  line {r['ordinal']}\n")
        moves = view["open"]["moves_due"]
        if moves:
            text.append("IN/OUT at next turn: " + ", ".join(f"ball {b} {d}" for b, d in moves) + "\n", style="bold")
        self.query_one("#robbery", Static).update(text)

    def show_results(self, players: list[dict]) -> None:
        """After finish, in the robbery pane: the ranking with final money, and who beat the
        secretariat (no debt, R2)."""
        text = Text(_("Results (★ beat the secretariat, R2):") + "\n", style="bold")
        for p in sorted(players, key=lambda p: (p["rank"], p["no"])):
            text.append(f"  {p['rank']:>2}. {p['no']} ")
            text.append(p["name"])
            text.append(f"  {money(p['final'])} L$", style="bold #ff4d4d" if p["final"] < 0 else "")
            text.append("  ★\n" if p["beats_secretariat"] else "\n", style="#ffd400")
        beaten = sum(p["beats_secretariat"] for p in players)
        text.append(_("{beaten} of {players} beat the secretariat", beaten=beaten, players=len(players)) + "\n",
                    style="bold")
        self.query_one("#robbery", Static).update(text)

    # ---- actions: every one builds a command and queues it

    def send_from_form(self, command: dict | None) -> None:
        if command is None:
            return
        if "do" not in command and "votes" in command:
            self.send_tally(command["votes"])
            return
        if command["do"] == "draw" and len(command["balls"]) == 1:
            command = {"do": "draw_ball", "ball": command["balls"][0]}
        self.send(command)

    def send_tally(self, votes: list[tuple[int, list[str]]]) -> None:
        """A typed tally: each vote is the player's printed card (serial V<player><turn>), checked by
        the referee like a scanned one. The line is sent only if the referee takes every vote of it
        as the game stands, so none of it is half-applied."""
        state = self.session.state
        commands = [{"do": "vote", "serial": f"V{no:02d}{state.turn:02d}", "turn": state.turn, "marks": marks}
                    for no, marks in votes]
        for (no, marks), command in zip(votes, commands):
            result = decide(state, c.parse(command))
            if isinstance(result, Rejected):
                token = f"{no}{marks[0].lower() if marks else '-'}"
                self.show_outcome(f"✖ tally: {token}: {result.reason}; nothing of the line was sent", "error")
                return
            state = fold(result, state)
        for command in commands:
            self.send(command)

    def defaults(self, name: str) -> dict:
        """Pre-filled fields: the player whose row is selected, this turn's number."""
        values = {}
        player = self.selected_player()
        if player is not None:
            values.update(player=player, robber=player)
        if name == "vote":
            values["turn"] = self.session.state.turn
        return values

    def action_rule_vote(self, letter: str) -> None:
        held = self._held_or_say()
        if held is None:
            return
        if held["card"].get("do") != "vote":
            self.show_outcome(f"✖ {held['serial']} is a {held['card'].get('do')} card: a, 0 or R", "error")
            return
        self.send({"do": "rule", "serial": held["serial"], "card": {**held["card"], "marks": [letter]}})
