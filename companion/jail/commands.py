"""The jail card game's commands in the rehearsal-script format ({"do": ...}), described once in a
Schema (companion.core.commands); whether a well-formed command is allowed is for decide() to say."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.commands import Malformed, Schema, check_players, shown

ROWS, ROW_LENGTH = 3, 10     # J2: 3 rows of 10 cards
KIND = re.compile(r"[^\s\"]{1,12}")   # a kind's name: what staff type for it, so short and without spaces
MAX_COPIES = 99              # J1: the number printed on the card


@dataclass(frozen=True)
class Setup:
    event: str
    game: str
    deck: dict               # kind -> copies (J1, D1)
    players: list[dict]      # no, name: in turn order, the start player first


@dataclass(frozen=True)
class Layout:
    rows: list               # three lists of kinds, left to right


@dataclass(frozen=True)
class Deal:
    hands: dict              # player no. as a string -> list of kinds


@dataclass(frozen=True)
class Take:
    player: int
    row: int                 # 1-3
    end: str                 # left | right


@dataclass(frozen=True)
class Play:
    player: int
    kind: str
    count: int


@dataclass(frozen=True)
class Refill:
    player: int
    kind: str | None         # None only when the deck is empty (D4)


@dataclass(frozen=True)
class Reshuffle: pass


def check_deck(deck: dict, where: str = "setup") -> None:
    """J1, D1: kind -> copies, each kind a short name, each count 1-99."""
    if not deck:
        raise Malformed(f"{where}: the deck needs at least one kind")
    for kind, copies in deck.items():
        if not (isinstance(kind, str) and KIND.fullmatch(kind)):
            raise Malformed(f"{where}: deck kind {shown(kind)} must be 1-12 characters without spaces")
        if type(copies) is not int or not 1 <= copies <= MAX_COPIES:
            raise Malformed(f"{where}: deck {kind} must be a whole number of copies 1-{MAX_COPIES}, not {shown(copies)}")


def _check_kinds(where: str, cards) -> None:
    if not isinstance(cards, list) or not all(isinstance(card, str) for card in cards):
        raise Malformed(f"{where} must be a list of kinds, not {shown(cards)}")


def _check_setup(values: dict) -> None:
    check_players("setup", values["players"], PLAYER_KEYS)
    check_deck(values["deck"])


def _check_layout(values: dict) -> None:
    rows = values["rows"]
    if len(rows) != ROWS:
        raise Malformed(f"layout: rows must be {ROWS} lists of kinds, not {len(rows)}")
    for no, row in enumerate(rows, 1):
        _check_kinds(f"layout: row {no}", row)


def _check_deal(values: dict) -> None:
    for player, cards in values["hands"].items():
        _check_kinds(f"deal: hand {shown(player)}", cards)


def _check_take(values: dict) -> None:
    if not 1 <= values["row"] <= ROWS:
        raise Malformed(f"take: row must be 1-{ROWS}, not {values['row']}")


def _check_play(values: dict) -> None:
    if values["count"] < 1:
        raise Malformed(f"play: count must be at least 1, not {values['count']}")


COMMANDS = {"setup": Setup, "layout": Layout, "deal": Deal, "take": Take, "play": Play, "refill": Refill,
            "reshuffle": Reshuffle}
PLAYER_KEYS = {"no": int, "name": str}
SCHEMA = Schema(COMMANDS, enums={("Setup", "game"): ("jail",), ("Take", "end"): ("left", "right")},
                nullable={("Refill", "kind")},
                checks={Setup: _check_setup, Layout: _check_layout, Deal: _check_deal, Take: _check_take,
                        Play: _check_play})
