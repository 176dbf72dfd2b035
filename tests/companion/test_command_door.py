"""The console's door on its own (companion/core/door.py): a unix socket beside the journal, one JSON
command per line in, one outcome per line out, whatever arrives; without a console."""
import io
import os
import socket
import stat
import threading

import pytest

from companion.core import door as d
from companion.core.door import DOOR_LINE_LIMIT, Door, door_command, door_path, through_door
from companion.core.journal import Journal
from companion.core.session import Outcome, Session

from journal_games import DEMO, write_game


def opened(path, submit=None) -> Door:
    """A door on the journal `path` whose commands the session on it takes, or `submit`."""
    session = write_game(path, DEMO[:2])
    return Door.for_session(session, lambda command, reply: reply((submit or session.submit)(command)))


def test_commands_through_the_door_are_the_sessions_and_come_back_as_its_outcomes(tmp_path):
    door = opened(tmp_path / "g.db")
    try:
        [drawn, group, again] = through_door(tmp_path / "g.db", [
            {**DEMO[2], "id": "cage:1"}, {"all": [DEMO[3], DEMO[4]]}, {**DEMO[2], "id": "cage:1"}])
    finally:
        door.close()
    assert (drawn.status, drawn.batch, drawn.already) == ("ok", 3, False)
    assert group.status == "ok" and [each.batch for each in group.each] == [4, 5]
    assert (again.status, again.batch, again.already) == ("ok", 3, True)
    assert Journal(tmp_path / "g.db", readonly=True).count() == 5


def test_the_door_is_the_owners_alone_replaces_a_killed_consoles_and_goes_with_its_close(tmp_path):
    path = tmp_path / "g.db"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)      # a console killed with its door open
    stale.bind(str(door_path(path)))
    stale.close()
    door = opened(path)
    assert door_path(path) == tmp_path / "g.db.sock"
    assert stat.S_IMODE(os.stat(door_path(path)).st_mode) == 0o600
    assert next(through_door(path, [DEMO[2]])).status == "ok"
    door.close()
    assert not door_path(path).exists()
    with pytest.raises(OSError):
        next(through_door(path, [DEMO[3]]))


def test_no_door_for_a_reader_a_journal_in_memory_or_a_path_no_socket_can_take(tmp_path):
    write_game(tmp_path / "g.db", DEMO[:2], close=True)
    never = lambda command, reply: pytest.fail("no door, no command")      # noqa: E731
    assert Door.for_session(Session(Journal(tmp_path / "g.db", readonly=True)), never) is None
    assert Door.for_session(write_game(None, DEMO[:2]), never) is None
    deep = tmp_path / ("x" * 120)
    deep.mkdir()
    assert Door.for_session(write_game(deep / "g.db", DEMO[:2]), never) is None     # past a socket's 108 bytes


@pytest.mark.parametrize("line, says", [
    (b"42", "a command is a JSON object, e.g. {\"do\": \"undo\"}, not 42"),
    (b"[1, 2]", "not [1, 2]"),
    (b"\xff\xfe", "not JSON"),
    (b"[" * 100_000, "not JSON"),
    (b'"' + b"a" * 100 + b'"', 'not "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'),
])
def test_a_line_that_is_not_one_json_object_is_one_line_saying_so(line, says):
    with pytest.raises(ValueError) as refused:
        door_command(line, io.BytesIO())
    assert says in str(refused.value) and "\n" not in str(refused.value)


def test_a_line_past_the_limit_is_read_to_its_end_and_refused_as_one():
    rest = io.BytesIO(b"y" * (2 * DOOR_LINE_LIMIT) + b"\n" + b'{"do": "undo"}\n')
    with pytest.raises(ValueError, match="a line longer than 1 MB"):
        door_command(b"x" * DOOR_LINE_LIMIT, rest)
    assert rest.readline() == b'{"do": "undo"}\n'                 # the next line is the next command


def test_a_failing_console_is_one_rejected_line_and_the_door_stays_open(tmp_path):
    def failing(command):
        if command.get("do") == "draw":
            raise RuntimeError("the console broke")
        return Outcome("ok", batch=7)
    door = opened(tmp_path / "g.db", failing)
    try:
        broke, fine = through_door(tmp_path / "g.db", [DEMO[2], {"do": "undo"}])
    finally:
        door.close()
    assert (broke.status, broke.reason) == ("rejected", "not applied: RuntimeError: the console broke")
    assert (fine.status, fine.batch) == ("ok", 7)


def test_a_console_that_does_not_answer_in_time_is_a_rejection_not_a_hang(tmp_path, monkeypatch):
    monkeypatch.setattr(d, "DOOR_WAIT_S", 0.2)
    session, queued = write_game(tmp_path / "g.db", DEMO[:2]), threading.Event()
    door = Door.for_session(session, lambda command, reply: queued.set())      # queued, never taken
    try:
        [late] = through_door(tmp_path / "g.db", [DEMO[2]])
    finally:
        door.close()
    assert queued.is_set() and (late.status, late.reason) == ("rejected", "the console did not answer within 0 s")
