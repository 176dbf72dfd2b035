"""The events every game shares (the corrections), and a game's table of event kinds.

Events are the facts the journal keeps: dataclasses with JSON-friendly fields only, so a replay
sees exactly what the live game saw. The journal stores each as (kind, data), kind being the
class name.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class CardVoided:
    serial: str


@dataclass
class CardHeld:
    serial: str
    card: dict               # the command as best read
    reason: str
    crop: str
    scores: dict = field(default_factory=dict)   # the scanner's bubble scores (older journals: none)


@dataclass
class CardRuled:
    serial: str
    ruling: str              # "counted as read", "changed to ...", or "invalid: ..."
    crop: str


@dataclass
class Undone:
    batch: int               # the command taken back (a correction, never an edit)


CORRECTIONS = (CardVoided, CardHeld, CardRuled, Undone)


class Events:
    """One game's event kinds (the corrections included): encode for the journal, decode from it."""

    def __init__(self, *kinds: type):
        self.kinds = {cls.__name__: cls for cls in (*kinds, *CORRECTIONS)}

    @staticmethod
    def encode(event) -> tuple[str, dict]:
        return type(event).__name__, asdict(event)

    def decode(self, kind: str, data: dict):
        if kind not in self.kinds:
            raise ValueError(f"unknown event kind {kind!r}")
        return self.kinds[kind](**data)
