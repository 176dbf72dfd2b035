"""Events carry their kind's version; older versions are upcast on read, never rewritten.

fixtures/before-D22.db is a real journal of an older companion (schema version 2, events without
versions), written before D22 made the IN/OUT card one item: it buys "in" and "out" and rules an
IN/OUT card invalid as card "out". It was made by the companion of commit 24e2337^ with
`companion replay fixtures/before-D22.jsonl --journal before-D22.db` (the old demo script, plus two
purchases and a held IN/OUT card ruled invalid, after its line 111).
"""
import json
import shutil
import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from companion.bingo import events as e
from companion.bingo.evolve import fold
from companion.core.events import EventTooNew, Events
from companion.core.journal import Journal, JournalDamaged, JournalError
from companion.core.session import Session

from journal_games import DEMO, forge, run, write_game

OLD = Path(__file__).parent / "fixtures" / "before-D22.db"
IN_OUT = {"in": "inout", "out": "inout"}        # D22, said again here: the one IN/OUT card


def stored(path) -> list[tuple[int, int, str, dict]]:
    """(batch, seq, kind, data) of every event row, as stored."""
    db = sqlite3.connect(path)
    rows = db.execute("SELECT batch, seq, kind, data FROM events ORDER BY seq").fetchall()
    db.close()
    return [(batch, seq, kind, json.loads(data)) for batch, seq, kind, data in rows]


def by_hand(data: dict, kind: str) -> dict:
    """A version 1 event in today's shape, done here without the upcasters."""
    key = {"ItemBought": "item", "CardInvalid": "card"}.get(kind)
    return {**data, key: IN_OUT.get(data[key], data[key])} if key else data


def test_the_fixture_is_the_old_shape():
    rows = stored(OLD)
    assert all("version" not in data for *_, data in rows)
    assert {"in", "out"} <= {data["item"] for _, _, kind, data in rows if kind == "ItemBought"}
    assert "out" in {data["card"] for _, _, kind, data in rows if kind == "CardInvalid"}


def test_an_old_journal_replays_to_the_state_of_its_events_in_todays_shape(tmp_path):
    rows = stored(OLD)
    expected = fold([e.EVENTS.kinds[kind](**by_hand(data, kind)) for _, _, kind, data in rows])
    copy = tmp_path / "old.db"
    shutil.copy(OLD, copy)
    session = Session(Journal(copy))                  # a writer: it reads, and would write, as it is
    assert session.state == expected
    assert {item for player in session.state.players.values() for item in player.items} <= {"inout", "exclusion"}
    assert session.state.players[1].items["inout"] == 1       # bought "in" and "out", one ruled invalid
    session.journal.close()
    assert stored(copy) == rows                       # no row rewritten: the chain still verifies
    assert run("journal", "verify", copy)[0] == 0


def test_new_events_store_their_kinds_version_beside_old_ones(tmp_path):
    path = tmp_path / "g.db"
    write_game(path, [*DEMO[:2], {"do": "buy", "player": 1, "item": "in"}], close=True)
    versions = {kind: data.get("version") for _, _, kind, data in stored(path)}
    assert versions == {"GameSetUp": 1, "TurnBegan": 1, "ItemBought": 2}
    [(_, _, _, bought)] = [row for row in stored(path) if row[2] == "ItemBought"]
    assert bought["item"] == "inout"


def test_journal_verify_reports_the_versions_found():
    code, out, err = run("journal", "verify", OLD)
    rows = stored(OLD)
    counts = Counter(kind for *_, kind, _ in rows)
    assert code == 0, err
    assert (f"; event versions v1 ×{len(rows)}; upcast on read: CardInvalid v1 ×{counts['CardInvalid']} to v2, "
            f"ItemBought v1 ×{counts['ItemBought']} to v2; journal version 2:") in out


def test_journal_verify_of_a_new_journal_says_every_event_is_current(tmp_path):
    path = tmp_path / "g.db"
    write_game(path, [*DEMO[:2], {"do": "buy", "player": 1, "item": "change"}], close=True)
    code, out, _ = run("journal", "verify", path)
    assert code == 0
    assert "; event versions v1 ×2, v2 ×1; every event at its kind's current version; journal version 4:" in out


def newer(tmp_path, version: object) -> Path:
    """A journal whose ItemBought (batch 3) says `version`, its chain recomputed as a newer companion's."""
    path = tmp_path / "g.db"
    write_game(path, [*DEMO[:2], {"do": "buy", "player": 1, "item": "inout"}], close=True)
    forge(path, f"UPDATE events SET data = json_set(data, '$.version', json('{json.dumps(version)}')) "
                "WHERE kind = 'ItemBought'")
    return path


@pytest.mark.parametrize("command", [("status", "--journal"), ("journal", "verify"), ("do", "--journal")])
def test_a_version_newer_than_this_code_knows_is_refused_in_one_line(tmp_path, command):
    path = newer(tmp_path, 3)
    code, out, err = run(*command, path, *(['{"do": "undo"}'] if command[0] == "do" else []))
    assert code == 1 and not out
    assert err == (f"companion: {path}: batch 3 holds an event ItemBought version 3 (this companion reads "
                   "ItemBought up to version 2): a newer companion wrote it; open the journal with that one\n")
    assert Journal(path, readonly=True).count() == 3         # nothing written


def test_a_newer_version_is_not_called_damage(tmp_path):
    with pytest.raises(JournalError) as refused:
        Session(Journal(newer(tmp_path, 3), readonly=True))
    assert not isinstance(refused.value, JournalDamaged)


def test_salvage_keeps_what_it_reads_and_stops_at_a_newer_version(tmp_path):
    code, out, err = run("journal", "salvage", newer(tmp_path, 3), "--out", tmp_path / "copy.db")
    assert code == 0, err
    assert "kept batches 1-2" in out and "batch 3 holds an event ItemBought version 3" in out
    assert Journal(tmp_path / "copy.db", readonly=True).count() == 2


@pytest.mark.parametrize("version", ["2", 0, -1, True, 1.5, None])
def test_a_version_that_is_no_whole_number_is_a_damaged_batch(tmp_path, version):
    with pytest.raises(JournalDamaged, match=r"batch 3 does not replay \(ValueError: ItemBought has the "
                                             r"version .*, not a whole number from 1\)"):
        Session(Journal(newer(tmp_path, version), readonly=True))


# ---- the registry itself


@dataclass
class Renamed:
    """A toy kind at version 3: v1 said `colour`, v2 `color`, v3 `hue` in upper case."""
    class_version: ClassVar[int] = 3
    hue: str

    @staticmethod
    def upcast_v1_to_v2(data: dict) -> dict:
        return {"color": data["colour"]}

    @staticmethod
    def upcast_v2_to_v3(data: dict) -> dict:
        return {"hue": data["color"].upper()}


def test_upcasters_apply_in_order_from_the_stored_version():
    events = Events(Renamed)
    assert events.decode("Renamed", {"colour": "red"}) == Renamed("RED")
    assert events.decode("Renamed", {"colour": "red", "version": 1}) == Renamed("RED")
    assert events.decode("Renamed", {"color": "red", "version": 2}) == Renamed("RED")
    assert events.decode("Renamed", {"hue": "red", "version": 3}) == Renamed("red")
    assert events.encode(Renamed("RED")) == ("Renamed", {"hue": "RED", "version": 3})
    with pytest.raises(EventTooNew, match=r"^Renamed version 4 \(this companion reads Renamed up to version 3\)$"):
        events.decode("Renamed", {"hue": "red", "version": 4})


def test_a_kind_missing_an_upcaster_or_using_the_versions_key_is_refused_where_it_is_declared():
    @dataclass
    class Skipped:
        class_version: ClassVar[int] = 3
        x: int

        @staticmethod
        def upcast_v1_to_v2(data: dict) -> dict:
            return data

    @dataclass
    class Clashing:
        version: str

    with pytest.raises(TypeError, match="Skipped is version 3 and has no upcast_v2_to_v3"):
        Events(Skipped)
    with pytest.raises(TypeError, match="Clashing: a field may not be named 'version'"):
        Events(Clashing)


def test_the_events_kept_live_are_the_ones_a_replay_reads():
    bought = e.ItemBought(1, "inout", 20_000, True)
    assert e.decode(*e.encode(bought)) == bought
    assert e.decode("ItemBought", {"player": 1, "item": "out", "price": 20_000, "from_account": True}) == bought
