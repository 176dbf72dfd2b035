"""What a printed card says once read, game-independent: the marks read per field, and what a game's
rules make of them (CardRules, declared by each game that prints cards: GameRules.card_rules).

The scanner (vision/cards) reads the marks and decides whether they were read safely; the game
says what they mean: which readings its rules make invalid or leave to a person (findings named by
the scanner's reason codes, vision/cards/reasons.py), and the referee command a card becomes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass(frozen=True)
class CardRead:
    kind: str
    fields: dict                 # field name -> the values read as marked there, in print order
    serial: str = ""
    owner: int = 0
    turn: int = 0
    printed: dict = field(default_factory=dict)     # what the card's print says (its gem, ...)

    def one(self, name: str) -> str | None:
        """The one value marked in a field; None where none or several are (a person supplies it)."""
        values = self.fields[name]
        return values[0] if len(values) == 1 else None

    def number(self, name: str) -> int | None:
        value = self.one(name)
        return None if value is None else int(value)

    def two_digits(self, tens: str, units: str) -> int | None:
        """A number marked in two digit rows: both read, or it is not."""
        high, low = self.number(tens), self.number(units)
        return None if high is None or low is None else 10 * high + low

    def not_one(self) -> list[tuple[str, dict]]:
        """D2, for a card each of whose fields holds one mark: the fields holding none or several."""
        wrong = [(name, len(values)) for name, values in self.fields.items() if len(values) != 1]
        return [("fields_not_one", {"counts": wrong})] if wrong else []


Finding = tuple[str, dict]       # a reason code (vision/cards/reasons.Code) and the values its message names


@dataclass(frozen=True)
class CardRules:
    marks: Callable[[CardRead], list[Finding]]     # what the rules say of the marks read; none: it counts
    command: Callable[[CardRead], dict]            # the referee command the card becomes
