"""Plunder Bingo's cards: each chosen player's bingo card, a vote card a turn and 8 robbery cards,
and special cards (IN/OUT, change, exclusion) on demand."""
from __future__ import annotations

import re

from .. import layouts as L
from ..layouts.bingo import MAX_PLAYERS
from . import Printer, PrintError

SPECIALS = ("inout", "change", "exclusion")
ROBBERY_CARDS = 8


def cards(args, event, everyone: dict, chosen: list[int]):
    """(cards, what the summary adds)."""
    if max(everyone, default=0) > MAX_PLAYERS:
        raise PrintError(f"{args.event}: robbery cards carry player numbers 1-{MAX_PLAYERS}; "
                         f"this event has player {max(everyone)}")
    cards = []
    for no in [] if args.only_special else chosen:
        p = everyone[no]
        cards.append(L.Card("bingo", event.id, L.serial("bingo", no, 0), no, 0, p["name"], tuple(p["card"])))
        cards += [L.Card("vote", event.id, L.serial("vote", no, t), no, t, p["name"]) for t in range(1, event.rules.turns + 1)]
        cards += [L.Card("robbery", event.id, L.serial("robbery", no, k), no, 0, p["name"])
                  for k in range(1, ROBBERY_CARDS + 1)]
    number = args.first
    for kind, no, count in _specials(args.special, set(everyone)):
        for _ in range(count):
            cards.append(L.Card(kind, event.id, L.serial(kind, no, number), no, 0, everyone[no]["name"]))
            number += 1
    if not cards:
        raise PrintError("nothing to print: name --special cards or drop --only-special")
    return cards, f"; next special card number: {number}" if args.special else ""


def _specials(texts: list[str], players: set[int]) -> list[tuple[str, int, int]]:
    out = []
    for text in texts:
        match = re.fullmatch(r"(\w+)=(\d+)(?:x(\d+))?", text)
        if not match or match.group(1) not in SPECIALS:
            raise PrintError(f"--special {text!r}: write KIND=PLAYER or KIND=PLAYERxCOUNT, KIND one of "
                             f"{', '.join(SPECIALS)}")
        kind, player, count = match.group(1), int(match.group(2)), int(match.group(3) or 1)
        if player not in players:
            raise PrintError(f"--special {text!r}: there is no player {player}")
        out.append((kind, player, count))
    return out


PRINTER = Printer(cards)
