"""`companion do` with several commands: all applied or none, the same with and without an open
console (then through its door), and the session's group of commands underneath."""
import json
import queue
import threading

import pytest

from companion.core.journal import Journal, JournalError
from companion.core.door import Door
from companion.core.session import Session

from journal_games import DEMO, run, write_game

DRAW, VOTE = json.dumps(DEMO[2]), json.dumps(DEMO[3])
CASES = {
    "all applied": [DRAW, VOTE],
    "one rejected": [DRAW, VOTE, DRAW],                       # a second draw while voting is open
    "one malformed": [DRAW, '{"do":"dance"}'],
    "one not JSON": [DRAW, VOTE, "{draw"],
    "one not an object": [DRAW, "42"],
    "an id twice": [json.dumps({**DEMO[2], "id": "cage:1"}), json.dumps({**DEMO[2], "id": "cage:1"})],
    "a bad id": [DRAW, json.dumps({**DEMO[3], "id": ""})],
    "one alone, rejected": ['{"do":"draw","balls":[1,2,99]}'],
}
APPLIED = {"all applied": 2, "an id twice": 1}


def journaled(path) -> list:
    return [(batch.command, batch.status, batch.id) for batch in Journal(path, readonly=True).batches()]


class Console:
    """What an open console does with its door: commands queued to one session thread."""

    def __init__(self, session: Session):
        self.session, self.commands = session, queue.Queue()
        threading.Thread(target=self._run, daemon=True).start()
        self.door = Door.for_session(session, lambda command, reply: self.commands.put((command, reply)))

    def _run(self) -> None:
        while True:
            command, reply = self.commands.get()
            reply(self.session.submit(command))


def do(path, texts: list[str], console: bool) -> tuple[int, str, str]:
    writer = write_game(path, DEMO[:2])
    if not console:
        writer.journal.close()
        return run("do", "--journal", path, *texts)
    door = Console(writer).door
    try:
        return run("do", "--journal", path, *texts)      # the lock is held here: `do` goes through the door
    finally:
        door.close()
        writer.journal.close()


@pytest.mark.parametrize("case", CASES)
def test_do_is_all_or_nothing_and_the_same_with_and_without_a_console(tmp_path, case):
    texts = CASES[case]
    alone = do(tmp_path / "alone.db", texts, console=False)
    door = do(tmp_path / "door.db", texts, console=True)
    assert alone == door, (alone, door)
    assert journaled(tmp_path / "alone.db") == journaled(tmp_path / "door.db")
    code, out, err = alone
    assert len(journaled(tmp_path / "alone.db")) == 2 + APPLIED.get(case, 0), (case, alone)
    assert code == (0 if case in APPLIED else 1 if "rejected" in case else 2), alone
    if case in APPLIED:
        assert out.splitlines()[0] == "ok" and len(out.splitlines()) == len(texts) and not err
    elif len(texts) > 1:
        assert f"none of the {len(texts)} commands applied" in out + err and (out + err).count("\n") == 1, alone


def test_a_rejected_group_leaves_the_session_as_it_was_and_it_goes_on(tmp_path):
    session = write_game(tmp_path / "j.db", DEMO[:2])
    state, listened = session.state, []
    session.subscribe(lambda state, outcome: listened.append(outcome))
    refused = session.submit({"all": [DEMO[2], DEMO[3], DEMO[2]]})
    assert refused.status == "rejected" and refused.reason.startswith("command 3 of 3: ") and not listened
    assert session.state == state and session.journal.count() == 2
    applied = session.submit({"all": [DEMO[2], {**DEMO[3], "id": "vote:1"}]})
    assert (applied.status, applied.batch, [o.batch for o in applied.each]) == ("ok", 4, [3, 4])
    assert listened == [applied] and len(applied.events) == sum(len(o.events) for o in applied.each)
    assert Session(Journal(tmp_path / "j.db", readonly=True)).state == session.state


def test_an_id_in_a_rejected_group_is_not_remembered_as_applied(tmp_path):
    """The ids the journal knows are rolled back with the group: retried alone, the command applies
    (law 6 both ways: never twice, and never lost as 'already applied')."""
    session = write_game(tmp_path / "j.db", DEMO[:2])
    draw = {**DEMO[2], "id": "cage:7"}
    assert session.submit({"all": [draw, DEMO[3], DEMO[2]]}).status == "rejected"
    again = session.submit(draw)
    assert (again.status, again.batch, again.already) == ("ok", 3, False)
    assert session.submit(draw).already


def test_a_write_failing_halfway_through_a_group_keeps_none_of_it(tmp_path, monkeypatch):
    """A journal that refuses the second write (a full disk): the first is rolled back with it."""
    session = write_game(tmp_path / "j.db", DEMO[:2])
    state, append, calls = session.state, Journal.append, []

    def failing(journal, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise JournalError("disk full")
        return append(journal, *args, **kwargs)
    monkeypatch.setattr(Journal, "append", failing)
    with pytest.raises(JournalError, match="disk full"):
        session.submit({"all": [DEMO[2], DEMO[3]]})
    monkeypatch.setattr(Journal, "append", append)
    assert session.state == state and session.journal.count() == 2
    assert session.submit(DEMO[2]).batch == 3
    assert len(journaled(tmp_path / "j.db")) == 3


@pytest.mark.parametrize("group, message", [
    ({"all": []}, "one or more commands"),
    ({"all": "draw"}, "one or more commands"),
    ({"all": [DEMO[2]], "do": "draw"}, "one or more commands"),
    ({"all": [DEMO[2], {"do": "dance"}]}, "command 2 of 2: "),
    ({"all": [DEMO[2], {"all": [DEMO[3]]}]}, "command 2 of 2: "),
])
def test_a_malformed_group_is_refused_naming_the_command(group, message):
    from companion.core.commands import Malformed
    session = write_game(None, DEMO[:2])
    with pytest.raises(Malformed, match=message):
        session.submit(group)
    assert session.journal.count() == 2
