"""Plunder Bingo's cards read: a vote card blank or with several marks is invalid (R6; D18: a choice
scribbled out beside another mark is still a mark); every other card wants one mark in each field (D2)."""
from __future__ import annotations

from ..core.cards import CardRead, CardRules, Finding


def marks(read: CardRead) -> list[Finding]:
    if read.kind != "vote":
        return read.not_one()
    count = len(read.fields["mark"])
    return [] if count == 1 else [("blank_vote" if not count else "two_marks" if count == 2 else "many_marks", {})]


def command(read: CardRead) -> dict:
    """A field read with no mark or several is None: a held card carries only what was read."""
    if read.kind == "vote":
        return {"do": "vote", "serial": read.serial, "turn": read.turn, "marks": list(read.fields["mark"])}
    if read.kind == "robbery":
        return {"do": "rob", "serial": read.serial, "robber": read.two_digits("robber_tens", "robber_units"),
                "victim": read.two_digits("victim_tens", "victim_units"), "ordinal": read.number("ordinal")}
    if read.kind == "inout":
        way = read.one("dir")
        return {"do": "inout", "player": read.owner, "dir": way and way.lower(), "ball": read.number("ball"),
                "serial": read.serial}
    if read.kind == "change":
        return {"do": "change", "player": read.owner, "cell": read.number("cell"), "number": read.number("number"),
                "serial": read.serial}
    return {"do": "exclude", "player": read.owner, "ball": read.number("ball"), "serial": read.serial}


CARDS = CardRules(marks, command)
