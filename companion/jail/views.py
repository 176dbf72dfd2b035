"""What screens and exports may see. public() is all the audience display gets: the rows, the
jail, the displays, hand sizes and scores; never a hand's cards, nor the deck or discard pile
(with them the hands could be worked out)."""
from __future__ import annotations

from collections import Counter
from dataclasses import asdict

from . import rules
from .state import Player, State


def counts(s: State, cards: Counter) -> dict[str, int]:
    """{kind: count} in the deck's order; kinds with count 0 are left out."""
    return {kind: cards[kind] for kind in s.kinds if cards[kind] > 0}


def winner(s: State) -> list[int] | None:
    """J6: the highest total after the last round."""
    if s.phase != "finished":
        return None
    best = max(p.total for p in s.players.values())
    return [p.no for p in s.players.values() if p.total == best]


def _player(s: State, p: Player) -> dict:
    return {"no": p.no, "name": p.name, "hand": counts(s, p.hand), "display": counts(s, p.display),
            "scores": list(p.scores), "total": p.total}


def _public_player(s: State, p: Player) -> dict:
    return {"no": p.no, "name": p.name, "hand_size": p.hand.total(), "display": counts(s, p.display),
            "scores": list(p.scores), "total": p.total}


def _table(s: State) -> dict:
    return {"game": "jail", "phase": s.phase, "round": s.round, "turn_player": s.turn_player,
            "rows": [list(row) for row in s.rows], "jail": counts(s, s.jail)}


def _rounds(s: State) -> list[dict]:
    return [asdict(r) for r in s.rounds]


def replay(s: State, log: list) -> dict:
    """`companion replay --json`: the contract's keys exactly."""
    return {**_table(s), "deck": counts(s, s.deck), "players": [_player(s, p) for p in s.players.values()],
            "rounds": _rounds(s), "winner": winner(s), "log": log}


def staff(s: State) -> dict:
    return {**_table(s), "event": s.event, "kinds": list(s.kinds), "deck": counts(s, s.deck), "discard": counts(s, s.discard),
            "progress": rules.progress(s.jail), "taken": list(s.taken) if s.taken else None,
            "players": [_player(s, p) for p in s.players.values()], "rounds": _rounds(s), "winner": winner(s)}


def public(s: State) -> dict:
    return {**_table(s), "event": s.event, "kinds": list(s.kinds), "progress": rules.progress(s.jail),
            "deck_size": s.deck.total(),
            "players": [_public_player(s, p) for p in s.players.values()], "rounds": _rounds(s), "winner": winner(s)}
