"""Fixed numbers of the rulebook and the configurable decisions (D4, D7, D8, D11; docs/rules/plunder-bingo.md)."""
from __future__ import annotations

from dataclasses import dataclass, fields

BALLS = range(1, 28)
DRAW_SIZE = 3
OPTIONS = ("X", "Y", "Z")
START_ACCOUNT = 2_000_000          # R3
START_CASH = 1_100_000             # R3 (chips, held by the player)
ALL_LINES_BONUS = 1_000_000        # R16
MISSING_LINE_PENALTY = 1_000_000   # R16
EXCLUSION_FROM_TURN = 9            # R14

PRICES = {"inout": 20_000, "change": 400_000, "exclusion": 250_000}   # R14
# D22: one IN/OUT card, its direction written when used; older scripts and journals name it "in" or "out".
ITEM_NAMES = {**{item: item for item in PRICES}, "in": "inout", "out": "inout"}
ROBBERY_PERCENT = {1: 10, 2: 20, 3: 30, 4: 40, 5: 50, 6: 60, 7: 80, 8: 100}       # R10

# Cells are numbered 1-9 row-major; a line is three cells.
LINES = {
    "row1": (1, 2, 3), "row2": (4, 5, 6), "row3": (7, 8, 9),
    "col1": (1, 4, 7), "col2": (2, 5, 8), "col3": (3, 6, 9),
    "diag1": (1, 5, 9), "diag2": (3, 5, 7),
}

CHOICES = {
    "quorum_counts": ("valid", "submitted"),      # D4
    "robbery_base": ("snapshot", "sequential"),   # D7
    "pay_from": ("account", "cash"),              # D8
    "penalty_when": ("no_line", "any_missing"),   # D11
}


@dataclass(frozen=True)
class Rules:
    quorum_counts: str = "valid"
    robbery_base: str = "snapshot"
    pay_from: str = "account"
    penalty_when: str = "no_line"
    turns: int = 15
    turn_seconds: int = 300

    @classmethod
    def from_dict(cls, data: dict) -> "Rules":
        """Build from overrides; raises ValueError naming the key that is wrong."""
        known = {f.name for f in fields(cls)}
        for key, value in data.items():
            if key not in known:
                raise ValueError(f"unknown rule {key!r} (known: {', '.join(sorted(known))})")
            if key in CHOICES and value not in CHOICES[key]:
                raise ValueError(f"rule {key} must be one of {', '.join(CHOICES[key])}, not {value!r}")
            if key in ("turns", "turn_seconds") and (type(value) is not int or value < 1):
                raise ValueError(f"rule {key} must be a positive whole number, not {value!r}")
        return cls(**data)

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def beats_secretariat(final: int) -> bool:
    """R2: a player who ends without debt (final money >= 0) wins against the secretariat."""
    return final >= 0


def robbery_amount(balance: int, ordinal: int) -> int:
    """R10, rounded down; a debtor (negative balance) has nothing to take."""
    return max(balance, 0) * ROBBERY_PERCENT[ordinal] // 100


def card_errors(card) -> str | None:
    """Why a 3x3 bingo card (9 numbers, row-major) is not acceptable, or None."""
    if not isinstance(card, list) or len(card) != 9:
        return "a bingo card has exactly 9 numbers"
    if any(type(n) is not int or n not in BALLS for n in card):
        return "bingo card numbers are whole numbers 1-27"
    if len(set(card)) != 9:
        return "bingo card numbers must be distinct"
    return None
