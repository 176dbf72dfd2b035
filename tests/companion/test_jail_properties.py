"""Property tests over random jail card games: legal moves drawn from the table, illegal and
out-of-phase ones, undo. Cards are conserved, a round ends exactly when J4 first holds, a
rejected move changes nothing, and the journal replays to the live state."""
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import event as note
from hypothesis import strategies as st

from companion.jail import events as e
from companion.jail import rules
from companion.jail.state import State
from companion.core.journal import Journal
from companion.core.session import Game, Session

KINDS = "ABCDEFGH"


def deck_cards(s: State) -> list[str]:
    return sorted(s.deck.elements())


def shuffled(draw, cards: list[str]) -> list[str]:
    draw(st.randoms(use_true_random=False)).shuffle(cards)
    return cards


def random_layout(draw, s: State) -> dict:
    cards = shuffled(draw, deck_cards(s))[:30]
    return {"do": "layout", "rows": [list(cards[i:i + 10]) for i in (0, 10, 20)]}


def random_deal(draw, s: State) -> dict:
    cards = shuffled(draw, deck_cards(s))
    hands = {}
    for no, size in zip(s.players, rules.HAND_SIZES):
        hands[str(no)], cards = cards[:size], cards[size:]
    return {"do": "deal", "hands": hands}


def legal_looking(draw, s: State) -> dict:
    """A move the table could make now (it may still break a rule, e.g. a play too small)."""
    player = s.turn_player or 1
    if s.phase in ("layout", "relayout", "round_over"):
        short = s.deck.total() < 30
        return {"do": "reshuffle"} if short and draw(st.booleans()) else random_layout(draw, s)
    if s.phase == "deal":
        return random_deal(draw, s)
    if s.phase == "turn":
        return {"do": "take", "player": player, "row": draw(st.integers(1, 3)), "end": draw(st.sampled_from(["left", "right"]))}
    hand = sorted(s.players[player].hand.elements()) if player in s.players else []
    if s.phase == "play" and hand and draw(st.booleans()):
        kind = draw(st.sampled_from(hand))
        return {"do": "play", "player": player, "kind": kind, "count": draw(st.integers(1, s.players[player].hand[kind]))}
    drawn = draw(st.sampled_from(deck_cards(s))) if s.deck.total() else None
    return {"do": "refill", "player": player, "kind": drawn}


def any_move(draw, s: State, players: int) -> dict:
    player = draw(st.integers(1, players + 1))
    kind = draw(st.sampled_from(KINDS))
    return draw(st.sampled_from([
        {"do": "take", "player": player, "row": draw(st.integers(1, 3)), "end": "left"},
        {"do": "play", "player": player, "kind": kind, "count": draw(st.integers(1, 7))},
        {"do": "refill", "player": player, "kind": draw(st.sampled_from([kind, None]))},
        {"do": "layout", "rows": [[kind] * 10] * 3}, {"do": "reshuffle"}, {"do": "undo"},
        {"do": "deal", "hands": {str(no): [kind] * 3 for no in range(1, players + 1)}}]))


def cards_on_the_table(s: State) -> Counter:
    places = [s.deck, s.jail, s.discard, *(p.hand for p in s.players.values()),
              *(p.display for p in s.players.values()), Counter(card for row in s.rows for card in row)]
    places += [Counter(cards) for r in s.rounds for cards in r.collected.values()]
    return sum(places, Counter())


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_games_conserve_cards_end_rounds_at_J4_and_replay(data):
    draw = data.draw
    players = draw(st.integers(2, 4), label="players")
    deck = {kind: draw(st.integers(12, 20)) for kind in KINDS[:draw(st.integers(4, 8), label="kinds")]}
    session = Session(Journal())
    session.submit({"do": "setup", "game": "jail", "event": "Random", "deck": deck,
                    "players": [{"no": no, "name": f"P{no}"} for no in range(1, players + 1)]})
    for _ in range(draw(st.integers(10, 150), label="steps")):
        before, batches = session.state, session.journal.count()
        command = legal_looking(draw, before) if draw(st.integers(0, 9)) else any_move(draw, before, players)
        outcome = session.submit(command)
        s = session.state
        if outcome.status == "rejected":
            assert s == before and session.journal.count() == batches and outcome.reason
            continue
        if s.phase == "new":
            break                                      # the setup undone
        assert cards_on_the_table(s) == Counter(deck)
        assert all(sum(1 for p in s.players.values() if p.display[kind]) <= 1 for kind in deck)
        if command["do"] == "take":
            taken = outcome.events[0]
            jail = before.jail + Counter({taken.jailed: taken.jailed_count})
            ended = any(isinstance(ev, e.RoundEnded) for ev in outcome.events)
            assert ended == rules.round_ends(jail)
            assert (s.phase in ("round_over", "finished")) == ended
        if s.phase not in ("round_over", "finished"):
            assert not rules.round_ends(s.jail)        # J4 never holds unnoticed
        assert len(s.rounds) == s.round - (s.phase != "round_over" and s.phase != "finished")
    note(f"rounds finished: {len(session.state.rounds)}")
    replayed = Game()
    for _ in replayed.follow(session.journal):
        pass
    assert replayed.state == session.state
