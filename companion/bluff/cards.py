"""Auction Bluff's cards read (AB7): a dice-vote card counts with at most one face a row (the rows of
dice not held stay blank); two faces on one die, or none at all, a person rules. A declaration card
wants one mark in each field (D2)."""
from __future__ import annotations

from ..core.cards import CardRead, CardRules, Finding


def marks(read: CardRead) -> list[Finding]:
    if read.kind != "bluff_dice":
        return read.not_one()
    twice = [(name, len(values)) for name, values in read.fields.items() if len(values) > 1]
    return [("faces_twice", {"counts": twice})] if twice else [] if any(read.fields.values()) else [("no_face", {})]


def command(read: CardRead) -> dict:
    if read.kind == "bluff_dice":       # the faces of the dice rows marked, in order, for the card's gem
        faces = [values[0] for values in read.fields.values() if len(values) == 1]
        return {"do": "dice", "player": read.owner, "faces": {read.printed["gem"]: faces}, "serial": read.serial}
    return {"do": "declare", "player": read.owner, "face": read.number("face"),
            "count": read.two_digits("count_tens", "count_units"), "serial": read.serial}


CARDS = CardRules(marks, command)
