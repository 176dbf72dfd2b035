"""What screens and exports may see. public() is all the audience display, the MQTT topic and every
phone get, and it announces what the rulebook announces, no more (D8): who owns which gem (first
owners: not who holds which dice after a transfer), the open period's valid declarations as they are
accepted with the one that would be selected now marked, and each judged period's selected
declaration and outcome, not its true count. Once the game is finished: holdings, true counts and
results too. Never a die's face, an invalid declaration or a held card."""
from __future__ import annotations

from dataclasses import asdict

from .decide import holdings, results, selected
from .state import Period, State


def period_view(period: Period, count: bool = True) -> dict:
    view = {"no": period.no, "selected": period.selected, "true_count": period.true_count, "result": period.result}
    if not count:
        del view["true_count"]
    return view


def judged(s: State, counts: bool = True) -> list[dict]:
    return [period_view(p, counts) for p in s.periods if p.result is not None]


def players(s: State, held: bool = True) -> list[dict]:
    """Each player; `held`: with the dice they hold now (who holds which dice after a transfer)."""
    paid = results(s)
    rows = [{"no": p.no, "name": p.name, "gem": p.gem, "dice": holdings(s, p.no), "eliminated": p.eliminated,
             "result": paid[p.no]} for p in sorted(s.players.values(), key=lambda p: p.no)]
    return rows if held else [{k: v for k, v in row.items() if k != "dice"} for row in rows]


def declarations(s: State) -> list[dict]:
    """D8: the open period's valid declarations in the order accepted, the one selected if judged now
    marked "leading"; a cancelled one is gone (cancel removes it)."""
    period = s.period
    if s.phase != "declare" or period is None:
        return []
    valid = [d for d in period.declarations if d.valid]
    leading = selected(valid)
    return [{"player": d.player, "face": d.face, "count": d.count, "leading": d is leading} for d in valid]


def replay(s: State, log: list) -> dict:
    """`companion replay --json`: the contract's keys exactly."""
    return {"game": "bluff", "phase": s.phase, "periods": judged(s), "players": players(s),
            "winner": s.winner, "log": log}


def public(s: State) -> dict:
    over = s.phase == "finished"
    return {"game": "bluff", "event": s.event, "phase": s.phase, "period": s.period.no if s.period else None,
            "star_wild": s.star_wild, "periods": judged(s, counts=over), "players": players(s, held=over),
            "declarations": declarations(s), "winner": s.winner}


def current(period: Period | None) -> dict | None:
    """The open period as the dealer sees it: every dice vote, the closed faces, every declaration."""
    if period is None or period.result is not None:
        return None
    return {"no": period.no, "votes": {str(no): faces for no, faces in sorted(period.votes.items())},
            "closed": None if period.closed is None else {str(no): f for no, f in sorted(period.closed.items())},
            "declarations": [asdict(d) for d in period.declarations]}


def staff(s: State) -> dict:
    return {**public(s), "periods": judged(s), "players": players(s), "current": current(s.period),
            "transfers": s.transfers,
            "held": [{"serial": serial, **asdict(held)} for serial, held in s.held.items()]}
