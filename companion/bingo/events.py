"""Events: the facts the journal keeps. Only JSON-friendly fields, so replay == live."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..core.events import CardHeld, CardRuled, CardVoided, Events, Undone  # noqa: F401
from .rules import ITEM_NAMES


def _one_inout_card(data: dict, key: str) -> dict:
    """D22: one IN/OUT card, named "inout"; version 1 (before D22) named it "in" or "out", by the
    direction it was bought for or used in."""
    old = data.get(key)
    return {**data, key: ITEM_NAMES[old]} if isinstance(old, str) and old in ITEM_NAMES else data


@dataclass
class GameSetUp:
    event: str
    players: list[dict]      # no, name, account, card
    rules: dict
    reveal_accounts: bool = False   # the event file's [event] reveal_accounts (older journals: absent)


@dataclass
class TurnBegan:
    turn: int
    moves: list[list]        # [ball, from, to] carried out after the refill (R15, D9, D23)
    skipped: list[list]      # [ball, dir, why] IN/OUT moves that did nothing (D9)
    refilled: list[int]      # R8: pool balls put back into the machine, first (D23)
    announce: dict | None    # R13: balances by account letter, when changed


@dataclass
class BallsDrawn:
    balls: list[int]


@dataclass
class VoteCounted:
    serial: str
    choice: str


@dataclass
class CardInvalid:
    class_version: ClassVar[int] = 2
    card: str                # vote, robbery, inout, change, exclusion
    serial: str
    reason: str
    duplicate: bool = False  # D3: a repeat is flagged and not counted at all
    player: int = 0          # special cards: whose card is spent

    @staticmethod
    def upcast_v1_to_v2(data: dict) -> dict:
        return _one_inout_card(data, "card")


@dataclass
class ItemBought:
    class_version: ClassVar[int] = 2
    player: int
    item: str                # inout, change, exclusion
    price: int
    from_account: bool       # D8

    @staticmethod
    def upcast_v1_to_v2(data: dict) -> dict:
        return _one_inout_card(data, "item")


@dataclass
class InOutFiled:
    player: int
    dir: str
    ball: int
    serial: str = ""


@dataclass
class CellChanged:
    player: int
    cell: int
    old: int
    new: int
    serial: str = ""


@dataclass
class BallExcluded:
    player: int
    ball: int
    serial: str = ""


@dataclass
class VotingClosed:
    options: dict            # letter -> ball
    votes: dict              # letter -> count
    invalid: int
    void: bool
    valid: list[int]
    pooled: list[int]
    lines: list[dict]        # [{player, lines: [name, ...]}] in ordinal order
    moves_due: list[list]    # [ball, dir] announced now, carried out next turn (R15)


@dataclass
class LinesOrdered:
    player: int
    lines: list[str]


@dataclass
class RobberyFiled:
    serial: str
    robber: int
    victim: int
    ordinal: int


@dataclass
class TurnEnded:
    turn: int
    transfers: list[dict]    # serial, robber, victim, ordinal, amount


@dataclass
class FinalBegan:
    announce: dict | None


@dataclass
class FinalEnded:
    transfers: list[dict]


@dataclass
class CashCounted:
    player: int
    amount: int


@dataclass
class GameFinished:
    results: list[dict]      # player, cash, account, bonus, penalty, final, rank
    announce: dict | None


EVENTS = Events(
    GameSetUp, TurnBegan, BallsDrawn, VoteCounted, CardInvalid, ItemBought, InOutFiled,
    CellChanged, BallExcluded, VotingClosed, LinesOrdered, RobberyFiled,
    TurnEnded, FinalBegan, FinalEnded, CashCounted, GameFinished)
encode, decode = EVENTS.encode, EVENTS.decode
