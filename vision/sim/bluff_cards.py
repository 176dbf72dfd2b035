"""Auction Bluff's dice-vote and declaration cards in the test world: printed by `companion print
cards --periods N` for an Auction Bluff event, rasterised and cut along their cut marks
(card_deck.of_pdf), marked where the bubbles are printed (the rings found in the raster) and
photographed (number_cards.photo). Nothing here draws a card.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import cv2
import numpy as np

from . import card_deck, cards
from .number_cards import BALLPOINT, FAINT, card, photo      # noqa: F401  (the pens and the photo, shared)


def deck(event: Path, periods: int, cache: Path | None = None) -> card_deck.Deck:
    """The event's dice-vote and declaration cards for periods 1..periods as printed, cut."""
    with tempfile.TemporaryDirectory() as work:
        pdf = Path(work) / "bluff-cards.pdf"
        card_deck._companion(["print", "cards", "--event", str(event), "--periods", str(periods), "--out", str(pdf)])
        return card_deck.of_pdf(pdf, cache)


def marked(printed: card_deck.Deck, serial: str, marks: list[tuple[str, str, str]], seed: int = 0,
           pen: cards.Pen | None = None) -> np.ndarray:
    """The printed card with marks (field, value, style: circle, fill, tick...) drawn on it; float BGR."""
    rng = np.random.default_rng(seed)
    printed_card = card(printed, serial)
    picture = cv2.cvtColor(printed.raster(printed_card), cv2.COLOR_GRAY2BGR).astype(np.float32)
    rings = printed.bubbles[printed_card.kind]
    p = pen or cards.pen(rng)
    for name, value, style in marks:
        others = [xyr for field, bubbles in rings.items() for v, xyr in bubbles.items() if (field, v) != (name, value)]
        ink, _ = cards.draw_mark(rng, style, rings[name][value], others, p)
        cards.apply(picture, ink, p, rng)
    return picture
