"""Auction Bluff's dealer console: the period at a glance, every action one key.

The session thread, the journal, hardware and review panes, undo and rulings are every game's
(tui/game_console.py); this console adds the period (the dealer sees every dice vote and every
declaration) and the players' gems, dice, votes and results. Every key builds a command and
queues it: the rules are companion.bluff's.
"""
from __future__ import annotations

from rich.text import Text
from textual.binding import Binding

from companion import views
from companion.core.columns import pad

from ..forms import CommandForm, Field, FormError
from companion.core.words import N_, _

from ..game_console import HELD, QUIT, UNDO, PanesConsole
from ..plain import DataTable, Label, Static
from .words import FACE, held_dice, names, outcome_line, phase_words, yen, final_line

PLAYER = Field("player", "Player no.", "int")
FORMS = {
    "dice": ("Dice vote: the face of every die the player holds", [
        PLAYER, Field("faces", f"Faces per gem, e.g. ruby 1123{FACE} sapphire 45 (* or s: {FACE})")]),
    "transfer": ("Dice given in front of the dealer, every party consenting (AB5)", [
        Field("from", "From player no.", "int"), Field("to", "To player no.", "int"),
        Field("gem", "Gem"), Field("count", "Dice", "int")]),
    "declare": ("Declaration: at least COUNT dice show FACE", [
        PLAYER, Field("face", "Face 1-5", "int"), Field("count", "Count 1-30", "int")]),
    "cancel": ("Cancel a declaration: every player not eliminated consents (D6)", [
        PLAYER, Field("consent", "Players consenting", "ints")]),
}
STARS = {"*": FACE, "s": FACE, "S": FACE}


def faces(text: str, gem: str | None) -> dict[str, list[str]]:
    """Typed faces, `ruby 1123★ sapphire 45`: the faces after each gem's name (a player's own gem
    may go unnamed); `*` or `s` is ★."""
    found, current = {}, gem
    for word in text.split():
        if word.isalpha() and word.lower() not in STARS:
            current = word.lower()
            found.setdefault(current, [])
            continue
        if current is None:
            raise FormError(f"name the gem before its faces, e.g. ruby {word}")
        found.setdefault(current, []).extend(STARS.get(face, face) for face in word)
    return found


class BluffForm(CommandForm):
    TABLE = FORMS

    def command_dict(self) -> dict:
        if self.command != "dice":
            return super().command_dict()
        player = self.query_one("#field-player")
        try:
            no = int(player.value)
        except ValueError:
            raise FormError(f"Player no.: whole numbers please, not {player.value!r}") from None
        own = getattr(self.app.session.state.players.get(no), "gem", None)
        command = {"do": "dice", "player": no, "faces": faces(self.query_one("#field-faces").value, own)}
        self.app.session.rules.schema.parse(command)
        return command


class BluffConsoleApp(PanesConsole):
    CSS_PATH = ["../theme.tcss", "../game_console.tcss", "console.tcss"]
    TITLE = "Auction Bluff: dealer's console"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (140, "-wide")]
    HARDWARE = ("scanner", "panel")
    RULE_KEYS = "h (or 0)"
    FORM = BluffForm

    GAME_PANE = ("period", N_("Period"))
    COLUMNS = (N_("No"), N_("Name"), N_("Gem"), N_("Dice held"), N_("Dice vote"), N_("Declared"), N_("Result"))
    PANES = (("periods", N_("Judged")),)

    BINDINGS = [
        Binding("p", "send('period')", "next period"),
        Binding("f", "form('dice')", "dice vote"),
        Binding("t", "form('transfer')", "transfer"),
        Binding("c", "send('close_dice')", "close dice"),
        Binding("d", "form('declare')", "declare"),
        Binding("x", "form('cancel')", "cancel decl."),
        Binding("j", "send('judge')", "judge"),
        UNDO,
        Binding("h", "rule_held", "held: rule as…"),
        *HELD[:2],
        QUIT,
    ]

    # ---- showing the staff view

    def refresh_view(self) -> None:
        view = views.staff(self.session.state)
        self.query_one("#where", Label).update(f"{view['event']}   {phase_words(view).upper()}"
                                               + ("" if view["star_wild"] else "   " + _("★ is not wild")))
        self.query_one("#period", Static).update(self.period_text(view))
        self.query_one("#periods", Static).update(self.judged_text(view))
        self.show_players(view)
        self.show_review(view["held"])

    @staticmethod
    def period_text(view: dict) -> Text:
        text, now, who = Text(), view["current"], names(view)
        if now is None:
            last = view["periods"][-1] if view["periods"] else None
            text.append(outcome_line(last, who) if last else _("No period yet: p opens the first"),
                        style="bold" if last else "italic")
            if view["phase"] == "finished":
                text.append("\n" + final_line(view), style="bold #00d455")
            return text
        waiting = [p["name"] for p in view["players"] if not p["eliminated"] and str(p["no"]) not in now["votes"]]
        closed = now["closed"] is not None
        text.append(_("Period {n}: dice closed, declarations open" if closed else "Period {n}: dice vote open",
                      n=now["no"]), style="bold")
        text.append("\n" + _("Dice votes: {n}", n=len(now["votes"])) + ("" if closed else
                    "; " + _("waiting for {names}", names=", ".join(waiting) or _("nobody"))))
        for t in (t for t in view["transfers"] if t["period"] == now["no"]):
            again = f"; {', '.join(who.get(no, '?') for no in t['cleared'])} vote again (D5)" if t["cleared"] else ""
            text.append(f"\nTransfer: {t['count']} {t['gem']} {who.get(t['from'], '?')} → {who.get(t['to'], '?')}{again}")
        text.append("\n" + _("Declarations ({n} valid):", n=sum(1 for d in now["declarations"] if not d["reason"])))
        for d in now["declarations"]:
            line = f"\n  {d['player']:>2} {pad(who.get(d['player'], '?'), 16)} {d['count']} × {d['face']}"
            text.append(line + (f"  invalid: {d['reason']}" if d["reason"] else ""),
                        style="#ffd400" if d["reason"] else "")
        return text

    @staticmethod
    def judged_text(view: dict) -> Text:
        who = names(view)
        return Text("\n".join(outcome_line(p, who) for p in view["periods"]) or _("No period judged yet"),
                    style="" if view["periods"] else "italic")

    def show_players(self, view: dict) -> None:
        table = self.query_one("#players", DataTable)
        row, now = table.cursor_row, view["current"] or {"votes": {}, "closed": None, "declarations": []}
        votes = now["closed"] if now["closed"] is not None else now["votes"]
        table.clear()
        for p in view["players"]:
            vote = votes.get(str(p["no"]))
            shown = " ".join(f"{gem} {''.join(f)}" for gem, f in vote.items()) if vote is not None else "—"
            made = [f"{d['count']}×{d['face']}" + ("!" if d["reason"] else "")
                    for d in now["declarations"] if d["player"] == p["no"]]
            result = Text("" if p["result"] is None else yen(p["result"]),
                          style="bold #00d455" if (p["result"] or 0) > 0 else "bold #ff4d4d")
            name = Text(p["name"] + (" (" + _("out") + ")" if p["eliminated"] else ""),
                        style="#808080" if p["eliminated"] else "")
            table.add_row(str(p["no"]), name, p["gem"], held_dice(p["dice"]), shown, " ".join(made) or "—",
                          result, key=str(p["no"]))
        if view["players"]:
            table.move_cursor(row=min(row, len(view["players"]) - 1))

    # ---- actions: every one builds a command and queues it

    def defaults(self, name: str) -> dict:
        """Pre-filled fields: the player whose row is selected (their gem, their dice vote);
        a cancellation's consent: every player not eliminated."""
        player, state = self.selected_player(), self.session.state
        if name == "transfer":
            return {"from": player, "gem": state.players[player].gem if player in state.players else ""}
        if name == "cancel":
            return {"player": player, "consent": state.active()}
        if name == "dice" and player in state.dice:
            return {"player": player, "faces": self.vote_text(state, player)}
        return {"player": player}

    @staticmethod
    def vote_text(state, player: int) -> str:
        """The player's dice vote as typed; none yet: the gem's name, if they hold one gem only."""
        vote = state.period.votes.get(player) if state.period else None
        if vote:
            return " ".join(f"{gem} {''.join(faces)}" for gem, faces in vote.items())
        return f"{next(iter(state.dice[player]))} " if len(state.dice[player]) == 1 else ""

    def action_rule_held(self) -> None:
        held = self._held_or_say()
        if held is None:
            return
        card = {k: v for k, v in held["card"].items() if k not in ("do", "serial")}
        if held["card"].get("do") == "dice":
            card["faces"] = " ".join(f"{gem} {''.join(faces)}" for gem, faces in (card.get("faces") or {}).items())

        def ruled(answer: dict | None) -> None:
            if answer is not None:
                answer.pop("do", None)
                self.send({"do": "rule", "serial": held["serial"], "card": {**held["card"], **answer}})

        self.push_screen(BluffForm(held["card"]["do"], card), ruled)
