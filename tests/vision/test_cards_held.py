"""A held robbery or special card carries only what was read (D2): a row left blank or marked twice
is None, never the best-scoring bubble. Once held as {"robber": 1, "victim": 10, "ordinal": 4} with
an empty robber row, and the console's `a` (rule as read) booked player 1 as the robber."""
import sys
from pathlib import Path

import cv2
import pytest

import printed_cards as P
from companion.core.journal import Journal
from companion.core.session import Session
from vision.cards import Scanner

sys.path.insert(0, str(Path(__file__).parents[1] / "tui"))
from screens_helpers import drive, settle, text_of  # noqa: E402

cv2.setNumThreads(1)
pytestmark = P.needs_poppler
PLAYERS = [{"no": n, "name": f"Player {n}", "account": "ABCD"[n - 1], "card": list(range(n, n + 9))}
           for n in range(1, 5)]


def _robbery(marks: dict):
    card = P.card("robbery", 1, 4)
    picture = P.printed(card)
    for name, value in marks.items():
        P.dot(picture, P.bubble("robbery", name, value))
    return card, P.photo(picture)


@pytest.mark.parametrize("marks,read", [
    ({"robber_tens": "0", "victim_tens": "1", "victim_units": "3", "ordinal": "4"},
     {"robber": None, "victim": 13, "ordinal": 4}),
    ({}, {"robber": None, "victim": None, "ordinal": None})], ids=["blank-row", "empty-card"])
def test_a_robbery_card_with_a_blank_row_is_held_with_only_what_was_read(scanner, marks, read):
    card, photo = _robbery(marks)
    result = scanner.scan_image(photo)
    assert result.decision == "review" and "no mark" in result.reason, result
    assert result.command["do"] == "hold"
    assert result.command["card"] == {"do": "rob", "serial": card.serial, **read}


def test_a_row_marked_twice_is_not_read_either(scanner):
    card = P.card("robbery", 1, 4)
    picture = P.printed(card)
    for name, value in (("robber_tens", "0"), ("robber_units", "2"), ("robber_units", "3"), ("victim_tens", "0"),
                        ("victim_units", "1"), ("ordinal", "6")):
        P.dot(picture, P.bubble("robbery", name, value))
    result = scanner.scan_image(P.photo(picture))
    assert result.command["card"] == {"do": "rob", "serial": card.serial, "robber": None, "victim": 1, "ordinal": 6}


def _game(path) -> Session:
    session = Session(Journal(path))
    session.submit({"do": "setup", "event": "Held night", "rules": {"turns": 3}, "players": PLAYERS})
    session.submit({"do": "begin_turn"})
    return session


def test_the_referee_holds_the_card_as_read_and_the_console_will_not_rule_it_as_read(scanner, tmp_path):
    card, photo = _robbery({"victim_tens": "0", "victim_units": "3", "ordinal": "4"})
    session = _game(tmp_path / "g.db")
    outcome = session.submit(scanner.scan_image(photo).command)
    assert outcome.status == "ok", outcome.reason
    assert session.state.held[card.serial].card == {"do": "rob", "serial": card.serial, "robber": None,
                                                    "victim": 3, "ordinal": 4}
    from tui.bingo.console import ConsoleApp
    app = ConsoleApp(session)

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        before = len(list(session.journal.batches()))
        await pilot.press("a")
        await settle(pilot, lambda app: "robber not read" in text_of(app))
        assert card.serial in session.state.held and len(list(session.journal.batches())) == before, "nothing ruled"

    drive(app, body, (120, 36))


def test_a_card_scanned_past_the_time_limit_is_rejected_naming_the_limit(tmp_path):
    """Settings.time_limit_ms (event.toml [cards]): the watched folder moves it to rejected/, nothing is sent."""
    from vision.cards import FolderWatcher, Settings
    card, photo = _robbery({"robber_tens": "0", "robber_units": "2", "victim_tens": "0", "victim_units": "3",
                            "ordinal": "4"})
    assert Scanner(P.EVENT, P.SECRET).scan_image(photo).decision == "counted"
    slow = Scanner(P.EVENT, P.SECRET, Settings(time_limit_ms=0.01))
    result = slow.scan_image(photo)
    assert (result.decision, result.command) == ("rejected", None), result
    assert "0 ms limit per card (time_limit_ms" in result.reason
    cv2.imwrite(str(tmp_path / "card.png"), photo)
    sent = []
    watcher = FolderWatcher(slow, tmp_path, lambda command: sent.append(command) or ("ok", None))
    watcher.SETTLE = 0
    [filed] = watcher.poll()
    assert filed.decision == "rejected" and (tmp_path / "rejected" / "card.png").exists() and not sent


def test_a_card_on_a_busy_machine_is_not_turned_away_by_the_time_limit(monkeypatch):
    """The limit counts the scan's own work (CPU time): a scan kept waiting by other work on the
    machine (here: a second of wall time with no CPU spent) still counts the card."""
    import time
    from vision.cards import Settings
    from vision.cards import scanner as S
    card, photo = _robbery({"robber_tens": "0", "robber_units": "2", "victim_tens": "0", "victim_units": "3",
                            "ordinal": "4"})
    scan = S.Scanner._scan

    def starved(self, *args):
        time.sleep(1.0)
        return scan(self, *args)
    monkeypatch.setattr(S.Scanner, "_scan", starved)
    result = Scanner(P.EVENT, P.SECRET, Settings(time_limit_ms=500)).scan_image(photo)
    assert result.decision == "counted", result


def test_every_scanner_setting_can_be_set_in_the_event_file(tmp_path):
    """[cards] in event.toml: an unknown key is an error (law 5), so every Settings field must be known there."""
    from dataclasses import fields
    from companion.core import event_file
    from companion.cli import main
    from companion.cli.cards import _settings
    from vision.cards import Settings
    path = tmp_path / "event.toml"
    assert main(["init", "--out", str(path), "--players", "3", "--seed", "1"]) == 0
    values = {f.name: f.default * 1.5 for f in fields(Settings)}
    path.write_text(path.read_text() + "\n[cards]\n" + "".join(f"{k} = {v}\n" for k, v in values.items()))
    assert _settings(event_file.load(path)) == Settings(**values)
