"""The dealer's table: the players' ledger and every game played, the current one last."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace

from ..core.review import Held


@dataclass
class Player:
    no: int
    name: str
    net: int = 0             # V8: stakes lost and pots won across games


@dataclass
class Game:
    no: int
    dealer: int
    stake: int
    bets: dict[int, int | None] = field(default_factory=dict)   # player -> number (None: invalid card)
    cards: dict[int, str] = field(default_factory=dict)         # player -> the serial of the bet's card
    result: str | None = None          # won | dobon | no_game; None while the game is open
    winner: int | None = None
    number: int | None = None

    @property
    def pot(self) -> int:
        return self.stake * len(self.bets)      # V5, V9: one stake per bettor

    def copy(self) -> "Game":
        return replace(self, bets=dict(self.bets), cards=dict(self.cards))


@dataclass
class State:
    phase: str = "new"
    event: str = ""
    players: dict[int, Player] = field(default_factory=dict)
    games: list[Game] = field(default_factory=list)
    serials: set[str] = field(default_factory=set)               # every card seen (duplicates)
    held: dict[str, Held] = field(default_factory=dict)          # cards awaiting the operator

    @property
    def game(self) -> Game | None:
        return self.games[-1] if self.games else None

    def copy(self) -> "State":
        """A copy evolve() may change. Players, settled games and held cards are never changed in
        place (a settlement replaces the players), so they are shared: replay copies once per event."""
        new = copy.copy(self)
        new.games = [*self.games[:-1], self.games[-1].copy()] if self.games else []
        new.serials, new.held = set(self.serials), dict(self.held)
        return new
