"""What Voters' console and display both say about a view (staff or public): the phase, the
names, a game's result and a net amount."""
from __future__ import annotations

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
        return "No game" if game["result"] == "no_game" else "The open"
    return PHASES.get(view["phase"], view["phase"])


def signed(n: int) -> str:
    return ("+" if n > 0 else "−" if n < 0 else "±") + money(abs(n))


def result_line(game: dict, who: dict[int, str]) -> str:
    """A settled game in one line; "" while it is open."""
    if game["result"] == "won":
        return f"{who.get(game['winner'], '?')} wins with {game['number']}: takes {money(game['pot'])}"
    if game["result"] == "dobon":
        return f"DOBON: no unique number, the dealer {who.get(game['winner'], '?')} takes {money(game['pot'])}"
    if game["result"] == "no_game":
        return "No game: every stake is returned"
    return ""
