"""Voters' number cards in the test world: printed by `companion print cards` for a Voters event,
rasterised and cut along their cut marks (card_deck.of_pdf), marked where the bubbles are printed
(the rings found in the raster) in the corpus's marking styles, and photographed or scanned
(card_photo). Nothing here draws a card.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import cv2
import numpy as np

from . import card_deck, card_photo, cards

BALLPOINT = cards.Pen((150.0, 60.0, 25.0), 0.45, 0.95)              # blue, the usual pen at a table
FAINT = cards.Pen((150.0, 150.0, 150.0), 0.3, 0.6, pencil=True)     # a hard pencil pressed lightly


def deck(event: Path, games: int, cache: Path | None = None) -> card_deck.Deck:
    """The event's number cards for games 1..games as `companion print cards` prints them, cut."""
    with tempfile.TemporaryDirectory() as work:
        pdf = Path(work) / "number-cards.pdf"
        card_deck._companion(["print", "cards", "--event", str(event), "--games", str(games), "--out", str(pdf)])
        return card_deck.of_pdf(pdf, cache)


def card(printed: card_deck.Deck, serial: str) -> card_deck.PrintedCard:
    found = [c for c in printed.cards if c.serial == serial]
    if not found:
        raise card_deck.DeckError(f"no printed card {serial} in {printed.folder}")
    return found[0]


def marked(printed: card_deck.Deck, serial: str, marks: list[tuple[str, str]], seed: int = 0,
           pen: cards.Pen | None = None) -> np.ndarray:
    """The printed card with marks (digit, style: circle, fill, tick...) drawn on it; float BGR."""
    rng = np.random.default_rng(seed)
    raster = printed.raster(card(printed, serial))
    picture = cv2.cvtColor(raster, cv2.COLOR_GRAY2BGR).astype(np.float32)
    rings = printed.bubbles["number"]["number"]
    p = pen or cards.pen(rng)
    for digit, style in marks:
        others = [xyr for value, xyr in rings.items() if value != digit]
        ink, _ = cards.draw_mark(rng, style, rings[digit], others, p)
        cards.apply(picture, ink, p, rng)
    return picture


def photo(picture: np.ndarray, seed: int = 0, how: str = "photo") -> np.ndarray:
    """A good phone photo (or a flat-bed scan) of the marked card, as the scanner gets it."""
    rng = np.random.default_rng(seed)
    card_image = np.clip(picture, 0, 255).astype(np.uint8)
    image, _ = card_photo.scan(rng, card_image) if how == "scan" else card_photo.photo(rng, card_image, hard=False)
    return image


def sample(printed: card_deck.Deck, serial: str, style: str, seed: int, tier: str = "clean") -> tuple[np.ndarray, list]:
    """A card marked in one of the corpus's styles (cards.STYLES: two marks, pencil, a stray line,
    a crease...) and taken as that tier's pictures are: (image, the digits inked)."""
    rng = np.random.default_rng([seed, tier == "hard"])
    picture = cv2.cvtColor(printed.raster(card(printed, serial)), cv2.COLOR_GRAY2BGR).astype(np.float32)
    fields, _, _ = cards.mark_card(rng, picture, "number", printed.bubbles["number"], style)
    image, _ = card_photo.take(rng, np.clip(picture, 0, 255).astype(np.uint8), tier == "hard")
    return image, fields["number"]
