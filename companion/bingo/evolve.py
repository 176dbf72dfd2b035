"""evolve(state, event) -> new state. Pure; the journal's events folded in order give the game."""
from __future__ import annotations

from functools import reduce

from ..core import review
from . import events as e
from .rules import DRAW_SIZE, START_ACCOUNT, Rules
from .state import Ballot, Line, Player, Robbery, State, Tally


def evolve(state: State, event) -> State:
    new = state.copy()
    APPLY[type(event)](new, event)
    return new


def fold(events, state: State | None = None) -> State:
    return reduce(evolve, events, state or State())


def _spend(s: State, player: int, item: str) -> None:
    items = s.players[player].items
    items[item] = max(items.get(item, 0) - 1, 0)


def _move_money(s: State, moved: list[dict]) -> None:
    for t in moved:
        s.players[t["victim"]].balance -= t["amount"]
        s.players[t["robber"]].balance += t["amount"]
    s.robberies, s.robbed = [], len(moved)


def set_up(s: State, ev: e.GameSetUp) -> None:
    s.event, s.rules, s.phase = ev.event, Rules(**ev.rules), "ready"
    s.reveal_accounts = ev.reveal_accounts
    s.players = {p["no"]: Player(p["no"], p["name"], p["account"], list(p["card"]), START_ACCOUNT)
                 for p in ev.players}


def turn_began(s: State, ev: e.TurnBegan) -> None:
    s.turn, s.phase = ev.turn, "draw"
    for ball in ev.refilled:       # D23: the refill, then the moves (older journals: never the same ball)
        s.place[ball] = "machine"
    for ball, _, to in ev.moves:
        s.place[ball] = to
    s.moves_due, s.ballots, s.robberies, s.inout, s.drawn = [], [], [], [], []
    if ev.announce:
        s.announced = dict(ev.announce)


def balls_drawn(s: State, ev: e.BallsDrawn) -> None:
    s.drawn += ev.balls
    for ball in ev.balls:
        s.place[ball] = "drawn"
    if len(s.drawn) == min(DRAW_SIZE, len(s.drawn) + len(s.balls_in("machine"))):   # D1
        s.phase = "voting"


def vote_counted(s: State, ev: e.VoteCounted) -> None:
    _card_seen(s, ev.serial)
    s.ballots.append(Ballot(ev.serial, ev.choice))


def card_invalid(s: State, ev: e.CardInvalid) -> None:
    _card_seen(s, ev.serial)
    if ev.card == "vote" and not ev.duplicate:
        s.ballots.append(Ballot(ev.serial, None))
    if ev.player:
        _spend(s, ev.player, ev.card)


def item_bought(s: State, ev: e.ItemBought) -> None:
    player = s.players[ev.player]
    player.items[ev.item] = player.items.get(ev.item, 0) + 1
    if ev.from_account:
        player.balance -= ev.price


def _card_seen(s: State, serial: str) -> None:
    if serial:
        s.serials.add(serial)


def inout_filed(s: State, ev: e.InOutFiled) -> None:
    _card_seen(s, ev.serial)
    _spend(s, ev.player, "inout")
    s.inout.append((ev.ball, ev.dir))


def cell_changed(s: State, ev: e.CellChanged) -> None:
    _card_seen(s, ev.serial)
    _spend(s, ev.player, "change")
    s.players[ev.player].card[ev.cell - 1] = ev.new


def ball_excluded(s: State, ev: e.BallExcluded) -> None:
    _card_seen(s, ev.serial)
    _spend(s, ev.player, "exclusion")
    s.place[ev.ball] = "excluded"


def voting_closed(s: State, ev: e.VotingClosed) -> None:
    s.tally = Tally(dict(ev.options), dict(ev.votes), ev.invalid, ev.void, list(ev.valid))
    for ball in ev.valid:
        s.place[ball] = "valid"
        s.valid.append(ball)
    for ball in ev.pooled:
        s.place[ball] = "pool"
    for formed in ev.lines:
        player = s.players[formed["player"]]
        start = len(player.lines)
        player.lines += [Line(name, start + i + 1, s.turn) for i, name in enumerate(formed["lines"])]
    s.moves_due = [(ball, direction) for ball, direction in ev.moves_due]
    s.drawn, s.phase = [], "resolve"


def lines_ordered(s: State, ev: e.LinesOrdered) -> None:
    lines = s.players[ev.player].lines
    chosen = [line for line in lines if line.line in ev.lines]
    ordinals = sorted(line.ordinal for line in chosen)
    for line in chosen:
        line.ordinal = ordinals[ev.lines.index(line.line)]
    lines.sort(key=lambda line: line.ordinal)


def robbery_filed(s: State, ev: e.RobberyFiled) -> None:
    _card_seen(s, ev.serial)
    s.robberies.append(Robbery(ev.serial, ev.robber, ev.victim, ev.ordinal))


def card_voided(s: State, ev: e.CardVoided) -> None:
    s.serials.discard(ev.serial)
    s.held.pop(ev.serial, None)
    s.ballots = [b for b in s.ballots if b.serial != ev.serial]
    s.robberies = [r for r in s.robberies if r.serial != ev.serial]


def turn_ended(s: State, ev: e.TurnEnded) -> None:
    _move_money(s, ev.transfers)
    s.phase = "turn_over"


def final_began(s: State, ev: e.FinalBegan) -> None:
    if ev.announce:
        s.announced = dict(ev.announce)
    s.robberies, s.phase = [], "final"


def final_ended(s: State, ev: e.FinalEnded) -> None:
    _move_money(s, ev.transfers)
    s.phase = "counting"


def cash_counted(s: State, ev: e.CashCounted) -> None:
    s.players[ev.player].cash = ev.amount


def game_finished(s: State, ev: e.GameFinished) -> None:
    s.results = [dict(row) for row in ev.results]
    if ev.announce:
        s.announced = dict(ev.announce)
    s.phase = "finished"


APPLY = {
    e.GameSetUp: set_up, e.TurnBegan: turn_began, e.BallsDrawn: balls_drawn,
    e.VoteCounted: vote_counted, e.CardInvalid: card_invalid, e.ItemBought: item_bought,
    e.InOutFiled: inout_filed, e.CellChanged: cell_changed, e.BallExcluded: ball_excluded,
    e.VotingClosed: voting_closed, e.LinesOrdered: lines_ordered, e.RobberyFiled: robbery_filed,
    e.CardVoided: card_voided, e.TurnEnded: turn_ended, e.FinalBegan: final_began,
    e.FinalEnded: final_ended, e.CashCounted: cash_counted, e.GameFinished: game_finished,
    e.CardHeld: review.card_held, e.CardRuled: review.card_ruled,
}
