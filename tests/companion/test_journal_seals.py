"""A chain a forger cannot recompute: a journal made with its event file seals every batch with the
event's secret (HMAC-SHA256 of the batch's chain hash). Anyone can check the plain chain (integrity);
only the event file checks the seals (authenticity), and `journal verify` says which it checked."""
import json

import pytest

from companion.core import event_file
from companion.core.journal import Journal, JournalDamaged
from companion.core.session import Session

from journal_games import DEMO, forge, run, tamper, write_old


@pytest.fixture
def event(tmp_path):
    path = tmp_path / "event.toml"
    assert run("init", "--out", path, "--seed", 3)[0] == 0
    return event_file.load(path)


def sealed_game(event, lines=DEMO[:40]) -> Session:
    """The demo's first lines in the event's journal, sealed with its secret (closed)."""
    session = Session(Journal(event.journal, event=event))
    for line in lines:
        assert session.submit(line).status != "rejected", line
    session.journal.close()
    return session


CHEAPER = "UPDATE events SET data = replace(data, '\"price\": 20000', '\"price\": 2') WHERE batch = 4"


def test_a_sealed_journal_verifies_as_authentic_with_its_event_file(event):
    sealed_game(event)
    code, out, err = run("journal", "verify", "--event", event.path)        # the event's journal
    assert (code, err) == (0, "") and out.startswith(f"{event.journal}: OK, 40 batches")
    assert f"authentic: every batch sealed with the secret of {event.path}" in out
    code, out, _ = run("journal", "verify", event.journal)
    assert code == 0 and "integrity only, not authenticity: the seals were not checked" in out


def test_a_forger_who_recomputes_the_plain_chain_fails_verify_with_the_secret_naming_the_batch(event):
    honest = sealed_game(event).state
    forge(event.journal, CHEAPER)
    forged = Session(Journal(event.journal, readonly=True)).state       # the plain chain holds...
    assert forged != honest                                              # ...and the money changed
    code, out, _ = run("journal", "verify", event.journal)
    assert code == 0 and "integrity only, not authenticity" in out       # said plainly
    code, out, err = run("journal", "verify", event.journal, "--event", event.path)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "batch 4 does not match its seal" in err
    with pytest.raises(JournalDamaged, match="batch 4 does not match its seal") as refused:
        Journal(event.journal, readonly=True, event=event)
    assert refused.value.batch == 4


def test_a_writer_given_only_the_journal_checks_the_seals_with_the_event_file_it_names(event):
    sealed_game(event, DEMO[:3])
    assert run("do", "--journal", event.journal, json.dumps(DEMO[3]))[0] == 0     # it seals batch 4 too
    assert Journal(event.journal, readonly=True, event=event).verify() == 4
    forge(event.journal, "UPDATE commands SET at = 'x' WHERE batch = 2")
    code, out, err = run("do", "--journal", event.journal, json.dumps(DEMO[4]))
    assert code == 1 and out == "" and "batch 2 does not match its seal" in err and err.count("\n") == 1
    assert Journal(event.journal, readonly=True).count() == 4


def test_a_writer_of_a_sealed_journal_whose_event_file_is_gone_is_one_line(event):
    sealed_game(event, DEMO[:3])
    event.path.rename(event.path.with_name("elsewhere.toml"))
    code, _, err = run("do", "--journal", event.journal, json.dumps(DEMO[3]))
    assert code == 1 and err.count("\n") == 1
    assert "sealed with the secret of the event file event.toml, which does not load" in err
    assert run("status", "--journal", event.journal)[0] == 0                # readers need no secret


def test_another_events_secret_does_not_pass_for_this_one(event, tmp_path):
    sealed_game(event, DEMO[:5])
    (tmp_path / "other").mkdir()
    assert run("init", "--out", tmp_path / "other" / "event.toml", "--seed", 3)[0] == 0   # a new secret
    code, _, err = run("journal", "verify", event.journal, "--event", tmp_path / "other" / "event.toml")
    assert code == 1 and "batch 1 does not match its seal" in err


def test_a_forger_who_strips_the_seals_does_not_pass_verify_with_the_secret(event):
    sealed_game(event)
    forge(event.journal, CHEAPER, strip_seals=True)
    code, out, _ = run("journal", "verify", event.journal)
    assert code == 0 and "integrity only, not authenticity: a journal made without an event file" in out
    code, out, err = run("journal", "verify", event.journal, "--event", event.path)
    assert code == 1 and out == "" and err.count("\n") == 1 and "not proven authentic" in err


def test_a_journal_made_without_an_event_file_is_not_sealed(tmp_path):
    session = Session(Journal(tmp_path / "j.db"))
    session.submit(DEMO[0])
    assert not session.journal.sealed
    assert [row for row in session.journal.db.execute("SELECT seal FROM commands")] == [(None,)]


# ---- a version 2 journal: the plain sha256 chain, as the companion wrote it before seals

def test_a_version_2_journal_opens_goes_on_and_says_it_proves_integrity_only(event, tmp_path):
    old = tmp_path / "old.db"
    write_old(old, [*DEMO[:9], {**DEMO[9], "id": "v5"}], version=2)
    assert run("do", "--journal", old, json.dumps({**DEMO[9], "id": "v5"}), json.dumps(DEMO[10]))[0] == 0
    journal = Journal(old, readonly=True)
    assert journal.version == 2 and journal.count() == 11                # the retry was not applied again
    code, out, _ = run("journal", "verify", old)
    assert code == 0 and "integrity only, not authenticity: a version 2 journal (a plain sha256 chain" in out
    code, _, err = run("journal", "verify", old, "--event", event.path)
    assert code == 1 and "not proven authentic" in err
    code, out, _ = run("journal", "salvage", old, "--out", tmp_path / "new.db", "--event", event.path)
    assert code == 0 and "all 11 batches" in out and "sealed with the event's secret" in out
    code, out, _ = run("journal", "verify", tmp_path / "new.db", "--event", event.path)
    assert code == 0 and "authentic" in out
    assert Session(Journal(tmp_path / "new.db", readonly=True)).state == Session(journal).state
