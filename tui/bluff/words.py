"""What Auction Bluff's console and display both say about a view (staff or public): the phase,
the names, a period's outcome, the dice a player holds and a result in yen."""
from __future__ import annotations

from ..widgets import money

PHASES = {"new": "Waiting for the game", "ready": "Between periods", "dice": "Dice vote",
          "declare": "Declarations", "finished": "Game over"}
FACE = "★"


def names(view: dict) -> dict[int, str]:
    return {p["no"]: p["name"] for p in view["players"]}


def phase_words(view: dict) -> str:
    period = f"Period {view['period']}: " if view["period"] and view["phase"] in ("dice", "declare") else ""
    return period + PHASES.get(view["phase"], view["phase"])


def held_dice(dice: dict[str, int] | None) -> str:
    """The dice a player holds; None: not announced (D8: the public view while the game runs)."""
    if dice is None:
        return "–"
    return ", ".join(f"{n} {gem}" for gem, n in dice.items()) or "no dice"


def declared(selected: dict) -> str:
    """A declaration as the table says it: at least COUNT dice show FACE."""
    return f"{selected['count']} × {selected['face']}"


def outcome_line(period: dict, who: dict[int, str]) -> str:
    """A judged period in one line."""
    chosen = period["selected"]
    if chosen is None:
        return f"Period {period['no']}: nobody declared: the game ends, every player pays (AB4)"
    verdict = "WINS" if period["result"] == "won" else "is ELIMINATED"
    count = f"true count {period['true_count']}: " if "true_count" in period else ""    # D8: public at the end only
    return f"Period {period['no']}: {who.get(chosen['player'], '?')} declared {declared(chosen)}; {count}{verdict}"


def yen(n: int) -> str:
    return ("+" if n > 0 else "−" if n < 0 else "±") + "¥" + money(abs(n))


def final_line(view: dict) -> str:
    """The end in one line; "" before it."""
    if view["phase"] != "finished":
        return ""
    if view["winner"] is None:
        return "No winner: no die pays, every player pays the ¥100,000,000 fee (D4)"
    winner = next(p for p in view["players"] if p["no"] == view["winner"])
    return f"{winner['name']} wins: every {winner['gem']} die pays its holder ¥100,000,000 (AB6)"
