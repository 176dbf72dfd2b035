"""Auction Bluff's events: the facts the journal keeps. Only JSON-friendly fields, so replay == live."""
from __future__ import annotations

from dataclasses import dataclass

from ..core.events import Events


@dataclass
class GameSetUp:
    event: str
    players: list[dict]      # no, name, gem (AB1: each holds the 5 dice of their gem)
    star_wild: bool          # D1


@dataclass
class PeriodOpened:
    no: int


@dataclass
class DiceSet:
    player: int
    faces: dict              # gem -> faces; replaces the player's earlier dice vote this period
    serial: str = ""


@dataclass
class DiceCardInvalid:
    """A dice-vote card ruled invalid: the player has no dice vote from it (D3)."""
    player: int
    serial: str
    reason: str


@dataclass
class DiceTransferred:
    giver: int
    to: int
    gem: str
    count: int
    cleared: list[int]       # D5: dice votes cleared (a transfer during the dice vote)


@dataclass
class DiceClosed:
    unset: list[int]         # D3: players not eliminated without a dice vote: their dice count for no face


@dataclass
class Declared:
    player: int
    face: int | str | None
    count: int | None
    serial: str = ""
    reason: str = ""         # why it is invalid (never selected); "" when valid


@dataclass
class DeclarationCancelled:
    player: int
    consent: list[int]


@dataclass
class PeriodJudged:
    no: int
    selected: dict | None    # player, face, count; None: nobody declared (AB4)
    true_count: int | None
    result: str              # won | eliminated | no_declaration


EVENTS = Events(GameSetUp, PeriodOpened, DiceSet, DiceCardInvalid, DiceTransferred, DiceClosed, Declared,
                DeclarationCancelled, PeriodJudged)


def invalid_reason(event) -> str | None:
    return event.reason or None if isinstance(event, (Declared, DiceCardInvalid)) else None
