"""The review queue every game with scanned cards shares (D2 in Plunder Bingo's rules).

A card the scanner could not read with confidence is held, as read, with its crop and scores;
the operator rules on it: counted as read, changed, or invalid. A game's state keeps `held`
({serial: Held}) and `serials` (every card seen, for duplicates) and has copy(); the game's
decide() calls these with its own schema and handlers.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .commands import Hold, Rule, Schema
from .events import CardHeld, CardRuled
from .files import write_atomic
from .games import Rejected, Refuse, need

CROP_NAME_CHARS = 80


@dataclass
class Held:
    card: dict
    reason: str
    crop: str
    scores: dict = field(default_factory=dict)
    findings: list = field(default_factory=list)    # [{"code": ..., "message": ...}], as the scanner saw them


def crop_name(serial: str | None, photo: str) -> str:
    """A held card's crop's file name, from its serial and its photo's name: letters, digits, '.', '_' and '-' only,
    bounded (a photo's name is anyone's: bytes that are no UTF-8, a newline, a terminal's escape, any length)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{serial or 'card'}-{photo or 'card'}")[:CROP_NAME_CHARS] + ".png"


def save_crop(folder: Path, serial: str | None, photo: str, png: bytes) -> str | None:
    """A held card's crop written whole in folder (crop_name); its absolute path, which the journal keeps (readable
    from any folder), or None where it cannot be written: a full disk costs the crop, never the card."""
    path = folder / crop_name(serial, photo)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(path, png)
    except OSError:
        return None
    return str(path.absolute())


def crop_file(stored: str, journal: str | Path) -> Path:
    """A held card's crop as the journal keeps it: absolute, or relative to the journal's folder (or,
    as older journals stored it, to the folder the console ran in)."""
    path = Path(stored)
    beside = Path(journal).parent / path
    return beside if not path.is_absolute() and beside.exists() else path


def read_card(schema: Schema, cmd: Hold):
    """The held card's command as read: a field the scanner could not read is None."""
    return schema.parse(cmd.card, unread_ok=True)


def held(schema: Schema, card, cmd: Hold) -> list:
    return [CardHeld(card.serial, schema.to_dict(card), cmd.reason, cmd.crop, cmd.scores, cmd.findings)]


def rule(s, cmd: Rule, schema: Schema, decide: Callable, invalid: Callable[[object, str], list]) -> list:
    """The ruling on a held card: the card as ruled goes to decide() as if just scanned, or
    invalid(card as read, reason) gives the game's events for a card ruled invalid."""
    need(cmd.serial in s.held, f"card {cmd.serial} is not waiting for review")
    kept = s.held[cmd.serial]
    read = schema.parse(kept.card, unread_ok=True)
    if cmd.invalid is not None:
        return [CardRuled(cmd.serial, f"invalid: {cmd.invalid}", kept.crop),
                *invalid(read, f"ruled invalid: {cmd.invalid}")]
    card = schema.parse(cmd.card)
    need(type(card) is type(read), f"card {cmd.serial} is a {kept.card['do']} card")
    released = s.copy()
    released.serials.discard(cmd.serial)
    del released.held[cmd.serial]
    result = decide(released, card)
    if isinstance(result, Rejected):
        raise Refuse(result.reason)
    ruling = "counted as read" if schema.to_dict(card) == kept.card else f"ruled as {schema.to_dict(card)}"
    return [CardRuled(cmd.serial, ruling, kept.crop), *result]


def card_held(s, ev: CardHeld) -> None:
    s.serials.add(ev.serial)
    s.held[ev.serial] = Held(dict(ev.card), ev.reason, ev.crop, ev.scores, list(ev.findings))


def card_ruled(s, ev: CardRuled) -> None:
    del s.held[ev.serial]
