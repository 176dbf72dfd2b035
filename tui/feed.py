"""A read-only follower of a game journal: the state, the last batch, when voting opened.

The journal keeps no clock of its own beyond each command's time; the countdown is
that of the command that opened voting plus the rules' turn_seconds. An undo takes the
countdown back with the state, exactly as Game takes back the state.
"""
from __future__ import annotations

from datetime import datetime

from companion.core.journal import Journal
from companion.core.session import Game


def epoch(at: str) -> float:
    return datetime.fromisoformat(at).timestamp()


class Feed:
    def __init__(self, journal: Journal):
        self.journal = journal
        self.game = Game()
        self.last = 0                      # the last batch folded
        self.voting_since: float | None = None
        self._since_before: list[float | None] = []

    @property
    def state(self):
        return self.game.state

    def poll(self) -> list:
        """Fold what was committed since the last poll; returns those batches."""
        batches = []
        for batch in self.game.follow(self.journal, after=self.last):
            self.last = batch.number
            self._track(batch)
            batches.append(batch)
        return batches

    def _track(self, batch) -> None:
        if batch.events and batch.events[0][1] == "Undone":
            self.voting_since = self._since_before.pop()
            return
        self._since_before.append(self.voting_since)
        if self.state.phase != "voting":
            self.voting_since = None
        elif self.voting_since is None:
            self.voting_since = epoch(batch.at)

    def deadline(self) -> float | None:
        """When this turn's voting time runs out (epoch seconds), while voting is open."""
        if self.voting_since is None:
            return None
        return self.voting_since + self.state.rules.turn_seconds
