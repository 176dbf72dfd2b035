"""fold(events, state) -> new state. Pure; the journal's events folded in order give the night."""
from __future__ import annotations

from dataclasses import replace

from ..core import review
from ..core.events import CardHeld, CardRuled, CardVoided
from ..core.games import folding
from . import events as e
from .state import Game, Player, State


def set_up(s: State, ev: e.GameSetUp) -> None:
    s.event, s.phase = ev.event, "ready"
    s.players = {p["no"]: Player(p["no"], p["name"]) for p in ev.players}


def dealt(s: State, ev: e.GameDealt) -> None:
    s.games.append(Game(ev.no, ev.dealer, ev.stake))
    s.phase = "betting"


def _card_seen(s: State, serial: str) -> None:
    if serial:
        s.serials.add(serial)


def bet_placed(s: State, ev: e.BetPlaced) -> None:
    _card_seen(s, ev.serial)
    s.game.bets[ev.player] = ev.number          # D2: a second bet replaces the first
    s.game.cards[ev.player] = ev.serial


def bet_invalid(s: State, ev: e.BetInvalid) -> None:
    _card_seen(s, ev.serial)


def closed(s: State, ev: e.BetsClosed) -> None:
    s.phase = "closed"


def settled(s: State, ev: e.GameSettled) -> None:
    game = s.game
    game.result, game.winner, game.number = ev.result, ev.winner, ev.number
    s.players = {no: replace(p) for no, p in s.players.items()}
    for player in game.bets:
        s.players[player].net -= game.stake
    s.players[ev.winner].net += ev.pot              # V5: the whole pot
    s.phase = "ready"


def voided(s: State, ev: e.GameVoided) -> None:
    s.game.result, s.phase = "no_game", "ready"     # V6: the stakes go back, the ledger is unchanged


def card_voided(s: State, ev: CardVoided) -> None:
    s.serials.discard(ev.serial)
    s.held.pop(ev.serial, None)
    game = s.game
    for player in [p for p, serial in game.cards.items() if serial == ev.serial]:
        del game.bets[player], game.cards[player]


APPLY = {
    e.GameSetUp: set_up, e.GameDealt: dealt, e.BetPlaced: bet_placed, e.BetInvalid: bet_invalid,
    e.BetsClosed: closed, e.GameSettled: settled, e.GameVoided: voided, CardVoided: card_voided,
    CardHeld: review.card_held, CardRuled: review.card_ruled,
}
fold = folding(APPLY, State)
