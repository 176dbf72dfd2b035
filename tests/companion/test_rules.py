"""One test (or more) per rule id of docs/rules/plunder-bingo.md, and its worked examples."""
from companion.bingo.decide import winners
from companion.bingo.evolve import fold
from companion.bingo.rules import START_ACCOUNT
from companion.bingo.state import Line

from table import attempt, invalid, make_valid, play, rejected, setup, turn, votes


def test_R3_everyone_starts_with_the_same_account():
    s = setup(6)
    assert [p.balance for p in s.players.values()] == [START_ACCOUNT] * 6
    assert s.phase == "ready" and s.balls_in("machine") == list(range(1, 28))


def test_R3_setup_refuses_bad_cards_and_duplicate_letters():
    s = setup(2)
    assert "not now" in rejected(s, {"do": "setup", "event": "x", "players": []})
    from companion.bingo.state import State
    bad_card = {"do": "setup", "event": "x", "players": [
        {"no": 1, "name": "a", "account": "A", "card": [1, 1, 2, 3, 4, 5, 6, 7, 8]},
        {"no": 2, "name": "b", "account": "B", "card": list(range(1, 10))}]}
    assert "distinct" in rejected(State(), bad_card)
    same_letter = {"do": "setup", "event": "x", "players": [
        {"no": 1, "name": "a", "account": "A", "card": list(range(1, 10))},
        {"no": 2, "name": "b", "account": "A", "card": list(range(1, 10))}]}
    assert "account A" in rejected(State(), same_letter)
    assert "unknown rule" in rejected(State(), {**same_letter, "rules": {"quorum": "x"}})


def test_R5_three_balls_labelled_X_Y_Z_in_draw_order():
    s = play(setup(), {"do": "begin_turn"}, {"do": "draw", "balls": [17, 4, 22]})
    assert s.drawn == [17, 4, 22] and s.phase == "voting"
    assert {s.place[b] for b in (17, 4, 22)} == {"drawn"}
    s = play(s, *votes(1, "Y", "Y", "Y", "Y"), {"do": "close_voting"})
    assert s.tally.options == {"X": 17, "Y": 4, "Z": 22} and s.valid == [4]


def test_R5_a_draw_must_come_from_the_machine():
    s = play(setup(), {"do": "begin_turn"})
    assert "draw 3 balls" in rejected(s, {"do": "draw", "balls": [1, 2]})
    assert "twice" in rejected(s, {"do": "draw", "balls": [1, 1, 2]})
    assert "no ball 28" in rejected(s, {"do": "draw", "balls": [1, 2, 28]})
    s = play(make_valid(setup(), [5]), {"do": "begin_turn"})
    assert "ball 5 is not in the machine (it is valid)" in rejected(s, {"do": "draw", "balls": [5, 1, 2]})


def test_balls_drawn_one_at_a_time_by_the_reader():
    s = play(setup(), {"do": "begin_turn"}, {"do": "draw_ball", "ball": 9})
    assert s.phase == "draw" and s.drawn == [9]
    assert "already drawn" in rejected(s, {"do": "draw", "balls": [1, 2, 3]})
    assert "not in the machine" in rejected(s, {"do": "draw_ball", "ball": 9})
    s = play(s, {"do": "draw_ball", "ball": 2}, {"do": "draw_ball", "ball": 27})
    assert s.phase == "voting" and s.drawn == [9, 2, 27]


def test_begin_turn_after_the_count_says_that_end_turn_comes_next():
    counted = turn(setup(), [1, 2, 3], ["X", "X", "X", "Y"], end=False)
    assert counted.phase == "resolve"
    assert rejected(counted, {"do": "begin_turn"}) == "not now: voting is closed: end_turn comes next"


def test_R6_invalid_votes_blank_multiple_and_wrong_turn():
    s = play(setup(), {"do": "begin_turn"}, {"do": "draw", "balls": [1, 2, 3]})
    assert "blank" in invalid(s, {"do": "vote", "serial": "Va", "turn": 1, "marks": []})
    assert "more than one" in invalid(s, {"do": "vote", "serial": "Vb", "turn": 1, "marks": ["X", "Z"]})
    assert "turn 2 dropped in turn 1" in invalid(s, {"do": "vote", "serial": "Vc", "turn": 2, "marks": ["X"]})   # D12
    assert "not now" in rejected(setup(), {"do": "vote", "serial": "Vd", "turn": 1, "marks": ["X"]})


def test_D1_D5_two_balls_left_are_drawn_alone_and_a_tie_makes_both_valid():
    s = play(setup(), {"do": "begin_turn"})
    for ball in range(3, 28):
        s.place[ball] = "pool"
    assert "draw 2 balls: the machine holds 2" in rejected(s, {"do": "draw", "balls": [1, 2, 3]})
    s = play(s, {"do": "draw", "balls": [1, 2]})
    assert "no ball Z was drawn" in invalid(s, {"do": "vote", "serial": "Vz", "turn": 1, "marks": ["Z"]})
    s = play(s, *votes(1, "X", "X", "Y", "Y"), {"do": "close_voting"})
    assert s.valid == [1, 2]


def test_D2_unclear_card_waits_for_the_operator_and_the_ruling_is_kept():
    s = play(setup(), {"do": "begin_turn"}, {"do": "draw", "balls": [1, 2, 3]}, *votes(1, "X", "X", "X"))
    s = play(s, {"do": "hold", "card": {"do": "vote", "serial": "VH1", "turn": 1, "marks": ["Y"]},
                 "reason": "faint mark on Y", "crop": "crops/H1.png", "scores": {"mark": {"X": 0.0, "Y": 0.41}}})
    assert s.held["VH1"].scores == {"mark": {"X": 0.0, "Y": 0.41}}          # what the operator is shown
    assert "VH1" in s.held and "rule on the held card first: VH1" in rejected(s, {"do": "close_voting"})
    assert "duplicate" in invalid(s, {"do": "vote", "serial": "VH1", "turn": 1, "marks": ["Y"]})
    ruling = attempt(s, {"do": "rule", "serial": "VH1", "card": {"do": "vote", "serial": "VH1", "turn": 1, "marks": ["X"]}})
    assert type(ruling[0]).__name__ == "CardRuled" and ruling[0].crop == "crops/H1.png"
    s = play(s, {"do": "rule", "serial": "VH1", "card": {"do": "vote", "serial": "VH1", "turn": 1, "marks": ["X"]}})
    s = play(s, {"do": "close_voting"})
    assert s.tally.votes["X"] == 4 and not s.held


def test_D2_ruled_invalid_counts_as_submitted_not_as_a_vote():
    s = play(setup(), {"do": "begin_turn"}, {"do": "draw", "balls": [1, 2, 3]}, *votes(1, "X", "X", "X"))
    s = play(s, {"do": "hold", "card": {"do": "vote", "serial": "VH1", "turn": 1, "marks": []}, "reason": "smudge"},
             {"do": "rule", "serial": "VH1", "invalid": "unreadable"}, {"do": "close_voting"})
    assert s.tally.invalid == 1 and s.tally.void   # 3 valid votes of 6 players: no quorum


def test_D3_a_card_scanned_twice_counts_once():
    s = play(setup(), {"do": "begin_turn"}, {"do": "draw", "balls": [1, 2, 3]},
             {"do": "vote", "serial": "V1", "turn": 1, "marks": ["X"]})
    assert "duplicate" in invalid(s, {"do": "vote", "serial": "V1", "turn": 1, "marks": ["X"]})
    s = play(s, {"do": "vote", "serial": "V1", "turn": 1, "marks": ["X"]}, *votes(1, "X", "X", "X"),
             {"do": "close_voting"})
    assert s.tally.votes["X"] == 4 and s.tally.invalid == 0


# R7 worked examples 1-4 (6 players)
def test_R7_example1_most_votes_wins():
    s = turn(setup(), [10, 11, 12], ["X", "X", "X", "Y", "Y", "Z"], end=False)
    assert s.valid == [10] and s.balls_in("pool") == [11, 12]


def test_R7_example2_tie_for_first_promotes_the_runner_up():
    s = turn(setup(), [10, 11, 12], ["X", "X", "X", "Y", "Y", "Y"], end=False)
    assert s.valid == [12] and s.balls_in("pool") == [10, 11]


def test_R7_example3_all_tied_all_valid():
    s = turn(setup(), [10, 11, 12], ["X", "X", "Y", "Y", "Z", "Z"], end=False)
    assert s.valid == [10, 11, 12] and s.balls_in("pool") == []


def test_R7_example4_no_quorum_nothing_valid():
    s = turn(setup(), [10, 11, 12], ["X", "X", "Y", "", "", ""], end=False)
    assert s.tally.void and s.valid == [] and s.balls_in("pool") == [10, 11, 12]


def test_R7_quorum_is_more_than_half():
    assert not turn(setup(5), [1, 2, 3], ["X", "X", "Y"], end=False).tally.void   # 5 players: 3 is enough
    assert turn(setup(5), [1, 2, 3], ["X", "X"], end=False).tally.void


def test_D4_submitted_quorum_counts_invalid_cards():
    s = turn(setup(6, quorum_counts="submitted"), [10, 11, 12], ["X", "X", "Y", "", "", ""], end=False)
    assert not s.tally.void and s.valid == [10]


def test_D5_two_options_tied_are_both_valid_and_one_option_needs_only_quorum():
    assert winners({"X": 2, "Y": 2}) == ["X", "Y"]
    assert winners({"X": 0}) == ["X"]
    assert winners({"X": 0, "Y": 3, "Z": 1}) == ["Y"]
    assert winners({"X": 0, "Y": 0, "Z": 0}) == ["X", "Y", "Z"]


def test_R8_example5_empty_machine_refilled_from_the_pool():
    s = make_valid(setup(), [1, 4, 7, 10, 13, 16, 19, 22, 25])   # 9 turns: 9 valid, 18 in the pool
    assert s.turn == 9 and s.balls_in("machine") == [] and len(s.balls_in("pool")) == 18
    s = play(s, {"do": "begin_turn"})
    assert s.turn == 10 and len(s.balls_in("machine")) == 18 and s.balls_in("pool") == []


def test_D23_an_empty_machine_takes_the_pool_back_before_the_IN_OUT_moves():
    s = make_valid(setup(), [1, 4, 7, 10, 13, 16, 19, 22])      # 8 turns: 3 balls left in the machine
    s = play(s, {"do": "begin_turn"}, {"do": "draw", "balls": s.balls_in("machine")},
             {"do": "buy", "player": 1, "item": "inout"}, {"do": "buy", "player": 2, "item": "inout"})
    pool = s.balls_in("pool")
    s = play(s, {"do": "inout", "player": 1, "dir": "in", "ball": pool[0]},        # IN due on an empty machine
             {"do": "inout", "player": 2, "dir": "out", "ball": pool[1]},       # OUT of a ball refilled first
             *votes(s.turn, "X", "X", "X", "X"), {"do": "close_voting"}, {"do": "end_turn"})
    assert s.balls_in("machine") == []
    began = attempt(s, {"do": "begin_turn"})[0]
    assert began.refilled == s.balls_in("pool")                                  # R8 first (rulebook §8)
    assert began.moves == [[pool[1], "machine", "trash"]]                         # then R15 (§15)
    assert began.skipped == [[pool[0], "in", f"ball {pool[0]} is machine"]]      # D9: already there
    s = fold(attempt(s, {"do": "begin_turn"}), s)
    assert s.place[pool[1]] == "trash" and len(s.balls_in("machine")) == len(began.refilled) - 1
    assert "draw 3 balls" in rejected(s, {"do": "draw", "balls": [pool[0]]})     # a full draw, not one ball


def test_D1_machine_and_pool_empty_means_no_draw_and_no_vote():
    s = setup()
    for _ in range(9):
        s = turn(s, s.balls_in("machine")[:3], ["X", "X", "Y", "Y", "Z", "Z"])   # all valid
    s = play(s, {"do": "begin_turn"})
    assert s.balls_in("machine") == [] and s.balls_in("valid") == list(range(1, 28))
    s = play(s, {"do": "close_voting"})
    assert s.tally.void and s.tally.options == {}


def test_lines_form_with_ordinals_and_R12_the_player_orders_simultaneous_lines():
    s = make_valid(setup(), [1, 2, 4, 5, 7])      # player 1's card is 1..9
    assert [(l.line, l.ordinal) for l in s.players[1].lines] == [("col1", 1)]
    s = make_valid(s, [9])                       # 9 completes diag1 (1 5 9) only
    s = make_valid(s, [3])                       # 3 completes row1 (1 2 3) and diag2 (3 5 7) together
    lines = {l.line: l.ordinal for l in s.players[1].lines}
    assert lines == {"col1": 1, "diag1": 2, "row1": 3, "diag2": 4}
    s = play(s, {"do": "order_lines", "player": 1, "lines": ["diag2", "row1"]})
    assert {l.line: l.ordinal for l in s.players[1].lines} == {"col1": 1, "diag1": 2, "diag2": 3, "row1": 4}
    assert "formed these lines together" in rejected(s, {"do": "order_lines", "player": 1, "lines": ["row1", "col1"]})


def _robbery_ready(balance_victim: int = 2_300_000):
    """Worked example 6: player 2's 2nd line formed in turn 6; now turn 7 voting."""
    s = play(setup(6), {"do": "begin_turn"}, {"do": "draw", "balls": [1, 2, 3]})
    s.turn = 7
    s.players[2].lines = [Line("row1", 1, 3), Line("row2", 2, 6)]
    s.players[5].balance = balance_victim
    return s


def test_R10_R11_example6_robbery_uses_the_right_in_the_next_turn():
    s = play(_robbery_ready(), {"do": "rob", "serial": "R0207", "robber": 2, "victim": 5, "ordinal": 2})
    s = play(s, *votes(7, "X", "X", "X", "X"), {"do": "close_voting"}, {"do": "end_turn"})
    assert s.players[5].balance == 2_300_000 - 460_000 and s.players[2].balance == START_ACCOUNT + 460_000
    s = play(s, {"do": "begin_turn"}, {"do": "draw", "balls": s.balls_in("machine")[:3]})
    assert "duplicate" in invalid(s, {"do": "rob", "serial": "R0207", "robber": 2, "victim": 5, "ordinal": 2})
    assert "no line 2 formed in turn 7" in invalid(s, {"do": "rob", "serial": "R0208", "robber": 2, "victim": 5, "ordinal": 2})


def test_R9_robbery_card_invalid_cases():
    s = _robbery_ready()
    rob = {"do": "rob", "serial": "R1", "robber": 2, "victim": 5, "ordinal": 2}
    assert "same player" in invalid(s, {**rob, "victim": 2})
    assert "no player 9 (victim)" in invalid(s, {**rob, "victim": 9})
    assert "no line 1 formed in turn 6" in invalid(s, {**rob, "ordinal": 1})
    s = play(s, rob)
    assert "already used by card R1" in invalid(s, {**rob, "serial": "R2", "victim": 4})


def test_R10_amounts_round_down_and_a_debtor_loses_nothing():
    s = play(_robbery_ready(1_234_567), {"do": "rob", "serial": "R1", "robber": 2, "victim": 5, "ordinal": 2})
    s = play(s, *votes(7, "X", "X", "X", "X"), {"do": "close_voting"}, {"do": "end_turn"})
    assert s.players[5].balance == 1_234_567 - 246_913
    s = play(_robbery_ready(-50_000), {"do": "rob", "serial": "R1", "robber": 2, "victim": 5, "ordinal": 2})
    s = play(s, *votes(7, "X", "X", "X", "X"), {"do": "close_voting"}, {"do": "end_turn"})
    assert s.players[5].balance == -50_000 and s.players[2].balance == START_ACCOUNT


def _two_robberies(base: str):
    s = play(setup(6, robbery_base=base), {"do": "begin_turn"}, {"do": "draw", "balls": [1, 2, 3]})
    s.turn = 7
    s.players[2].lines = [Line("row1", 1, 6)]
    s.players[3].lines = [Line("row1", 1, 6)]
    s = play(s, {"do": "rob", "serial": "R1", "robber": 2, "victim": 4, "ordinal": 1},
             {"do": "rob", "serial": "R2", "robber": 3, "victim": 4, "ordinal": 1},
             *votes(7, "X", "X", "X", "X"), {"do": "close_voting"}, {"do": "end_turn"})
    return s.players[4].balance


def test_D7_snapshot_and_sequential_robbery_bases():
    assert _two_robberies("snapshot") == 2_000_000 - 200_000 - 200_000
    assert _two_robberies("sequential") == 2_000_000 - 200_000 - 180_000


def test_R9_final_submission_uses_lines_of_the_last_turn():
    s = setup(6, turns=2)
    s = make_valid(s, [1, 2])
    s.players[1].lines = [Line("row1", 1, 2)]
    s = play(s, {"do": "begin_final"}, {"do": "rob", "serial": "RF", "robber": 1, "victim": 6, "ordinal": 1},
             {"do": "end_final"})
    assert s.players[6].balance == 1_800_000 and s.phase == "counting"
    assert "last turn" in rejected(make_valid(setup(6, turns=1), [1]), {"do": "begin_turn"})


def test_R13_balances_announced_when_an_account_changed():
    s = play(setup(), {"do": "begin_turn"})
    assert s.announced == {letter: START_ACCOUNT for letter in "ABCDEF"}   # the first board
    s = play(s, {"do": "draw", "balls": [1, 2, 3]}, *votes(1, "X", "X", "X", "X"), {"do": "close_voting"},
             {"do": "end_turn"})
    assert attempt(s, {"do": "begin_turn"})[0].announce is None            # nothing changed
    s = play(s, {"do": "buy", "player": 3, "item": "in"})
    assert attempt(s, {"do": "begin_turn"})[0].announce["C"] == START_ACCOUNT - 20_000


def test_R14_prices_and_D8_paying_in_cash():
    s = play(setup(), {"do": "buy", "player": 1, "item": "change"}, {"do": "buy", "player": 2, "item": "exclusion"},
             {"do": "buy", "player": 3, "item": "out"})
    assert [s.players[n].balance for n in (1, 2, 3)] == [1_600_000, 1_750_000, 1_980_000]
    s = play(setup(pay_from="cash"), {"do": "buy", "player": 1, "item": "change"})
    assert s.players[1].balance == START_ACCOUNT and s.players[1].items == {"change": 1}


def _voting(s):
    return play(s, {"do": "begin_turn"}, {"do": "draw", "balls": s.balls_in("machine")[:3]})


def test_R14_special_cards_must_have_been_bought():
    s = _voting(setup())
    assert "no unused inout card" in invalid(s, {"do": "inout", "player": 1, "dir": "in", "ball": 5})
    s = play(s, {"do": "buy", "player": 1, "item": "inout"}, {"do": "inout", "player": 1, "dir": "in", "ball": 5, "serial": "S1"})
    assert s.players[1].items == {"inout": 0}
    assert "duplicate" in invalid(s, {"do": "inout", "player": 1, "dir": "in", "ball": 5, "serial": "S1"})


def test_D22_one_IN_OUT_card_its_direction_chosen_at_use():
    s = _voting(setup())
    s = play(s, {"do": "buy", "player": 1, "item": "in"}, {"do": "buy", "player": 1, "item": "out"},
             {"do": "buy", "player": 2, "item": "inout"})
    assert s.players[1].items == {"inout": 2} and s.players[2].items == {"inout": 1}
    assert [s.players[n].balance for n in (1, 2)] == [START_ACCOUNT - 40_000, START_ACCOUNT - 20_000]
    s = play(s, {"do": "inout", "player": 1, "dir": "out", "ball": 20}, {"do": "inout", "player": 1, "dir": "out", "ball": 21},
             {"do": "inout", "player": 2, "dir": "out", "ball": 22})    # a card bought as "in" used as OUT
    assert s.players[1].items == {"inout": 0} and s.players[2].items == {"inout": 0}
    assert "no unused inout card" in invalid(s, {"do": "inout", "player": 1, "dir": "in", "ball": 23})


def test_D22_older_journals_bought_in_and_out_as_one_card():
    from companion.bingo import events as e          # their version 1 events, as a journal stores them
    bought = [e.decode("ItemBought", {"player": 1, "item": item, "price": 20_000, "from_account": True})
              for item in ("in", "out")]
    s = fold([*bought, e.InOutFiled(1, "in", 5, "I0101")], setup())
    assert s.players[1].items == {"inout": 1}
    s = fold([e.decode("CardInvalid", {"card": "out", "serial": "I0102", "reason": "ruled invalid", "player": 1})], s)
    assert s.players[1].items == {"inout": 0}


def test_R15_example7_more_IN_than_OUT_moves_the_ball_at_the_next_turn_start():
    s = make_valid(setup(), [1, 2])
    s = _voting(s)
    s = play(s, {"do": "buy", "player": 1, "item": "out"}, {"do": "inout", "player": 1, "dir": "out", "ball": 14})
    s = play(s, *votes(s.turn, "X", "X", "X", "X"), {"do": "close_voting"}, {"do": "end_turn"})
    s = play(s, {"do": "begin_turn"})
    assert s.place[14] == "trash"                      # OUT: machine -> trash
    s = play(s, {"do": "draw", "balls": s.balls_in("machine")[:3]})
    for player, direction in ((2, "in"), (3, "in"), (4, "out")):
        s = play(s, {"do": "buy", "player": player, "item": direction},
                 {"do": "inout", "player": player, "dir": direction, "ball": 14})
    s = play(s, *votes(s.turn, "X", "X", "X", "X"), {"do": "close_voting"})
    assert s.moves_due == [(14, "in")] and s.place[14] == "trash"   # announced now, moved later
    s = play(s, {"do": "end_turn"}, {"do": "begin_turn"})
    assert s.place[14] == "machine"


def test_R15_equal_IN_and_OUT_move_nothing_and_D9_checks_at_carry_out():
    s = _voting(setup())
    for player, direction, ball in ((1, "in", 20), (2, "out", 20), (3, "out", 1)):
        s = play(s, {"do": "buy", "player": player, "item": direction},
                 {"do": "inout", "player": player, "dir": direction, "ball": ball})
    s = play(s, *votes(1, "X", "X", "X", "X"), {"do": "close_voting"})   # ball 1 was X: now valid
    assert s.moves_due == [(1, "out")]
    began = attempt(play(s, {"do": "end_turn"}), {"do": "begin_turn"})[0]
    assert began.moves == [] and began.skipped == [[1, "out", "ball 1 is valid"]]


def test_D10_change_card_constraints():
    s = make_valid(setup(), [1])
    s = play(_voting(s), {"do": "buy", "player": 1, "item": "change"})
    change = {"do": "change", "player": 1, "cell": 2, "number": 20}
    assert "already valid (D10)" in invalid(s, {**change, "cell": 1})
    assert "already on player 1's card" in invalid(s, {**change, "number": 9})
    s2 = play(s, change)
    assert s2.players[1].card[1] == 20 and s2.players[1].items == {"change": 0}
    assert "cells are numbered 1-9" in rejected(s, {**change, "cell": 10})


def test_R14_exclusion_from_turn_9_and_never_back():
    s = play(_voting(setup()), {"do": "buy", "player": 1, "item": "exclusion"})
    assert "from turn 9" in invalid(s, {"do": "exclude", "player": 1, "ball": 20})
    s = make_valid(setup(), [1, 2, 4, 5, 7, 8, 10, 11])
    s = play(_voting(s), {"do": "buy", "player": 1, "item": "exclusion"}, {"do": "buy", "player": 1, "item": "exclusion"})
    assert s.turn == 9
    assert "is valid" in invalid(s, {"do": "exclude", "player": 1, "ball": 1})
    assert "on the table" in invalid(s, {"do": "exclude", "player": 1, "ball": s.drawn[0]})   # D13
    s = play(s, {"do": "exclude", "player": 1, "ball": 27}, {"do": "buy", "player": 2, "item": "in"},
             {"do": "inout", "player": 2, "dir": "in", "ball": 27})
    s = play(s, *votes(9, "X", "X", "X", "X"), {"do": "close_voting"}, {"do": "end_turn"}, {"do": "begin_turn"})
    assert s.place[27] == "excluded"


def _to_counting(players=4, **rules):
    s = setup(players, turns=1, **rules)
    s = turn(s, [1, 2, 3], ["X", "X", "Y", "Y", "Z", "Z"][:players])
    return play(s, {"do": "begin_final"}, {"do": "end_final"})


def test_R16_R17_bonus_penalty_final_money_and_shared_ranks():
    s = _to_counting(4)
    s.players[1].lines = [Line(name, i + 1, 1) for i, name in enumerate(
        ["row1", "row2", "row3", "col1", "col2", "col3", "diag1", "diag2"])]
    s.players[2].lines = [Line("row1", 1, 1)]
    assert "no cash count yet for players 1, 2, 3, 4" in rejected(s, {"do": "finish"})
    s = play(s, *[{"do": "cash", "player": n, "amount": a} for n, a in ((1, 100), (2, 1_000_000), (3, 0), (4, 0))],
             {"do": "finish"})
    final = {row["player"]: (row["bonus"], row["penalty"], row["final"], row["rank"]) for row in s.results}
    assert final[1] == (1_000_000, 0, 3_000_100, 1)
    assert final[2] == (0, 0, 3_000_000, 2)
    assert final[3] == final[4] == (0, 1_000_000, 1_000_000, 3)


def test_R3_a_cash_count_cannot_exceed_every_chip_in_the_game():
    s = _to_counting(4)                                  # 4 players hold 4 x 1,100,000 L$ of chips between them
    assert "more than all 4,400,000 L$ of chips" in rejected(s, {"do": "cash", "player": 1, "amount": 10**15})
    assert "more than all" in rejected(s, {"do": "cash", "player": 1, "amount": 4_400_001})
    s = play(s, {"do": "cash", "player": 1, "amount": 4_400_000})        # one player won every chip
    assert s.players[1].cash == 4_400_000


def test_R2_a_player_without_debt_beats_the_secretariat_in_the_staff_and_public_results():
    from companion.bingo import report, views
    s = _to_counting(3)
    s.players[1].balance, s.players[2].balance, s.players[3].balance = 1_000_000, 995_000, 990_000
    s = play(s, *[{"do": "cash", "player": n, "amount": 0} for n in (1, 2, 3)], {"do": "finish"})
    # final money: 0 (exactly no debt), -5,000 (rounded down to -10,000 in public), -10,000 (all pay the penalty)
    staff = {p["no"]: (p["final"], p["beats_secretariat"]) for p in views.staff(s)["players"]}
    assert staff == {1: (0, True), 2: (-5_000, False), 3: (-10_000, False)}
    ranking = views.public(s)["ranking"]
    assert [(row["final"], row["beats_secretariat"]) for row in ranking] == [(0, True), (-10_000, False), (-10_000, False)]
    assert "beat the secretariat (no debt, R2): 1 of 3 players" in report.public_text(views.public(s))
    assert "beat the secretariat (no debt, R2): 1 of 3 players" in report.staff_text(views.staff(s))
    assert "beats_secretariat" not in views.public(play(setup(), {"do": "begin_turn"}))      # only with the ranking


def test_R2_an_older_journal_finished_without_the_mark_gets_it_from_final_money():
    from companion.bingo import events as e
    from companion.bingo import views
    rows = [{"player": 1, "cash": 0, "account": 5, "bonus": 0, "penalty": 0, "final": 5, "rank": 1},
            {"player": 2, "cash": 0, "account": -5, "bonus": 0, "penalty": 0, "final": -5, "rank": 2}]
    s = fold([e.GameFinished(rows, None)], setup(2))
    assert [row["beats_secretariat"] for row in views.public(s)["ranking"]] == [True, False]


def test_D11_any_missing_penalises_everyone_short_of_8_lines():
    s = _to_counting(2, penalty_when="any_missing")
    s.players[1].lines = [Line("row1", 1, 1)]
    s = play(s, {"do": "cash", "player": 1, "amount": 0}, {"do": "cash", "player": 2, "amount": 0}, {"do": "finish"})
    assert [row["penalty"] for row in s.results] == [1_000_000, 1_000_000]


def test_void_takes_a_scanned_card_back_before_the_count():
    s = play(setup(), {"do": "begin_turn"}, {"do": "draw", "balls": [1, 2, 3]}, *votes(1, "X", "X", "X", "X"))
    s = play(s, {"do": "void", "serial": "V01-0"})
    assert len(s.ballots) == 3 and "V01-0" not in s.serials
    assert "not a vote" in rejected(s, {"do": "void", "serial": "nope"})
