"""Plunder Bingo's part of the event file: [rules], each player's account letter and bingo card,
[event] reveal_accounts, its setup command and its commented example."""
from __future__ import annotations

import random

from ..core.games import EventRules
from ..core.event_file import VERSION, Between, EventFileError, journal_name, slug
from .rules import CHOICES, Rules, card_errors

SECTIONS = {
    "event": {"reveal_accounts": (bool, None)},
    "rules": {**{key: (str, values) for key, values in CHOICES.items()},
              "turns": (int, Between(1, 99)),            # serials print the turn in two digits
              "turn_seconds": (int, Between(10, 86_400))},
    "players": {"account": (str, None), "card": (list, None)},
}
REQUIRED = {"players": ("account", "card")}


def settings(data: dict, where) -> Rules:
    try:
        rules = Rules.from_dict(data.get("rules", {}))
    except ValueError as error:
        raise EventFileError(f"{where.path}: [rules] {error}") from None
    for i, player in enumerate(data["players"]):
        problem = card_errors(player["card"])
        if problem:
            raise where.error("players", "card", f"{problem}", i)
    return rules


def setup_command(event) -> dict:
    reveal = {"reveal_accounts": True} if event.sections.get("event", {}).get("reveal_accounts") else {}
    return {"do": "setup", "event": event.name, "players": event.players, "rules": event.rules.to_dict(), **reveal}


def example(name: str, players: int, seed: int, secret: str) -> str:
    """A commented event file with seeded cards and account letters (D6)."""
    if not 2 <= players <= 26:
        raise EventFileError("players must be 2-26 (one account letter each)")
    rng = random.Random(seed)
    letters = rng.sample([chr(ord("A") + i) for i in range(players)], players)
    blocks = []
    for no in range(1, players + 1):
        card = rng.sample(range(1, 28), 9)
        blocks.append(f'[[players]]\nno = {no}\nname = "Player {no}"\naccount = "{letters[no - 1]}"   '
                      f'# secret: never shown to the audience\ncard = {card}   # 3x3, row-major\n')
    return f'''# Plunder Bingo event file. Bingo cards dealt with seed {seed} (D6).
version = {VERSION}

[event]
name = "{name}"
id = "{slug(name)}"          # printed in every card's code
secret = "{secret}"   # signs printed cards: keep it private
journal = "{journal_name(name, 'bingo')}"  # the event's journal, next to this file (backup = "/media/usb/....db": a copy each turn)

[rules]
quorum_counts = "valid"      # D4: "valid" or "submitted" (invalid cards count too)
robbery_base = "snapshot"    # D7: "snapshot" (all at once) or "sequential" (scan order)
pay_from = "account"         # D8: "account" or "cash" (chips handed over)
penalty_when = "no_line"     # D11: "no_line" or "any_missing"
turns = 15
turn_seconds = 300

''' + "\n".join(blocks)


EVENT = EventRules(SECTIONS, REQUIRED, settings, setup_command, example, seeded=True)
