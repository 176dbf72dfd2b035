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


BEATS = "★"      # R2: beside a name that beat the secretariat (final money >= 0)


def _beaten_by(rows: list[dict]) -> list[str]:
    """R2's line under the results: how many beat the secretariat."""
    if not rows:
        return []
    n = sum(row["beats_secretariat"] for row in rows)
    return [f"{BEATS} beat the secretariat (no debt, R2): {n} of {len(rows)} players"]


def staff_text(view: dict) -> str:
    out = [f"{view['event']}: turn {view['turn']}, {view['phase']}", "Balls:", *_balls(view["balls"]),
           *_tally(view["tally"]), "Players:"]
    rows = []
    for p in view["players"]:
        lines = ", ".join(f"{l['ordinal']}:{l['line']}(t{l['turn']})" for l in p["lines"]) or "no line"
        final = ["final", f"{p['final']:,}", "rank", str(p["rank"]), BEATS if p["beats_secretariat"] else ""] \
            if "final" in p else []
        rows.append([str(p["no"]), p["name"], p["account"], f"{p['balance']:,}", "L$", lines, *final])
    return "\n".join(out + table(rows, right=(0, 3, 7)) + _beaten_by([p for p in view["players"] if "final" in p]))


def public_text(view: dict) -> str:
    out = [f"Turn {view['turn']}, {view['phase']}", "Balls:", *_balls(view["balls"]), *_tally(view["tally"])]
    if view["accounts"]:
        out.append("Accounts: " + "  ".join(f"{a['account']} {a['balance']:,}" for a in view["accounts"]))
    if view.get("ranking") and not view["accounts"]:
        out.append("Final money in whole 10,000 L$ chips, rounded down (R13: account letters stay secret)")
    ranking = [[f"{row['rank']}.", row["name"], f"{row['final']:,}", "L$", BEATS if row["beats_secretariat"] else ""]
               for row in view.get("ranking", [])]
    return "\n".join(out + table(ranking, right=(0, 2)) + _beaten_by(view.get("ranking", [])))
