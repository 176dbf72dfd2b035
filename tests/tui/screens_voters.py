"""A short Voters night with known names, written through a Session with a fixed clock so
that every screen of it is the same on every run. Game 1 is the seed's first example (V3:
1,2,1,0,3 -> the player of 0); game 2 a dobon with an invalid card (V4, V7)."""
from __future__ import annotations

from companion.core.session import Session

from screens_game import Clock, play_step, played

NAMES = {1: "Aki Tanaka", 2: "Bruno Diaz", 3: "Chen Wei", 4: "Dana Smith", 5: "Emi Sato", 6: "Fumi Ito"}
GAME1 = {1: 1, 2: 2, 3: 1, 4: 0, 5: 3}          # dealer 6; Dana's 0 is the lowest unique number
GAME2 = {2: 0, 3: 0, 4: 2, 5: 2, 6: None}        # dealer 1; every valid number twice, one invalid card


def setup() -> dict:
    return {"do": "setup", "game": "voters", "event": "Voters night",
            "players": [{"no": no, "name": name} for no, name in NAMES.items()]}


def bets(numbers: dict) -> list[dict]:
    return [{"do": "bet", "player": no, "number": n} for no, n in numbers.items()]


# The night in steps; screens are looked at between steps.
STEPS = {
    "ready": [setup()],
    "betting": [{"do": "deal", "dealer": 6, "stake": 1000}, *bets(GAME1)[:3]],
    "closed": [*bets(GAME1)[3:], {"do": "close"}],
    "won": [{"do": "open"}],
    "dobon": [{"do": "deal", "dealer": 1, "stake": 500}, *bets(GAME2), {"do": "close"}, {"do": "open"}],
}
EXPECTED = {"ok", "invalid"}     # the invalid card of game 2 is journaled "invalid" (V7)


def play(session: Session, step: str) -> None:
    play_step(session, STEPS[step], EXPECTED)


def night(path, upto: str) -> tuple[Session, Clock]:
    """A journal at `path` played up to and including step `upto`."""
    return played(path, STEPS, upto, EXPECTED)
