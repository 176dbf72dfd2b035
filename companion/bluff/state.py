"""The table: who owns which gem, every die's holder, the eliminated, and every period, the current last."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace

from ..core.review import Held


@dataclass
class Player:
    no: int
    name: str
    gem: str
    eliminated: bool = False


@dataclass
class Declaration:
    player: int
    face: int | str | None
    count: int | None
    serial: str = ""
    reason: str = ""         # invalid (never selected) when set

    @property
    def valid(self) -> bool:
        return not self.reason


@dataclass
class Period:
    no: int
    votes: dict[int, dict[str, list[str]]] = field(default_factory=dict)    # player -> gem -> faces
    closed: dict[int, dict[str, list[str]]] | None = None                   # the votes at close_dice
    declarations: list[Declaration] = field(default_factory=list)           # in the order made
    selected: dict | None = None
    true_count: int | None = None
    result: str | None = None          # won | eliminated | no_declaration; None until judged

    def copy(self) -> "Period":
        return replace(self, votes=dict(self.votes), declarations=list(self.declarations))


@dataclass
class State:
    phase: str = "new"                 # new | ready | dice | declare | finished
    event: str = ""
    star_wild: bool = True
    players: dict[int, Player] = field(default_factory=dict)
    dice: dict[int, dict[str, int]] = field(default_factory=dict)           # holder -> gem -> dice held
    periods: list[Period] = field(default_factory=list)
    winner: int | None = None
    transfers: list[dict] = field(default_factory=list)                     # AB5: period (opened by then), from, to, gem, count, cleared
    serials: set[str] = field(default_factory=set)                          # every card seen (duplicates)
    held: dict[str, Held] = field(default_factory=dict)                     # cards awaiting the operator

    @property
    def period(self) -> Period | None:
        return self.periods[-1] if self.periods else None

    def active(self) -> list[int]:
        """The players not eliminated (AB3)."""
        return sorted(no for no, p in self.players.items() if not p.eliminated)

    def copy(self) -> "State":
        """A copy evolve() may change. Players, judged periods and held cards are never changed in
        place (an elimination replaces the player), so they are shared."""
        new = copy.copy(self)
        new.players, new.dice = dict(self.players), {no: dict(gems) for no, gems in self.dice.items()}
        new.periods = [*self.periods[:-1], self.periods[-1].copy()] if self.periods else []
        new.serials, new.held, new.transfers = set(self.serials), dict(self.held), list(self.transfers)
        return new
