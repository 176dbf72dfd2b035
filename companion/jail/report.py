"""Plain-text renderings of the views, for the terminal (replay, status)."""
from __future__ import annotations

from ..core.columns import table


def cards(counts: dict) -> str:
    return " ".join(f"{kind}x{n}" for kind, n in counts.items()) or "-"


def progress(view: dict) -> str:
    return "; ".join(f"{p['kinds']}/{p['needed']} kinds with {p['cards']}+" for p in view["progress"])


def _head(view: dict) -> list[str]:
    turn = f", player {view['turn_player']} to play" if view["turn_player"] else ""
    return [f"{view['event']}: the jail card game, round {view['round']}, {view['phase']}{turn}",
            *(f"  row {no}: {' '.join(row) or '(empty)'}" for no, row in enumerate(view["rows"], 1)),
            f"  jail: {cards(view['jail'])} (round ends at {progress(view)})"]


def _players(view: dict, hand) -> list[str]:
    """A line per player; hand(player): what the view may say of the hand."""
    return table([[str(p["no"]), p["name"], hand(p), "shows", cards(p["display"]),
                   "+".join(map(str, p["scores"])) or "0", "=", str(p["total"])] for p in view["players"]], right=(0,))


def _winner(view: dict) -> list[str]:
    return [f"Winner: {', '.join(f'player {no}' for no in view['winner'])}"] if view["winner"] else []


def staff_text(view: dict) -> str:
    return "\n".join([*_head(view), f"  deck: {cards(view['deck'])}", f"  discard: {cards(view['discard'])}",
                      "Players:", *_players(view, lambda p: "hand " + cards(p["hand"])),
                      *_winner(view)])


def public_text(view: dict) -> str:
    return "\n".join([*_head(view), f"  deck: {view['deck_size']} cards",
                      "Players:", *_players(view, lambda p: f"{p['hand_size']} cards in hand"),
                      *_winner(view)])
