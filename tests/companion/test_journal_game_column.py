"""The journal stores the game it holds: every row's game column names the game its setup chose
(version 4). Versions 2 and 3 wrote "bingo" there whatever the game; the chain covers that column,
so their rows stay as written, their game is the one their setup names, and `journal verify` says
which schema it checked."""
import json

import pytest

from companion.core import event_file
from companion.core.journal import Journal, JournalDamaged, JournalError
from companion.core.session import Session, rules_of

from journal_games import DEMO, example, forge, run, tamper, write_game, write_old

GAMES = {"bingo": DEMO[:6], "voters": example("voters-night", 4), "bluff": example("bluff-night", 4),
         "jail": example("jail-round", 4)}


@pytest.fixture
def event(tmp_path):
    path = tmp_path / "event.toml"
    assert run("init", "--out", path, "--seed", 3)[0] == 0
    return event_file.load(path)


def game_columns(path) -> set[str]:
    journal = Journal(path, readonly=True)
    rows = journal.db.execute("SELECT game FROM commands UNION ALL SELECT game FROM events").fetchall()
    journal.close()
    return {game for (game,) in rows}


@pytest.mark.parametrize("game", GAMES)
def test_a_new_journal_names_its_own_game_in_every_row_and_verify_says_so(game, tmp_path):
    path = tmp_path / f"{game}.db"
    write_game(path, GAMES[game], close=True)
    assert game_columns(path) == {game}
    journal = Journal(path, readonly=True)
    assert journal.version == 4 and rules_of(journal).name == game
    assert journal.older(game) is None              # nothing to say when it is opened to play on
    assert {batch.game for batch in journal.batches()} == {game}
    code, out, err = run("journal", "verify", path)
    assert (code, err) == (0, "") and out.rstrip().endswith(f"journal version 4: its rows name its game, {game}")


def test_a_command_of_another_game_is_refused_by_the_journal_in_one_line(tmp_path):
    session = Session(Journal(tmp_path / "j.db"))
    session.submit(GAMES["voters"][0])
    with pytest.raises(JournalError, match=r"j.db: holds a game of voters; a command of jail does not belong in it"):
        session.journal.append("t", {"do": "deal"}, "ok", None, [], game="jail")
    assert session.journal.count() == 1


def test_rows_that_name_another_game_than_the_setups_do_not_replay(tmp_path):
    """A forger who renames the game in the rows and recomputes the plain chain: the replay names it."""
    path = write_game(tmp_path / "j.db", GAMES["voters"], close=True).journal.path
    forge(path, "UPDATE commands SET game = 'jail'")
    forge(path, "UPDATE events SET game = 'jail'")
    code, _, err = run("journal", "verify", path)
    assert code == 1 and "batch 1 does not replay (ValueError: its rows name the game jail, its setup voters)" in err


def test_a_batch_whose_events_name_another_game_than_its_command_is_damaged(tmp_path):
    path = write_game(tmp_path / "j.db", GAMES["voters"], close=True).journal.path
    forge(path, "UPDATE events SET game = 'jail' WHERE batch = 2")
    with pytest.raises(JournalDamaged, match="batch 2 has events of another game than its command's \\('voters'\\)"):
        Journal(path, readonly=True)


@pytest.mark.parametrize("version", [2, 3])
def test_an_older_journal_of_another_game_opens_goes_on_and_verify_says_which_schema(version, tmp_path):
    old = tmp_path / "old.db"
    write_old(old, GAMES["voters"][:3], version)
    code, _, err = run("do", "--journal", old, json.dumps(GAMES["voters"][3]))
    assert code == 0 and err == (f"companion: note: {old}: journal version {version}: its rows say bingo whatever "
                                 "the game, as this version wrote them, and its setup names the game, voters (kept "
                                 "as written: the chain covers them); read as version 4, its game voters; "
                                 f"`companion journal salvage {old} --out NEW.db` copies the good batches into a "
                                 "new journal of version 4\n")
    journal = Journal(old, readonly=True)
    assert (journal.version, journal.count(), rules_of(journal).name) == (version, 4, "voters")
    assert {batch.game for batch in journal.batches()} == {None}        # the rows do not say
    journal.close()
    assert game_columns(old) == {"bingo"}          # kept as written: the chain covers the column
    code, out, err = run("journal", "verify", old)
    assert (code, err) == (0, "")
    assert out.rstrip().endswith(f"journal version {version}: its rows say bingo whatever the game, as this "
                                 "version wrote them, and its setup names the game, voters (kept as written: "
                                 "the chain covers them)")


def test_a_sealed_version_3_journal_verifies_as_authentic_and_says_which_schema(event, tmp_path):
    old = tmp_path / "old.db"
    write_old(old, GAMES["jail"], 3, event)
    code, out, err = run("journal", "verify", old, "--event", event.path)
    assert (code, err) == (0, "") and "authentic: every batch sealed with the secret of" in out
    assert "journal version 3: its rows say bingo whatever the game" in out and "names the game, jail" in out
    assert run("do", "--journal", old, json.dumps(example("jail-round", 5)[4]))[0] == 0    # sealed on, as v3
    assert run("journal", "verify", old, "--event", event.path)[0] == 0
    tamper(old, "UPDATE events SET game = 'jail' WHERE batch = 5")
    with pytest.raises(JournalDamaged, match="batch 5 does not match its hash"):
        Journal(old, readonly=True)


def test_an_older_journal_whose_rows_name_another_game_than_bingo_is_damaged(tmp_path):
    """Versions 2 and 3 wrote "bingo" in every row: a forger's recomputed chain does not pass."""
    old = tmp_path / "old.db"
    write_old(old, GAMES["jail"], 3)
    forge(old, "UPDATE commands SET game = 'jail' WHERE batch = 2")
    forge(old, "UPDATE events SET game = 'jail' WHERE batch = 2")
    with pytest.raises(JournalDamaged, match="batch 2 names the game 'jail', where version 3 wrote 'bingo'"):
        Journal(old, readonly=True)


def test_salvage_copies_an_older_journal_into_one_whose_rows_name_its_game(event, tmp_path):
    old, new = tmp_path / "old.db", tmp_path / "new.db"
    write_old(old, GAMES["bluff"], 2)
    code, out, _ = run("journal", "salvage", old, "--out", new, "--event", event.path)
    assert code == 0 and "all 4 batches" in out
    assert game_columns(new) == {"bluff"}
    code, out, _ = run("journal", "verify", new, "--event", event.path)
    assert code == 0 and "authentic" in out and "journal version 4: its rows name its game, bluff" in out


def test_the_console_opened_on_an_older_journal_says_what_it_reads_it_as(tmp_path):
    import asyncio
    from tui.voters.console import VotersConsoleApp
    old = tmp_path / "old.db"
    write_old(old, GAMES["voters"][:3], 3)
    app = VotersConsoleApp.for_journal(old)

    async def main():
        async with app.run_test(size=(120, 34)) as pilot:
            for _ in range(200):
                if app.alerts:
                    break
                await pilot.pause(0.05)
    asyncio.run(main())
    assert [(text, level) for _, text, level in app.alerts] == [(Journal(old, readonly=True).older("voters"), "warning")]
    assert "journal version 3: its rows say bingo" in app.alerts[0][1]
