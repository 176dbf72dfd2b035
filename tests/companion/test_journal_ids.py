"""Idempotent commands (ARCHITECTURE.md law 6): a command whose "id" is journaled is not applied twice."""
import json
import sqlite3

import pytest

from companion.bingo import commands as c
from companion.bingo.demo import demo_script
from companion.cli import main
from companion.core.journal import Journal, JournalDamaged
from companion.core.session import Session

from journal_games import tamper

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


# ---- a damaged id index never lets a retried command apply twice

def flip_in_index(path, command_id: str, page_size: int, root: int) -> None:
    """Flip one bit of `command_id` where SQLite's command-id index holds it (its root page, in a
    journal this small the only one), and bump the file's change counter so a connection already
    open drops its cached pages and reads the damaged one, as after the page left its cache."""
    with open(path, "r+b") as file:
        data = bytearray(file.read())
        page = slice((root - 1) * page_size, root * page_size)
        at = data[page].find(command_id.encode())
        assert at >= 0, "the id is not on the index's page"
        data[page.start + at + len(command_id) - 1] ^= 0x08             # "scan-17" -> "scan-1?"
        counter = int.from_bytes(data[24:28], "big") + 1
        data[24:28] = counter.to_bytes(4, "big")
        file.seek(0)
        file.write(data)


def index_page(journal: Journal) -> tuple[int, int]:
    (page_size,), = journal.db.execute("PRAGMA page_size").fetchall()
    (root,), = journal.db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'commands_by_id'").fetchall()
    return page_size, root


def test_a_bit_flipped_in_the_id_index_under_an_open_writer_does_not_double_a_retry(tmp_path):
    session = started(tmp_path / "j.db")
    for player, command_id in ((1, "scan-17"), (2, "scan-21"), (3, "scan-35")):
        assert session.submit(buy(player, command_id)).status == "ok"
    count, state = session.journal.count(), session.state
    flip_in_index(tmp_path / "j.db", "scan-17", *index_page(session.journal))
    again = session.submit(buy(1, "scan-17"))
    assert again.already and again.batch == 5
    assert session.journal.count() == count and session.state == state


def test_verify_checks_the_id_index_against_the_chained_batches(tmp_path, capsys):
    session = started(tmp_path / "j.db")
    for player, command_id in ((1, "scan-17"), (2, "scan-21"), (3, "scan-35")):
        session.submit(buy(player, command_id))
    where = index_page(session.journal)
    session.journal.close()
    flip_in_index(tmp_path / "j.db", "scan-17", *where)
    code, out, err = run(capsys, "journal", "verify", tmp_path / "j.db")
    assert code == 1 and out == "" and err.count("\n") == 1 and "index" in err
    code, _, err = run(capsys, "do", "--journal", tmp_path / "j.db", json.dumps(buy(1, "scan-17")))
    assert code == 1 and err.count("\n") == 1                           # refused, not applied twice
    assert Journal(tmp_path / "j.db", readonly=True, check=False).count() == 7


def test_a_dropped_id_index_is_named_by_verify(tmp_path, capsys):
    session = started(tmp_path / "j.db")
    session.submit(buy(1, "scan-17"))
    session.journal.close()
    tamper(tmp_path / "j.db", "DROP INDEX commands_by_id")
    code, _, err = run(capsys, "journal", "verify", tmp_path / "j.db")
    assert code == 1 and "the command-id index is missing" in err and err.count("\n") == 1


def test_an_id_edited_in_its_row_is_refused_not_applied_again(tmp_path, capsys):
    session = started(tmp_path / "j.db")
    session.submit(buy(1, "scan-17"))
    session.journal.close()
    tamper(tmp_path / "j.db", "UPDATE commands SET id = 'scan-18' WHERE id = 'scan-17'")
    code, _, err = run(capsys, "do", "--journal", tmp_path / "j.db", json.dumps(buy(1, "scan-17")))
    assert code == 1 and "batch 5 does not match its hash" in err
    assert Journal(tmp_path / "j.db", readonly=True, check=False).count() == 5


def test_a_command_id_twice_in_the_chain_is_damage():
    session = started()
    session.submit(buy(1, "a"))
    session.journal.db.execute("DROP INDEX commands_by_id")          # what let the second one in
    session.journal.append("t", {"do": "buy", "player": 2, "item": "in"}, "ok", None, [], "a", game="bingo")
    with pytest.raises(JournalDamaged, match="batch 6 repeats the command id of batch 5"):
        session.journal.verify()
