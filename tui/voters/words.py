"""What Voters' console and display both say about a view (staff or public): the phase, the
names, a game's result and a net amount."""
from __future__ import annotations

from companion.core.words import _

from ..widgets import money

PHASES = {"ready": "Waiting for the deal", "betting": "Place your bets", "closed": "Bets closed"}


def names(view: dict) -> dict[int, str]:
    return {p["no"]: p["name"] for p in view["players"]}


def current(view: dict) -> dict | None:
    """The game being played, or the last one settled (shown until the next deal)."""
    return view["games"][-1] if view["games"] else None


def phase_words(view: dict) -> str:
    game = current(view)
    if view["phase"] == "ready" and game is not None:
        return _("No game") if game["result"] == "no_game" else _("The open")
    return _(PHASES[view["phase"]]) if view["phase"] in PHASES else view["phase"]


def signed(n: int) -> str:
    return ("+" if n > 0 else "−" if n < 0 else "±") + money(abs(n))


def result_line(game: dict, who: dict[int, str]) -> str:
    """A settled game in one line; "" while it is open."""
    if game["result"] == "won":
        return _("{name} wins with {number}: takes {pot}", name=who.get(game["winner"], "?"), number=game["number"],
                 pot=money(game["pot"]))
    if game["result"] == "dobon":
        return _("DOBON: no unique number, the dealer {name} takes {pot}", name=who.get(game["winner"], "?"),
                 pot=money(game["pot"]))
    if game["result"] == "no_game":
        return _("No game: every stake is returned")
    return ""
