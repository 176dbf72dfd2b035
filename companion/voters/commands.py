"""Voters' commands in the rehearsal-script format ({"do": ...}), described once in a Schema
(companion.core.commands); whether a well-formed command is allowed is for decide() to say."""
from __future__ import annotations

from dataclasses import dataclass

from ..core.commands import Malformed, Schema, check_players

NUMBERS = range(10)          # V1: one integer 0-9 on each card


@dataclass(frozen=True)
class Setup:
    event: str
    players: list[dict]
    game: str


@dataclass(frozen=True)
class Deal:
    dealer: int
    stake: int


@dataclass(frozen=True)
class Bet:
    player: int
    number: int | None       # None: an unreadable or miswritten card (V7)
    serial: str = ""         # the printed number card's serial, N<owner><game>


@dataclass(frozen=True)
class Close: pass


@dataclass(frozen=True)
class Open: pass


@dataclass(frozen=True)
class NoGame: pass


def _check_number(values: dict) -> None:
    if values["number"] is not None and values["number"] not in NUMBERS:
        raise Malformed(f"bet: number must be 0-9 or null, not {values['number']}")


COMMANDS = {"setup": Setup, "deal": Deal, "bet": Bet, "close": Close, "open": Open, "no_game": NoGame}
PLAYER_KEYS = {"no": int, "name": str}
SCHEMA = Schema(COMMANDS, cards=(Bet,), enums={("Setup", "game"): ("voters",)},
                optional={("Bet", "serial"): ""}, nullable={("Bet", "number")},
                checks={Setup: lambda values: check_players("setup", values["players"], PLAYER_KEYS),
                        Bet: _check_number})
