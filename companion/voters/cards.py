"""Voters' number card read: blank or with several numbers marked, it is invalid and its stake stays
in the pot (V7)."""
from __future__ import annotations

from ..core.cards import CardRead, CardRules, Finding


def marks(read: CardRead) -> list[Finding]:
    count = len(read.fields["number"])
    return [] if count == 1 else [("blank_number", {})] if not count else [("many_numbers", {"count": count})]


def command(read: CardRead) -> dict:
    return {"do": "bet", "player": read.owner, "number": read.number("number"), "serial": read.serial}


CARDS = CardRules(marks, command)
