"""Property tests over random Auction Bluff games: legal and out-of-phase commands, undo too."""
from hypothesis import HealthCheck, given, settings
from hypothesis import event as note
from hypothesis import strategies as st

from companion.bluff import GAME
from companion.bluff import events as e
from companion.bluff.commands import FACES, GEMS
from companion.bluff.decide import holdings
from companion.core.journal import Journal
from companion.core.session import Session

E8 = 100_000_000
STEPS = ["period", "dice", "transfer", "close_dice", "declare", "cancel", "judge", "undo"]
# Most steps move the game on, so random games reach their judgements and their end.
ADVANCE = {"ready": ["period", "transfer"], "dice": ["dice"] * 4 + ["transfer", "close_dice"],
           "declare": ["declare"] * 3 + ["cancel", "transfer", "judge", "judge"]}


def faces_for(draw, s, player: int) -> dict:
    held = holdings(s, player) if player in s.dice else {}
    faces = {gem: [draw(st.sampled_from(FACES)) for _ in range(n)] for gem, n in held.items()}
    if faces and not draw(st.integers(0, 9)):                   # now and then a vote of the wrong length
        faces[next(iter(faces))].append("1")
    return faces


def random_command(draw, s, players: int) -> dict:
    kind = draw(st.sampled_from(ADVANCE.get(s.phase, STEPS) if draw(st.booleans()) else STEPS))
    player, other = draw(st.integers(1, players)), draw(st.integers(1, players))
    everyone = list(range(1, players + 1))
    return {"period": {"do": "period"}, "close_dice": {"do": "close_dice"}, "judge": {"do": "judge"},
            "undo": {"do": "undo"},
            "dice": {"do": "dice", "player": player, "faces": faces_for(draw, s, player)},
            "transfer": {"do": "transfer", "from": player, "to": other, "gem": draw(st.sampled_from(GEMS[:players])),
                         "count": draw(st.integers(0, 6))},
            "declare": {"do": "declare", "player": player, "face": draw(st.sampled_from([1, 2, 3, 4, 5, 5, "★", 6])),
                        "count": draw(st.integers(0, 31) if not draw(st.integers(0, 3)) else st.integers(1, 4))},
            "cancel": {"do": "cancel", "player": player,
                       "consent": everyone if draw(st.booleans()) else everyone[1:]}}[kind]


def check_judgement(s, judged: e.PeriodJudged) -> None:
    """Exactly one outcome for the judged period, and the right one (AB2, AB4)."""
    period = s.periods[-1]
    assert period.no == judged.no and period.result in ("won", "eliminated", "no_declaration")
    assert [p.result is None for p in s.periods] == [False] * len(s.periods)
    if judged.selected is None:
        assert period.result == "no_declaration" and period.true_count is None and s.phase == "finished"
    else:
        holds = period.true_count >= judged.selected["count"]
        assert period.result == ("won" if holds else "eliminated")
        assert s.players[judged.selected["player"]].eliminated == (not holds)


def check_results(s, players: int) -> None:
    results = [p["result"] for p in GAME.public(s)["players"]]
    if s.phase != "finished":
        assert set(results) <= {None}
        return
    assert sum(results) == (E8 * (6 - players) if s.winner is not None else -E8 * players)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_games_conserve_dice_judge_once_pay_the_fixed_sum_and_replay(data):
    players = data.draw(st.integers(2, 6), label="players")
    session = Session(Journal())
    session.submit({"do": "setup", "game": "bluff", "event": "Night", "star_wild": data.draw(st.booleans()),
                    "players": [{"no": no, "name": f"P{no}", "gem": GEMS[no - 1]} for no in range(1, players + 1)]})
    for _ in range(data.draw(st.integers(5, 80), label="steps")):
        outcome = session.submit(random_command(data.draw, session.state, players))
        s = session.state
        for gem in GEMS[:players] if s.phase != "new" else ():            # AB5: dice are conserved
            assert sum(held.get(gem, 0) for held in s.dice.values()) == 5    # (an undone setup: none)
        assert all(n > 0 for held in s.dice.values() for n in held.values())
        for judged in (event for event in outcome.events if isinstance(event, e.PeriodJudged)):
            check_judgement(s, judged)
            note(f"a period judged: {judged.result}")
        check_results(s, players)
        if s.phase == "finished":
            note("a game finished")
    assert Session(session.journal).state == session.state                   # replay(journal) == live state
