"""Typed tallies: with the scanner down, a turn's votes in one line, `1x 2y 3z 4-`,
each checked like the player's scanned card (serial V<player><turn>, R6, D3); a bad token is one line
naming it, and nothing of that line is sent."""
from __future__ import annotations

import pytest

from companion.core.journal import Journal
from companion.core.session import Session
from tui.bingo.console import ConsoleApp
from tui.bingo.forms import tally
from tui.forms import FormError

from screens_helpers import drive, settle, text_of

PLAYERS = 12
KEY_TARGET = 30             # keys for a whole turn's tally of 12 players (the target)


def voting_session(tmp_path) -> Session:
    session = Session(Journal(tmp_path / "g.db"))
    session.submit({"do": "setup", "event": "Tally night", "rules": {"turns": 3},
                    "players": [{"no": no, "name": f"P{no}", "account": chr(64 + no),
                                 "card": [(no + k) % 27 + 1 for k in range(9)]} for no in range(1, PLAYERS + 1)]})
    for command in ({"do": "begin_turn"}, {"do": "draw", "balls": [4, 9, 21]}):
        assert session.submit(command).status == "ok"
    return session


def test_a_tally_line_reads_as_player_and_choice():
    assert tally("1x 2Y 3z 4-") == [(1, ["X"]), (2, ["Y"]), (3, ["Z"]), (4, [])]
    assert tally("10x11-12z") == [(10, ["X"]), (11, []), (12, ["Z"])]
    with pytest.raises(FormError, match=r"'2q' is not a vote"):
        tally("1x 2q 3z")
    with pytest.raises(FormError, match=r"'x' is not a vote"):
        tally("1xx")
    with pytest.raises(FormError, match="player 3 is in this line twice"):
        tally("3x 4y 3z")


def test_twelve_votes_in_at_most_thirty_keys_each_checked_like_its_card(tmp_path):
    session = voting_session(tmp_path)
    app = ConsoleApp(session)
    line = "1x2y3z4-5x6y7z8x9y10z11x12x"
    keys = ["V", *line, "enter"]
    assert len(keys) <= KEY_TARGET

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        await pilot.press(*keys)
        await settle(pilot, lambda app: app.handled >= PLAYERS)
        ballots = {b.serial: b.choice for b in session.state.ballots}
        assert ballots == {"V0101": "X", "V0201": "Y", "V0301": "Z", "V0401": None, "V0501": "X", "V0601": "Y",
                           "V0701": "Z", "V0801": "X", "V0901": "Y", "V1001": "Z", "V1101": "X", "V1201": "X"}
        before = session.journal.count()
        await pilot.press("V", *"1y", "enter")          # player 1's card again: a duplicate, as scanned twice
        await settle(pilot, lambda app: session.journal.count() > before)
        assert "duplicate" in text_of(pilot.app)

    drive(app, body, (120, 36))


def test_a_bad_token_or_a_refused_vote_sends_nothing_of_the_line(tmp_path):
    session = voting_session(tmp_path)
    app = ConsoleApp(session)

    async def body(pilot):
        await settle(pilot, lambda app: app.ready)
        before = session.journal.count()
        await pilot.press("V", *"1x 2q 3z", "enter")
        await settle(pilot, lambda app: "'2q' is not a vote" in text_of(app))
        await pilot.press("escape")
        await pilot.press("V", *"1x 2y 13z", "enter")         # there is no player 13
        await settle(pilot, lambda app: "13z:" in text_of(app))
        assert "nothing of the line was sent" in text_of(pilot.app)
        assert session.journal.count() == before and session.state.ballots == []

    drive(app, body, (120, 36))
