"""Voters' number cards (V1): one per chosen player for each game 1..--games, the game no. as its turn."""
from __future__ import annotations

from .. import layouts as L
from . import Printer, PrintError

MAX_GAMES = 99          # a number card's serial prints the game no. in two digits


def cards(args, event, everyone: dict, chosen: list[int]):
    if args.games is None or not 1 <= args.games <= MAX_GAMES:
        raise PrintError(f"a Voters event: give --games N, 1-{MAX_GAMES} (each player's number cards for games 1..N)"
                         if args.games is None else f"--games {args.games}: give 1-{MAX_GAMES}")
    return [L.Card("number", event.id, L.serial("number", no, game), no, game, everyone[no]["name"])
            for no in chosen for game in range(1, args.games + 1)], ""


PRINTER = Printer(cards)
