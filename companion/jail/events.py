"""The jail card game's events: the facts the journal keeps. Only JSON-friendly fields (player
numbers as strings where they are keys), so replay == live."""
from __future__ import annotations

from dataclasses import dataclass

from ..core.events import Events


@dataclass
class GameSetUp:
    event: str
    deck: dict               # kind -> copies (J1)
    players: list[dict]      # no, name, in turn order


@dataclass
class RowsLaidOut:
    rows: list[list[str]]    # the row cards still on the table are discarded


@dataclass
class HandsDealt:
    hands: dict              # player no. (string) -> kinds


@dataclass
class GroupTaken:
    player: int
    row: int
    end: str
    kind: str                # the group at that end, into the hand (J3.1)
    count: int
    jailed: str              # the next group inward, into the jail (J3.2)
    jailed_count: int


@dataclass
class RoundEnded:
    no: int
    ended_by: int            # the player whose take ended it (J4)
    collected: dict          # player no. (string) -> {kind: count} (J5)
    scores: dict             # player no. (string) -> cards collected x kinds collected


@dataclass
class GroupPlayed:
    player: int
    kind: str
    count: int
    beaten: dict             # player no. (string) -> the cards of that kind they showed, now discarded (J3.3)


@dataclass
class Refilled:
    player: int
    kind: str | None         # None: the deck was empty (D4)


@dataclass
class Reshuffled:
    cards: dict              # kind -> count: the discard pile (and dead rows), now the deck (D7)


EVENTS = Events(GameSetUp, RowsLaidOut, HandsDealt, GroupTaken, RoundEnded, GroupPlayed, Refilled, Reshuffled)


def invalid_reason(event) -> str | None:
    return None              # no scanned cards: a command is ok or rejected
