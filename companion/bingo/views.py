"""What screens and exports may see. public() is all the audience display gets (R13)."""
from __future__ import annotations

from dataclasses import asdict

from .rules import beats_secretariat
from .state import State

# The smallest chip (R3). Cash is counted in chips, so final money less the account balance is a
# whole number of chips: exact final money beside any board of balances by letter ties each name
# to its letter (R13). Public final money is therefore shown in whole chips, rounded down.
CHIP = 10_000


def balls(s: State) -> dict:
    return {"machine": s.balls_in("machine"), "drawn": list(s.drawn), "valid": list(s.valid),
            "pool": s.balls_in("pool"), "trash": s.balls_in("trash"), "excluded": s.balls_in("excluded")}


def tally(s: State) -> dict | None:
    t = s.tally
    if t is None:
        return None
    return {"options": dict(t.options), "votes": dict(t.votes), "invalid": t.invalid,
            "void": t.void, "valid": list(t.valid)}


def staff(s: State) -> dict:
    """Everything the secretariat sees, secrets included."""
    results = {row["player"]: row for row in s.results}
    players = []
    for p in sorted(s.players.values(), key=lambda p: p.no):
        row = {"no": p.no, "name": p.name, "account": p.account, "balance": p.balance,
               "lines": [{"line": l.line, "ordinal": l.ordinal, "turn": l.turn} for l in p.lines],
               "card": list(p.card), "items": {k: n for k, n in sorted(p.items.items()) if n}}
        if p.no in results:
            row.update({k: results[p.no][k] for k in ("cash", "bonus", "penalty", "final", "rank")},
                       beats_secretariat=beats_secretariat(results[p.no]["final"]))
        players.append(row)
    return {"event": s.event, "turn": s.turn, "phase": s.phase, "balls": balls(s), "tally": tally(s),
            "players": players,
            "open": {"votes": [{"serial": b.serial, "choice": b.choice} for b in s.ballots],
                     "robberies": [asdict(r) for r in s.robberies],
                     "moves_due": [list(m) for m in s.moves_due],
                     "held": [{"serial": serial, **asdict(held)} for serial, held in s.held.items()]}}


def public(s: State) -> dict:
    """The audience's view: balls, counts, balances by letter when announced, the ranking (with who
    beat the secretariat, R2). No names next to letters, no robber/victim (only how many
    robberies), no purchases, no per-card votes. Once finished,
    unless the event reveals accounts: no board of balances, and final money in whole chips."""
    secret = not s.reveal_accounts
    board = [] if s.results and secret else sorted(s.announced.items())
    view = {"turn": s.turn, "phase": s.phase, "balls": balls(s), "tally": tally(s),
            "accounts": [{"account": letter, "balance": n} for letter, n in board],
            "robberies": s.robbed}      # R13: how many robberies the last turn's end carried out, no names
    if s.results:
        names = {p.no: p.name for p in s.players.values()}
        view["ranking"] = [{"rank": row["rank"], "name": names[row["player"]],
                            "final": row["final"] // CHIP * CHIP if secret else row["final"],
                            "beats_secretariat": beats_secretariat(row["final"])}     # R2: no letter in it
                           for row in s.results]
    return view
