"""Auction Bluff's part of the event file: each player's gem, [bluff] star_wild (D1) and the
deadlines the phone pages keep (dice votes until dice_until, declarations until declare_until);
its setup command and its commented example."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.games import EventRules
from ..core.event_file import VERSION, EventFileError, journal_name, slug
from .commands import GEMS
from .decide import PLAYERS

SECTIONS = {"players": {"gem": (str, GEMS)},
            "bluff": {"star_wild": (bool, None), "dice_until": (str, None), "declare_until": (str, None)}}
REQUIRED = {"players": ("gem",)}
CLOCK = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]")


@dataclass(frozen=True)
class Settings:
    star_wild: bool = True           # D1
    dice_until: str = "22:00"        # AB2: the dice vote closes
    declare_until: str = "23:00"     # AB2: declarations close


def settings(data: dict, where) -> Settings:
    given = data.get("bluff", {})
    for key in ("dice_until", "declare_until"):
        if key in given and not CLOCK.fullmatch(given[key]):
            raise where.error("bluff", key, f"{key} is a time of day HH:MM, not {given[key]!r}")
    return Settings(**given)


def setup_command(event) -> dict:
    return {"do": "setup", "game": "bluff", "event": event.name, "star_wild": event.rules.star_wild,
            "players": event.players}


def example(name: str, players: int, seed: int, secret: str) -> str:
    if players not in PLAYERS:
        raise EventFileError(f"players must be {PLAYERS.start}-{PLAYERS.stop - 1}, one gem each (AB1)")
    blocks = [f'[[players]]\nno = {no}\nname = "Player {no}"\ngem = "{gem}"   # 5 dice of this gem (AB1)\n'
              for no, gem in zip(range(1, players + 1), GEMS)]
    return f'''# Auction Bluff event file. Who owns which gem is announced at the start (AB1).
version = {VERSION}

[event]
game = "bluff"
name = "{name}"
id = "{slug(name)}"          # printed in every card's code
secret = "{secret}"   # signs printed cards and phone pages: keep it private
journal = "{journal_name(name, 'bluff')}"  # the event's journal, next to this file

[bluff]
star_wild = true             # D1: a die showing ★ counts as every face
dice_until = "22:00"         # AB2: the phone pages take dice votes until then
declare_until = "23:00"      # AB2: and declarations until then

''' + "\n".join(blocks)


EVENT = EventRules(SECTIONS, REQUIRED, settings, setup_command, example)
