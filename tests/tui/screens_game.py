"""A short game with known names, letters and robberies, written through a Session with a
fixed clock so that every screen of it is the same on every run."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from companion.core.journal import Journal
from companion.core.session import Session

START = datetime(2025, 3, 1, 18, 0, 0, tzinfo=timezone.utc)
NAMES = {1: "Akiko Tanaka", 2: "Bruno Diaz", 3: "Chen Wei", 4: "Dana Smith"}
LETTERS = {1: "Q", 2: "K", 3: "M", 4: "W"}
CARDS = {1: [1, 2, 3, 4, 5, 6, 7, 8, 9], 2: [10, 11, 12, 13, 14, 15, 16, 17, 18],
         3: [19, 20, 21, 22, 23, 24, 25, 26, 27], 4: [1, 10, 19, 2, 11, 20, 3, 12, 21]}
ROBBERY_SERIALS = ("R0201", "R0202")


class Clock:
    """Each command one second after the last."""

    def __init__(self):
        self.n = 0

    def __call__(self) -> str:
        self.n += 1
        return (START + timedelta(seconds=self.n)).isoformat(timespec="milliseconds")

    def now(self) -> float:
        """The time a screen is looked at: 40 s after the last command."""
        return (START + timedelta(seconds=self.n + 40)).timestamp()


def setup() -> dict:
    return {"do": "setup", "event": "Test night", "rules": {"turns": 3, "turn_seconds": 120},
            "players": [{"no": no, "name": NAMES[no], "account": LETTERS[no], "card": CARDS[no]}
                        for no in NAMES]}


def votes(turn: int, *marks: str, first: int = 1) -> list[dict]:
    return [{"do": "vote", "serial": f"V{turn:02d}{i}", "turn": turn, "marks": list(m)}
            for i, m in enumerate(marks, first)]


# The game in steps; a step is a list of commands, and screens are looked at between steps.
STEPS = {
    "ready": [setup()],
    "turn1_voting": [{"do": "begin_turn"}, {"do": "draw", "balls": [1, 2, 3]}, *votes(1, "X", "Y")],
    "turn1_counted": [*votes(1, "Z", first=3), {"do": "close_voting"}],
    "turn2_robbed": [{"do": "end_turn"}, {"do": "begin_turn"}, {"do": "draw", "balls": [4, 5, 6]},
                     {"do": "rob", "serial": ROBBERY_SERIALS[0], "robber": 1, "victim": 2, "ordinal": 1},
                     {"do": "rob", "serial": ROBBERY_SERIALS[1], "robber": 4, "victim": 3, "ordinal": 1},
                     {"do": "buy", "player": 2, "item": "in"},
                     *votes(2, "X", "X", "X", "Y"), {"do": "close_voting"}, {"do": "end_turn"}],
    "turn3_announced": [{"do": "begin_turn"}, {"do": "draw", "balls": [7, 8, 9]}],
    "finished": [*votes(3, "X", "Y", "Y"), {"do": "close_voting"}, {"do": "end_turn"},
                 {"do": "begin_final"}, {"do": "end_final"},
                 *[{"do": "cash", "player": no, "amount": 1_100_000 + 10_000 * no} for no in NAMES],
                 {"do": "finish"}],
}


def play_step(session: Session, commands: list[dict], expected=frozenset({"ok"})) -> None:
    for command in commands:
        outcome = session.submit(command)
        assert outcome.status in expected, f"{command}: {outcome.status} {outcome.reason}"


def played(path, steps: dict[str, list[dict]], upto: str, expected=frozenset({"ok"})) -> tuple[Session, Clock]:
    """A journal at `path` played through `steps` up to and including step `upto`."""
    clock = Clock()
    session = Session(Journal(path), clock=clock)
    for step, commands in steps.items():
        play_step(session, commands, expected)
        if step == upto:
            break
    return session, clock


def play(session: Session, step: str) -> None:
    play_step(session, STEPS[step])


def game(path, upto: str) -> tuple[Session, Clock]:
    return played(path, STEPS, upto)
