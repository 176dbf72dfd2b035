"""The referee checks card owners (D3, R6, D12): a printed serial names its owner (V<player><turn>,
R<player><card>); the owner must play in this game, the serial be of the command's kind and a vote
card's printed turn the one it is entered for. Serials in no printed form keep today's contract."""
import json
from pathlib import Path

import pytest

from companion.cli import main
from table import invalid, play, rejected, setup, votes

ROOT = Path(__file__).resolve().parents[2]


def voting(players: int = 6, turn: int = 1):
    s = setup(players)
    for _ in range(turn - 1):
        s = play(s, {"do": "begin_turn"}, {"do": "draw", "balls": s.balls_in("machine")[:3]}, {"do": "close_voting"},
                 {"do": "end_turn"})
    return play(s, {"do": "begin_turn"}, {"do": "draw", "balls": s.balls_in("machine")[:3]})


def vote(serial: str, turn: int = 1, **more) -> dict:
    return {"do": "vote", "serial": serial, "turn": turn, "marks": ["X"], **more}


@pytest.mark.parametrize("players, serial", [(6, "V0901"), (12, "V1301"), (6, "V0001")])
def test_D3_a_vote_card_of_no_player_in_this_game_is_refused(players, serial):
    reason = rejected(voting(players), vote(serial))
    assert f"there is no player {int(serial[1:3])} in this game" in reason


@pytest.mark.parametrize("serial", ["R0102", "banana", "", "v0101", "X0101"])
def test_D3_a_vote_needs_a_vote_card_serial(serial):
    reason = rejected(voting(), vote(serial))
    assert "not a vote card's serial" in reason or "needs its serial" in reason


def test_D3_a_robbery_needs_a_robbery_card_of_a_player():
    s = voting(turn=2)
    rob = {"do": "rob", "serial": "V0102", "robber": 1, "victim": 2, "ordinal": 1}
    assert "not a robbery card's serial" in rejected(s, rob)
    assert "no player 9 in this game" in rejected(s, {**rob, "serial": "R0901"})
    # a traded robbery card counts whoever uses it (D3): R0301 is player 3's card, player 1 robs with it
    assert "no line 1" in invalid(s, {**rob, "serial": "R0301"})


def test_R6_D12_a_vote_card_printed_for_another_turn_than_entered_is_refused():
    s = voting(turn=2)
    assert "printed for turn 10, not turn 2" in rejected(s, vote("V0110", 2))   # player 1 voting twice...
    s = play(s, vote("V0102", 2))                                              # ...counts once
    assert [b.serial for b in s.ballots] == ["V0102"]
    assert "duplicate" in invalid(s, vote("V0102", 2))                         # D3: one card, once
    # a card of another turn entered as printed is an invalid vote, as docs/rules/plunder-bingo.md says (R6, D12)
    assert "card of turn 3 dropped in turn 2 (R6)" in invalid(s, vote("V0203", 3))


def test_D3_an_explicit_owner_must_agree_with_the_printed_serial():
    s = voting()
    assert "is player 1's, not player 2's" in rejected(s, vote("V0101", owner=2))
    assert "does not name an owner" in rejected(s, vote("V1", owner=1))
    s = play(s, vote("V0101", owner=1))
    assert [b.serial for b in s.ballots] == ["V0101"]


def test_D2_a_held_card_of_no_player_is_refused_before_it_waits_for_review():
    hold = {"do": "hold", "card": vote("V0901"), "reason": "faint"}
    assert "no player 9" in rejected(voting(), hold)


def test_scripts_whose_serials_name_no_owner_keep_todays_contract(capsys):
    s = play(voting(), *votes(1, "X", "X", "Y"))          # "V01-0" ... as the test tables write them
    assert [b.choice for b in s.ballots] == ["X", "X", "Y"]
    assert main(["replay", str(ROOT / "examples" / "demo-game.jsonl"), "--json"]) == 0
    log = json.loads(capsys.readouterr().out)["log"]
    assert not [entry for entry in log if entry["status"] == "rejected"]


def test_D3_a_validly_signed_card_for_a_player_not_in_the_game_is_refused(tmp_path):
    cv2 = pytest.importorskip("cv2")
    from companion.core import event_file
    from companion.core.journal import Journal
    from companion.core.session import Session
    from vision import layouts as L
    from vision.cards import Scanner, referee
    from vision.render import render
    from vision.sim import drawn_cards as C
    main(["init", "--out", str(tmp_path / "e.toml"), "--players", "6", "--seed", "2"])
    main(["start", "--event", str(tmp_path / "e.toml")])
    ev = event_file.load(tmp_path / "e.toml")
    session = Session(Journal(ev.journal))
    session.submit({"do": "begin_turn"})
    session.submit({"do": "draw", "balls": [1, 2, 3]})
    card = L.Card("vote", ev.id, L.serial("vote", 9, 1), 9, 1)            # printed and signed for player 9
    photo = cv2.cvtColor(render(card, ev.secret, C.RES, 1), cv2.COLOR_GRAY2BGR)

    def submit(command):
        outcome = session.submit(command)
        return outcome.status, outcome.reason
    result = referee(Scanner(ev.id, ev.secret).scan_image(photo), submit)
    assert result.serial == "V0901" and "no player 9" in (result.reason or ""), result
    assert session.state.ballots == []
