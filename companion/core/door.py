"""The open console's door: `companion do` sends its commands there instead of writing beside it.

A unix socket beside the journal (`<journal>.sock`, mode 0600) while a console holds the journal's
lock: one JSON command per line in, one outcome per line out. A line that is not one JSON object
is answered with one error line, and the door stays open.
"""
from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path
from typing import Callable

from .commands import Malformed
from .journal import JournalError
from .session import Outcome, Session

DOOR_WAIT_S = 30.0          # how long a forwarded command waits for the console's session thread
DOOR_LINE_LIMIT = 1 << 20


def door_path(journal_path: str | Path) -> Path:
    return Path(f"{journal_path}.sock")


class Door:
    """A unix socket beside the journal (`<journal>.sock`, mode 0600): one JSON command per line in,
    one outcome per line out, each submitted through `submit` (the console queues it like a key)."""

    def __init__(self, journal_path: str | Path, submit: Callable[[dict], Outcome]):
        self.path, self.submit = door_path(journal_path), submit
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.path.unlink(missing_ok=True)            # a console killed before: we hold the lock now
        self.server.bind(str(self.path))
        os.chmod(self.path, 0o600)
        self.server.listen(4)
        self.server.settimeout(0.2)
        self.open = True
        threading.Thread(target=self._serve, name="command door", daemon=True).start()

    @classmethod
    def for_session(cls, session: Session, send: Callable) -> "Door | None":
        """A door for a writer session on a file; send(command, reply) queues a command (console.send)."""
        if session.journal.readonly or session.journal.path == ":memory:":
            return None

        def submit(command: dict) -> Outcome:
            answered, box = threading.Event(), []
            send(command, lambda outcome: (box.append(outcome), answered.set()))
            if not answered.wait(DOOR_WAIT_S):
                return Outcome("rejected", f"the console did not answer within {DOOR_WAIT_S:.0f} s")
            return box[0]
        try:
            return cls(session.journal.path, submit)
        except OSError:              # a path too long for a socket, a read-only folder: `do` is refused instead
            return None

    def close(self) -> None:
        self.open = False
        self.server.close()
        self.path.unlink(missing_ok=True)

    def _serve(self) -> None:
        while self.open:
            try:
                connection, _ = self.server.accept()
            except (TimeoutError, socket.timeout):
                continue
            except OSError:
                return
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        # a reader of its own: a read-write pair's readline does not keep to its limit
        with connection, connection.makefile("rb") as lines, connection.makefile("wb") as stream:
            for line in iter(lambda: lines.readline(DOOR_LINE_LIMIT), b""):
                try:
                    outcome = self.submit(door_command(line, lines))
                except (ValueError, Malformed, JournalError) as error:
                    outcome = Outcome("rejected", str(error))
                except Exception as error:        # the console's own failure boundary answers for it
                    outcome = Outcome("rejected", f"not applied: {type(error).__name__}: {error}")
                stream.write(json.dumps(_answer_of(outcome)).encode() + b"\n")
                stream.flush()


def door_command(line: bytes, stream) -> dict:
    """The command on one line at the door: a JSON object, else ValueError saying what came instead.
    A line longer than DOOR_LINE_LIMIT is read to its end and refused as one."""
    if len(line) == DOOR_LINE_LIMIT and not line.endswith(b"\n"):
        while (rest := stream.readline(DOOR_LINE_LIMIT)) and not rest.endswith(b"\n"):
            pass
        raise ValueError(f"a line longer than {DOOR_LINE_LIMIT >> 20} MB; one JSON command per line")
    try:
        command = json.loads(line)
    except (ValueError, RecursionError) as error:         # not JSON, not UTF-8, nested past the parser
        raise ValueError(f"not JSON ({error}); one command per line, e.g. {{\"do\": \"undo\"}}") from None
    if not isinstance(command, dict):
        text = json.dumps(command, ensure_ascii=False)
        text = text if len(text) <= 40 else text[:37] + "..."
        raise ValueError(f"a command is a JSON object, e.g. {{\"do\": \"undo\"}}, not {text}")
    return command


def through_door(journal_path: str | Path, commands: list[dict]):
    """Send commands to the session that holds the journal; yields an Outcome for each.
    Raises OSError when no session listens there."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(str(door_path(journal_path)))
        stream = connection.makefile("rwb")
        for command in commands:
            stream.write(json.dumps(command, ensure_ascii=False).encode() + b"\n")
            stream.flush()
            answer = json.loads(stream.readline(DOOR_LINE_LIMIT) or b"null")
            if not isinstance(answer, dict):
                raise ConnectionError("the console closed the door")
            yield _outcome_of(answer)


def _answer_of(outcome: Outcome) -> dict:
    """An outcome as the door answers it (a group's with each command's)."""
    return {"status": outcome.status, "reason": outcome.reason, "batch": outcome.batch, "already": outcome.already,
            "warning": outcome.warning, "each": [_answer_of(each) for each in outcome.each]}


def _outcome_of(answer: dict) -> Outcome:
    return Outcome(answer["status"], answer["reason"], answer["batch"], already=answer["already"],
                   warning=answer["warning"], each=[_outcome_of(each) for each in answer.get("each", [])])
