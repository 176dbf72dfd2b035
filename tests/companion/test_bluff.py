"""One test (or more) per rule id of docs/rules/auction-bluff.md (AB1-AB7, D1-D6), the worked
example game, and the README's contract: script commands, replay JSON, the public view, the event file."""
import json
from dataclasses import replace
from pathlib import Path

import pytest

from companion.bluff import GAME
from companion.bluff.state import State
from companion.cli import main
from game_rules import referee

ROOT = Path(__file__).resolve().parents[2]
NIGHT = ROOT / "examples" / "bluff-night.jsonl"
NAMES = ["Aki", "Ben", "Chie", "Daiki", "Emi", "Fumio"]
GEMS = ["ruby", "sapphire", "emerald", "garnet", "amethyst", "diamond"]
E8 = 100_000_000


def setup_command(players: int = 6, **extra) -> dict:
    return {"do": "setup", "game": "bluff", "event": "Test night", **extra,
            "players": [{"no": no, "name": NAMES[no - 1], "gem": GEMS[no - 1]} for no in range(1, players + 1)]}


attempt, play, rejected, invalid = referee(GAME)


def table(players: int = 6, **extra) -> State:
    return play(State(), setup_command(players, **extra))


def dice(player: int, *faces: str, gem: str | None = None) -> dict:
    return {"do": "dice", "player": player, "faces": {gem or GEMS[player - 1]: list(faces)}}


def declare(player: int, face, count) -> dict:
    return {"do": "declare", "player": player, "face": face, "count": count}


def voted(players: int = 6, faces: dict | None = None, **extra) -> State:
    """A table in its first period's declarations: each player's dice show faces[player] (default 1 1 2 3 ★)."""
    faces = faces or {}
    votes = [dice(no, *faces.get(no, ["1", "1", "2", "3", "★"])) for no in range(1, players + 1)]
    return play(table(players, **extra), {"do": "period"}, *votes, {"do": "close_dice"})


def judged(state: State) -> dict:
    state = play(state, {"do": "judge"})
    return {"period": state.periods[-1], "state": state}


# ---- AB1 ------------------------------------------------------------------------------------

def test_AB1_each_player_holds_the_five_dice_of_their_gem():
    s = table()
    assert s.dice == {no: {GEMS[no - 1]: 5} for no in range(1, 7)} and s.phase == "ready"
    assert [p.gem for p in s.players.values()] == GEMS


def test_AB1_two_to_six_players_with_distinct_numbers_and_gems():
    assert "2-6 players" in rejected(State(), setup_command(1))
    seven = setup_command()
    seven["players"].append({"no": 7, "name": "G", "gem": "ruby"})
    assert "2-6 players" in rejected(State(), seven)
    same_gem = setup_command(2)
    same_gem["players"][1]["gem"] = "ruby"
    assert rejected(State(), same_gem) == "two players have gem ruby: each is distinct (AB1)"
    same_no = setup_command(2)
    same_no["players"][1]["no"] = 1
    assert rejected(State(), same_no) == "two players have no 1: each is distinct (AB1)"
    pearl = setup_command(2)
    pearl["players"][1]["gem"] = "pearl"
    assert rejected(State(), pearl).startswith("'pearl' is no gem; gems: ruby, sapphire")


# ---- AB2: the dice vote ------------------------------------------------------------------------

def test_AB2_a_dice_vote_gives_every_held_die_a_face_and_replaces_the_earlier_one():
    s = play(table(), {"do": "period"}, dice(1, "1", "1", "2", "3", "★"), dice(1, "5", "5", "5", "5", "5"))
    assert s.period.votes == {1: {"ruby": ["5", "5", "5", "5", "5"]}}
    assert rejected(s, dice(2, "1", "2")) == "player 2 holds 5 sapphire dice, not 2"
    assert rejected(s, dice(2, "1", "2", "3", "4", "5", gem="ruby")) == \
        "player 2 holds 5 sapphire: give the faces of exactly those dice"
    assert rejected(s, dice(2, "1", "2", "3", "4", "6")).startswith("'6' is no face")


def test_AB2_phases_period_dice_close_declare_judge_in_order():
    s = table()
    assert rejected(s, dice(1, "1", "1", "1", "1", "1")) == "not now: no period is open"
    assert rejected(s, declare(1, 1, 1)) == "not now: no period is open"
    assert rejected(s, {"do": "judge"}) == "not now: no period is open"
    s = play(s, {"do": "period"})
    assert s.phase == "dice" and s.period.no == 1
    assert rejected(s, declare(1, 1, 1)) == "not now: the dice vote is open"
    assert rejected(s, {"do": "period"}) == "not now: the dice vote is open"
    s = play(s, {"do": "close_dice"})
    assert s.phase == "declare"
    assert rejected(s, dice(1, "1", "1", "1", "1", "1")).startswith("not now: the dice vote is closed")


def test_AB2_selection_is_the_highest_count():
    s = play(voted(), declare(1, 5, 2), declare(2, 1, 3), declare(3, 2, 1))
    assert judged(s)["period"].selected == {"player": 2, "face": 1, "count": 3}


def test_AB2_selection_on_a_tied_count_is_the_highest_face():
    s = play(voted(), declare(1, 2, 3), declare(2, 4, 3), declare(3, 3, 3))
    assert judged(s)["period"].selected == {"player": 2, "face": 4, "count": 3}


def test_AB2_selection_on_a_tied_count_and_face_is_the_earliest():
    s = play(voted(), declare(4, 3, 3), declare(2, 3, 3), declare(1, 3, 3))
    assert judged(s)["period"].selected == {"player": 4, "face": 3, "count": 3}


def test_AB2_a_declaration_that_holds_wins_and_ends_the_game():
    # 6 players x (two 1s and a ★) = 18 dice showing 1 with ★ wild
    result = judged(play(voted(), declare(3, 1, 18)))
    assert (result["period"].true_count, result["period"].result) == (18, "won")
    assert result["state"].phase == "finished" and result["state"].winner == 3
    assert rejected(result["state"], {"do": "period"}) == "not now: the game is over"


def test_AB2_a_declaration_that_fails_eliminates_its_declarer_and_the_game_goes_on():
    result = judged(play(voted(), declare(3, 1, 19)))
    s = result["state"]
    assert (result["period"].true_count, result["period"].result) == (18, "eliminated")
    assert s.players[3].eliminated and s.phase == "ready" and s.winner is None
    assert play(s, {"do": "period"}).period.no == 2


def test_AB2_invalid_declarations_are_journaled_invalid_and_never_selected():
    s = voted()
    assert invalid(s, declare(1, "★", 3)) == "★ cannot be declared: the face is 1-5 (AB2)"
    assert invalid(s, declare(1, 6, 3)) == "the face is 1-5, not 6 (D6)"
    assert invalid(s, declare(1, "5", 3)) == "the face is 1-5, not '5' (D6)"
    assert invalid(s, declare(1, None, None)) == "unreadable: a declaration is one face and one count (AB2)"
    s = play(s, declare(1, "★", 30), declare(2, 1, 2))
    assert judged(s)["period"].selected == {"player": 2, "face": 1, "count": 2}


# ---- D1: wild ★, D2: eliminated dice, D3: faces not set ------------------------------------------

def test_D1_star_counts_as_every_face_by_default_and_not_when_star_wild_is_false():
    assert judged(play(voted(), declare(1, 3, 12)))["period"].true_count == 12      # 6 threes + 6 stars
    plain = voted(star_wild=False)
    assert not plain.star_wild
    assert judged(play(plain, declare(1, 3, 12)))["period"].true_count == 6


def test_D2_an_eliminated_players_dice_are_not_counted_but_still_owned_for_the_payout():
    s = judged(play(voted(), declare(6, 1, 30)))["state"]                    # Fumio is eliminated
    s = play(s, {"do": "period"})
    assert rejected(s, dice(6, "1", "1", "1", "1", "1")) == \
        "player 6 is eliminated: no vote, declaration or cancellation (AB3)"
    s = play(s, *(dice(no, "1", "1", "1", "1", "1") for no in range(1, 6)), {"do": "close_dice"})
    end = judged(play(s, declare(1, 1, 25)))["state"]
    assert end.periods[-1].true_count == 25 and end.winner == 1              # Fumio's dice counted for nothing
    assert [p["result"] for p in GAME.public(end)["players"]][5] == -E8      # he holds no ruby


def test_D3_a_die_with_no_face_set_counts_for_no_face():
    s = play(table(), {"do": "period"}, dice(1, "★", "★", "★", "★", "★"), {"do": "close_dice"})
    period = judged(play(s, declare(2, 2, 6)))["period"]
    assert (period.true_count, period.result) == (5, "eliminated")


# ---- AB3: elimination ---------------------------------------------------------------------------

def test_AB3_an_eliminated_player_may_not_vote_declare_or_cancel():
    s = judged(play(voted(), declare(2, 1, 30)))["state"]
    s = play(s, {"do": "period"}, {"do": "close_dice"})
    assert "eliminated" in rejected(s, declare(2, 1, 1))
    assert "eliminated" in rejected(s, {"do": "cancel", "player": 2, "consent": [1, 2, 3, 4, 5, 6]})


def test_AB3_when_every_player_is_eliminated_the_game_ends_with_no_winner():
    s = table(2)
    for player in (1, 2):
        s = play(s, {"do": "period"}, {"do": "close_dice"}, declare(player, 1, 1), {"do": "judge"})
    assert s.phase == "finished" and s.winner is None
    assert [p["result"] for p in GAME.public(s)["players"]] == [-E8, -E8]


def test_D7_the_fifth_periods_failed_declaration_ends_the_game_with_no_winner_and_a_sixth_is_refused():
    s = table()
    for player in range(1, 6):                    # five periods, each declarer eliminated
        assert s.phase == "ready"
        s = play(s, {"do": "period"}, {"do": "close_dice"}, declare(player, 1, 1), {"do": "judge"})
    assert len(s.periods) == 5 and s.active() == [6]
    assert s.phase == "finished" and s.winner is None                 # D4: nobody wins
    assert [p["result"] for p in GAME.public(s)["players"]] == [-E8] * 6
    assert "the game is over" in rejected(s, {"do": "period"})
    assert "at most 5 periods (D7)" in rejected(replace(s, phase="ready"), {"do": "period"})    # whatever the phase


def test_D7_the_five_days_example_ends_after_the_fifth_failed_declaration(capsys):
    code, out, _ = run(capsys, "replay", ROOT / "examples" / "bluff-five-days.jsonl", "--json")
    view = json.loads(out)
    assert code == 0 and (view["phase"], view["winner"], len(view["periods"])) == ("finished", None, 5)
    assert [p["result"] for p in view["periods"]] == ["eliminated"] * 5
    assert [(e["status"], e["reason"]) for e in view["log"] if e["status"] != "ok"] == \
        [("rejected", "not now: the game is over")]


# ---- AB4: nobody declares -------------------------------------------------------------------------

def test_AB4_a_period_with_no_declaration_ends_the_game_every_player_loses_the_fee():
    s = judged(play(voted(), declare(1, "★", 3)))["state"]     # only an invalid declaration
    period = s.periods[-1]
    assert (period.selected, period.true_count, period.result) == (None, None, "no_declaration")
    assert s.phase == "finished" and s.winner is None
    assert [p["result"] for p in GAME.public(s)["players"]] == [-E8] * 6


# ---- AB5, D5: transfers ---------------------------------------------------------------------------

def test_AB5_a_transfer_moves_dice_of_one_gem_any_time_before_the_end():
    s = play(table(), {"do": "transfer", "from": 1, "to": 2, "gem": "ruby", "count": 2})
    assert s.dice[1] == {"ruby": 3} and s.dice[2] == {"sapphire": 5, "ruby": 2}
    assert rejected(s, {"do": "transfer", "from": 1, "to": 2, "gem": "ruby", "count": 4}) == \
        "player 1 holds 3 ruby dice, not 4 (AB5)"
    assert rejected(s, {"do": "transfer", "from": 1, "to": 1, "gem": "ruby", "count": 1}) == \
        "a transfer is between two players"
    assert rejected(s, {"do": "transfer", "from": 1, "to": 9, "gem": "ruby", "count": 1}) == "there is no player 9"
    assert rejected(s, {"do": "transfer", "from": 1, "to": 2, "gem": "ruby", "count": 0}).startswith("a transfer moves")
    assert rejected(table(2), {"do": "transfer", "from": 1, "to": 2, "gem": "diamond", "count": 1}) == \
        "no player owns 'diamond' dice in this game"
    finished = judged(play(voted(), declare(1, 1, 1)))["state"]
    assert rejected(finished, {"do": "transfer", "from": 1, "to": 2, "gem": "ruby", "count": 1}) == \
        "not now: the game is over"


def test_D5_a_transfer_during_the_dice_vote_clears_both_players_votes():
    s = play(table(), {"do": "period"}, dice(1, "1", "1", "1", "1", "1"), dice(2, "2", "2", "2", "2", "2"),
             dice(3, "3", "3", "3", "3", "3"), {"do": "transfer", "from": 1, "to": 2, "gem": "ruby", "count": 1})
    assert sorted(s.period.votes) == [3]
    assert rejected(s, dice(2, "2", "2", "2", "2", "2")) == \
        "player 2 holds 5 sapphire, 1 ruby: give the faces of exactly those dice"
    s = play(s, {"do": "dice", "player": 2, "faces": {"sapphire": ["2"] * 5, "ruby": ["1"]}})
    assert s.period.votes[2] == {"sapphire": ["2"] * 5, "ruby": ["1"]}
    assert GAME.staff(s)["transfers"] == [{"period": 1, "from": 1, "to": 2, "gem": "ruby", "count": 1, "cleared": [1, 2]}]
    assert "transfers" not in GAME.public(s)


def test_D5_after_the_close_a_transfer_changes_ownership_only():
    s = voted(faces={1: ["4"] * 5})
    s = play(s, {"do": "transfer", "from": 1, "to": 2, "gem": "ruby", "count": 5})
    assert s.dice[1] == {} and s.dice[2]["ruby"] == 5
    period = judged(play(s, declare(2, 4, 5)))["period"]     # judged on the closed faces: Aki's five 4s
    assert (period.true_count, period.result) == (5 + 5, "won")      # and the other five players' stars


# ---- AB6, D4: payout ----------------------------------------------------------------------------

def test_AB6_every_die_of_the_winners_gem_pays_its_holder_the_winner_gets_the_bonus_all_pay_the_fee():
    s = play(table(), {"do": "transfer", "from": 3, "to": 1, "gem": "emerald", "count": 2},
             {"do": "transfer", "from": 3, "to": 5, "gem": "emerald", "count": 1}, {"do": "period"},
             *(dice(no, "1", "1", "1", "1", "1") for no in (2, 4, 6)), {"do": "close_dice"},
             declare(3, 1, 1), {"do": "judge"})
    assert s.winner == 3
    results = {p["no"]: p["result"] for p in GAME.public(s)["players"]}
    assert results == {1: 2 * E8 - E8, 2: -E8, 3: 2 * E8 + E8 - E8, 4: -E8, 5: E8 - E8, 6: -E8}
    assert sum(results.values()) == (6 - 6) * E8


def test_D4_a_game_with_no_winner_pays_nothing_for_dice():
    s = judged(voted(4))["state"]
    assert [p["result"] for p in GAME.public(s)["players"]] == [-E8] * 4


def test_AB6_results_are_null_until_the_end():
    assert {p["result"] for p in GAME.public(voted())["players"]} == {None}


# ---- D6: declarations and cancellation -------------------------------------------------------------

def test_D6_count_is_1_to_30():
    s = voted()
    assert invalid(s, declare(1, 3, 0)) == "the count is 1-30, not 0 (D6)"
    assert invalid(s, declare(1, 3, 31)) == "the count is 1-30, not 31 (D6)"
    assert not [e for e in attempt(s, declare(1, 3, 30)) if GAME.invalid(e)]


def test_D6_a_second_declaration_is_refused_while_the_first_stands_not_after_an_invalid_one():
    s = play(voted(), declare(1, "★", 2))
    s = play(s, declare(1, 2, 4))
    assert rejected(s, declare(1, 3, 5)) == \
        "player 1 already declared face 2 count 4: a second declaration is refused (D6)"


def test_D6_cancelling_needs_the_consent_of_every_player_not_eliminated():
    s = judged(play(voted(), declare(6, 1, 30)))["state"]            # Fumio is eliminated
    s = play(s, {"do": "period"}, {"do": "close_dice"}, declare(1, 2, 3))
    assert rejected(s, {"do": "cancel", "player": 1, "consent": [1, 2, 3, 4]}) == \
        "cancelling needs the consent of every player not eliminated; missing: 5 (D6)"
    assert rejected(s, {"do": "cancel", "player": 2, "consent": [1, 2, 3, 4, 5]}) == \
        "player 2 has no declaration to cancel"
    assert rejected(s, {"do": "cancel", "player": 1, "consent": [1, 2, 3, 4, 5, 8]}) == \
        "there is no player 8 to consent"
    s = play(s, {"do": "cancel", "player": 1, "consent": [1, 2, 3, 4, 5]})
    assert s.period.declarations == []
    s = play(s, declare(1, 4, 1))                                       # may declare again
    assert judged(s)["period"].selected == {"player": 1, "face": 4, "count": 1}


# ---- corrections: undo, held cards ----------------------------------------------------------------

def test_undo_takes_back_a_transfer():
    from companion.core.journal import Journal
    from companion.core.session import Session
    session = Session(Journal())
    session.submit(setup_command())
    session.submit({"do": "transfer", "from": 1, "to": 2, "gem": "ruby", "count": 2})
    assert session.submit({"do": "undo"}).status == "ok"
    assert session.state.dice[1] == {"ruby": 5} and session.state.dice[2] == {"sapphire": 5}


def test_a_held_card_waits_for_a_ruling_before_the_close_and_the_judgement():
    card = {**dice(1, "1", "1", "1", "1", None), "serial": "D0101"}
    card["faces"]["ruby"][-1] = "?"
    s = play(table(), {"do": "period"}, {"do": "hold", "card": card, "reason": "faint mark"})
    assert rejected(s, {"do": "close_dice"}) == "rule on the held card first: D0101"
    ruled = {**card, "faces": {"ruby": ["1", "1", "1", "1", "2"]}}
    s = play(s, {"do": "rule", "serial": "D0101", "card": ruled})
    assert s.period.votes[1] == {"ruby": ["1", "1", "1", "1", "2"]} and not s.held
    assert rejected(s, {**ruled, "faces": {"ruby": ["1"] * 5}}) == "duplicate: card D0101 was already scanned"
    s = play(s, {"do": "close_dice"})
    held = {**declare(2, None, 12), "serial": "C0201"}
    s = play(s, {"do": "hold", "card": held, "reason": "unclear face"})
    assert rejected(s, {"do": "judge"}) == "rule on the held card first: C0201"
    assert invalid(s, {"do": "rule", "serial": "C0201", "invalid": "two faces marked"}) == \
        "ruled invalid: two faces marked"


# ---- the rehearsal script and replay JSON ------------------------------------------------------------

def run(capsys, *argv):
    code = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return code, out, err


NIGHT_PERIODS = [   # worked by hand from the script's faces, period by period
    {"no": 1, "selected": {"player": 3, "face": 5, "count": 9}, "true_count": 8, "result": "eliminated"},
    {"no": 2, "selected": {"player": 5, "face": 5, "count": 10}, "true_count": 2, "result": "eliminated"},
    {"no": 3, "selected": {"player": 4, "face": 3, "count": 8}, "true_count": 9, "result": "won"},
]
NIGHT_DICE = {1: {"ruby": 3}, 2: {"sapphire": 5, "ruby": 2}, 3: {"emerald": 5, "amethyst": 2},
              4: {"garnet": 4}, 5: {"amethyst": 3, "garnet": 1}, 6: {"diamond": 5}}
NIGHT_RESULTS = {1: -E8, 2: -E8, 3: -E8, 4: 4 * E8 + E8 - E8, 5: E8 - E8, 6: -E8}   # garnets win
NIGHT_NOT_OK = {19: ("invalid", "★ cannot be declared: the face is 1-5 (AB2)"),
                21: ("rejected", "player 1 already declared face 5 count 6: a second declaration is refused (D6)"),
                23: ("rejected", "cancelling needs the consent of every player not eliminated; missing: 6 (D6)"),
                29: ("rejected", "player 3 is eliminated: no vote, declaration or cancellation (AB3)"),
                52: ("rejected", "not now: the game is over")}


def test_the_worked_example_replays_to_the_contracts_json(capsys):
    code, out, _ = run(capsys, "replay", NIGHT, "--json")
    view = json.loads(out)
    assert code == 0 and list(view) == ["game", "phase", "periods", "players", "winner", "log"]
    assert (view["game"], view["phase"], view["winner"]) == ("bluff", "finished", 4)
    assert view["periods"] == NIGHT_PERIODS
    assert all(list(p) == ["no", "name", "gem", "dice", "eliminated", "result"] for p in view["players"])
    assert view["players"] == [{"no": no, "name": NAMES[no - 1], "gem": GEMS[no - 1], "dice": NIGHT_DICE[no],
                                "eliminated": no in (3, 5), "result": NIGHT_RESULTS[no]} for no in range(1, 7)]
    assert sum(NIGHT_RESULTS.values()) == (6 - 6) * E8
    commands = [n for n, line in enumerate(NIGHT.read_text().splitlines(), 1) if line.startswith("{")]
    assert [entry["line"] for entry in view["log"]] == commands
    assert all(list(entry) == ["line", "status", "reason"] for entry in view["log"])
    assert {e["line"]: (e["status"], e["reason"]) for e in view["log"] if e["status"] != "ok"} == NIGHT_NOT_OK


def test_replay_text_names_each_period_and_result(capsys):
    code, out, _ = run(capsys, "replay", NIGHT)
    assert code == 0 and "line 19: invalid: ★ cannot be declared: the face is 1-5 (AB2)" in out
    assert "period 2: player 5 declared 10 x 5; true count 2: is eliminated" in out
    assert "  4 Daiki garnet   4 garnet                           +400,000,000" in out


def script(tmp_path, *commands) -> Path:
    path = tmp_path / "b.jsonl"
    path.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in commands), encoding="utf-8")
    return path


def test_public_shows_gems_judged_periods_and_results_never_a_face_or_unselected_declaration(tmp_path, capsys):
    path = script(tmp_path, setup_command(3), {"do": "period"}, dice(1, "4", "4", "4", "★", "2"),
                  dice(2, "3", "3", "3", "3", "3"), {"do": "close_dice"}, declare(1, 4, 5), declare(2, 3, 2),
                  {"do": "judge"}, {"do": "period"}, dice(2, "1", "1", "1", "1", "1"), {"do": "close_dice"},
                  declare(2, 1, 2))
    code, out, _ = run(capsys, "replay", path, "--public", "--json")
    view = json.loads(out)
    assert code == 0 and view["phase"] == "declare" and view["period"] == 2
    assert view["periods"] == [{"no": 1, "selected": {"player": 1, "face": 4, "count": 5}, "result": "eliminated"}]
    assert [(p["gem"], p["eliminated"]) for p in view["players"]] == [("ruby", True), ("sapphire", False), ("emerald", False)]
    assert view["declarations"] == [{"player": 2, "face": 1, "count": 2, "leading": True}]    # D8: the open auction
    text = json.dumps(view, ensure_ascii=False)
    assert "★" not in text and '"3", "3"' not in text and "votes" not in text and "true_count" not in text
    assert '"face": 3' not in text                         # Ben's unselected 2 x 3 of period 1
    code, text, _ = run(capsys, "replay", path, "--public")
    assert "period 1: player 1 declared 5 x 4; is eliminated" in text and "true count" not in text
    assert "* player 2: 2 x 1" in text


def test_D8_during_the_declarations_every_valid_one_is_announced_the_leading_one_marked_a_cancelled_one_gone():
    s = play(voted(), declare(1, 2, 3), declare(2, "★", 4), declare(3, 4, 3), declare(4, 1, 5))
    assert GAME.public(s)["declarations"] == [                   # in the order accepted; the invalid ★ not at all
        {"player": 1, "face": 2, "count": 3, "leading": False}, {"player": 3, "face": 4, "count": 3, "leading": False},
        {"player": 4, "face": 1, "count": 5, "leading": True}]
    s = play(s, {"do": "cancel", "player": 4, "consent": [1, 2, 3, 4, 5, 6]})
    assert GAME.public(s)["declarations"] == [
        {"player": 1, "face": 2, "count": 3, "leading": False}, {"player": 3, "face": 4, "count": 3, "leading": True}]
    s = play(s, {"do": "judge"})                                  # 4 x 3 of 1 1 2 3 ★ (x6): 12 fours: it holds
    assert GAME.public(s)["declarations"] == [] and s.phase == "finished"


def test_D8_a_judgement_announces_the_declaration_and_outcome_not_the_true_count_until_the_end():
    s = judged(play(voted(2), declare(1, 1, 30)))["state"]
    public = GAME.public(s)
    assert public["periods"] == [{"no": 1, "selected": {"player": 1, "face": 1, "count": 30}, "result": "eliminated"}]
    assert GAME.staff(s)["periods"][0]["true_count"] == 6          # the dealer sees it: (1, 1, ★) x 2
    s = judged(play(s, {"do": "period"}, {"do": "close_dice"}, declare(2, 1, 1)))["state"]
    assert s.phase == "finished"
    assert [p["true_count"] for p in GAME.public(s)["periods"]] == [6, 0]     # once finished, everything


def test_D8_the_public_view_names_first_owners_not_holdings_after_a_transfer_until_the_end():
    s = play(table(2), {"do": "transfer", "from": 1, "to": 2, "gem": "ruby", "count": 2})
    public = GAME.public(s)
    assert [(p["name"], p["gem"]) for p in public["players"]] == [("Aki", "ruby"), ("Ben", "sapphire")]
    assert all("dice" not in p for p in public["players"]) and "transfers" not in public
    assert "ruby 2" not in json.dumps(public) and GAME.staff(s)["players"][1]["dice"] == {"sapphire": 5, "ruby": 2}
    s = play(s, {"do": "period"}, {"do": "close_dice"}, declare(2, 1, 1), {"do": "judge"})   # nothing shows 1
    s = play(s, {"do": "period"}, {"do": "close_dice"}, declare(1, 1, 1), {"do": "judge"})   # all out: the end
    assert [p["dice"] for p in GAME.public(s)["players"]] == [{"ruby": 3}, {"sapphire": 5, "ruby": 2}]


def test_staff_view_has_the_open_periods_votes_and_declarations_public_has_none():
    s = play(voted(2), declare(1, 2, 3))
    staff, public = GAME.staff(s), GAME.public(s)
    assert staff["current"]["closed"] == {"1": {"ruby": ["1", "1", "2", "3", "★"]},
                                          "2": {"sapphire": ["1", "1", "2", "3", "★"]}}
    assert staff["current"]["declarations"] == [{"player": 1, "face": 2, "count": 3, "serial": "", "reason": ""}]
    assert "current" not in public and "held" not in public and "votes" not in json.dumps(public)


@pytest.mark.parametrize("command, message", [
    ({"do": "dice", "player": 1, "faces": {"ruby": "11111"}}, "dice: faces of 'ruby' must be a list of strings"),
    ({"do": "transfer", "to": 2, "gem": "ruby", "count": 1}, "transfer: missing key 'from'"),
    ({"do": "transfer", "from_": 1, "to": 2, "gem": "ruby", "count": 1}, "'transfer': unknown key 'from_'"),
    ({"do": "declare", "player": 1, "face": 5, "count": "five"}, "declare: count must be a whole number"),
    ({"do": "cancel", "player": 1}, "cancel: missing key 'consent'"),
    ({"do": "judge", "now": True}, "judge: unknown key 'now'"),
])
def test_a_bad_script_line_is_one_clear_line_and_exit_2(tmp_path, capsys, command, message):
    code, out, err = run(capsys, "replay", script(tmp_path, setup_command(), command))
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_a_bad_bluff_setup_is_one_clear_line(tmp_path, capsys):
    no_gem = setup_command(2)
    del no_gem["players"][0]["gem"]
    code, _, err = run(capsys, "replay", script(tmp_path, no_gem))
    assert code == 2 and "setup: player 1 has no 'gem'" in err
    code, _, err = run(capsys, "replay", script(tmp_path, {**setup_command(2), "star_wild": "yes"}))
    assert code == 2 and "setup: star_wild must be true or false" in err


# ---- the event file ------------------------------------------------------------------------------

def test_init_start_do_status_on_a_bluff_event(tmp_path, capsys):
    event = tmp_path / "bluff.toml"
    code, out, _ = run(capsys, "init", "--game", "bluff", "--players", 3, "--out", event, "--name", "Gem night")
    assert code == 0 and "3 players" in out
    text = event.read_text()
    assert 'game = "bluff"' in text and 'dice_until = "22:00"' in text and 'declare_until = "23:00"' in text
    assert run(capsys, "start", "--event", event)[0] == 0
    code, _, _ = run(capsys, "do", "--event", event, '{"do":"period"}',
                     '{"do":"transfer","from":1,"to":3,"gem":"ruby","count":1}')
    view = json.loads(run(capsys, "status", "--event", event, "--public", "--json")[1])
    assert (view["game"], view["phase"], view["star_wild"]) == ("bluff", "dice", True)
    assert [(p["gem"], "dice" in p) for p in view["players"]] == [("ruby", False), ("sapphire", False), ("emerald", False)]
    view = json.loads(run(capsys, "status", "--event", event, "--json")[1])     # the staff's view
    assert [p["dice"] for p in view["players"]] == [{"ruby": 4}, {"sapphire": 5}, {"emerald": 5, "ruby": 1}]


def test_the_bluff_event_file_checks_gems_star_wild_and_deadlines(tmp_path, capsys):
    from companion.core import event_file
    event = tmp_path / "bluff.toml"
    run(capsys, "init", "--game", "bluff", "--players", 2, "--out", event)
    text = event.read_text()
    loaded = event_file.load(event)
    assert (loaded.rules.star_wild, loaded.rules.dice_until, loaded.rules.declare_until) == (True, "22:00", "23:00")
    assert loaded.setup_command()["players"] == [{"no": 1, "name": "Player 1", "gem": "ruby"},
                                                 {"no": 2, "name": "Player 2", "gem": "sapphire"}]
    event.write_text(text.replace("star_wild = true", "star_wild = false"))
    assert event_file.load(event).setup_command()["star_wild"] is False
    event.write_text(text.replace('"22:00"', '"10pm"'))
    code, _, err = run(capsys, "start", "--event", event)
    assert code == 2 and "bluff.toml:13: dice_until is a time of day HH:MM, not '10pm'" in err
    event.write_text(text.replace('gem = "sapphire"', 'gem = "pearl"'))
    assert "gem must be one of 'ruby'" in run(capsys, "start", "--event", event)[2]
    event.write_text(text.replace('gem = "sapphire"', ''))
    assert "player #2 needs 'gem'" in run(capsys, "start", "--event", event)[2]
    code, _, err = run(capsys, "init", "--game", "bluff", "--players", 7, "--out", tmp_path / "seven.toml")
    assert code == 2 and "players must be 2-6, one gem each (AB1)" in err
