"""What screens and exports may see. public() is all the audience display gets: who owns which
gem and holds which dice, each judged period's selected declaration, true count and outcome, who
is eliminated and the results; never a die's face, an unselected declaration or a held card."""
from __future__ import annotations

from dataclasses import asdict

from .decide import holdings, results
from .state import Period, State


def period_view(period: Period) -> dict:
    return {"no": period.no, "selected": period.selected, "true_count": period.true_count, "result": period.result}


def judged(s: State) -> list[dict]:
    return [period_view(p) for p in s.periods if p.result is not None]


def players(s: State) -> list[dict]:
    paid = results(s)
    return [{"no": p.no, "name": p.name, "gem": p.gem, "dice": holdings(s, p.no), "eliminated": p.eliminated,
             "result": paid[p.no]} for p in sorted(s.players.values(), key=lambda p: p.no)]


def replay(s: State, log: list) -> dict:
    """`companion replay --json`: the contract's keys exactly."""
    return {"game": "bluff", "phase": s.phase, "periods": judged(s), "players": players(s),
            "winner": s.winner, "log": log}


def public(s: State) -> dict:
    return {"game": "bluff", "event": s.event, "phase": s.phase, "period": s.period.no if s.period else None,
            "star_wild": s.star_wild, "periods": judged(s), "players": players(s), "winner": s.winner}


def current(period: Period | None) -> dict | None:
    """The open period as the dealer sees it: every dice vote, the closed faces, every declaration."""
    if period is None or period.result is not None:
        return None
    return {"no": period.no, "votes": {str(no): faces for no, faces in sorted(period.votes.items())},
            "closed": None if period.closed is None else {str(no): f for no, f in sorted(period.closed.items())},
            "declarations": [asdict(d) for d in period.declarations]}


def staff(s: State) -> dict:
    return {**public(s), "current": current(s.period), "transfers": s.transfers,
            "held": [{"serial": serial, **asdict(held)} for serial, held in s.held.items()]}
