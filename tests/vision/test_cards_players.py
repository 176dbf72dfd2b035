"""Every event size prints and scans: an event may have 2-26 players (companion init), and robbery
cards carry player numbers as two digit rows (tens 0-2, units 0-9). Once `print cards` stopped at
13 players: the card had bubbles for players 1-12 only. Images from the printed PDF."""
import cv2
import pytest

import printed_cards as P
from companion.cli import main
from companion.core.journal import Journal
from companion.core.session import Session
from vision import layouts as L
from vision.layouts import bingo
from vision.cards import referee

cv2.setNumThreads(1)


def test_an_event_of_26_players_prints_every_card(tmp_path, capsys):
    event, out = tmp_path / "event.toml", tmp_path / "cards.pdf"
    assert main(["init", "--out", str(event), "--players", "26", "--seed", "3"]) == 0
    assert main(["print", "cards", "--event", str(event), "--out", str(out), "--players", "13,26"]) == 0
    assert "for players 13, 26" in capsys.readouterr().out and out.read_bytes().startswith(b"%PDF")


def _robbery(owner: int, marks: list[tuple[str, str]]):
    card = P.card("robbery", owner, 2)
    picture = P.printed(card)
    for name, value in marks:
        P.dot(picture, P.bubble("robbery", name, value))
    return card, P.photo(picture, turn_deg=-2)


def _number(role: str, n: int) -> list[tuple[str, str]]:
    tens, units = bingo.digit_fields(role)
    return [(tens, str(n // 10)), (units, str(n % 10))]


@P.needs_poppler
@pytest.mark.parametrize("robber,victim", [(26, 19), (7, 20), (10, 1)])
def test_player_numbers_up_to_26_read_from_two_digit_rows(scanner, robber, victim):
    card, photo = _robbery(robber, [*_number("robber", robber), *_number("victim", victim), ("ordinal", "2")])
    result = scanner.scan_image(photo)
    assert result.decision == "counted", result
    assert result.command == {"do": "rob", "serial": card.serial, "robber": robber, "victim": victim, "ordinal": 2}


@P.needs_poppler
@pytest.mark.parametrize("marks", [
    [("robber_tens", "1"), *_number("victim", 4), ("ordinal", "1")],                          # robber's units blank
    [("robber_tens", "1"), ("robber_tens", "2"), ("robber_units", "3"), *_number("victim", 4), ("ordinal", "1")]],
    ids=["blank-digit", "two-tens"])
def test_a_blank_or_double_marked_digit_row_goes_to_review(scanner, marks):
    card, photo = _robbery(12, marks)
    result = scanner.scan_image(photo)
    assert result.decision == "review" and "robber_" in result.reason, result
    assert result.command["card"]["robber"] is None and result.command["card"]["victim"] == 4


@P.needs_poppler
def test_a_number_that_is_no_player_is_the_referees_to_refuse(scanner, tmp_path):
    """Tens 2, units 9 on a 26-player card reads 29: the referee says there is no such player."""
    card, photo = _robbery(3, [*_number("robber", 29), *_number("victim", 5), ("ordinal", "1")])
    result = scanner.scan_image(photo)
    assert result.command["robber"] == 29, result
    session = Session(Journal(tmp_path / "g.db"))
    players = [{"no": n, "name": f"P{n}", "account": chr(64 + n), "card": [(n + i) % 27 + 1 for i in range(9)]}
               for n in range(1, 27)]
    assert session.submit({"do": "setup", "event": "Big night", "rules": {"turns": 3}, "players": players}).status == "ok"
    session.submit({"do": "begin_turn"})

    def submit(command):
        outcome = session.submit(command)
        return outcome.status, outcome.reason
    referee(result, submit)
    assert (result.decision, result.reason) == ("invalid", "there is no player 29 (robber)"), result
