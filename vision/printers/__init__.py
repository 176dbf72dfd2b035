"""Each game's part of `companion print cards`: which cards it prints for the chosen players.

A game names its Printer in its GameRules ("vision.printers.<game>:PRINTER"), so the CLI names no
game and the domain imports no vision code.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


class PrintError(ValueError):
    """An option or event the cards cannot be printed for: one line saying which and why."""


@dataclass(frozen=True)
class Printer:
    cards: Callable        # (args, event, everyone: {no: player}, chosen: [no]) -> (cards, what the summary adds)
    sheets: Callable | None = None   # (event, players, {no: phone page URL}, out): the players' sheets (GameRules.phones)
