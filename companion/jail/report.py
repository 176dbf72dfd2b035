"""Plain-text renderings of the views, for the terminal (replay, status)."""
from __future__ import annotations


def cards(counts: dict) -> str:
    return " ".join(f"{kind}x{n}" for kind, n in counts.items()) or "-"


def progress(view: dict) -> str:
    return "; ".join(f"{p['kinds']}/{p['needed']} kinds with {p['cards']}+" for p in view["progress"])


def _head(view: dict) -> list[str]:
    turn = f", player {view['turn_player']} to play" if view["turn_player"] else ""
    return [f"{view['event']}: the jail card game, round {view['round']}, {view['phase']}{turn}",
            *(f"  row {no}: {' '.join(row) or '(empty)'}" for no, row in enumerate(view["rows"], 1)),
            f"  jail: {cards(view['jail'])} (round ends at {progress(view)})"]


def _player_line(player: dict, hand: str) -> str:
    scores = "+".join(map(str, player["scores"])) or "0"
    return f"  {player['no']:>2} {player['name']:<12} {hand:<24} shows {cards(player['display']):<20} {scores} = {player['total']}"


def _winner(view: dict) -> list[str]:
    return [f"Winner: {', '.join(f'player {no}' for no in view['winner'])}"] if view["winner"] else []


def staff_text(view: dict) -> str:
    return "\n".join([*_head(view), f"  deck: {cards(view['deck'])}", f"  discard: {cards(view['discard'])}",
                      "Players:", *(_player_line(p, "hand " + cards(p["hand"])) for p in view["players"]),
                      *_winner(view)])


def public_text(view: dict) -> str:
    return "\n".join([*_head(view), f"  deck: {view['deck_size']} cards",
                      "Players:", *(_player_line(p, f"{p['hand_size']} cards in hand") for p in view["players"]),
                      *_winner(view)])
