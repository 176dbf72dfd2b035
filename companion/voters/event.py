"""Voters' part of the event file: players with a number and a name only, no [rules] (the dealer
sets each game's stake, V9); its setup command and its commented example."""
from __future__ import annotations

from ..core.games import EventRules
from ..core.event_file import VERSION, EventFileError, journal_name, slug
from .decide import MAX_NO, MIN_PLAYERS


def setup_command(event) -> dict:
    return {"do": "setup", "game": "voters", "event": event.name, "players": event.players}


def example(name: str, players: int, seed: int, secret: str) -> str:
    if not MIN_PLAYERS <= players <= MAX_NO:
        raise EventFileError(f"players must be {MIN_PLAYERS}-{MAX_NO} (V1; number cards print two digits)")
    blocks = [f'[[players]]\nno = {no}\nname = "Player {no}"\n' for no in range(1, players + 1)]
    return f'''# Voters event file. Each game's dealer and stake are set at the table (V8, V9).
version = {VERSION}

[event]
game = "voters"
name = "{name}"
id = "{slug(name)}"          # printed in every number card's code
secret = "{secret}"   # signs printed cards: keep it private
journal = "{journal_name(name, 'voters')}"  # the event's journal, next to this file (backup = "/media/usb/....db": a copy each game)

''' + "\n".join(blocks)


EVENT = EventRules({}, {}, lambda data, where: None, setup_command, example)
