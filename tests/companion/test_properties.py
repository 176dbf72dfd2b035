"""Property tests over random legal and illegal command sequences (testing ladder, step 1)."""
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from companion.bingo import commands as c
from companion.bingo import events as e
from companion.bingo.rules import BALLS, LINES, START_ACCOUNT
from companion.core.journal import Journal
from companion.core.session import Session

PLAYERS = 5
SERIALS = [f"{kind}{i}" for kind in "VR" for i in range(6)]   # vote, robbery; few, so duplicates happen
STEPS = ["begin_turn"] * 4 + ["draw"] * 4 + ["draw_ball", "buy", "inout", "change", "exclude", "rob",
         "order_lines", "cash", "void", "hold", "rule", "undo", "begin_final", "end_final", "finish"] \
    + ["vote"] * 8 + ["close_voting"] * 3 + ["end_turn"] * 3

# Half the steps move the game on, so random sessions reach the final and the results too.
ADVANCE = {"ready": ["begin_turn"], "draw": ["draw"], "voting": ["vote"] * 6 + ["close_voting", "hold"],
           "resolve": ["end_turn", "rob", "rule"], "turn_over": ["begin_turn", "begin_final"],
           "final": ["rob", "end_final"], "counting": ["cash"] * 3 + ["finish"]}


def random_command(data, s) -> dict:
    draw = data.draw
    ball = lambda: draw(st.sampled_from(s.balls_in("machine") or list(BALLS)) | st.integers(0, 28))
    player = lambda: draw(st.integers(1, PLAYERS + 1))
    serial = lambda kind="": draw(st.sampled_from([x for x in SERIALS if x.startswith(kind)]))
    vote = lambda: {"do": "vote", "serial": serial("V"), "turn": draw(st.sampled_from([s.turn, s.turn, 1, 3])),
                    "marks": draw(st.lists(st.sampled_from("XYZ"), max_size=2))}
    kind = draw(st.sampled_from(STEPS)) if draw(st.booleans()) else draw(st.sampled_from(ADVANCE.get(s.phase, STEPS)))
    if kind == "draw":
        pool = s.balls_in("machine") if draw(st.integers(0, 9)) else list(BALLS)
        return {"do": "draw", "balls": draw(st.lists(st.sampled_from(pool), max_size=3, unique=True)) if pool else []}
    return {
        "draw_ball": lambda: {"do": "draw_ball", "ball": ball()},
        "vote": vote,
        "buy": lambda: {"do": "buy", "player": player(), "item": draw(st.sampled_from(["in", "out", "change", "exclusion"]))},
        "inout": lambda: {"do": "inout", "player": player(), "dir": draw(st.sampled_from(["in", "out"])), "ball": ball()},
        "change": lambda: {"do": "change", "player": player(), "cell": draw(st.integers(1, 9)), "number": draw(st.integers(1, 27))},
        "exclude": lambda: {"do": "exclude", "player": player(), "ball": ball()},
        "rob": lambda: {"do": "rob", "serial": serial("R"), "robber": player(), "victim": player(), "ordinal": draw(st.integers(1, 8))},
        "order_lines": lambda: {"do": "order_lines", "player": player(),
                                "lines": draw(st.lists(st.sampled_from(list(LINES)), min_size=1, max_size=3, unique=True))},
        "cash": lambda: {"do": "cash", "player": player(), "amount": draw(st.integers(0, 2_000_000))},
        "void": lambda: {"do": "void", "serial": serial()},
        "hold": lambda: {"do": "hold", "card": vote(), "reason": "faint"},
        "rule": lambda: {"do": "rule", "serial": serial(), "invalid": "unreadable"},
    }.get(kind, lambda: {"do": kind})()


def check_places(s, before) -> None:
    assert set(s.place) == set(BALLS)                               # every ball in exactly one place
    assert sorted(s.drawn) == s.balls_in("drawn") and sorted(s.valid) == s.balls_in("valid")
    assert len(set(s.valid)) == len(s.valid)
    assert set(before.balls_in("valid")) <= set(s.balls_in("valid"))        # a valid ball never moves
    assert set(before.balls_in("excluded")) <= set(s.balls_in("excluded"))  # an excluded ball never comes back


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_sessions_keep_balls_money_and_replay(data):
    journal = Journal()
    session = Session(journal)
    turns = data.draw(st.integers(1, 4))
    session.submit({"do": "setup", "event": "Property night", "rules": {"turns": turns}, "players": [
        {"no": n, "name": f"P{n}", "account": "ABCDEFG"[n - 1], "card": data.draw(
            st.lists(st.integers(1, 27), min_size=9, max_size=9, unique=True))} for n in range(1, PLAYERS + 1)]})
    spent = [0]   # L$ paid from accounts per accepted command (setup first), so undo can take it back
    for _ in range(data.draw(st.integers(10, 150))):
        before = session.state
        outcome = session.submit(random_command(data, before))
        if outcome.status == "rejected":
            assert session.state is before                          # a rejected command changes nothing
            continue
        if isinstance(outcome.events[0], e.Undone):
            spent.pop()
        else:
            check_places(session.state, before)
            spent.append(sum(ev.price for ev in outcome.events if isinstance(ev, e.ItemBought) and ev.from_account))
        balances = sum(p.balance for p in session.state.players.values())
        assert balances == len(session.state.players) * START_ACCOUNT - sum(spent)   # robberies only move L$
    event(f"reached phase {session.state.phase}")
    assert Session(journal).state == session.state                  # replay(journal) == live state


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                           max_leaves=10)


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({"do": st.sampled_from(list(c.COMMANDS))}, optional={
    k: json_values for k in ("balls", "serial", "turn", "marks", "player", "item", "dir", "ball", "cell",
                             "number", "lines", "robber", "victim", "ordinal", "amount", "card", "reason")}))
def test_any_json_is_a_command_or_a_clear_malformed_error(data):
    try:
        command = c.parse(data)
    except c.Malformed as error:
        assert str(error)
        return
    session = Session(Journal())
    assert session.submit(command).status in ("ok", "invalid", "rejected")
