"""fold(events, state) -> new state. Pure; the journal's events folded in order give the table."""
from __future__ import annotations

from collections import Counter

from ..core.games import folding
from . import events as e
from . import rules
from .decide import DEAD_ROWS
from .state import Player, Round, State


def set_up(s: State, ev: e.GameSetUp) -> None:
    s.event, s.phase, s.kinds, s.deck = ev.event, "layout", list(ev.deck), Counter(ev.deck)
    s.players = {p["no"]: Player(p["no"], p["name"]) for p in ev.players}


def _start_turn(s: State) -> None:
    """D6: when no row can be taken from, staff lay out new rows and the same player goes on."""
    s.phase = "turn" if any(rules.takeable(row) for row in s.rows) else "relayout"


def laid_out(s: State, ev: e.RowsLaidOut) -> None:
    s.discard += Counter(card for row in s.rows for card in row)
    s.deck -= Counter(card for row in ev.rows for card in row)
    s.rows = [list(row) for row in ev.rows]
    if s.phase == "round_over":
        s.round += 1
    if s.dealt:
        _start_turn(s)
    else:
        s.phase = "deal"


def dealt(s: State, ev: e.HandsDealt) -> None:
    for no, cards in ev.hands.items():
        s.players[int(no)].hand += Counter(cards)
        s.deck -= Counter(cards)
    s.dealt = True
    _start_turn(s)


def taken(s: State, ev: e.GroupTaken) -> None:
    row = s.rows[ev.row - 1]
    cut = ev.count + ev.jailed_count
    s.rows[ev.row - 1] = row[cut:] if ev.end == "left" else row[:len(row) - cut]
    s.players[ev.player].hand[ev.kind] += ev.count
    s.jail[ev.jailed] += ev.jailed_count
    s.taken, s.phase = (ev.row, ev.end), "play"


def _next_player(s: State, player: int) -> int:
    return (s.order.index(player) + 1) % len(s.order)


def round_ended(s: State, ev: e.RoundEnded) -> None:
    """J5, D3: the collected cards are set aside, the rest of the jail is discarded; D5: the next
    player starts the next round."""
    for no, cards in ev.collected.items():
        s.jail -= Counter(cards)
        s.players[int(no)].scores.append(ev.scores[no])
    s.discard += s.jail
    s.jail = Counter()
    s.rounds.append(Round(ev.no, ev.ended_by, ev.collected, ev.scores))
    s.turn, s.taken = _next_player(s, ev.ended_by), None
    s.phase = "finished" if ev.no >= rules.ROUNDS else "round_over"


def played(s: State, ev: e.GroupPlayed) -> None:
    for no, count in ev.beaten.items():
        del s.players[int(no)].display[ev.kind]
        s.discard[ev.kind] += count
    player = s.players[ev.player]
    player.hand[ev.kind] -= ev.count
    player.display[ev.kind] += ev.count
    s.phase = "refill"


def refilled(s: State, ev: e.Refilled) -> None:
    if ev.kind is not None:
        row_no, end = s.taken
        row = s.rows[row_no - 1]
        row.insert(0 if end == "left" else len(row), ev.kind)
        s.deck[ev.kind] -= 1
    s.turn, s.taken = _next_player(s, ev.player), None
    _start_turn(s)


def reshuffled(s: State, ev: e.Reshuffled) -> None:
    """D7: the discard pile becomes the deck; between rounds or when no row can be taken from, the
    row cards (discarded by the next layout anyway) go with it."""
    if s.phase in DEAD_ROWS:
        s.rows = [[] for _ in s.rows]
    s.deck += Counter(ev.cards)
    s.discard = Counter()


APPLY = {e.GameSetUp: set_up, e.RowsLaidOut: laid_out, e.HandsDealt: dealt, e.GroupTaken: taken,
         e.RoundEnded: round_ended, e.GroupPlayed: played, e.Refilled: refilled, e.Reshuffled: reshuffled}
fold = folding(APPLY, State)
