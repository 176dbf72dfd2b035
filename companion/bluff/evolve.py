"""fold(events, state) -> new state. Pure; the journal's events folded in order give the game."""
from __future__ import annotations

from dataclasses import replace

from ..core import review
from ..core.events import CardHeld, CardRuled, CardVoided
from ..core.games import folding
from . import events as e
from .decide import DICE_PER_GEM, MAX_PERIODS
from .state import Declaration, Period, Player, State


def set_up(s: State, ev: e.GameSetUp) -> None:
    s.event, s.star_wild, s.phase = ev.event, ev.star_wild, "ready"
    s.players = {p["no"]: Player(p["no"], p["name"], p["gem"]) for p in ev.players}
    s.dice = {p["no"]: {p["gem"]: DICE_PER_GEM} for p in ev.players}      # AB1


def period_opened(s: State, ev: e.PeriodOpened) -> None:
    s.periods.append(Period(ev.no))
    s.phase = "dice"


def _card_seen(s: State, serial: str) -> None:
    if serial:
        s.serials.add(serial)


def dice_set(s: State, ev: e.DiceSet) -> None:
    _card_seen(s, ev.serial)
    s.period.votes[ev.player] = ev.faces


def dice_card_invalid(s: State, ev: e.DiceCardInvalid) -> None:
    _card_seen(s, ev.serial)


def transferred(s: State, ev: e.DiceTransferred) -> None:
    s.dice[ev.giver][ev.gem] -= ev.count
    if not s.dice[ev.giver][ev.gem]:
        del s.dice[ev.giver][ev.gem]
    s.dice[ev.to][ev.gem] = s.dice[ev.to].get(ev.gem, 0) + ev.count
    s.transfers.append({"period": len(s.periods), "from": ev.giver, "to": ev.to, "gem": ev.gem,
                        "count": ev.count, "cleared": ev.cleared})
    for no in ev.cleared:                                   # D5: they vote again
        del s.period.votes[no]


def dice_closed(s: State, ev: e.DiceClosed) -> None:
    s.period.closed = dict(s.period.votes)
    s.phase = "declare"


def declared(s: State, ev: e.Declared) -> None:
    _card_seen(s, ev.serial)
    s.period.declarations.append(Declaration(ev.player, ev.face, ev.count, ev.serial, ev.reason))


def cancelled(s: State, ev: e.DeclarationCancelled) -> None:
    s.period.declarations = [d for d in s.period.declarations if not (d.player == ev.player and d.valid)]


def judged(s: State, ev: e.PeriodJudged) -> None:
    period = s.period
    period.selected, period.true_count, period.result = ev.selected, ev.true_count, ev.result
    if ev.result == "won":
        s.winner = ev.selected["player"]
    if ev.result == "eliminated":
        s.players[ev.selected["player"]] = replace(s.players[ev.selected["player"]], eliminated=True)
    goes_on = ev.result == "eliminated" and s.active() and period.no < MAX_PERIODS     # D7: the fifth ends it
    s.phase = "ready" if goes_on else "finished"


def card_voided(s: State, ev: CardVoided) -> None:
    s.serials.discard(ev.serial)
    s.held.pop(ev.serial, None)


APPLY = {
    e.GameSetUp: set_up, e.PeriodOpened: period_opened, e.DiceSet: dice_set,
    e.DiceCardInvalid: dice_card_invalid, e.DiceTransferred: transferred, e.DiceClosed: dice_closed,
    e.Declared: declared, e.DeclarationCancelled: cancelled, e.PeriodJudged: judged,
    CardVoided: card_voided, CardHeld: review.card_held, CardRuled: review.card_ruled,
}
fold = folding(APPLY, State)
