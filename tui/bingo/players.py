"""The simulated players of Plunder Bingo's demo night (`companion demo`, tui/bingo/demo.py): what
each one does at the table, and the photo of each card they drop in the ballot box (their own
printed card, from the event's PDF, marked in ink).

Every choice is a pure function of the seed and the game's state at that moment, with one random
stream per (purpose, turn, player): a demo restarted from its journal makes the same choices again.
"""
from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from pathlib import Path

from companion.bingo.rules import BALLS, EXCLUSION_FROM_TURN, OPTIONS, START_CASH

# (share of vote cards, marking style): blank and two marks are invalid (R6); pencil may go to review
VOTE_STYLES = ((0.04, "blank"), (0.03, "two marks"), (0.05, "pencil"))
PLAIN_STYLES = ("circle", "ellipse", "fill", "tick", "cross")
ROBBERY_SHARE = 0.9          # of robbery rights a player uses
FORGOTTEN_ROW = 0.15         # robbery and special cards with a row left blank: held for the operator (D2)
SPECIALS = ((0.08, "inout"), (0.10, "change"), (0.13, "exclusion"))    # cumulative chance a turn, per player
PHONE_SHARE = 0.1            # cards photographed at the desk by phone; the rest go through the ballot box's scanner


def rng_for(seed: int, *words) -> random.Random:
    return random.Random(":".join(map(str, (seed, *words))))


@dataclass(frozen=True)
class Drop:
    """One card a player drops in the ballot box: what they inked, and the command they meant
    (the operator rules a held card so, after asking the player)."""
    serial: str
    kind: str
    owner: int
    inked: dict                 # field -> values inked
    style: str                  # a vision.sim.cards marking style
    meant: dict | None = None   # the command the player meant; None: nothing (a spoilt card)
    buy: str | None = None      # the item bought at the desk before the card is dropped


@dataclass(frozen=True)
class Special:
    turn: int
    player: int
    kind: str                   # inout | change | exclusion
    serial: str


def specials_plan(seed: int, players: int, turns: int) -> list[Special]:
    """Who buys which special card in which turn, fixed by the seed alone: the cards are printed
    from this plan (serials I/C/E<owner><number>, numbered in this order from 1)."""
    plan = []
    for turn in range(1, turns + 1):
        for no in range(1, players + 1):
            roll = rng_for(seed, "special", turn, no).random()
            kind = next((k for share, k in SPECIALS if roll < share), None)
            if kind == "exclusion" and turn < EXCLUSION_FROM_TURN:
                kind = None
            if kind:
                plan.append(Special(turn, no, kind, _serial(kind, no, len(plan) + 1)))
    return plan


def _serial(kind: str, owner: int, number: int) -> str:
    from vision import layouts as L
    return L.serial(kind, owner, number)


def print_arguments(plan: list[Special]) -> list[str]:
    """`companion print cards` options that print the planned special cards with the planned serials."""
    return [a for s in plan for a in ("--special", f"{s.kind}={s.player}")]


def demo_secret(seed: int) -> str:
    """The demo event's signing secret, from its seed: the same seed prints the same cards (and the
    rasterised deck is reused). A real event's secret is random (companion init)."""
    return hashlib.sha256(f"plunder-bingo demo {seed}".encode()).hexdigest()[:32]


class Players:
    """The table: every simulated player's cards for the moment the game is in."""

    def __init__(self, seed: int, plan: list[Special]):
        self.seed, self.plan = seed, plan

    def votes(self, state) -> list[Drop]:
        options = OPTIONS[:len(state.drawn)]
        favourite = rng_for(self.seed, "favourite", state.turn).choice(options)
        drops = []
        for no in state.players:
            rng = rng_for(self.seed, "vote", state.turn, no)
            roll, style = rng.random(), rng.choice(PLAIN_STYLES)
            choice = favourite if rng.random() < 0.5 else rng.choice(options)
            inked, meant = [choice], choice
            for share, spoilt in VOTE_STYLES:
                roll -= share
                if roll < 0:
                    style = spoilt
                    break
            if style == "blank":
                inked, meant = [], None
            elif style == "two marks":
                others = [o for o in options if o != choice]
                inked, meant = sorted([choice, *others[:1]], key=options.index), None
            serial = f"V{no:02d}{state.turn:02d}"
            drops.append(Drop(serial, "vote", no, {"mark": inked}, style,
                              meant and {"do": "vote", "serial": serial, "turn": state.turn, "marks": [meant]}))
        return drops

    def robberies(self, state) -> list[Drop]:
        """A card for most robbery rights of the window (R9, R11); now and then a row is forgotten."""
        window = state.rights_turn()
        drops = []
        for no, player in state.players.items():
            rights = sorted(line.ordinal for line in player.lines if line.turn == window)
            before = sum(1 for line in player.lines if line.turn < window)
            for k, ordinal in enumerate(rights):
                rng = rng_for(self.seed, "rob", window, no, ordinal)
                if rng.random() >= ROBBERY_SHARE:
                    continue
                victim = rng.choice([other for other in state.players if other != no])
                serial = f"R{no:02d}{before + k + 1:02d}"       # each right its own printed card, in order
                inked = {**_digits("robber", no), **_digits("victim", victim), "ordinal": [str(ordinal)]}
                if rng.random() < FORGOTTEN_ROW:
                    inked["ordinal"] = []
                drops.append(Drop(serial, "robbery", no, inked, rng.choice(PLAIN_STYLES),
                                  {"do": "rob", "serial": serial, "robber": no, "victim": victim, "ordinal": ordinal}))
        return drops

    def specials(self, state) -> list[Drop]:
        drops = []
        for special in (s for s in self.plan if s.turn == state.turn):
            rng = rng_for(self.seed, "use", special.serial)
            meant = self._use(special, state, rng)
            if meant is None:
                continue
            inked = {key: [str(value).upper()] for key, value in meant.items() if key not in ("do", "player", "serial")}
            if rng.random() < FORGOTTEN_ROW:
                inked[next(iter(inked))] = []
            drops.append(Drop(special.serial, special.kind, special.player, inked, rng.choice(PLAIN_STYLES),
                              meant, special.kind))        # D22: the item is the card's kind
        return drops

    @staticmethod
    def _use(special: Special, state, rng: random.Random) -> dict | None:
        base = {"player": special.player, "serial": special.serial}
        if special.kind == "inout":
            return {"do": "inout", **base, "dir": rng.choice(["in", "out"]), "ball": rng.choice(list(BALLS))}
        if special.kind == "change":
            valid, card = set(state.valid), state.players[special.player].card
            cells = [i + 1 for i, n in enumerate(card) if n not in valid]
            numbers = [n for n in BALLS if n not in valid and n not in card]
            if not (cells and numbers):
                return None
            return {"do": "change", **base, "cell": rng.choice(cells), "number": rng.choice(numbers)}
        # balls excluded already stay candidates: the choice does not hang on others' cards this turn
        candidates = [b for b, where in sorted(state.place.items()) if where in ("machine", "pool", "trash", "excluded")]
        return candidates and {"do": "exclude", **base, "ball": rng.choice(candidates)} or None

    def draws(self, state) -> list[int]:
        """The three balls the cage gives this turn (the machine as the turn began)."""
        machine = sorted(state.balls_in("machine") + [b for b in state.drawn])
        return rng_for(self.seed, "draw", state.turn).sample(machine, min(3, len(machine)))

    def cash(self, state) -> dict[int, int]:
        """Each player's chips at the count."""
        return {no: START_CASH + rng_for(self.seed, "cash", no).randint(-50, 50) * 10_000 for no in state.players}

    def order(self, state) -> dict[int, list[str]]:
        """Players who formed several lines at once and choose their order (R10)."""
        chosen = {}
        for no, player in state.players.items():
            together = [line.line for line in player.lines if line.turn == state.turn]
            if len(together) > 1 and rng_for(self.seed, "order", state.turn, no).random() < 0.5:
                chosen[no] = list(reversed(together))
        return chosen


def _digits(role: str, no: int) -> dict:
    from vision.layouts.bingo import digit_fields
    tens, units = digit_fields(role)
    return {tens: [str(no // 10)], units: [str(no % 10)]}


@dataclass
class Photographer:
    """Photos of the event's own printed cards, marked as a drop says (vision.sim: the printed PDF,
    rasterised and cut; the marks drawn where the rings are printed; a scan or a phone photo)."""
    deck: object
    by_serial: dict = field(default_factory=dict)

    @classmethod
    def of_pdf(cls, pdf: Path, cache: Path | None = None) -> "Photographer":
        from vision.sim import card_deck
        deck = card_deck.of_pdf(pdf, cache)
        return cls(deck, {card.serial: card for card in deck.cards})

    def photo(self, drop: Drop, seed: int) -> tuple[bytes, str]:
        """The image file's bytes and suffix; the same drop and seed give the same picture."""
        import cv2
        import numpy as np
        from vision.sim import card_photo, cards as sim
        rng = np.random.default_rng(list(hashlib.sha256(f"{seed}:{drop.serial}".encode()).digest()[:8]))
        card = self.by_serial[drop.serial]
        picture = cv2.cvtColor(self.deck.raster(card), cv2.COLOR_GRAY2BGR).astype(np.float32)
        rings = self.deck.bubbles[drop.kind]
        every = [xyr for values in rings.values() for xyr in values.values()]
        pen = sim.pen(rng, pencil=drop.style == "pencil")
        for name, values in drop.inked.items():
            for value in values:
                xyr = rings[name][value]
                shape = drop.style if drop.style in sim.MARKS else "circle"
                ink, _ = sim.draw_mark(rng, shape, xyr, [o for o in every if o != xyr], pen)
                sim.apply(picture, ink, pen, rng)
        paper = np.clip(picture, 0, 255).astype(np.uint8)
        if rng.random() < PHONE_SHARE:
            image, capture = card_photo.photo(rng, paper, False)
        else:
            image, capture = card_photo.scan(rng, paper)
        return sim.encode(sim.Sample(image, {}, capture.get("jpeg")))
