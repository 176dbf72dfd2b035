"""What Auction Bluff's console and display both say about a view (staff or public): the phase,
the names, a period's outcome, the dice a player holds and a result in yen. Every word is a msgid
of companion/locale (PHASES, OUTCOMES and the gems'
names, companion.bluff.commands.GEMS, too)."""
from __future__ import annotations

from companion.core.words import _, in_each, say, word

from ..widgets import money

PHASES = {"new": "Waiting for the game", "ready": "Between periods", "dice": "Dice vote",
          "declare": "Declarations", "finished": "Game over"}
OUTCOMES = {"won": "WINS", "eliminated": "ELIMINATED", "no_declaration": "NO DECLARATION"}
FACE = "★"


def names(view: dict) -> dict[int, str]:
    return {p["no"]: p["name"] for p in view["players"]}


def phase_words(view: dict, said=_) -> str:
    """The phase in the chosen language(s); said=stacked: the Japanese above the English."""
    if view["phase"] not in PHASES:
        return view["phase"]
    if view["period"] and view["phase"] in ("dice", "declare"):
        return said("Period {n}: {phase}", n=view["period"], phase=word(PHASES[view["phase"]]))
    return said(PHASES[view["phase"]])


def held_dice(dice: dict[str, int] | None) -> str:
    """The dice a player holds; None: not announced (D8: the public view while the game runs)."""
    if dice is None:
        return "–"
    if not dice:
        return _("no dice")
    return in_each(lambda language: ", ".join(say("{n} {gem}", language, n=n, gem=word(name)) for name, n in dice.items()))


def declared(selected: dict) -> str:
    """A declaration as the table says it: at least COUNT dice show FACE."""
    return f"{selected['count']} × {selected['face']}"


def outcome_line(period: dict, who: dict[int, str], said=_) -> str:
    """A judged period in one line (said=stacked: a line per language)."""
    chosen = period["selected"]
    if chosen is None:
        return said("Period {n}: nobody declared: the game ends, every player pays (AB4)", n=period["no"])
    fill = dict(n=period["no"], name=who.get(chosen["player"], "?"), declared=declared(chosen))
    if "true_count" in period:                   # D8: public at the end only
        fill["count"] = period["true_count"]
        return said("Period {n}: {name} declared {declared}; true count {count}: WINS" if period["result"] == "won"
                    else "Period {n}: {name} declared {declared}; true count {count}: is ELIMINATED", **fill)
    return said("Period {n}: {name} declared {declared}; WINS" if period["result"] == "won"
                else "Period {n}: {name} declared {declared}; is ELIMINATED", **fill)


def yen(n: int) -> str:
    return ("+" if n > 0 else "−" if n < 0 else "±") + "¥" + money(abs(n))


def final_line(view: dict, said=_) -> str:
    """The end in one line; "" before it."""
    if view["phase"] != "finished":
        return ""
    if view["winner"] is None:
        return said("No winner: no die pays, every player pays the ¥100,000,000 fee (D4)")
    winner = next(p for p in view["players"] if p["no"] == view["winner"])
    return said("{name} wins: every {gem} die pays its holder ¥100,000,000 (AB6)", name=winner["name"],
                gem=word(winner["gem"]))
