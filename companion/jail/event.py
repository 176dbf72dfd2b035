"""The jail card game's part of the event file: the deck (D1: kind -> copies, in [rules.deck]),
players in turn order; its setup command and its commented example."""
from __future__ import annotations

from ..core.commands import Malformed
from ..core.games import EventRules
from ..core.event_file import VERSION, EventFileError, journal_name, slug
from .commands import check_deck
from .decide import MAX_PLAYERS, MIN_PLAYERS

# An EXAMPLE deck, not the published game's: ten kinds, each printed with its number of copies (J1).
EXAMPLE_DECK = {kind: copies for kind, copies in zip("ABCDEFGHIJ", range(3, 13))}
SECTIONS = {"rules": {"deck": (dict, None)}}


def settings(data: dict, where) -> dict:
    deck = data.get("rules", {}).get("deck")
    if deck is None:
        raise EventFileError(f"{where.path}: the jail card game needs its deck: [rules.deck] kind = copies (D1)")
    try:
        check_deck(deck, "[rules.deck]")
    except Malformed as error:
        raise EventFileError(f"{where.path}: {error}") from None
    if not MIN_PLAYERS <= len(data["players"]) <= MAX_PLAYERS:
        raise EventFileError(f"{where.path}: the jail card game is for {MIN_PLAYERS}-{MAX_PLAYERS} players")
    return deck


def setup_command(event) -> dict:
    return {"do": "setup", "game": "jail", "event": event.name, "deck": event.rules, "players": event.players}


def example(name: str, players: int, seed: int, secret: str) -> str:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise EventFileError(f"players must be {MIN_PLAYERS}-{MAX_PLAYERS} for the jail card game (--players)")
    blocks = [f'[[players]]\nno = {no}\nname = "Player {no}"\n' for no in range(1, players + 1)]
    deck = "\n".join(f"{kind} = {copies}" for kind, copies in EXAMPLE_DECK.items())
    return f'''# The jail card game event file. Staff enter each move at the table (D2).
version = {VERSION}

[event]
game = "jail"
name = "{name}"
id = "{slug(name)}"
secret = "{secret}"   # every event file has one (it signs printed cards; this game prints none)
journal = "{journal_name(name, 'jail')}"  # the event's journal, next to this file

# The deck (J1, D1): kind = copies. AN EXAMPLE, not the published game's deck: put your cards here.
[rules.deck]
{deck}

# Players in turn order: the first is the start player (dealt 3 cards, then 4, 5, 5: J2).
''' + "\n".join(blocks)


EVENT = EventRules(SECTIONS, {}, settings, setup_command, example, players=4)
