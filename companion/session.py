"""The one writer: commands in, rules decide, the journal keeps, views go out."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable

from .bingo import commands as c
from .bingo import events as e
from .bingo.decide import Rejected, decide
from .bingo.evolve import fold
from .bingo.state import State
from .journal import Journal


@dataclass
class Outcome:
    status: str                 # ok | invalid | rejected
    reason: str | None = None
    batch: int | None = None
    events: list = field(default_factory=list)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Game:
    """The state folded from journal batches, with what undo may take back."""

    def __init__(self):
        self.state = State()
        self._before: list[tuple[int, State]] = []   # (batch, state before it), newest last

    def undoable(self) -> int | None:
        return self._before[-1][0] if self._before else None

    def apply(self, batch: int, events: list) -> None:
        if events and isinstance(events[0], e.Undone):
            target, self.state = self._before.pop()
            assert target == events[0].batch, f"undo of command {events[0].batch} out of order"
            return
        self._before.append((batch, self.state))
        self.state = fold(events, self.state)

    def follow(self, journal: Journal, after: int = 0):
        """Fold the journal's batches after `after`; yields each batch once applied."""
        for batch in journal.batches(after):
            self.apply(batch.number, [e.decode(kind, data) for _, kind, data in batch.events])
            yield batch


class Session:
    """Opening a journal replays it; submit() is the only way anything changes."""

    def __init__(self, journal: Journal, clock: Callable[[], str] = _now):
        self.journal = journal
        self.clock = clock
        self.game = Game()
        self._listeners: list[Callable[[State, Outcome], None]] = []
        self._lock = threading.Lock()
        for _ in self.game.follow(journal):
            pass

    @property
    def state(self) -> State:
        return self.game.state

    def subscribe(self, listener: Callable[[State, Outcome], None]) -> None:
        self._listeners.append(listener)

    def submit(self, command) -> Outcome:
        """command: a parsed command or a script-format dict (raises commands.Malformed)."""
        if isinstance(command, dict):
            command = c.parse(command)
        with self._lock:
            outcome = self._submit(command)
        if outcome.status != "rejected":
            for listener in self._listeners:
                listener(self.state, outcome)
        return outcome

    def _submit(self, command) -> Outcome:
        if isinstance(command, c.Undo):
            target = self.game.undoable()
            if target is None:
                return Outcome("rejected", "nothing to undo")
            result = [e.Undone(target)]
        else:
            result = decide(self.state, command)
            if isinstance(result, Rejected):
                return Outcome("rejected", result.reason)
        encoded = [e.encode(event) for event in result]
        events = [e.decode(kind, data) for kind, data in encoded]   # exactly what a replay will see
        status, reason = _status(events)
        batch = self.journal.append(self.clock(), c.to_dict(command), status, reason, encoded)
        self.game.apply(batch, events)
        return Outcome(status, reason, batch, events)


def _status(events: list) -> tuple[str, str | None]:
    for event in events:
        if isinstance(event, e.CardInvalid):
            return "invalid", event.reason
        if isinstance(event, e.Undone):
            return "ok", f"took back command {event.batch}"
        if isinstance(event, e.CardHeld):
            return "ok", f"held for review: {event.reason}"
    return "ok", None
