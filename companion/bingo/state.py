"""The referee's state: where every ball is, every account, this turn's cards."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace

from ..core.review import Held
from .rules import BALLS, LINES, Rules

PLACES = ("machine", "drawn", "valid", "pool", "trash", "excluded")


@dataclass
class Line:
    line: str
    ordinal: int
    turn: int


@dataclass
class Player:
    no: int
    name: str
    account: str
    card: list[int]
    balance: int
    items: dict[str, int] = field(default_factory=dict)   # special cards bought, not yet used
    lines: list[Line] = field(default_factory=list)
    cash: int | None = None

    def copy(self) -> "Player":
        return replace(self, card=list(self.card), items=dict(self.items),
                       lines=[replace(line) for line in self.lines])

    def formed(self) -> set[str]:
        return {line.line for line in self.lines}


@dataclass
class Ballot:
    serial: str
    choice: str | None   # None: an invalid card (it still counts as submitted, D4)


@dataclass
class Robbery:
    serial: str
    robber: int
    victim: int
    ordinal: int


@dataclass
class Tally:
    options: dict[str, int]
    votes: dict[str, int]
    invalid: int
    void: bool
    valid: list[int]


@dataclass
class State:
    phase: str = "new"
    event: str = ""
    rules: Rules = field(default_factory=Rules)
    turn: int = 0
    players: dict[int, Player] = field(default_factory=dict)
    place: dict[int, str] = field(default_factory=lambda: {ball: "machine" for ball in BALLS})
    drawn: list[int] = field(default_factory=list)      # X, Y, Z order
    valid: list[int] = field(default_factory=list)      # order they became valid
    ballots: list[Ballot] = field(default_factory=list)          # this turn's vote cards
    robberies: list[Robbery] = field(default_factory=list)       # this window's valid robbery cards
    inout: list[tuple[int, str]] = field(default_factory=list)   # this turn's IN/OUT cards: (ball, dir)
    moves_due: list[tuple[int, str]] = field(default_factory=list)  # R15: carried out at next turn's start
    serials: set[str] = field(default_factory=set)               # every card seen this game (D3)
    held: dict[str, Held] = field(default_factory=dict)          # cards awaiting the operator (D2)
    tally: Tally | None = None
    announced: dict[str, int] = field(default_factory=dict)      # last balances shown, by letter (R13)
    robbed: int = 0                     # how many robberies the last turn's end (or the final) carried out
    reveal_accounts: bool = False       # the finished public view may tie names to letters (event file)
    results: list[dict] = field(default_factory=list)

    def copy(self) -> "State":
        """A copy evolve() may change freely. Faster than deepcopy (replay of a whole game
        copies the state once per event); ballots, robberies, held cards, the tally and
        results are replaced by evolve, never changed in place, so they are shared."""
        new = copy.copy(self)
        new.players = {no: p.copy() for no, p in self.players.items()}
        new.place, new.held, new.announced = dict(self.place), dict(self.held), dict(self.announced)
        new.drawn, new.valid, new.ballots = list(self.drawn), list(self.valid), list(self.ballots)
        new.robberies, new.inout, new.moves_due = list(self.robberies), list(self.inout), list(self.moves_due)
        new.serials = set(self.serials)
        return new

    def balls_in(self, place: str) -> list[int]:
        return sorted(ball for ball, where in self.place.items() if where == place)

    def balances(self) -> dict[str, int]:
        return {p.account: p.balance for p in sorted(self.players.values(), key=lambda p: p.account)}

    def rights_turn(self) -> int | None:
        """The turn whose lines give robbery rights now (R9, R11)."""
        if self.phase in ("draw", "voting", "resolve"):
            return self.turn - 1
        if self.phase == "final":
            return self.rules.turns
        return None


def lines_complete(card: list[int], valid: set[int]) -> set[str]:
    return {name for name, cells in LINES.items() if all(card[c - 1] in valid for c in cells)}
