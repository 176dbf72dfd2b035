"""Idempotent commands (ARCHITECTURE.md law 6): a command whose "id" is journaled is not applied twice."""
import json
import sqlite3

import pytest

from companion.bingo import commands as c
from companion.bingo.demo import demo_script
from companion.cli import main
from companion.journal import Journal
from companion.session import Session

DEMO = demo_script(6, seed=3)


def started(path=None, lines=DEMO[:4]) -> Session:
    session = Session(Journal(path))
    for line in lines:
        assert session.submit(line).status != "rejected"
    return session


def buy(player=1, command_id=None) -> dict:
    command = {"do": "buy", "player": player, "item": "in"}
    return command if command_id is None else {**command, "id": command_id}


def test_a_repeated_id_returns_the_first_outcome_and_changes_nothing():
    session = started()
    first = session.submit(buy(command_id="scan-17"))
    state, count = session.state, session.journal.count()
    again = session.submit(buy(command_id="scan-17"))
    assert first.status == "ok" and not first.already
    assert again.already and (again.status, again.reason, again.batch) == (first.status, first.reason, first.batch)
    assert again.events == first.events
    assert session.state == state and session.journal.count() == count


def test_an_undo_retried_with_its_id_takes_back_only_one_command():
    session = started()
    session.submit(buy(1))
    after_first = session.state
    session.submit(buy(2))
    session.submit({"do": "undo", "id": "u1"})
    assert session.submit({"do": "undo", "id": "u1"}).already
    assert session.state == after_first


def test_the_id_is_journaled_beside_the_command_not_in_it(tmp_path):
    session = started(tmp_path / "j.db")
    session.submit(buy(command_id="boot7:12"))
    *_, last = session.journal.batches()
    assert last.id == "boot7:12" and "id" not in last.command
    with pytest.raises(sqlite3.IntegrityError):                 # the column has a UNIQUE index
        session.journal.db.execute("INSERT INTO commands (game, at, id, command, status, hash) "
                                   "VALUES ('bingo', '', 'boot7:12', '{}', 'ok', '')")


def test_ids_survive_a_restart(tmp_path):
    started(tmp_path / "j.db").submit(buy(command_id="k1"))
    reopened = Session(Journal(tmp_path / "j.db"))
    assert reopened.submit(buy(command_id="k1")).already


def test_a_rejected_command_is_not_journaled_so_its_retry_is_applied():
    session = started(lines=DEMO[:2])                      # turn 1 began, nothing drawn
    vote = {"do": "vote", "serial": "V0101", "turn": 1, "marks": ["X"], "id": "v1"}
    assert session.submit(vote).status == "rejected"        # no draw yet
    assert session.submit(DEMO[2]).status == "ok"
    again = session.submit(vote)
    assert again.status == "ok" and not again.already


@pytest.mark.parametrize("bad", [17, None, "", "x" * 65, ["a"], {"a": 1}, "\ud800"])
def test_a_bad_id_is_one_clear_error(bad):
    with pytest.raises(c.Malformed, match='"id" must be a string of 1-64 characters'):
        started().submit({**buy(), "id": bad})


def test_an_id_of_64_characters_is_accepted():
    assert started().submit(buy(command_id="é" * 64)).status == "ok"


def run(capsys, *argv):
    code = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return code, out, err


def test_do_says_a_repeat_was_already_applied(tmp_path, capsys):
    started(tmp_path / "j.db").journal.close()
    line = json.dumps(buy(command_id="k9"))
    assert run(capsys, "do", "--journal", tmp_path / "j.db", line) == (0, "ok\n", "")
    code, out, err = run(capsys, "do", "--journal", tmp_path / "j.db", line)
    assert code == 0 and out == "ok (already applied as command 5; not applied again)\n"
    code, _, err = run(capsys, "do", "--journal", tmp_path / "j.db", json.dumps({**buy(), "id": 5}))
    assert code == 2 and err.count("\n") == 1 and '"id" must be a string' in err


def test_scripts_may_carry_ids_and_a_repeat_in_a_script_is_applied_once(tmp_path, capsys):
    lines = [dict(line) for line in DEMO[:4]] + [buy(command_id="a"), buy(command_id="a"), buy(2)]
    lines[1]["id"] = "turn1"
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, out, _ = run(capsys, "replay", path, "--json", "--journal", tmp_path / "j.db")
    log = json.loads(out)["log"]
    assert code == 0 and log[5] == {"line": 6, "status": "ok", "reason": "already applied as command 5"}
    assert [b.id for b in Journal(tmp_path / "j.db", readonly=True).batches()] == \
        [None, "turn1", None, None, "a", None]
    path.write_text(json.dumps(DEMO[0]) + "\n" + json.dumps({**buy(), "id": 3}) + "\n")
    code, _, err = run(capsys, "replay", path)
    assert code == 2 and f"{path}:2:" in err and '"id" must be' in err
