"""Plain-text renderings of the views, for the terminal (replay, status)."""
from __future__ import annotations

from ..core.columns import table


def _outcome(game: dict) -> str:
    if game["result"] == "won":
        return f"player {game['winner']} wins with {game['number']}"
    if game["result"] == "dobon":
        return f"DOBON: dealer {game['winner']} wins"
    return "no game: stakes returned" if game["result"] == "no_game" else "open"


def _numbers(game: dict) -> str:
    if "bets" not in game:
        return "bets from " + (" ".join(map(str, game["bettors"])) or "nobody")
    shown = " ".join(f"{p}={'-' if n is None else n}" for p, n in game["bets"].items())
    return "bets " + (shown or "none")


def _game_line(game: dict) -> str:
    return (f"  game {game['no']}: dealer {game['dealer']}, stake {game['stake']:,}, pot {game['pot']:,}; "
            f"{_numbers(game)}; {_outcome(game)}")


def _ledger(view: dict) -> list[str]:
    return ["Ledger:", *table([[str(p["no"]), p["name"], f"{p['net']:+,}"] for p in view["players"]], right=(0, 2))]


def staff_text(view: dict) -> str:
    held = [f"  held {h['serial']}: {h['reason']}" for h in view["held"]]
    return "\n".join([f"{view['event']}: Voters, {view['phase']}", "Games:",
                      *map(_game_line, view["games"]), *held, *_ledger(view)])


def public_text(view: dict) -> str:
    return "\n".join([f"{view['event']}: Voters, {view['phase']}", "Games:",
                      *map(_game_line, view["games"]), *_ledger(view)])
