"""Property tests over random Voters nights: legal and out-of-phase commands, corrections too."""
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import event as note
from hypothesis import strategies as st

from companion.core.events import Undone
from companion.core.journal import Journal
from companion.core.session import Session
from companion.voters import events as e

NUMBER = st.one_of(st.integers(0, 9), st.none())
STEPS = ["deal", "bet", "bet", "bet", "bet", "bet", "close", "open", "no_game", "undo", "void", "hold", "rule"]
# Most steps move the night on, so random nights settle many games.
ADVANCE = {"ready": ["deal"], "betting": ["bet"] * 5 + ["close", "hold", "rule"], "closed": ["open"] * 3 + ["no_game"]}


def random_command(draw, s, players: int) -> dict:
    kind = draw(st.sampled_from(ADVANCE.get(s.phase, STEPS) if draw(st.booleans()) else STEPS))
    player = draw(st.integers(1, players))
    game = len(s.games) + draw(st.sampled_from([0, 0, 0, 1]))
    serial = draw(st.sampled_from(["", f"N{player:02d}{game:02d}"]))
    card = {"do": "bet", "player": player, "number": draw(NUMBER), "serial": serial or f"N{player:02d}{game:02d}"}
    return {"deal": {"do": "deal", "dealer": player, "stake": draw(st.integers(1, 5000))},
            "bet": {"do": "bet", "player": player, "number": draw(NUMBER), "serial": serial},
            "close": {"do": "close"}, "open": {"do": "open"}, "no_game": {"do": "no_game"}, "undo": {"do": "undo"},
            "void": {"do": "void", "serial": card["serial"]},
            "hold": {"do": "hold", "card": card, "reason": "unclear"},
            "rule": {"do": "rule", "serial": card["serial"],
                     **({"invalid": "blurred"} if draw(st.booleans()) else {"card": card})}}[kind]


def check_settlement(game, before: dict, after: dict) -> None:
    """The pot goes to exactly one winner (V3-V5, D2), or back to the players (V6)."""
    delta = {no: after[no] - before[no] for no in after}
    assert sum(delta.values()) == 0
    if game.result == "no_game":
        assert set(delta.values()) == {0}
        return
    unique = sorted(n for n, k in Counter(n for n in game.bets.values() if n is not None).items() if k == 1)
    expected = game.dealer if not unique else next(p for p, n in game.bets.items() if n == unique[0])
    assert game.winner == expected and game.number == (unique[0] if unique else None)
    assert game.result == ("won" if unique else "dobon")
    for no, change in delta.items():
        stake = game.stake if no in game.bets else 0
        assert change == (game.pot if no == game.winner else 0) - stake


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_nights_settle_each_pot_once_keep_the_ledger_at_zero_and_replay(data):
    players = data.draw(st.integers(3, 7), label="players")
    session = Session(Journal())
    session.submit({"do": "setup", "game": "voters", "event": "Night",
                    "players": [{"no": no, "name": f"P{no}"} for no in range(1, players + 1)]})
    for _ in range(data.draw(st.integers(5, 80), label="steps")):
        s = session.state
        before = {no: p.net for no, p in s.players.items()}
        outcome = session.submit(random_command(data.draw, s, players))
        after = {no: p.net for no, p in session.state.players.items()}
        assert sum(after.values()) == 0                                   # the ledger sums to zero
        if any(isinstance(event, (e.GameSettled, e.GameVoided)) for event in outcome.events):
            check_settlement(session.state.game, before, after)
            note(f"a game settled: {session.state.game.result}")
        elif not (outcome.events and isinstance(outcome.events[0], Undone)):
            assert after == before                                        # only a settlement (or its undo) moves money
        game = session.state.game
        if game and game.result is None:
            assert game.dealer not in game.bets                           # D2: the dealer does not bet
    assert Session(session.journal).state == session.state                # replay(journal) == live state
