"""Ball labels: payload and check digits, the sticker layout on the sphere, the PDF sheets."""
import math
import re

import cv2
import numpy as np
import pytest

from vision import ball_labels as bl
from vision import balls
from vision.sim import ball_sheet


def test_every_payload_names_its_ball_and_fits_a_version_1_qr():
    for ball in bl.BALLS:
        text = bl.payload(ball)
        assert bl.parse_payload(text) == ball
        assert bl.modules(ball).shape == (21, 21)


@pytest.mark.parametrize("text", ["PB1746", "PB7147", "PB1747 ", "PB0000", "PB2800", "pb1747", "PB174", "17",
                                  "HELLO", ""])
def test_texts_that_are_not_a_valid_label_name_no_ball(text):
    expected = 17 if text == "PB1747 " else None       # surrounding blanks are forgiven, nothing else
    assert bl.parse_payload(text) == expected


def test_a_changed_digit_or_swapped_pair_never_gives_another_valid_ball():
    for ball in bl.BALLS:
        text = bl.payload(ball)
        digits = text[2:]
        for i in range(4):
            for d in "0123456789":
                if d != digits[i]:
                    assert bl.parse_payload("PB" + digits[:i] + d + digits[i + 1:]) is None
        for i in range(3):
            swapped = digits[:i] + digits[i + 1] + digits[i] + digits[i + 2:]
            if swapped != digits:
                assert bl.parse_payload("PB" + swapped) is None


def test_twelve_stickers_leave_no_direction_more_than_37_4_degrees_from_one():
    centres = bl.copies()
    assert len(centres) == bl.COPIES == 12
    assert np.allclose(np.linalg.norm(centres, axis=1), 1)
    rng = np.random.default_rng(0)
    directions = rng.normal(size=(20000, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    worst = math.degrees(math.acos(np.max(directions @ centres.T, axis=1).min()))
    assert worst <= bl.covering_angle() + 1e-6
    assert bl.covering_angle() == pytest.approx(37.38, abs=0.01)
    gaps = np.degrees(np.arccos(np.clip(centres @ centres.T, -1, 1)) + np.eye(12) * 10)
    assert gaps.min() == pytest.approx(63.43, abs=0.01)       # neighbours: the icosahedron's edges


def test_a_sticker_fits_its_place_on_the_ball_and_holds_the_qr():
    for diameter in (30, 40, 50):
        d = bl.Design(diameter)
        nearest_neighbour_arc = math.radians(63.43) * d.radius
        assert d.sticker < nearest_neighbour_arc               # stickers never overlap
        assert d.qr / 2 * math.sqrt(2) < d.sticker / 2         # the QR's corners stay on the sticker
        centre, height, width = d.numeral_box
        assert height > 0 and width > 0
        assert centre - height / 2 >= d.qr / 2 + bl.QUIET_MODULES * d.module - 1e-9


@pytest.mark.parametrize("name", balls.DECODERS)
def test_the_flat_sticker_decodes_with_every_decoder(name):
    decoder = balls.backend(name, fallback=False)
    for ball in (1, 6, 9, 17, 27):
        for inverted in (False, True):
            image = ball_sheet.sticker_at(ball, 10, inverted)
            image = cv2.copyMakeBorder(image, 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=int(image[0, 0]))
            assert bl.payload(ball) in decoder.decode(image), (name, ball, inverted)


def test_pdf_sheets_hold_twelve_stickers_for_every_ball(tmp_path):
    out = tmp_path / "balls.pdf"
    pages = bl.write_pdf(out, bl.Design(40))
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    assert pages == len(re.findall(rb"/Type /Page[^s]", data))
    assert pages <= 7                                        # four or more balls a page


def test_bad_ball_numbers_are_refused():
    with pytest.raises(ValueError, match="not 1-27"):
        bl.payload(28)


def test_the_look_alikes_are_every_four_digit_text_that_is_not_a_label():
    texts = bl.look_alikes()
    assert len(texts) == 10_000 - 27 and "PB0122" in texts and "PB8817" in texts
    assert not set(map(bl.payload, bl.BALLS)) & set(texts)


@pytest.mark.parametrize("mask", [0, 5, 7])
def test_look_alikes_encoded_together_are_each_the_qr_the_encoder_makes(mask):
    """look_alike_modules XORs patterns instead of encoding 9,973 texts one by one: each row
    must be exactly the QR of its text with that mask."""
    texts = bl.look_alikes()
    dark = bl.look_alike_modules(mask)
    for i in np.random.default_rng(mask).integers(0, len(texts), 25).tolist() + [0, len(texts) - 1]:
        assert (dark[i] == bl.qr_modules(texts[i], mask)).all(), texts[i]


def test_a_label_is_printed_with_the_mask_label_mask_names():
    """modules() encodes with label_mask's choice (the encoder's search is not done twice): the
    same modules as the encoder left to choose its own mask."""
    for ball in bl.BALLS:
        assert (bl.qr_modules(bl.payload(ball)) == bl.modules(ball)).all()
