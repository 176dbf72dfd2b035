"""The table as the companion mirrors it (D2): the deck, the rows, the jail, each player's hand and
display, the discard pile and the rounds scored. Every card is in exactly one of those places."""
from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass, field, replace


@dataclass
class Player:
    no: int
    name: str
    hand: Counter = field(default_factory=Counter)
    display: Counter = field(default_factory=Counter)    # D3: stays in front of the player across rounds
    scores: list[int] = field(default_factory=list)      # one per finished round (J5)

    @property
    def total(self) -> int:
        return sum(self.scores)

    def copy(self) -> "Player":
        return replace(self, hand=Counter(self.hand), display=Counter(self.display), scores=list(self.scores))


@dataclass
class Round:
    no: int
    ended_by: int
    collected: dict          # player no. (string) -> {kind: count}: set aside (D3)
    scores: dict             # player no. (string) -> score


@dataclass
class State:
    phase: str = "new"       # layout | deal | turn | play | refill | relayout | round_over | finished
    event: str = ""
    kinds: list[str] = field(default_factory=list)       # the deck's kinds, in the setup's order
    players: dict[int, Player] = field(default_factory=dict)   # in turn order
    deck: Counter = field(default_factory=Counter)
    rows: list[list[str]] = field(default_factory=lambda: [[], [], []])
    jail: Counter = field(default_factory=Counter)
    discard: Counter = field(default_factory=Counter)
    round: int = 1
    turn: int = 0            # index of the turn player in the turn order
    taken: tuple[int, str] | None = None    # (row, end) of this turn's take, for the refill (J3.4)
    dealt: bool = False
    rounds: list[Round] = field(default_factory=list)

    @property
    def order(self) -> list[int]:
        return list(self.players)

    @property
    def turn_player(self) -> int | None:
        return self.order[self.turn] if self.players and self.phase != "finished" else None

    def copy(self) -> "State":
        """A copy evolve() may change: its counters, rows and players are new; finished rounds are
        never changed, so they are shared."""
        new = copy.copy(self)
        new.deck, new.jail, new.discard = Counter(self.deck), Counter(self.jail), Counter(self.discard)
        new.rows, new.rounds, new.kinds = [list(row) for row in self.rows], list(self.rounds), list(self.kinds)
        new.players = {no: p.copy() for no, p in self.players.items()}
        return new
