"""The one writer: commands in, rules decide, the journal keeps, views go out.

A command may carry "id" (a string of up to 64 characters): the session takes it off before
the game's parser sees it and journals it with the command; a command whose id the journal
already holds is not applied again, and submit() answers with the first outcome.

Several commands as one, {"all": [command, ...]}: all applied, in order and in one journal
transaction, or none (one malformed or rejected). `companion do` sends its commands so, to its
own session or through an open console's door.
"""
from __future__ import annotations

import os
import sqlite3
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from . import games
from .commands import Malformed, Undo
from .events import CardHeld, EventTooNew, Undone
from .games import GameRules, Rejected
from .event_file import EventFile
from .journal import Journal, JournalDamaged, JournalError, private_temporary

ID_LENGTH = 64
GROUP = "all"               # {"all": [command, ...]}: several commands applied as one, or none


@dataclass
class Outcome:
    status: str                 # ok | invalid | rejected
    reason: str | None = None
    batch: int | None = None
    events: list = field(default_factory=list)
    already: bool = False       # the command's id was journaled before: this is that first outcome
    warning: str | None = None  # something beside the command failed (the backup copy)
    each: list = field(default_factory=list)    # a group's: each command's outcome, in order


def split_id(command: dict) -> tuple[str | None, dict]:
    """(id, the command without it); raises Malformed for an id that is not 1-64 characters."""
    if not isinstance(command, dict) or "id" not in command:
        return None, command
    rest = {key: value for key, value in command.items() if key != "id"}
    command_id = command["id"]
    if not isinstance(command_id, str) or not 1 <= len(command_id) <= ID_LENGTH or not _encodable(command_id):
        shown = repr(command_id) if len(repr(command_id)) <= 40 else repr(command_id)[:37] + "..."
        raise Malformed(f'"id" must be a string of 1-{ID_LENGTH} characters, not {shown}')
    return command_id, rest


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def rules_of(journal: Journal) -> GameRules:
    """The game a journal holds: the one its first batch (the setup) names; raises Malformed."""
    first = next(iter(journal.batches(0, one_by_one=True)), None)
    return games.of_setup(first.command) if first else games.rules()


class Game:
    """The state folded from journal batches, with what undo may take back. The game's rules are
    the ones given, else those the journal's first batch (its setup) names."""

    def __init__(self, rules: GameRules | None = None):
        self.rules = rules or games.rules()
        self.state = self.rules.state()
        self._before: list[tuple[int, object]] = []   # (batch, state before it), newest last

    def choose(self, rules: GameRules) -> None:
        """The game, before anything is applied: a new journal's setup names it."""
        if self._before:
            raise ValueError(f"the game is {self.rules.name} already")
        if rules is not self.rules:
            self.rules, self.state = rules, rules.state()

    def mark(self) -> tuple:
        """Where the game is, to come back to (states are never changed in place)."""
        return self.rules, self.state, list(self._before)

    def back_to(self, mark: tuple) -> None:
        self.rules, self.state, before = mark
        self._before = list(before)

    def undoable(self) -> int | None:
        return self._before[-1][0] if self._before else None

    def after(self, events: list):
        """The state these events lead to, nothing changed yet (raises what the rules raise)."""
        if events and isinstance(events[0], Undone):
            if not self._before or self._before[-1][0] != events[0].batch:
                raise ValueError(f"undo of command {events[0].batch} out of order")
            return self._before[-1][1]
        return self.rules.fold(events, self.state)

    def apply(self, batch: int, events: list, state=None) -> None:
        """Take the events of batch `batch`; state: after(events), if known already."""
        state = self.after(events) if state is None else state
        if events and isinstance(events[0], Undone):
            self._before.pop()
        else:
            self._before.append((batch, self.state))
        self.state = state

    def follow(self, journal: Journal, after: int = 0, one_by_one: bool = False):
        """Fold the journal's batches after `after`; yields each batch once applied."""
        for batch in journal.batches(after, one_by_one):
            try:
                if batch.number == 1:
                    self.choose(games.of_setup(batch.command))
                if batch.game not in (None, self.rules.name):
                    raise ValueError(f"its rows name the game {batch.game}, its setup {self.rules.name}")
                self.apply(batch.number, [self.rules.events.decode(kind, data) for _, kind, data in batch.events])
            except EventTooNew as error:
                raise JournalError(f"{journal.path}: batch {batch.number} holds an event {error}: a newer "
                                   "companion wrote it; open the journal with that one") from None
            except Exception as error:      # only a journal this code did not write gets here
                raise JournalDamaged(journal.path, f"batch {batch.number} does not replay "
                                                   f"({type(error).__name__}: {error})", batch.number) from None
            yield batch


class Session:
    """Opening a journal replays it; submit() is the only way anything changes."""

    def __init__(self, journal: Journal, clock: Callable[[], str] = _now, backup: str | Path | None = None,
                 rules: GameRules | None = None):
        """backup: a file copied from the journal (atomically) at the game's checkpoints (Plunder
        Bingo: setup, each turn's start, the finish; [event] backup); a failed copy is a warning on
        the outcome, never a stop. rules: the game of a new journal (else its setup names it)."""
        self.journal = journal
        self.clock = clock
        self.backup = backup
        self.game = Game(rules)
        self._listeners: list[Callable[[object, Outcome], None]] = []
        self._lock = threading.Lock()
        for _ in self.game.follow(journal):
            pass

    @property
    def state(self):
        return self.game.state

    @property
    def rules(self) -> GameRules:
        return self.game.rules

    def subscribe(self, listener: Callable[[object, Outcome], None]) -> None:
        self._listeners.append(listener)

    def parse(self, data: dict):
        """A script-format dict (without its id) as this game's command; raises Malformed. The
        setup of a new journal chooses the game."""
        if isinstance(data, dict) and data.get("do") == "setup" and not self.journal.count():
            self.game.choose(games.of_setup(data))
        return self.rules.schema.parse(data)

    def submit(self, command, command_id: str | None = None) -> Outcome:
        """command: a parsed command or a script-format dict, which may carry "id" (raises
        commands.Malformed). A command whose id is journaled already is not applied again: the
        answer is the first outcome, with `already` set. {"all": [...]}: see submit_all."""
        if isinstance(command, dict) and GROUP in command:
            return self.submit_all(command)
        if isinstance(command, dict):
            found, command = split_id(command)
            command_id = command_id or found
            command = self.parse(command)
        with self._lock:
            outcome = self._once(command, command_id)
            self._checkpoint(outcome)
        self._tell(outcome)
        return outcome

    def submit_all(self, group: dict) -> Outcome:
        """{"all": [command, ...]} (script-format dicts, each may carry an id): every one parsed
        first (raises Malformed naming the first bad one), then applied in order in one journal
        transaction; one rejected and none is applied (the outcome names it). Applied: the worst
        status, each command's outcome in `each`, all their events."""
        commands = group.get(GROUP) if set(group) == {GROUP} else None
        if not isinstance(commands, list) or not commands:
            raise Malformed(f'a group of commands is {{"{GROUP}": [command, ...]}} with one or more commands')
        n = len(commands)
        where = (lambda k: f"command {k} of {n}: ") if n > 1 else (lambda k: "")
        parsed = []
        for k, data in enumerate(commands, 1):
            try:
                command_id, data = split_id(data)
                parsed.append((self.parse(data), command_id))
            except Malformed as error:
                raise Malformed(f"{where(k)}{error}") from None
        with self._lock:
            mark, each = self.game.mark(), []
            try:
                with self.journal.transaction():
                    for k, (command, command_id) in enumerate(parsed, 1):
                        each.append(self._once(command, command_id))
                        if each[-1].status == "rejected":
                            raise _Refused(f"{where(k)}{each[-1].reason}" + (f"; none of the {n} commands applied"
                                                                              if n > 1 else ""))
            except _Refused as refused:
                self.game.back_to(mark)
                return Outcome("rejected", str(refused))
            except BaseException:
                self.game.back_to(mark)
                raise
            outcome = _together(each, where)
            self._checkpoint(outcome)
        self._tell(outcome)
        return outcome

    def _once(self, command, command_id: str | None) -> Outcome:
        """Applied, or the first outcome of the command that carried its id before."""
        earlier = self.journal.find(command_id) if command_id is not None else None
        if earlier is None:
            return self._submit(command, command_id)
        return Outcome(earlier.status, earlier.reason, earlier.number,
                       [self.rules.events.decode(kind, data) for _, kind, data in earlier.events], already=True)

    def _tell(self, outcome: Outcome) -> None:
        if outcome.status != "rejected" and not outcome.already:
            for listener in self._listeners:
                try:
                    listener(self.state, outcome)
                except Exception as error:      # the command is journaled: a listener's failure is a warning
                    warning = f"{getattr(listener, '__qualname__', 'a listener')} failed after command " \
                              f"{outcome.batch} was applied ({type(error).__name__}: {error})"
                    outcome.warning = f"{outcome.warning}; {warning}" if outcome.warning else warning

    def _checkpoint(self, outcome: Outcome) -> None:
        """The backup copy, at the game's checkpoints (never for a command applied before)."""
        if self.backup and not outcome.already and any(isinstance(event, self.rules.checkpoints)
                                                       for event in outcome.events):
            outcome.warning = self.copy_backup()

    def _submit(self, command, command_id: str | None = None) -> Outcome:
        rules = self.rules
        if type(command) not in rules.schema.names:
            return Outcome("rejected", f"{type(command).__name__} is not a {rules.title} command")
        if isinstance(command, Undo):
            target = self.game.undoable()
            if target is None:
                return Outcome("rejected", "nothing to undo")
            result = [Undone(target)]
        else:
            result = rules.decide(self.state, command)
            if isinstance(result, Rejected):
                return Outcome("rejected", result.reason)
        encoded = [rules.events.encode(event) for event in result]
        events = [rules.events.decode(kind, data) for kind, data in encoded]   # exactly what a replay will see
        status, reason = _status(events, rules)
        state = self.game.after(events)           # the rules fold before the journal writes: a rule that
        batch = self.journal.append(self.clock(), rules.schema.to_dict(command), status, reason, encoded, command_id,
                                    game=rules.name)
        self.game.apply(batch, events, state)     # raises leaves the journal as it was
        return Outcome(status, reason, batch, events)

    def copy_backup(self) -> str | None:
        """Copy the journal to the backup file; a failure is returned as one line."""
        try:
            self.journal.backup(self.backup)
        except (OSError, sqlite3.Error) as error:
            return f"backup to {self.backup} failed ({getattr(error, 'strerror', None) or error}); the game goes on"
        return None


class _Refused(Exception):
    """A command of a group was rejected: the group's transaction is rolled back."""


def _together(each: list[Outcome], where) -> Outcome:
    """A group's outcome from its commands': invalid if one is, the reasons named by command."""
    status = "invalid" if any(o.status == "invalid" for o in each) else "ok"
    reasons = [f"{where(k)}{o.reason}" for k, o in enumerate(each, 1) if o.reason]
    applied = [o.batch for o in each if o.batch is not None]
    return Outcome(status, "; ".join(reasons) or None, max(applied, default=None),
                   [event for o in each if not o.already for event in o.events],
                   already=all(o.already for o in each), each=each)


def _status(events: list, rules: GameRules) -> tuple[str, str | None]:
    for event in events:
        reason = rules.invalid(event)
        if reason is not None:
            return "invalid", reason
        if isinstance(event, Undone):
            return "ok", f"took back command {event.batch}"
        if isinstance(event, CardHeld):
            return "ok", f"held for review: {event.reason}"
    return "ok", None


def salvage(source: str | Path, out: str | Path, event: EventFile | None = None) -> tuple[int, str | None]:
    """Copy the longest prefix of `source` that verifies (and whose seals verify) and replays into
    the new journal `out` (written to a temporary file, renamed at the end); returns (batches kept,
    why the copy stopped or None). The copy is sealed with the event's secret: `event`, else the
    event file a sealed source names; an older journal (version 1 or 2) is copied into a sealed
    one this way."""
    out = Path(out)
    if out.exists():
        raise JournalError(f"{out}: exists; salvage writes a new file")
    old = Journal(source, readonly=True, check=False, event=event)
    if old.sealed and old.event is None:
        old.event = old.recorded_event()
    temporary = private_temporary(out)
    kept, problem, game = 0, None, Game()
    try:
        new = Journal(temporary, holder="companion journal salvage", event=old.event)
        try:
            for batch in game.follow(old, one_by_one=True):
                new.append(batch.at, batch.command, batch.status, batch.reason,
                           [(kind, data) for _, kind, data in batch.events], batch.id, game=game.rules.name)
                kept += 1
            if old.version > 1:
                old.verify()
        except JournalDamaged as error:
            problem = error.what
        except JournalError as error:
            problem = str(error)
        finally:
            new.close()
            old.close()
        os.replace(temporary, out)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return kept, problem
