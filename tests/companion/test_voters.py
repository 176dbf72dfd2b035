"""One test (or more) per rule id of docs/rules/voters.md, its worked examples, and the Voters
contract in the README: script commands, replay JSON, views, event file."""
import json
from pathlib import Path

import pytest

from companion.cli import main
from game_rules import referee
from companion.core import games
from companion.core.journal import Journal
from companion.core.session import Session
from companion.voters import GAME, views
from companion.voters.state import State

ROOT = Path(__file__).resolve().parents[2]
NIGHT = ROOT / "examples" / "voters-night.jsonl"
NAMES = ["Aki", "Ben", "Chie", "Daiki", "Emi", "Fumio"]


def setup_command(players: int = 6) -> dict:
    return {"do": "setup", "game": "voters", "event": "Test night",
            "players": [{"no": no, "name": NAMES[no - 1] if no <= 6 else f"P{no}"} for no in range(1, players + 1)]}


attempt, play, rejected, invalid = referee(GAME)


def table(players: int = 6) -> State:
    return play(State(), setup_command(players))


def bets(*numbers, dealer: int = 6, stake: int = 1000) -> list[dict]:
    """Players 1, 2, ... (skipping the dealer) bet these numbers."""
    bettors = [no for no in range(1, len(numbers) + 2) if no != dealer][:len(numbers)]
    return [{"do": "deal", "dealer": dealer, "stake": stake},
            *({"do": "bet", "player": p, "number": n} for p, n in zip(bettors, numbers)), {"do": "close"}]


def opened(*numbers, dealer: int = 6, stake: int = 1000, players: int = 6) -> State:
    return play(table(players), *bets(*numbers, dealer=dealer, stake=stake), {"do": "open"})


def nets(s: State) -> dict[int, int]:
    return {no: p.net for no, p in s.players.items()}


# ---- V1-V9, D2 ----------------------------------------------------------------------------

def test_V1_three_or_more_players_with_distinct_numbers():
    s = table(3)
    assert s.phase == "ready" and [p.name for p in s.players.values()] == NAMES[:3]
    assert "at least 3 players (V1)" in rejected(State(), setup_command(2))
    twice = {**setup_command(3), "players": [{"no": 1, "name": "a"}, {"no": 1, "name": "b"}, {"no": 2, "name": "c"}]}
    assert "two players have no 1" in rejected(State(), twice)
    too_big = {**setup_command(3), "players": [{"no": 100, "name": "a"}, {"no": 1, "name": "b"}, {"no": 2, "name": "c"}]}
    assert "player numbers are 1-99" in rejected(State(), too_big)
    assert "not now" in rejected(s, setup_command(3))


def test_V1_a_bet_is_one_number_0_to_9():
    s = play(table(), {"do": "deal", "dealer": 6, "stake": 10})
    with pytest.raises(ValueError, match="number must be 0-9 or null"):
        attempt(s, {"do": "bet", "player": 1, "number": 10})
    with pytest.raises(ValueError, match="number must be a whole number"):
        attempt(s, {"do": "bet", "player": 1, "number": "4"})
    with pytest.raises(ValueError, match="missing key 'number'"):
        attempt(s, {"do": "bet", "player": 1})


def test_V2_phases_bet_close_open_in_order():
    s = table()
    assert "no game is dealt" in rejected(s, {"do": "bet", "player": 1, "number": 3})
    assert "no game is dealt" in rejected(s, {"do": "close"})
    s = play(s, {"do": "deal", "dealer": 6, "stake": 10})
    assert s.phase == "betting"
    assert "betting is open" in rejected(s, {"do": "open"})
    assert "betting is open" in rejected(s, {"do": "no_game"})
    assert "betting is open" in rejected(s, {"do": "deal", "dealer": 1, "stake": 10})
    s = play(s, {"do": "bet", "player": 1, "number": 3}, {"do": "close"})
    assert s.phase == "closed"
    assert "betting is closed" in rejected(s, {"do": "bet", "player": 2, "number": 3})
    assert "betting is closed" in rejected(s, {"do": "close"})
    assert play(s, {"do": "open"}).phase == "ready"


def test_V2_players_without_a_bet_at_the_close_have_dropped_out():
    s = play(table(), {"do": "deal", "dealer": 6, "stake": 100},
             {"do": "bet", "player": 1, "number": 3}, {"do": "bet", "player": 4, "number": 5})
    closing = attempt(s, {"do": "close"})
    assert closing[0].dropped == [2, 3, 5]
    s = play(s, {"do": "close"}, {"do": "open"})
    assert s.game.pot == 200 and s.game.winner == 1
    assert nets(s) == {1: 100, 2: 0, 3: 0, 4: -100, 5: 0, 6: 0}


def test_V3_seed_example_1_2_1_0_3_the_player_of_0_wins():
    s = opened(1, 2, 1, 0, 3)
    assert (s.game.result, s.game.winner, s.game.number) == ("won", 4, 0)


def test_V3_seed_example_0_9_2_0_2_the_player_of_9_wins():
    s = opened(0, 9, 2, 0, 2)
    assert (s.game.result, s.game.winner, s.game.number) == ("won", 2, 9)


def test_V3_the_lowest_unique_number_wins_not_the_first_bet():
    s = opened(5, 3, 5, 7)
    assert (s.game.winner, s.game.number) == (2, 3)
    assert views.public(s)["games"][0]["unique"] == [3, 7]


def test_V4_seed_example_1_1_1_1_1_is_dobon_for_the_dealer():
    s = opened(1, 1, 1, 1, 1)
    assert (s.game.result, s.game.winner, s.game.number) == ("dobon", 6, None)
    assert s.players[6].net == 5000


def test_V4_seed_example_0_0_2_2_2_is_dobon_for_the_dealer():
    s = opened(0, 0, 2, 2, 2, dealer=3)
    assert (s.game.result, s.game.winner, s.game.number) == ("dobon", 3, None)
    assert nets(s) == {1: -1000, 2: -1000, 3: 5000, 4: -1000, 5: -1000, 6: -1000}


def test_V5_the_winner_takes_the_whole_pot():
    s = opened(4, 2, 4, dealer=1, stake=300)
    assert s.game.pot == 900 and s.game.winner == 3
    assert nets(s) == {1: 0, 2: -300, 3: 600, 4: -300, 5: 0, 6: 0}


def test_V6_no_game_returns_every_stake():
    s = play(table(), *bets(1, 2, 3), {"do": "no_game"})
    assert (s.game.result, s.game.winner, s.game.number, s.phase) == ("no_game", None, None, "ready")
    assert set(nets(s).values()) == {0}
    assert "betting is open" in rejected(play(table(), {"do": "deal", "dealer": 1, "stake": 5}), {"do": "no_game"})


def test_V7_an_invalid_card_stays_in_the_pot_and_neither_wins_nor_duplicates():
    s = play(table(), {"do": "deal", "dealer": 6, "stake": 100}, {"do": "bet", "player": 1, "number": 4})
    assert invalid(s, {"do": "bet", "player": 2, "number": None}) == "unreadable or miswritten card (V7)"
    s = play(s, {"do": "bet", "player": 2, "number": None}, {"do": "bet", "player": 3, "number": 6},
             {"do": "close"}, {"do": "open"})
    assert s.game.bets == {1: 4, 2: None, 3: 6} and s.game.pot == 300
    assert (s.game.winner, s.game.number) == (1, 4)
    assert nets(s) == {1: 200, 2: -100, 3: -100, 4: 0, 5: 0, 6: 0}


def test_V7_an_invalid_card_does_not_make_another_number_unique():
    s = opened(2, None, 2)
    assert (s.game.result, s.game.winner) == ("dobon", 6)


def test_V8_any_player_may_deal_the_next_game_and_the_ledger_runs_across_games():
    s = opened(1, 2, 3, dealer=6, stake=100)           # player 1 wins 300
    s = play(s, *bets(5, 5, 5, dealer=1, stake=200), {"do": "open"})    # dobon: dealer 1 wins 600
    assert [g.dealer for g in s.games] == [6, 1] and [g.no for g in s.games] == [1, 2]
    assert nets(s) == {1: 200 + 600, 2: -100 - 200, 3: -100 - 200, 4: -200, 5: 0, 6: 0}
    assert "there is no player 7" in rejected(s, {"do": "deal", "dealer": 7, "stake": 100})


def test_V9_one_stake_per_game_set_by_the_dealer():
    s = play(table(), {"do": "deal", "dealer": 2, "stake": 750})
    assert s.game.stake == 750
    assert "stake is at least 1" in rejected(table(), {"do": "deal", "dealer": 2, "stake": 0})
    s = play(s, {"do": "bet", "player": 1, "number": 1}, {"do": "bet", "player": 3, "number": 2})
    assert s.game.pot == 1500


def test_D2_no_valid_number_at_all_is_dobon():
    s = opened(None, None, dealer=2)
    assert (s.game.result, s.game.winner, s.game.pot) == ("dobon", 2, 2000)
    s = opened(dealer=2)                                 # nobody bet
    assert (s.game.result, s.game.winner, s.game.pot) == ("dobon", 2, 0)
    assert set(nets(s).values()) == {0}


def test_D2_the_dealer_does_not_bet():
    s = play(table(), {"do": "deal", "dealer": 3, "stake": 10})
    assert "the dealer does not bet (D2)" in rejected(s, {"do": "bet", "player": 3, "number": 1})
    assert "there is no player 9" in rejected(s, {"do": "bet", "player": 9, "number": 1})


def test_D2_a_second_bet_before_the_close_replaces_the_first():
    s = play(table(), {"do": "deal", "dealer": 6, "stake": 10}, {"do": "bet", "player": 1, "number": 0},
             {"do": "bet", "player": 2, "number": 5}, {"do": "bet", "player": 1, "number": 5})
    assert s.game.bets == {1: 5, 2: 5} and s.game.pot == 20
    s = play(s, {"do": "close"}, {"do": "open"})
    assert s.game.result == "dobon"


# ---- number cards' serials -------------------------------------------------------------------

def test_a_printed_serial_must_be_the_players_and_this_games():
    s = play(table(), {"do": "deal", "dealer": 6, "stake": 10})
    assert invalid(s, {"do": "bet", "player": 1, "number": 3, "serial": "N0201"}) == "card N0201 is player 2's, not player 1's"
    assert invalid(s, {"do": "bet", "player": 1, "number": 3, "serial": "N0102"}) == "card N0102 is printed for game 2; this is game 1"
    assert "not a number card's serial" in rejected(s, {"do": "bet", "player": 1, "number": 3, "serial": "V0101"})
    wrong = play(s, {"do": "bet", "player": 1, "number": 3, "serial": "N0102"})
    assert wrong.game.bets == {}                          # not counted at all


def test_a_card_scanned_twice_is_a_duplicate_and_not_counted():
    s = play(table(), {"do": "deal", "dealer": 6, "stake": 10}, {"do": "bet", "player": 1, "number": 3, "serial": "N0101"})
    assert invalid(s, {"do": "bet", "player": 1, "number": 7, "serial": "N0101"}).startswith("duplicate")
    s = play(s, {"do": "bet", "player": 1, "number": 7, "serial": "N0101"})
    assert s.game.bets == {1: 3}


# ---- corrections through a session: undo, void, hold, rule ----------------------------------

def session(*commands: dict) -> Session:
    s = Session(Journal())
    for command in (setup_command(), *commands):
        assert s.submit(command).status != "rejected", command
    return s


def test_undo_takes_back_a_bet():
    s = session({"do": "deal", "dealer": 6, "stake": 10}, {"do": "bet", "player": 1, "number": 3})
    assert s.submit({"do": "undo"}).reason == "took back command 3"
    assert s.state.game.bets == {}


def test_void_removes_a_bet_by_its_cards_serial():
    s = session({"do": "deal", "dealer": 6, "stake": 10}, {"do": "bet", "player": 1, "number": 3, "serial": "N0101"})
    assert s.submit({"do": "void", "serial": "N0101"}).status == "ok"
    assert s.state.game.bets == {} and "N0101" not in s.state.serials
    assert "not a bet or held card" in s.submit({"do": "void", "serial": "N0101"}).reason
    assert s.submit({"do": "bet", "player": 1, "number": 4, "serial": "N0101"}).status == "ok"


def test_hold_waits_for_a_ruling_before_the_close():
    held = {"do": "hold", "card": {"do": "bet", "player": 1, "number": None, "serial": "N0101"}, "reason": "faint"}
    s = session({"do": "deal", "dealer": 6, "stake": 10}, held)
    assert "N0101" in s.state.held and s.state.game.bets == {}
    assert views.staff(s.state)["held"][0]["serial"] == "N0101"
    assert "rule on the held card first: N0101" in s.submit({"do": "close"}).reason
    ruled = s.submit({"do": "rule", "serial": "N0101", "card": {"do": "bet", "player": 1, "number": 2, "serial": "N0101"}})
    assert ruled.status == "ok" and s.state.game.bets == {1: 2} and not s.state.held
    assert s.submit({"do": "close"}).status == "ok"


def test_a_card_ruled_invalid_is_an_invalid_bet_with_its_stake_in_the_pot():
    held = {"do": "hold", "card": {"do": "bet", "player": 2, "number": None, "serial": "N0201"}, "reason": "two marks?"}
    s = session({"do": "deal", "dealer": 6, "stake": 10}, held)
    outcome = s.submit({"do": "rule", "serial": "N0201", "invalid": "two marks"})
    assert (outcome.status, outcome.reason) == ("invalid", "ruled invalid: two marks")
    assert s.state.game.bets == {2: None}


def test_hold_checks_the_card_like_a_bet():
    s = session({"do": "deal", "dealer": 6, "stake": 10})
    card = lambda serial: {"do": "hold", "card": {"do": "bet", "player": None, "number": None, "serial": serial}, "reason": "r"}
    assert "the dealer does not bet" in s.submit(card("N0601")).reason
    assert s.submit(card("N0102")).reason == "card N0102 is printed for game 2; this is game 1"


# ---- the rehearsal script and replay JSON -------------------------------------------------

def run(capsys, *argv):
    code = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return code, out, err


def game_json(no, dealer, stake, bets, result, winner, number):
    bets = {str(p): n for p, n in bets.items()}
    return {"no": no, "dealer": dealer, "stake": stake, "bets": bets, "result": result, "winner": winner,
            "number": number, "pot": stake * len(bets)}


NIGHT_GAMES = [   # worked by hand from the script, game by game
    game_json(1, 6, 1000, {1: 1, 2: 2, 3: 1, 4: 0, 5: 3}, "won", 4, 0),
    game_json(2, 1, 500, {2: 0, 3: 9, 4: 2, 5: 0, 6: 2}, "won", 3, 9),
    game_json(3, 2, 200, {1: 1, 3: 1, 4: 1, 5: 1, 6: 1}, "dobon", 2, None),
    game_json(4, 3, 300, {1: 0, 2: 0, 4: 2, 5: 2, 6: 2}, "dobon", 3, None),
    game_json(5, 4, 1000, {1: 7, 2: None, 3: 7, 5: 8}, "won", 5, 8),
    game_json(6, 5, 100, {1: 4, 2: 4, 3: 3}, "no_game", None, None),
    game_json(7, 1, 2000, {2: None, 3: None}, "dobon", 1, None),
]
NIGHT_NETS = {1: -1000 - 200 - 300 - 1000 + 4000, 2: -1000 - 500 + 1000 - 300 - 1000 - 2000,
              3: -1000 - 500 + 2500 - 200 + 1500 - 1000 - 2000, 4: 5000 - 1000 - 500 - 200 - 300,
              5: -1000 - 500 - 200 - 300 - 1000 + 4000, 6: -500 - 200 - 300}
NIGHT_NOT_OK = {10: ("rejected", "not now: betting is open"),
                20: ("rejected", "player 1 deals this game: the dealer does not bet (D2)"),
                45: ("invalid", "unreadable or miswritten card (V7)"),
                46: ("invalid", "card N0304 is printed for game 4; this is game 5"),
                49: ("invalid", "duplicate: card N0505 was already scanned"),
                51: ("rejected", "not now: betting is closed"),
                63: ("invalid", "unreadable or miswritten card (V7)"),
                64: ("invalid", "unreadable or miswritten card (V7)")}


def test_rehearsal_night_replays_to_the_contracts_json(capsys):
    code, out, _ = run(capsys, "replay", NIGHT, "--json")
    view = json.loads(out)
    assert code == 0 and list(view) == ["game", "phase", "games", "players", "log"]
    assert (view["game"], view["phase"]) == ("voters", "ready")
    assert view["games"] == NIGHT_GAMES
    assert all(list(g) == ["no", "dealer", "stake", "bets", "result", "winner", "number", "pot"] for g in view["games"])
    assert view["players"] == [{"no": no, "name": NAMES[no - 1], "net": NIGHT_NETS[no]} for no in range(1, 7)]
    assert sum(NIGHT_NETS.values()) == 0
    commands = [n for n, line in enumerate(NIGHT.read_text().splitlines(), 1) if line.startswith("{")]
    assert [entry["line"] for entry in view["log"]] == commands
    assert {e["line"]: (e["status"], e["reason"]) for e in view["log"] if e["status"] != "ok"} == NIGHT_NOT_OK
    assert [e["reason"] for e in view["log"] if e["line"] == 55] == ["held for review: faint mark"]


def test_replay_text_names_every_invalid_and_rejected_line(capsys):
    code, out, _ = run(capsys, "replay", NIGHT)
    assert code == 0 and "line 46: invalid: card N0304 is printed for game 4; this is game 5" in out
    assert "game 3: dealer 2, stake 200, pot 1,000; bets 1=1 3=1 4=1 5=1 6=1; DOBON: dealer 2 wins" in out


def script(tmp_path, *commands) -> Path:
    path = tmp_path / "v.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in commands))
    return path


def test_public_before_the_open_shows_who_has_bet_but_no_number(tmp_path, capsys):
    path = script(tmp_path, setup_command(), {"do": "deal", "dealer": 6, "stake": 10},
                  {"do": "bet", "player": 3, "number": 7}, {"do": "bet", "player": 1, "number": 8},
                  {"do": "hold", "card": {"do": "bet", "player": 2, "number": 9, "serial": "N0201"},
                   "reason": "faint", "crop": "crops/N0201.png", "scores": {"number": {"9": 0.4}}})
    code, out, _ = run(capsys, "replay", path, "--public", "--json")
    view = json.loads(out)
    assert code == 0 and list(view) == ["game", "event", "phase", "games", "players"]
    assert view["games"] == [{"no": 1, "dealer": 6, "stake": 10, "result": None, "winner": None, "number": None,
                              "pot": 20, "bettors": [1, 3]}]
    assert "N0201" not in out and "crops" not in out and "0.4" not in out
    code, text, _ = run(capsys, "replay", path, "--public")
    assert "bets from 1 3; open" in text and "=" not in text.split("Games:")[1].split("Ledger:")[0]


def test_public_after_the_open_shows_every_number_and_the_unique_ones(tmp_path, capsys):
    path = script(tmp_path, setup_command(), *bets(4, 4, 6, 8), {"do": "open"})
    game = json.loads(run(capsys, "replay", path, "--public", "--json")[1])["games"][0]
    assert game["bets"] == {"1": 4, "2": 4, "3": 6, "4": 8} and game["unique"] == [6, 8]
    assert (game["result"], game["winner"], game["number"]) == ("won", 3, 6) and "bettors" not in game


def test_V6_public_no_game_shows_who_had_bet_but_no_number(tmp_path, capsys):
    path = script(tmp_path, setup_command(), *bets(4, 4, 6, 8), {"do": "no_game"})
    game = json.loads(run(capsys, "replay", path, "--public", "--json")[1])["games"][0]
    assert game["result"] == "no_game" and game["bettors"] == [1, 2, 3, 4]
    assert "bets" not in game and "unique" not in game


def test_staff_status_shows_held_cards_but_public_does_not():
    s = session({"do": "deal", "dealer": 6, "stake": 10},
                {"do": "hold", "card": {"do": "bet", "player": 1, "number": 4, "serial": "N0101"}, "reason": "faint"})
    staff = views.staff(s.state)
    assert list(staff) == ["game", "event", "phase", "games", "players", "held"]
    assert staff["held"] == [{"serial": "N0101", "card": {"do": "bet", "player": 1, "number": 4, "serial": "N0101"},
                              "reason": "faint", "crop": "", "scores": {}, "findings": []}]
    assert "held" not in views.public(s.state)


@pytest.mark.parametrize("command, message", [
    ({"do": "bet", "player": 1, "number": 12}, "bet: number must be 0-9 or null, not 12"),
    ({"do": "bet", "player": 1, "number": 3, "card": 2}, "bet: unknown key 'card'; expected player, number, serial"),
    ({"do": "deal", "dealer": 1}, "deal: missing key 'stake'"),
    ({"do": "deal", "dealer": 1, "stake": None}, "deal: stake must be a whole number, not None"),
    ({"do": "bet", "player": None, "number": 1}, "bet: player must be a whole number, not None"),
    ({"do": "begin_turn"}, "unknown command 'begin_turn'; known: setup, deal, bet, close, open, no_game, undo, void, hold, rule"),
])
def test_a_bad_script_line_is_one_clear_line_and_exit_2(tmp_path, capsys, command, message):
    code, out, err = run(capsys, "replay", script(tmp_path, setup_command(), command))
    assert code == 2 and out == "" and err == f"companion: {tmp_path / 'v.jsonl'}:2: {message}\n"


def test_a_bad_voters_setup_is_one_clear_line(tmp_path, capsys):
    no_name = {**setup_command(), "players": [{"no": 1}]}
    code, _, err = run(capsys, "replay", script(tmp_path, no_name))
    assert code == 2 and err.endswith(":1: setup: player 1 has no 'name'\n") and err.count("\n") == 1
    code, _, err = run(capsys, "replay", script(tmp_path, {**setup_command(), "game": "chess"}))
    assert code == 2 and f"unknown game 'chess'; games: {', '.join(games.GAMES)}" in err


# ---- the event file and the CLI on a voters journal ----------------------------------------

def test_init_start_do_status_journal_on_a_voters_event(tmp_path, capsys):
    event = tmp_path / "voters.toml"
    code, out, _ = run(capsys, "init", "--game", "voters", "--players", 4, "--out", event, "--name", "Club night")
    assert code == 0 and out == f"wrote {event}: 4 players; edit names, then: companion start --event {event}\n"
    assert 'game = "voters"' in event.read_text() and "account" not in event.read_text()
    assert run(capsys, "start", "--event", event)[0] == 0
    bets = ['{"do":"deal","dealer":4,"stake":50}', '{"do":"bet","player":1,"number":2}',
            '{"do":"bet","player":2,"number":null}']
    code, out, _ = run(capsys, "do", "--event", event, *bets, '{"do":"bet","player":4,"number":1}')
    assert code == 1 and out.splitlines() == ["rejected: command 4 of 4: player 4 deals this game: the dealer "
                                              "does not bet (D2); none of the 4 commands applied"]
    code, out, _ = run(capsys, "do", "--event", event, *bets)
    assert code == 0 and out.splitlines() == ["ok", "ok", "invalid: unreadable or miswritten card (V7)"]
    view = json.loads(run(capsys, "status", "--event", event, "--public", "--json")[1])
    assert view["event"] == "Club night" and view["games"][0]["bettors"] == [1, 2]
    run(capsys, "do", "--event", event, '{"do":"close"}', '{"do":"open"}')
    view = json.loads(run(capsys, "status", "--event", event, "--json")[1])
    assert [p["net"] for p in view["players"]] == [50, -50, 0, 0]
    code, out, _ = run(capsys, "journal", "verify", tmp_path / "club-night-voters.db")
    assert code == 0 and "OK, 6 batches" in out
    code, out, _ = run(capsys, "journal", "export", "--public", tmp_path / "club-night-voters.db")
    assert code == 0 and all(json.loads(line)["view"]["game"] == "voters" for line in out.splitlines())


def test_a_voters_event_file_has_no_bingo_keys(tmp_path, capsys):
    event = tmp_path / "voters.toml"
    run(capsys, "init", "--game", "voters", "--players", 3, "--out", event)
    text = event.read_text()
    event.write_text(text.replace('name = "Player 2"', 'name = "Player 2"\naccount = "B"'))
    code, _, err = run(capsys, "start", "--event", event)
    line = event.read_text().splitlines().index('account = "B"') + 1
    assert code == 2 and err == f"companion: {event}:{line}: unknown key 'account' in [players]\n"
    event.write_text(text + '\n[rules]\nturns = 3\n')
    assert "unknown section or key 'rules'" in run(capsys, "start", "--event", event)[2]
    event.write_text(text.replace('game = "voters"', 'game = "go"'))
    known = ", ".join(map(repr, games.GAMES))
    assert f"game must be one of {known}, not 'go'" in run(capsys, "start", "--event", event)[2]
    code, _, err = run(capsys, "init", "--game", "voters", "--players", 2, "--out", tmp_path / "two.toml")
    assert code == 2 and "players must be 3-99" in err


def test_bench_voters_replays_a_night_with_no_rejection(capsys):
    from companion.voters.bench import voters_night
    night = voters_night(120, 5)
    session = Session(Journal())
    outcomes = [session.submit(command) for command in night]
    assert not [o.reason for o in outcomes if o.status == "rejected"]
    assert len(session.state.games) == 120 and all(g.result for g in session.state.games)
    code, out, _ = run(capsys, "bench", "voters", "--games", 3, "--runs", 1)
    assert code == 0 and "3-game, 8-player Voters script" in out and "3 games settled" in out
