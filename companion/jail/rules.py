"""The table's arithmetic (J3-J6), shared by decide, evolve and the views: groups in a row, the
round's end, scoring."""
from __future__ import annotations

from collections import Counter
from itertools import groupby

HAND_SIZES = (3, 4, 5, 5)    # J2: dealt from the start player on
ROUNDS = 3                   # J6
END_CONDITIONS = ((6, 2), (2, 6))   # J4: (cards of a kind, kinds): 6+ of 2 kinds, or 2+ of 6 kinds


def groups(row: list[str]) -> list[tuple[str, int]]:
    """The row's runs of adjacent cards of one kind, left to right: (kind, count)."""
    return [(kind, len(list(run))) for kind, run in groupby(row)]


def takeable(row: list[str]) -> bool:
    """J3.2: a row from which no group can be sent to jail cannot be taken from."""
    return len(groups(row)) >= 2


def take(row: list[str], end: str) -> tuple[tuple[str, int], tuple[str, int]]:
    """The group taken at that end and the next group inward, jailed (J3.1-2)."""
    runs = groups(row) if end == "left" else groups(row)[::-1]
    return runs[0], runs[1]


def progress(jail: Counter) -> list[dict]:
    """Towards each end condition (J4): how many kinds have enough cards, of how many needed."""
    return [{"cards": cards, "kinds": sum(1 for n in jail.values() if n >= cards), "needed": kinds}
            for cards, kinds in END_CONDITIONS]


def round_ends(jail: Counter) -> bool:
    return any(p["kinds"] >= p["needed"] for p in progress(jail))


def collected(jail: Counter, display: Counter, kinds: list[str]) -> dict[str, int]:
    """J5: the jail's cards of every kind the player shows (not the displayed cards themselves)."""
    return {kind: jail[kind] for kind in kinds if display[kind] and jail[kind]}


def score(cards: dict[str, int]) -> int:
    """J5: cards collected x kinds collected."""
    return sum(cards.values()) * len(cards)
