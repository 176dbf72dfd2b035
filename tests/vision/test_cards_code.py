"""Reading a card's code (vision/cards/locate.py read_code), on photos of the printed PDF
(tests/vision/printed_cards.py). Hard bench photos (tuning seeds) left 19 cards of 3,200 unread: a
curled card's code lies a millimetre or more off the corners' fit, so its own warp cut it off at the
edge; and a soft, noisy one zxing gives up on, zbar often reads. A staff line per card, not lost."""
from dataclasses import replace

import cv2
import numpy as np
import pytest

import printed_cards as P
from vision import layouts as L
from vision.cards import locate as Lc
from vision.cards.result import Rejection

cv2.setNumThreads(1)
pytestmark = P.needs_poppler


def _located(seed: int = 0):
    card = P.card("vote", 2, 5)
    grey = cv2.cvtColor(P.photo(P.printed(card), seed=seed), cv2.COLOR_BGR2GRAY)
    return card, grey, Lc.locate(Lc.marker_detector(), grey)


def _off_by(located: Lc.Located, dx_mm: float, dy_mm: float) -> Lc.Located:
    """The same card with its fit off by a shift (as a curled card's code lies off the corners' fit)."""
    shift = np.array([[1, 0, dx_mm], [0, 1, dy_mm], [0, 0, 1]], np.float64)
    return Lc.Located(located.homography @ shift, located.grey, located.method)


@pytest.mark.parametrize("dx,dy", [(3.0, 0.0), (0.0, -3.0), (-3.0, 0.0)])
def test_a_code_off_its_fit_is_read_with_a_wider_margin(dx, dy, monkeypatch):
    """The fit 3 mm off (on a clean photo the printed quiet zone takes up to 2.5 mm; on the bench's
    curled, soft and noisy cards 1-2 mm was enough): the tight warp cuts the code off, the wide one reads it."""
    card, grey, located = _located()
    off = _off_by(located, dx, dy)
    on_card_read = Lc._decode
    # the read on the rectified card itself (6 px per mm: 126 px) left out, only the code's own warps tried
    monkeypatch.setattr(Lc, "_decode", lambda image: None if image.shape[0] < 200 else on_card_read(image))
    assert Lc.read_code(grey, off, P.EVENT, P.SECRET).serial == card.serial      # the wide warp reads it
    monkeypatch.setattr(Lc, "LOCATE", replace(Lc.LOCATE, qr_wide_margin_mm=1.05))   # no wider than the tight one
    with pytest.raises(Rejection, match="QR code cannot be read"):
        Lc.read_code(grey, off, P.EVENT, P.SECRET)


def test_zbar_reads_a_code_zxing_gives_up_on(monkeypatch):
    """Where zxing finds nothing (here made to), zbar on the same warp reads the code, and only a
    genuine one counts (the text is verified as any other)."""
    card, grey, located = _located(seed=1)
    monkeypatch.setattr(Lc, "READINGS", tuple((read, prep) for read, prep in Lc.READINGS if read is not Lc._decode))
    monkeypatch.setattr(Lc, "_decode", lambda image: None)
    assert Lc.read_code(grey, located, P.EVENT, P.SECRET).serial == card.serial
    with pytest.raises(Rejection):
        Lc.read_code(grey, located, P.EVENT, "another-secret")
    blank = np.full_like(grey, 255)
    with pytest.raises(Rejection, match="QR code cannot be read"):
        Lc.read_code(blank, located, P.EVENT, P.SECRET)
