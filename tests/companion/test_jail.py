"""One test (or more) per rule id of docs/rules/jailbreak.md (J1-J6, D1-D8), the worked example
round (examples/jail-round.jsonl), the README's replay JSON contract and bad scripts."""
import json
from pathlib import Path

import pytest

from companion.core import event_file
from companion.cli import main
from game_rules import referee
from companion.core import games
from companion.jail import GAME, views
from companion.jail.event import EXAMPLE_DECK
from companion.jail.state import State
from companion.core.journal import Journal
from companion.core.session import Session

ROOT = Path(__file__).resolve().parents[2]
ROUND = ROOT / "examples" / "jail-round.jsonl"
NAMES = ["Aki", "Ben", "Chie", "Daiki"]
DECK = {kind: 30 for kind in "ABCDEFGH"}
# Row 1 sends 6 B to jail from its left end, row 2 6 E: two such takes end a round (J4).
SIX_B = list("AABBBBBBCC")
SIX_E = list("DDEEEEEEFF")
MIXED = list("GHGHGHGHGH")


def setup_command(players: int = 2, deck: dict | None = None) -> dict:
    return {"do": "setup", "game": "jail", "event": "Test table", "deck": DECK if deck is None else deck,
            "players": [{"no": no, "name": NAMES[no - 1]} for no in range(1, players + 1)]}


_, play, rejected, _ = referee(GAME)


def layout(*rows) -> dict:
    return {"do": "layout", "rows": [list(row) for row in rows]}


def hands(*cards: str) -> dict:
    return {"do": "deal", "hands": {str(no): list(hand) for no, hand in enumerate(cards, 1)}}


def table(rows=(SIX_B, SIX_E, MIXED), dealt=("ABC", "DEFG"), deck=None) -> State:
    return play(State(), setup_command(len(dealt), deck), layout(*rows), hands(*dealt))


def take(player, row, end="left") -> dict:
    return {"do": "take", "player": player, "row": row, "end": end}


def show(player, kind, count) -> dict:
    return {"do": "play", "player": player, "kind": kind, "count": count}


def refill(player, kind) -> dict:
    return {"do": "refill", "player": player, "kind": kind}


def hand(s: State, no: int) -> dict:
    return views.counts(s, s.players[no].hand)


def display(s: State, no: int) -> dict:
    return views.counts(s, s.players[no].display)


# ---- J1, D1: the deck --------------------------------------------------------------------

def test_J1_D1_the_deck_is_configuration_kind_to_copies():
    s = play(State(), setup_command(deck={"Rat": 14, "Fox": 27}))
    assert s.kinds == ["Rat", "Fox"] and views.counts(s, s.deck) == {"Rat": 14, "Fox": 27} and s.phase == "layout"


@pytest.mark.parametrize("deck, message", [
    ({}, "setup: the deck needs at least one kind"),
    ({"A B": 3}, "setup: deck kind 'A B' must be 1-12 characters without spaces"),
    ({"A": 0}, "setup: deck A must be a whole number of copies 1-99, not 0"),
    ({"A": "3"}, "setup: deck A must be a whole number of copies 1-99, not '3'"),
])
def test_J1_a_malformed_deck_is_one_clear_line(deck, message):
    with pytest.raises(games.Malformed, match=f"^{message}$"):
        GAME.schema.parse(setup_command(deck=deck))


def test_J1_a_card_named_must_still_be_in_the_deck():
    s = play(State(), setup_command(deck={"A": 20, "B": 20, "C": 3}))
    assert rejected(s, layout("ABABABABAB", "ABABABABAB", "CCCCABABAB")) == "layout: the deck has 3 C left, not 4"
    assert rejected(s, layout("ABABABABAB", "ABABABABAB", "XBABABABAB")).startswith("layout: 'X' is no kind of this deck")
    s = play(s, layout("ABABABABAB", "ABABABABAB", "CCCABABABA"))
    assert rejected(s, hands("CAB", "AAAA")) == "deal: the deck has 0 C left, not 1"


def test_J1_D1_the_example_event_file_ships_an_example_deck_and_says_so(tmp_path, capsys):
    event = tmp_path / "jail.toml"
    assert main(["init", "--game", "jail", "--players", "3", "--out", str(event)]) == 0
    text = event.read_text()
    assert 'game = "jail"' in text and "AN EXAMPLE, not the published game's deck" in text
    loaded = event_file.load(event)
    assert loaded.rules == EXAMPLE_DECK and loaded.setup_command()["deck"] == EXAMPLE_DECK
    assert main(["init", "--game", "jail", "--players", "5", "--out", str(tmp_path / "five.toml")]) == 2
    assert capsys.readouterr().err == "companion: players must be 2-4 for the jail card game (--players)\n"


def test_D1_a_bad_deck_in_the_event_file_is_one_clear_line(tmp_path):
    event = tmp_path / "jail.toml"
    main(["init", "--game", "jail", "--players", "2", "--out", str(event)])
    event.write_text(event.read_text().replace("A = 3", "A = 0"))
    with pytest.raises(event_file.EventFileError, match="\\[rules.deck\\]: deck A must be a whole number of copies 1-99, not 0"):
        event_file.load(event)
    event.write_text(event.read_text().replace("[rules.deck]", "[unused]"))
    with pytest.raises(event_file.EventFileError, match="unknown section or key 'unused'"):
        event_file.load(event)


# ---- J2: setup ---------------------------------------------------------------------------

def test_J2_two_to_four_players_and_a_deck_big_enough_to_lay_out_and_deal():
    assert rejected(State(), setup_command(1)) == "the jail card game is for 2-4 players"
    five = {**setup_command(4), "players": [{"no": no, "name": f"P{no}"} for no in range(1, 6)]}
    assert rejected(State(), five) == "the jail card game is for 2-4 players"
    assert rejected(State(), setup_command(4, {"A": 46})) == "a deck of 46 cards cannot lay out 30 and deal 17 (J2)"


def test_J2_three_rows_of_ten_then_hands_of_3_4_5_5_from_the_start_player():
    s = play(State(), setup_command(4))
    assert rejected(s, hands("ABC", "ABCD", "ABCDE", "ABCDE")) == "not now: lay out the rows first"
    assert rejected(s, layout(SIX_B, SIX_E, "GHGHGHGHG")) == "each row is 10 cards (J2), not 10/10/9"
    s = play(s, layout(SIX_B, SIX_E, MIXED))
    assert s.phase == "deal" and views.counts(s, s.deck)["B"] == 24
    assert rejected(s, hands("ABCD", "ABC", "ABCDE", "ABCDE")) == "deal: player 1 gets 3 cards (J2), not 4"
    assert rejected(s, hands("ABC", "ABCD", "ABCDE")) == "deal: player 4 has no hand"
    s = play(s, hands("ABC", "ABCD", "ABCDE", "ABCDE"))
    assert [p.hand.total() for p in s.players.values()] == [3, 4, 5, 5]
    assert s.phase == "turn" and s.turn_player == 1 and views.counts(s, s.deck)["A"] == 30 - 2 - 4
    assert rejected(s, hands("ABC", "ABCD", "ABCDE", "ABCDE")) == "not now: the turn player takes a group first"


def test_J2_turn_order_is_the_setups_order_not_the_player_numbers():
    s = play(State(), {**setup_command(), "players": [{"no": 7, "name": "x"}, {"no": 3, "name": "y"}]},
             layout(SIX_B, SIX_E, MIXED), {"do": "deal", "hands": {"7": list("ABC"), "3": list("ABCD")}})
    assert s.turn_player == 7
    s = play(s, take(7, 3), refill(7, "A"))
    assert s.turn_player == 3


# ---- J3: a turn --------------------------------------------------------------------------

def test_J3_the_group_at_the_end_goes_to_the_hand_the_next_group_inward_to_jail():
    s = play(table(), take(1, 1, "left"))
    assert hand(s, 1) == {"A": 3, "B": 1, "C": 1} and views.counts(s, s.jail) == {"B": 6}
    assert s.rows[0] == ["C", "C"] and s.phase == "play"
    s = play(table(), take(1, 2, "right"))
    assert hand(s, 1) == {"A": 1, "B": 1, "C": 1, "F": 2} and views.counts(s, s.jail) == {"E": 6}
    assert s.rows[1] == ["D", "D"]


def test_J3_a_row_with_fewer_than_two_groups_cannot_be_taken_from():
    s = play(table(rows=(SIX_B, "AAAAAAAAAA", MIXED)))
    assert rejected(s, take(1, 2)) == "row 2 has fewer than two groups: nothing would go to jail (J3.2)"


def test_J3_only_the_turn_player_takes_plays_and_refills():
    s = table()
    assert rejected(s, take(2, 1)) == "it is player 1's turn, not player 2's"
    assert rejected(s, take(3, 1)) == "there is no player 3"
    s = play(s, take(1, 3))
    assert rejected(s, show(2, "D", 1)) == "it is player 1's turn, not player 2's"
    assert rejected(s, refill(2, "A")) == "it is player 1's turn, not player 2's"


def test_J3_a_turn_is_take_then_an_optional_play_then_the_refill():
    s = table()
    assert rejected(s, show(1, "A", 1)) == "not now: the turn player takes a group first"
    assert rejected(s, refill(1, "A")) == "not now: the turn player takes a group first"
    s = play(s, take(1, 3))
    assert rejected(s, take(1, 1)) == "not now: after the take: play a group or refill"
    played = play(s, show(1, "A", 1))
    assert rejected(played, show(1, "B", 1)) == "not now: the group is played: refill"
    for state in (s, played):                          # the play is optional
        after = play(state, refill(1, "A"))
        assert after.phase == "turn" and after.turn_player == 2


def test_J3_the_refill_goes_to_the_end_taken_from():
    s = play(table(), take(1, 3, "left"), refill(1, "A"))
    assert s.rows[2] == list("AGHGHGHGH")
    s = play(s, take(2, 3, "right"), refill(2, "B"))
    assert s.rows[2] == list("AGHGHGHB")


def test_J3_play_more_than_the_largest_display_of_that_kind_and_the_others_are_discarded():
    s = play(table(dealt=("AAB", "AAAB")), take(1, 3), show(1, "A", 2), refill(1, "C"), take(2, 3))
    assert rejected(s, show(2, "A", 2)) == "2 A are shown already: play more than 2 (J3.3, D8)"
    assert rejected(s, show(2, "A", 4)) == "player 2 holds 3 A, fewer than 4"
    s = play(s, show(2, "A", 3))
    assert display(s, 1) == {} and display(s, 2) == {"A": 3} and views.counts(s, s.discard) == {"A": 2}


def test_J3_no_adding_to_a_kind_you_already_show():
    s = play(table(dealt=("AAB", "ABCD")), take(1, 3), show(1, "A", 1), refill(1, "C"),
             take(2, 3), refill(2, "C"), take(1, 3))
    assert rejected(s, show(1, "A", 1)) == "player 1 shows A already: no adding to it (J3.3)"


# ---- J4: the round's end -----------------------------------------------------------------

def test_J4_six_or_more_of_each_of_two_kinds_ends_the_round_at_once():
    s = play(table(), take(1, 1), refill(1, "A"))
    assert s.phase == "turn" and s.rounds == []
    s = play(s, take(2, 2))
    assert s.phase == "round_over" and s.rounds[0].ended_by == 2 and views.counts(s, s.jail) == {}
    assert rejected(s, show(2, "D", 1)) == "not now: the round is over: lay out the next round's rows"
    assert rejected(s, refill(2, "A")) == "not now: the round is over: lay out the next round's rows"


def test_J4_two_or_more_of_each_of_six_kinds_ends_the_round():
    rows = ("AABBCCDDEE", "FFGGAAHHCC", "DDEEFFAACC")
    s = play(table(rows=rows), take(1, 1), refill(1, "H"), take(2, 1, "right"), refill(2, "H"),
             take(1, 2), refill(1, "H"), take(2, 2, "right"), refill(2, "H"), take(1, 3))
    assert s.phase == "play" and views.counts(s, s.jail) == {"B": 2, "D": 2, "E": 2, "G": 2, "H": 2}
    s = play(s, refill(1, "H"), take(2, 3, "right"))
    assert s.phase == "round_over" and s.rounds[0].ended_by == 2


def test_J4_five_and_six_is_not_yet_the_end():
    s = play(table(rows=(SIX_B, "DDEEEEEFFF", MIXED)), take(1, 1), refill(1, "A"), take(2, 2))
    assert views.counts(s, s.jail) == {"B": 6, "E": 5} and s.phase == "play"


# ---- J5: scoring ---------------------------------------------------------------------------

def test_J5_each_player_collects_the_jailed_cards_of_the_kinds_shown_cards_times_kinds():
    s = play(table(dealt=("BBE", "CDEF")), take(1, 3), show(1, "B", 2), refill(1, "A"),
             take(2, 3, "right"), show(2, "D", 1), refill(2, "A"), take(1, 1))
    assert s.phase == "play" and views.counts(s, s.jail) == {"B": 6, "G": 1, "H": 1}
    s = play(s, show(1, "E", 1), refill(1, "A"), take(2, 2))
    rnd = s.rounds[0]
    assert rnd.collected == {"1": {"B": 6, "E": 6}, "2": {}} and rnd.scores == {"1": 12 * 2, "2": 0}
    assert s.players[1].scores == [24] and s.players[2].scores == [0]


def test_J5_D3_displayed_cards_stay_and_the_uncollected_jail_is_discarded():
    s = play(table(dealt=("BBE", "CDEF")), take(1, 3), show(1, "B", 2), refill(1, "A"),
             take(2, 1), refill(2, "A"), take(1, 2))
    assert display(s, 1) == {"B": 2}                   # D3: not collected, still shown
    assert s.rounds[0].collected["1"] == {"B": 6}
    assert views.counts(s, s.discard) == {"E": 6, "H": 1}
    assert views.counts(s, s.jail) == {}


def test_J5_the_next_round_discards_the_row_cards_and_hands_carry_over():
    s = play(table(), take(1, 1), refill(1, "A"), take(2, 2))
    kept = {no: hand(s, no) for no in (1, 2)}
    rows_left = sum(map(len, s.rows))
    discarded = s.discard.total()
    s = play(s, layout(SIX_B, SIX_E, MIXED))
    assert s.round == 2 and s.discard.total() == discarded + rows_left
    assert {no: hand(s, no) for no in (1, 2)} == kept


# ---- J6: three rounds ----------------------------------------------------------------------

def quick_round(s: State, first: int, second: int, last: bool = False) -> State:
    """The first player takes 6 B to jail, the second 6 E: the round ends (J4)."""
    s = play(s, take(first, 1), refill(first, "A"), take(second, 2))
    return s if last else play(s, layout(SIX_B, SIX_E, MIXED))


def test_J6_after_three_rounds_the_highest_total_wins():
    s = play(table(dealt=("BBE", "CDEF")), take(1, 3), show(1, "B", 1), refill(1, "A"),
             take(2, 3), refill(2, "A"))
    s = quick_round(s, 1, 2)                           # ended by 2: player 1 starts round 2 (D5)
    s = quick_round(s, 1, 2)
    assert views.winner(s) is None and s.round == 3
    s = quick_round(s, 1, 2, last=True)
    assert s.phase == "finished" and s.players[1].scores == [6, 6, 6] and s.players[2].scores == [0, 0, 0]
    assert views.winner(s) == [1] and s.turn_player is None
    assert rejected(s, layout(SIX_B, SIX_E, MIXED)) == "not now: the game is over"


def test_J6_a_tie_names_every_player_with_the_highest_total():
    s = table()
    for round_no in (1, 2, 3):
        first = s.turn_player
        s = quick_round(s, first, 3 - first, last=round_no == 3)
    assert s.phase == "finished" and views.winner(s) == [1, 2]


# ---- D2: what is public --------------------------------------------------------------------

def test_D2_the_public_view_shows_hand_sizes_never_hands_nor_deck_or_discard():
    s = play(table(dealt=("BBE", "CDEF")), take(1, 3), show(1, "B", 2))
    public = views.public(s)
    assert list(public) == ["game", "phase", "round", "turn_player", "rows", "jail", "event", "kinds",
                            "progress", "deck_size", "players", "rounds", "winner"]
    assert [p["hand_size"] for p in public["players"]] == [2, 4]
    assert all("hand" not in p for p in public["players"]) and "deck" not in public and "discard" not in public
    assert public["players"][0]["display"] == {"B": 2} and public["progress"] == [
        {"cards": 6, "kinds": 0, "needed": 2}, {"cards": 2, "kinds": 0, "needed": 6}]


# ---- D4-D8 ---------------------------------------------------------------------------------

def test_D4_a_refill_from_an_empty_deck_adds_nothing():
    deck = {"A": 12, "B": 12, "C": 13}                 # 37 = 30 laid out + 7 dealt
    rows = ("ABABABABAB", "ABABABABAB", "CCCCCCCCCC")
    s = play(State(), setup_command(deck=deck), layout(*rows), hands("ABC", "ABCC"), take(1, 1))
    assert s.deck.total() == 0
    assert rejected(s, refill(1, "A")) == "the deck is empty: the refill adds nothing (kind null, D4)"
    s = play(s, refill(1, None))
    assert s.rows[0] == list("ABABABAB") and s.turn_player == 2


def test_D4_a_refill_names_the_card_while_the_deck_holds_any():
    s = play(table(), take(1, 3))
    assert rejected(s, refill(1, None)) == f"the deck still holds {s.deck.total()} cards: name the one drawn (D4)"
    assert rejected(s, refill(1, "Z")).startswith("refill: 'Z' is no kind of this deck")


def test_D5_the_next_round_starts_with_the_player_after_the_one_whose_take_ended_it():
    s = play(table(dealt=("ABC", "ABCD", "ABCDE")), take(1, 1), refill(1, "A"), take(2, 2))
    assert s.rounds[0].ended_by == 2 and s.turn_player == 3
    s = play(s, layout(SIX_B, SIX_E, MIXED))
    assert s.turn_player == 3 and rejected(s, take(1, 1)) == "it is player 3's turn, not player 1's"


def test_D6_no_row_to_take_from_at_a_turns_start_lay_out_new_rows_and_the_same_player_goes_on():
    rows = ("AB" + "A" * 8, "C" * 10, "D" * 10)
    s = play(table(rows=rows), take(1, 1))
    s = play(s, refill(1, "A"))                        # row 1 is all A now: nothing to take anywhere
    assert s.phase == "relayout" and s.turn_player == 2
    assert rejected(s, take(2, 1)) == "not now: no row can be taken from: lay out three new rows (D6)"
    on_the_table = sum(map(len, s.rows))
    s = play(s, layout(SIX_B, SIX_E, MIXED))
    assert s.phase == "turn" and s.turn_player == 2 and s.round == 1 and s.discard.total() == on_the_table


def test_D7_the_discard_pile_becomes_the_deck_at_any_time():
    s = table()
    assert rejected(s, {"do": "reshuffle"}) == "the discard pile is empty: nothing to reshuffle (D7)"
    s = play(s, take(1, 1), refill(1, "A"), take(2, 2), layout(SIX_B, SIX_E, MIXED))
    discarded = views.counts(s, s.discard)
    deck = s.deck.total()
    s = play(s, {"do": "reshuffle"})
    assert s.discard.total() == 0 and s.deck.total() == deck + sum(discarded.values())


def test_D7_a_short_deck_asks_for_a_reshuffle_which_takes_the_dead_rows_too():
    deck = {"A": 20, "B": 1, "C": 10, "D": 10}
    s = play(State(), setup_command(deck=deck), layout("ABAAAAAAAA", "C" * 10, "D" * 10),
             hands("AAA", "AAAA"), take(1, 1), refill(1, "A"))
    assert s.phase == "relayout" and s.deck.total() == 3
    assert rejected(s, layout(SIX_B, SIX_E, MIXED)) == "the deck holds 3 cards, fewer than 30: reshuffle first (D7)"
    s = play(s, {"do": "reshuffle"})
    assert s.rows == [[], [], []] and views.counts(s, s.deck) == {"A": 12, "C": 10, "D": 10}
    assert views.counts(s, s.jail) == {"B": 1}
    s = play(s, layout("ACACACACAC", "ADADADADAD", "CDCDCDCDCD"))
    assert s.phase == "turn" and s.turn_player == 2


def test_D7_a_deck_that_a_reshuffle_cannot_fill_lays_out_all_it_holds():
    deck = {"A": 16, "B": 1, "C": 10, "D": 10}          # 37 = 30 laid out + 7 dealt
    s = play(State(), setup_command(deck=deck), layout("ABAAAAAAAA", "C" * 10, "D" * 10),
             hands("AAA", "AAAA"), take(1, 1), refill(1, None), {"do": "reshuffle"})
    assert s.phase == "relayout" and s.deck.total() == 28
    rows = ("AAAAAAAACC", "CCCCCCCCDD", "DDDDDDDD")
    assert rejected(s, layout(*rows[:2], "DDDDDDD")) == "the deck holds only 28 cards: lay them all out, at most 10 a row"
    assert play(s, layout(*rows)).phase == "turn"


def test_D8_any_number_of_one_kind_from_the_hand():
    s = play(table(dealt=("BBB", "CDEF")), take(1, 2), show(1, "B", 3))
    assert display(s, 1) == {"B": 3}
    assert rejected(play(table(), take(1, 2)), show(1, "A", 2)) == "player 1 holds 1 A, fewer than 2"


def test_a_jail_game_has_no_printed_cards_to_void_hold_or_rule():
    assert rejected(table(), {"do": "void", "serial": "X1"}) == "the jail card game has no printed cards to void, hold or rule"


# ---- the worked example round and the replay JSON contract -----------------------------------

def run(capsys, *argv):
    code = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return code, out, err


ROUND_NOT_OK = {7: "it is player 2's turn, not player 1's",
                9: "2 C are shown already: play more than 2 (J3.3, D8)",
                13: "player 1 holds 1 G, fewer than 2",
                23: "not now: the round is over: lay out the next round's rows"}


def test_the_worked_example_round_replays_to_its_expected_scores(capsys):
    code, out, _ = run(capsys, "replay", ROUND, "--json")
    view = json.loads(out)
    assert code == 0 and list(view) == ["game", "phase", "round", "turn_player", "rows", "jail", "deck",
                                        "players", "rounds", "winner", "log"]
    assert (view["game"], view["phase"], view["round"], view["turn_player"]) == ("jail", "round_over", 1, 1)
    # Worked by hand: Aki shows B 1, C 2, G 2 (Ben's G 1 beaten); Ben shows E 2. Ben's take of F F
    # from row 2 jails E 6 beside B 6: the round ends (J4). Aki collects B 6 C 2 G 2: 10 x 3 = 30;
    # Ben collects E 6: 6 x 1 = 6.
    assert view["rounds"] == [{"no": 1, "ended_by": 2, "collected": {"1": {"B": 6, "C": 2, "G": 2}, "2": {"E": 6}},
                               "scores": {"1": 30, "2": 6}}]
    assert view["players"] == [
        {"no": 1, "name": "Aki", "hand": {"C": 2}, "display": {"B": 1, "C": 2, "G": 2}, "scores": [30], "total": 30},
        {"no": 2, "name": "Ben", "hand": {"A": 1, "C": 1, "F": 3}, "display": {"E": 2}, "scores": [6], "total": 6}]
    assert view["rows"] == [list("AAF"), list("DD"), list("CGCGCD")] and view["jail"] == {}
    assert view["deck"] == {"A": 5, "B": 3, "D": 5, "E": 2, "F": 4, "G": 1} and view["winner"] is None
    commands = [n for n, line in enumerate(ROUND.read_text().splitlines(), 1) if line.startswith("{")]
    assert [entry["line"] for entry in view["log"]] == commands
    assert {e["line"]: e["reason"] for e in view["log"] if e["status"] == "rejected"} == ROUND_NOT_OK
    assert all(e["status"] == "ok" and e["reason"] is None for e in view["log"] if e["line"] not in ROUND_NOT_OK)


def test_every_card_of_the_example_is_somewhere():
    s = Session(Journal())
    for line in ROUND.read_text().splitlines():
        s.submit(json.loads(line))
    state = s.state
    places = [state.deck, state.jail, state.discard, *(p.hand for p in state.players.values()),
              *(p.display for p in state.players.values())]
    total = sum(sum(c.values()) for c in places) + sum(map(len, state.rows))
    total += sum(sum(cards.values()) for r in state.rounds for cards in r.collected.values())
    assert total == sum(json.loads(ROUND.read_text().splitlines()[0])["deck"].values())


def test_public_replay_shows_hand_sizes_not_hands(capsys):
    code, out, _ = run(capsys, "replay", ROUND, "--public", "--json")
    view = json.loads(out)
    assert code == 0 and [p["hand_size"] for p in view["players"]] == [2, 5]
    assert "hand" not in view["players"][0] and "deck" not in view and "log" not in view
    code, text, _ = run(capsys, "replay", ROUND, "--public")
    assert "2 cards in hand" in text and "Cx2" in text and "hand Cx2" not in text


def script(tmp_path, *commands) -> Path:
    path = tmp_path / "j.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in commands))
    return path


@pytest.mark.parametrize("command, message", [
    ({"do": "take", "player": 1, "row": 4, "end": "left"}, "take: row must be 1-3, not 4"),
    ({"do": "take", "player": 1, "row": 1, "end": "middle"}, "take: end value 'middle' is not one of left, right"),
    ({"do": "play", "player": 1, "kind": "A", "count": 0}, "play: count must be at least 1, not 0"),
    ({"do": "layout", "rows": [["A"], ["B"]]}, "layout: rows must be 3 lists of kinds, not 2"),
    ({"do": "layout", "rows": [["A"], ["B"], "C"]}, "layout: row 3 must be a list of kinds, not 'C'"),
    ({"do": "deal", "hands": {"1": "ABC"}}, "deal: hand '1' must be a list of kinds, not 'ABC'"),
    ({"do": "refill", "player": 1}, "refill: missing key 'kind'"),
    ({"do": "draw"}, "unknown command 'draw'; known: setup, layout, deal, take, play, refill, reshuffle, undo, void, hold, rule"),
])
def test_a_bad_script_line_is_one_clear_line_and_exit_2(tmp_path, capsys, command, message):
    code, out, err = run(capsys, "replay", script(tmp_path, setup_command(), command))
    assert code == 2 and out == "" and err == f"companion: {tmp_path / 'j.jsonl'}:2: {message}\n"


def test_undo_takes_back_a_take_through_a_session():
    s = Session(Journal())
    for command in (setup_command(), layout(SIX_B, SIX_E, MIXED), hands("ABC", "DEFG"), take(1, 1)):
        assert s.submit(command).status == "ok", command
    assert s.submit({"do": "undo"}).status == "ok"
    assert s.state.phase == "turn" and s.state.rows[0] == SIX_B and views.counts(s.state, s.state.jail) == {}


def test_start_do_status_on_a_jail_event(tmp_path, capsys):
    event = tmp_path / "jail.toml"
    run(capsys, "init", "--game", "jail", "--players", 2, "--out", event, "--name", "Jail night")
    assert run(capsys, "start", "--event", event)[0] == 0
    rows = [list("GHGHGHGHGH"), list("IJIJIJIJIJ"), list("EFEFEFEFEF")]
    deal = [json.dumps({"do": "layout", "rows": rows}), json.dumps(hands("ABC", "DDDD"))]
    code, out, _ = run(capsys, "do", "--event", event, *deal, json.dumps(take(2, 1)))
    assert code == 1 and out.splitlines() == ["rejected: command 3 of 3: it is player 1's turn, not player 2's; "
                                              "none of the 3 commands applied"]
    code, out, _ = run(capsys, "do", "--event", event, *deal)
    assert code == 0 and out.splitlines() == ["ok", "ok"]
    view = json.loads(run(capsys, "status", "--event", event, "--public", "--json")[1])
    assert view["event"] == "Jail night" and view["turn_player"] == 1 and view["rows"] == rows
