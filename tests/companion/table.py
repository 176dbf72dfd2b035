"""Test helpers: games built by commands through the pure rules (no journal)."""
from __future__ import annotations

from companion.bingo import commands as c
from companion.bingo.decide import Rejected, decide
from companion.bingo.evolve import fold
from companion.bingo.state import State

# Player n's card holds 9n-8 .. 9n (players 1-3 cover balls 1-27); more players reuse cards.
def card_of(no: int) -> list[int]:
    base = 9 * ((no - 1) % 3)
    return [base + i for i in range(1, 10)]


def setup(players: int = 6, **rules) -> State:
    return play(State(), {"do": "setup", "event": "Test night", "rules": rules, "players": [
        {"no": no, "name": f"Name{no}", "account": chr(ord("A") + no - 1), "card": card_of(no)}
        for no in range(1, players + 1)]})


def attempt(state: State, command: dict):
    return decide(state, c.parse(command))


def play(state: State, *commands: dict) -> State:
    for command in commands:
        result = attempt(state, command)
        assert not isinstance(result, Rejected), f"{command} rejected: {result.reason}"
        state = fold(result, state)
    return state


def rejected(state: State, command: dict) -> str:
    result = attempt(state, command)
    assert isinstance(result, Rejected), f"{command} was accepted: {result}"
    return result.reason


def invalid(state: State, command: dict) -> str:
    result = attempt(state, command)
    assert not isinstance(result, Rejected), f"{command} rejected: {result.reason}"
    reasons = [event.reason for event in result if type(event).__name__ == "CardInvalid"]
    assert reasons, f"{command} was not invalid: {result}"
    return reasons[0]


def votes(turn: int, *marks, prefix: str = "V") -> list[dict]:
    """One vote card per mark list: votes(1, "X", "X", "", "XY") -> blank is "", two marks "XY"."""
    return [{"do": "vote", "serial": f"{prefix}{turn:02d}-{i}", "turn": turn, "marks": list(m)}
            for i, m in enumerate(marks)]


def turn(state: State, balls: list[int], marks: list[str], end: bool = True) -> State:
    """A whole turn: begin, draw, vote, close (and end)."""
    state = play(state, {"do": "begin_turn"}, {"do": "draw", "balls": balls})
    state = play(state, *votes(state.turn, *marks), {"do": "close_voting"})
    return play(state, {"do": "end_turn"}) if end else state


def make_valid(state: State, balls: list[int], keep: tuple[int, ...] = ()) -> State:
    """One whole turn per ball: it is drawn as X with two fillers and wins with 4 of 6 votes.
    Fillers go to the pool; balls in `keep` are never used as fillers."""
    for ball in balls:
        fillers = [b for b in state.balls_in("machine") if b not in balls and b not in keep and b != ball][-2:]
        state = turn(state, [ball, *fillers], ["X"] * 4)
    return state
