"""A seeded, plausible whole game as a rehearsal script: the shipped example, benches, tests.

Players vote, sometimes spoil cards, buy and use special cards, rob with their rights;
every command is checked against the rules as it is written, so the script replays clean.
"""
from __future__ import annotations

from random import Random

from . import commands as c
from .decide import Rejected, decide
from .evolve import fold
from .rules import BALLS, EXCLUSION_FROM_TURN, OPTIONS, START_CASH
from .state import State

NAMES = ["Akiyama", "Baba", "Chiba", "Doi", "Endo", "Fujita", "Goto", "Hara", "Ishii", "Jinbo",
         "Kato", "Mori", "Noda", "Ono", "Saito", "Ueda"]


class _Writer:
    def __init__(self):
        self.state, self.lines = State(), []

    def do(self, command: dict) -> list:
        result = decide(self.state, c.parse(command))
        assert not isinstance(result, Rejected), f"demo generator wrote an illegal command: {command}: {result}"
        self.state = fold(result, self.state)
        self.lines.append(command)
        return result


def demo_script(players: int = 6, seed: int = 1, turns: int = 15, event: str = "Demo night") -> list[dict]:
    rng, w = Random(seed), _Writer()
    letters = rng.sample([chr(ord("A") + i) for i in range(players)], players)
    w.do({"do": "setup", "event": event, "rules": {"turns": turns},
          "players": [{"no": no, "name": NAMES[(no - 1) % len(NAMES)] + ("" if no <= len(NAMES) else str(no)),
                       "account": letters[no - 1], "card": rng.sample(list(BALLS), 9)}
                      for no in range(1, players + 1)]})
    for turn in range(1, turns + 1):
        w.do({"do": "begin_turn"})
        machine = w.state.balls_in("machine")
        w.do({"do": "draw", "balls": rng.sample(machine, min(3, len(machine)))})
        _robberies(w, rng)
        if w.state.phase == "voting":
            _special_cards(w, rng)
            _votes(w, rng, turn)
        w.do({"do": "close_voting"})
        _order_lines(w, rng)
        w.do({"do": "end_turn"})
    w.do({"do": "begin_final"})
    _robberies(w, rng)
    w.do({"do": "end_final"})
    for no in w.state.players:
        w.do({"do": "cash", "player": no, "amount": START_CASH + rng.randint(-50, 50) * 10_000})
    w.do({"do": "finish"})
    return w.lines


def _votes(w: _Writer, rng: Random, turn: int) -> None:
    options = OPTIONS[:len(w.state.drawn)]
    favourite = rng.choice(options)
    for no in w.state.players:
        roll = rng.random()
        marks = ([] if roll < 0.04 else list(options[:2]) if roll < 0.07 else
                 [favourite] if roll < 0.5 else [rng.choice(options)])
        # now and then a player drops next turn's card (R6), and then has no card for that turn
        card_turn = turn + 1 if roll > 0.98 and turn < w.state.rules.turns else turn
        serial = f"V{no:02d}{card_turn:02d}"      # as printed: owner, turn
        if serial in w.state.serials:
            continue
        w.do({"do": "vote", "serial": serial, "turn": card_turn, "marks": marks})
        if rng.random() < 0.02:   # the same card fed through the scanner twice (D3)
            w.do({"do": "vote", "serial": serial, "turn": card_turn, "marks": marks})


def _special_cards(w: _Writer, rng: Random) -> None:
    s = w.state
    for no in s.players:
        roll = rng.random()
        if roll < 0.08:
            direction = rng.choice(["in", "out"])       # D22: written on the card when it is used
            w.do({"do": "buy", "player": no, "item": "inout"})
            w.do({"do": "inout", "player": no, "dir": direction, "ball": rng.choice(list(BALLS))})
        elif roll < 0.10:
            valid, card = set(s.valid), s.players[no].card
            cells = [i + 1 for i, n in enumerate(card) if n not in valid]
            numbers = [n for n in BALLS if n not in valid and n not in card]
            if cells and numbers:
                w.do({"do": "buy", "player": no, "item": "change"})
                w.do({"do": "change", "player": no, "cell": rng.choice(cells), "number": rng.choice(numbers)})
        elif roll < 0.13 and s.turn >= EXCLUSION_FROM_TURN:
            candidates = [b for b, where in s.place.items() if where in ("machine", "pool", "trash")]
            if candidates:
                w.do({"do": "buy", "player": no, "item": "exclusion"})
                w.do({"do": "exclude", "player": no, "ball": rng.choice(candidates)})


def _robberies(w: _Writer, rng: Random) -> None:
    s = w.state
    rights_turn = s.rights_turn()
    for no, player in s.players.items():
        for line in player.lines:
            if line.turn == rights_turn and rng.random() < 0.9:
                victim = rng.choice([other for other in s.players if other != no])
                used = sum(1 for serial in w.state.serials if serial.startswith(f"R{no:02d}"))
                w.do({"do": "rob", "serial": f"R{no:02d}{used + 1:02d}", "robber": no,   # as printed: owner, card
                      "victim": victim, "ordinal": line.ordinal})


def _order_lines(w: _Writer, rng: Random) -> None:
    for no, player in w.state.players.items():
        together = [line.line for line in player.lines if line.turn == w.state.turn]
        if len(together) > 1 and rng.random() < 0.5:
            w.do({"do": "order_lines", "player": no, "lines": list(reversed(together))})
