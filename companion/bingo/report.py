"""Plain-text renderings of the views, for the terminal (replay, status)."""
from __future__ import annotations

from ..core.columns import table


def _balls(balls: dict) -> list[str]:
    return [f"  {place:<9}{' '.join(map(str, numbers)) or '-'}" for place, numbers in balls.items()]


def _tally(tally: dict | None) -> list[str]:
    if not tally:
        return []
    counts = "  ".join(f"{letter}={ball}: {tally['votes'][letter]}" for letter, ball in tally["options"].items())
    result = "void (no quorum)" if tally["void"] else "valid " + " ".join(map(str, tally["valid"]))
    return [f"Last vote: {counts or 'no draw'}; {tally['invalid']} invalid -> {result}"]


def staff_text(view: dict) -> str:
    out = [f"{view['event']}: turn {view['turn']}, {view['phase']}", "Balls:", *_balls(view["balls"]),
           *_tally(view["tally"]), "Players:"]
    rows = []
    for p in view["players"]:
        lines = ", ".join(f"{l['ordinal']}:{l['line']}(t{l['turn']})" for l in p["lines"]) or "no line"
        final = ["final", f"{p['final']:,}", "rank", str(p["rank"])] if "final" in p else []
        rows.append([str(p["no"]), p["name"], p["account"], f"{p['balance']:,}", "L$", lines, *final])
    return "\n".join(out + table(rows, right=(0, 3, 7)))


def public_text(view: dict) -> str:
    out = [f"Turn {view['turn']}, {view['phase']}", "Balls:", *_balls(view["balls"]), *_tally(view["tally"])]
    if view["accounts"]:
        out.append("Accounts: " + "  ".join(f"{a['account']} {a['balance']:,}" for a in view["accounts"]))
    if view.get("ranking") and not view["accounts"]:
        out.append("Final money in whole 10,000 L$ chips, rounded down (R13: account letters stay secret)")
    ranking = [[f"{row['rank']}.", row["name"], f"{row['final']:,}", "L$"] for row in view.get("ranking", [])]
    return "\n".join(out + table(ranking, right=(0, 2)))
