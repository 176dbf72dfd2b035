"""Plunder Bingo's commands in the rehearsal-script format ({"do": ...}), described once in a
Schema (companion.core.commands) that checks their shape; whether a well-formed command is
allowed by the rules is for decide() to say.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core.commands import (MAX_DEPTH, MAX_NUMBER, MAX_TEXT, Hold, Malformed, Rule, Schema, Undo, Void,  # noqa: F401
                             check_players, loads, shown)
from .rules import ITEM_NAMES, LINES, OPTIONS


@dataclass(frozen=True)
class Setup:
    event: str
    players: list[dict]
    rules: dict
    reveal_accounts: bool = False   # the finished public view may tie names to account letters (R13)
    game: str | None = None         # "bingo", or left out: the game a journal's first line names


@dataclass(frozen=True)
class BeginTurn: pass


@dataclass(frozen=True)
class Draw:
    balls: list[int]


@dataclass(frozen=True)
class DrawBall:
    ball: int


@dataclass(frozen=True)
class Vote:
    serial: str
    turn: int
    marks: list[str]
    owner: int | None = None    # optional: must agree with the owner the printed serial names


@dataclass(frozen=True)
class Buy:
    player: int
    item: str


@dataclass(frozen=True)
class InOut:
    player: int
    dir: str
    ball: int
    serial: str = ""


@dataclass(frozen=True)
class Change:
    player: int
    cell: int
    number: int
    serial: str = ""


@dataclass(frozen=True)
class Exclude:
    player: int
    ball: int
    serial: str = ""


@dataclass(frozen=True)
class CloseVoting: pass


@dataclass(frozen=True)
class OrderLines:
    player: int
    lines: list[str]


@dataclass(frozen=True)
class Rob:
    serial: str
    robber: int
    victim: int
    ordinal: int
    owner: int | None = None    # optional: must agree with the owner the printed serial names


@dataclass(frozen=True)
class EndTurn: pass


@dataclass(frozen=True)
class BeginFinal: pass


@dataclass(frozen=True)
class EndFinal: pass


@dataclass(frozen=True)
class Cash:
    player: int
    amount: int


@dataclass(frozen=True)
class Finish: pass


COMMANDS = {
    "setup": Setup, "begin_turn": BeginTurn, "draw": Draw, "draw_ball": DrawBall, "vote": Vote, "buy": Buy,
    "inout": InOut, "change": Change, "exclude": Exclude, "close_voting": CloseVoting,
    "order_lines": OrderLines, "rob": Rob, "end_turn": EndTurn, "begin_final": BeginFinal,
    "end_final": EndFinal, "cash": Cash, "finish": Finish,
}
CARDS = (Vote, Rob, InOut, Change, Exclude)   # commands that come from a scanned card
ENUMS = {("Setup", "game"): ("bingo",), ("Vote", "marks"): OPTIONS, ("Buy", "item"): tuple(ITEM_NAMES), ("InOut", "dir"): ("in", "out"),
         ("OrderLines", "lines"): tuple(LINES)}
OPTIONAL = {("Setup", "rules"): {}, ("Setup", "game"): None, ("Setup", "reveal_accounts"): False, ("Vote", "owner"): None, ("Rob", "owner"): None,
            ("InOut", "serial"): "", ("Change", "serial"): "", ("Exclude", "serial"): ""}
PLAYER_KEYS = {"no": int, "name": str, "account": str, "card": list}
# Optional keys left out of a command's dict while unset, so commands journaled without them read the same.
UNSET_LEFT_OUT = {("Vote", "owner"), ("Rob", "owner"), ("Setup", "reveal_accounts"), ("Setup", "game")}

SCHEMA = Schema(COMMANDS, CARDS, ENUMS, OPTIONAL, UNSET_LEFT_OUT,
                checks={Setup: lambda values: check_players("setup", values["players"], PLAYER_KEYS)})
COMMANDS = SCHEMA.commands
NAMES = SCHEMA.names
name_of, to_dict, parse = SCHEMA.name_of, SCHEMA.to_dict, SCHEMA.parse
