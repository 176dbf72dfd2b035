"""Shared by the card tests drawn on the printed PDF (printed_cards.py)."""
import pytest

import printed_cards as P
from vision.cards import Scanner


@pytest.fixture(scope="module")
def scanner():
    """A scanner for the printed test cards' event; a module needing other settings has its own."""
    return Scanner(P.EVENT, P.SECRET)
