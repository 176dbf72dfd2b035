"""Voters' events: the facts the journal keeps. Only JSON-friendly fields, so replay == live."""
from __future__ import annotations

from dataclasses import dataclass

from ..core.events import Events


@dataclass
class GameSetUp:
    event: str
    players: list[dict]      # no, name


@dataclass
class GameDealt:
    no: int
    dealer: int
    stake: int


@dataclass
class BetPlaced:
    player: int
    number: int | None       # None: an invalid card (V7): in the game, its stake in the pot
    serial: str = ""
    reason: str = ""         # why the card is invalid, when number is None


@dataclass
class BetInvalid:
    """A card not counted at all: a duplicate, or printed for another player or game."""
    player: int
    serial: str
    reason: str


@dataclass
class BetsClosed:
    dropped: list[int]       # V2: players without a bet


@dataclass
class GameSettled:
    result: str              # won | dobon
    winner: int              # the dealer's no. on dobon
    number: int | None
    pot: int


@dataclass
class GameVoided:
    """V6: the dealer lost the cards; every stake goes back."""


EVENTS = Events(GameSetUp, GameDealt, BetPlaced, BetInvalid, BetsClosed, GameSettled, GameVoided)


def invalid_reason(event) -> str | None:
    return event.reason or None if isinstance(event, (BetPlaced, BetInvalid)) else None
