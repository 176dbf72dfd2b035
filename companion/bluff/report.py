"""Plain-text renderings of the views, for the terminal (replay, status)."""
from __future__ import annotations

from ..core.columns import table

OUTCOME = {"won": "wins", "eliminated": "is eliminated"}


def _period_line(period: dict) -> str:
    chosen = period["selected"]
    if chosen is None:
        return f"  period {period['no']}: no declaration: every player pays, the game ends (AB4)"
    count = f"true count {period['true_count']}: " if "true_count" in period else ""    # D8: at the end only
    return (f"  period {period['no']}: player {chosen['player']} declared {chosen['count']} x {chosen['face']}; "
            f"{count}{OUTCOME[period['result']]}")


def _player_row(player: dict) -> list[str]:
    if "dice" in player:
        dice = ", ".join(f"{n} {gem}" for gem, n in player["dice"].items()) or "no dice"
    else:       # D8: while the game runs the public view names each gem's first owner only
        dice = f"owns the {player['gem']}"
    out = " (eliminated)" if player["eliminated"] else ""
    result = [] if player["result"] is None else [f"{player['result']:+,}"]
    return [str(player["no"]), player["name"], player["gem"], dice + out, *result]


def _lines(view: dict) -> list[str]:
    period = f", period {view['period']}" if view["period"] else ""
    return [f"{view['event']}: Auction Bluff, {view['phase']}{period}", "Periods:",
            *map(_period_line, view["periods"]), "Players:", *table([_player_row(p) for p in view["players"]], right=(0, 4))]


def _current(view: dict) -> list[str]:
    now = view["current"]
    if now is None:
        return []
    votes = " ".join(now["votes"]) or "nobody"
    made = [f"    player {d['player']}: {d['count']} x {d['face']}" + (f" invalid: {d['reason']}" if d["reason"] else "")
            for d in now["declarations"]]
    return [f"Period {now['no']}: dice votes from {votes}", *made]


def staff_text(view: dict) -> str:
    held = [f"  held {h['serial']}: {h['reason']}" for h in view["held"]]
    return "\n".join([*_lines(view), *_current(view), *held])


def _declarations(view: dict) -> list[str]:
    """D8: the declarations accepted so far, the one that would be selected now marked."""
    if not view["declarations"]:
        return []
    return [f"Period {view['period']} declarations (* would be selected now):",
            *(f"  {'*' if d['leading'] else ' '} player {d['player']}: {d['count']} x {d['face']}"
              for d in view["declarations"])]


def public_text(view: dict) -> str:
    return "\n".join(_lines(view) + _declarations(view))
