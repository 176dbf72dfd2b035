"""The open console's door (the unix socket beside the journal, `companion do` while the console
is open): any line that is not one JSON object is answered with one error line, and the door and
the console stay up and go on taking commands."""
from __future__ import annotations

import asyncio
import json
import socket

from companion.core.door import DOOR_LINE_LIMIT, door_path
from tui.bingo.console import ConsoleApp

from screens_game import game
from screens_helpers import drive, settle

HOSTILE = [b"42", b"[]", b'"x"', b"null", b"true", b"1e999", b"\xff\xfe\xfd", b"{", b"", b"   ",
           b"[" * 100_000, b'"' + b"a" * 100_000 + b'"', b'{"do": "vote", "pad": "' + b"x" * 100_000 + b'"}',
           b"x" * (DOOR_LINE_LIMIT + 10), b'{"do": 42}', b'{"id": 7, "do": "undo"}', b"\x00"]


def talk(path, lines: list[bytes]) -> list[dict]:
    """Send each line, read one answer line each (a blocking socket: run it off the app's loop)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(30)
        connection.connect(str(path))
        stream = connection.makefile("rwb")
        answers = []
        for line in lines:
            stream.write(line + b"\n")
            stream.flush()
            answers.append(json.loads(stream.readline()))
        return answers


def test_any_line_that_is_not_a_command_is_one_error_line_and_the_door_stays_up(tmp_path):
    session, clock = game(tmp_path / "g.db", "ready")
    app = ConsoleApp(session, clock=clock.now)
    count = session.journal.count()

    async def body(pilot):
        await settle(pilot, lambda app: app.ready and app.door is not None)
        answers = await asyncio.to_thread(talk, door_path(tmp_path / "g.db"), HOSTILE)
        for line, answer in zip(HOSTILE, answers):
            assert answer["status"] == "rejected" and answer["reason"], (line[:20], answer)
            assert "\n" not in answer["reason"] and len(answer["reason"]) < 300, (line[:20], answer)
        assert "a command is a JSON object" in answers[0]["reason"] and "not 42" in answers[0]["reason"]
        assert "longer than 1 MB" in answers[HOSTILE.index(b"x" * (DOOR_LINE_LIMIT + 10))]["reason"]
        assert session.journal.count() == count                       # nothing journaled
        [after] = await asyncio.to_thread(talk, door_path(tmp_path / "g.db"), [b'{"do": "begin_turn"}'])
        assert after["status"] == "ok" and session.state.phase == "draw"
        assert pilot.app.is_running

    drive(app, body, (160, 45))


def test_a_command_answered_as_the_console_closes_is_not_a_crash(tmp_path):
    """The door answers as soon as the journal has the command; the console's own rows follow by
    message, which may land after its panes are gone (the operator quit meanwhile)."""
    session, clock = game(tmp_path / "g.db", "ready")
    app = ConsoleApp(session, clock=clock.now)

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await pilot.app.query_one("#journal").remove()           # as at the close
        outcome = session.submit({"do": "begin_turn"})
        journaled = list(session.journal.batches())[-1:]
        pilot.app.post_message(ConsoleApp.Submitted({"do": "begin_turn"}, outcome, journaled, None, "door", True))
        await pilot.pause(0.2)
        assert pilot.app.is_running and session.state.phase == "draw"

    drive(app, body, (160, 45))
