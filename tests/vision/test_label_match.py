"""Naming a ball label blurred past decoding, by matching it against the 27 printed labels;
and never naming a label we did not print (zero misreads)."""
import math

import cv2
import numpy as np
import pytest

from vision import ball_labels as bl
from vision.sim import balls as br
from vision import balls
from vision.balls import match
from vision.balls.match import match_label
from vision.balls.unroll import unroll
from vision.sim import ball_sheet

PPM = balls.Zxing.px_per_mm
DESIGN = bl.Design()
MODULE_PX = DESIGN.module * PPM


def flat_label(sticker: np.ndarray, turn_deg: float, smear_mm: float = 0.0, smear_deg: float = 0.0,
               seed: int = 0) -> np.ndarray:
    """A sticker as the flattening hands it over: turned, smeared along a line, noisy."""
    paper = int(sticker[0, 0])
    label = cv2.copyMakeBorder(sticker, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=paper)
    middle = (label.shape[1] / 2, label.shape[0] / 2)
    label = cv2.warpAffine(label, cv2.getRotationMatrix2D(middle, turn_deg, 1.0), label.shape[::-1],
                           borderValue=paper).astype(np.float32)
    if smear_mm:
        label = cv2.filter2D(label, -1, _smear(smear_mm * PPM, math.radians(smear_deg)),
                             borderType=cv2.BORDER_REPLICATE)
    noise = np.random.default_rng(seed).normal(0, 3, label.shape)
    return np.clip(label + noise, 0, 255).astype(np.uint8)


def _smear(length: float, angle: float) -> np.ndarray:
    size = int(length) | 1
    kernel = np.zeros((size + 2, size + 2), np.float32)
    c = (size + 1) / 2
    dx, dy = math.cos(angle) * (length - 1) / 2, math.sin(angle) * (length - 1) / 2
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1, cv2.LINE_AA)
    return kernel / kernel.sum()


def qr_sticker(text: str) -> np.ndarray:
    """A version-1 H QR of any text, drawn the size of our labels' QR."""
    dark = bl.qr_modules(text)
    side = int(round(DESIGN.qr * PPM))
    qr = cv2.resize(np.where(dark, 0, 255).astype(np.uint8), (side, side), interpolation=cv2.INTER_NEAREST)
    return cv2.copyMakeBorder(qr, 30, 30, 30, 30, cv2.BORDER_CONSTANT, value=255)


@pytest.mark.parametrize("inverted", [False, True])
@pytest.mark.parametrize("ball, turn, smear_deg", [(3, 20, 0), (14, 137, 45), (26, 250, 100)])
def test_a_label_smeared_past_decoding_is_named_by_matching(ball, turn, smear_deg, inverted):
    label = flat_label(ball_sheet.sticker_at(ball, PPM, inverted), turn, smear_mm=1.2, smear_deg=smear_deg)
    assert balls.Zxing().decode(label) == []                  # two modules of smear
    assert match_label(label, MODULE_PX) == ball


def test_every_printed_label_matches_itself_at_any_turn():
    rng = np.random.default_rng(5)
    for ball in bl.BALLS:
        label = flat_label(ball_sheet.sticker_at(ball, PPM), rng.uniform(0, 360), smear_mm=0.6,
                           smear_deg=rng.uniform(0, 180), seed=ball)
        assert match_label(label, MODULE_PX) == ball, ball


@pytest.mark.parametrize("what", ["mirrored", "bad check digits", "other text", "noise", "blank sticker",
                                  "smeared to a blur"])
def test_matching_never_names_a_label_we_did_not_print(what):
    rng = np.random.default_rng(9)
    for ball in (1, 8, 19, 27):
        sticker = {
            "mirrored": lambda: np.fliplr(ball_sheet.sticker_at(ball, PPM)),          # printed on film, seen from behind
            "bad check digits": lambda: qr_sticker(f"PB{ball:02d}00"),
            "other text": lambda: qr_sticker(f"TABLE {ball}"),
            "noise": lambda: rng.integers(0, 256, (260, 260)).astype(np.uint8),
            "blank sticker": lambda: np.full((260, 260), 230, np.uint8),
            "smeared to a blur": lambda: ball_sheet.sticker_at(ball, PPM),
        }[what]()
        smear = 4.0 if what == "smeared to a blur" else 0.4
        # seven modules of smear: a printed label may still be named, but only as itself
        allowed = {None, ball} if what == "smeared to a blur" else {None}
        for turn in (0, 33, 90, 161):
            label = flat_label(sticker, turn, smear_mm=smear, smear_deg=turn, seed=turn)
            assert match_label(label, MODULE_PX) in allowed, (what, ball, turn)


def test_a_falling_ball_no_decoder_reads_is_read_by_matching(monkeypatch):
    """A rendered chute frame at 30 fps (bench pass 1190, light-on-dark labels, streaked 8-15 px
    and deblurred along the rig's fall direction): unreadable before matching, read as its own
    ball with it."""
    chute = br.render_pass(br.Renderer(), "chute", 30, 3, seed=2_451_801_072)      # the bench's seed for pass 1190
    frame = chute.shot(2).image
    decoder = balls.BallDecoder("zxing", fall_deg=chute.fall_deg)
    read = decoder.read(frame)
    assert (read.ball, read.matched, read.why) == (3, True, "read by matching (too blurred to decode)")
    assert read.to_json()["matched"] is True
    monkeypatch.setattr(match, "weighed", lambda patch, module_px: match.Match())
    assert decoder.read(frame).ball is None


def test_a_label_blurred_past_decoding_is_matched_before_the_other_labels_are_unrolled(monkeypatch):
    """The chute frame above: its nearest label is matched as soon as it fails to decode; the
    ball's other labels are not unrolled and decoded first (most chute frames are read by
    matching, and that was most of their time)."""
    from vision.balls import read
    chute = br.render_pass(br.Renderer(), "chute", 30, 3, seed=2_451_801_072)
    unrolled = []
    monkeypatch.setattr(read, "unroll", lambda *args, **kw: unrolled.append(args[5]) or unroll(*args, **kw))
    result = balls.BallDecoder("zxing", fall_deg=chute.fall_deg).read(chute.shot(2).image)
    assert (result.ball, result.matched) == (3, True)
    assert len(unrolled) <= 3, unrolled        # the overview, the label, the label centred again


@pytest.mark.parametrize("ball", [17, 27, 6, 15])
def test_a_look_alike_code_blurred_past_decoding_is_not_named(ball):
    """The bench's forged stickers (as printed, from the PDF): PB8817 shares most of ball 17's
    modules, PB0122 of 27's... Blurred so no decoder can tell the text, none may be matched to
    the ball it resembles (these were named with the old 0.5 threshold)."""
    from vision.sim import balls as sim
    forged = ball_sheet.printed(DESIGN, False, tuple(sorted(sim.FORGED.items())))["stickers"][ball]
    sticker = cv2.resize(forged, None, fx=PPM / ball_sheet.PX_PER_MM, fy=PPM / ball_sheet.PX_PER_MM,
                         interpolation=cv2.INTER_AREA)
    for turn, smear in ((10, 0.0), (50, 0.8), (120, 1.2)):
        label = flat_label(sticker, turn, smear_mm=smear, smear_deg=turn, seed=turn)
        assert match_label(label, MODULE_PX) is None, (ball, turn, smear)


@pytest.mark.parametrize("turn, smear_deg", [(0, 45), (50, 0), (130, 90)])
def test_a_look_alike_scoring_as_a_label_loses_to_itself(monkeypatch, turn, smear_deg):
    """PB8817 under ball 17's mask, smeared past decoding: it scores as ball 17 above the naming
    threshold and well ahead of the other labels; only the look-alikes competing stop it."""
    forged = bl.look_alike_modules(bl.label_mask(17))[bl.look_alikes().index("PB8817")]
    side = int(round(DESIGN.qr * PPM))
    qr = cv2.resize(np.where(forged, 0, 255).astype(np.uint8), (side, side), interpolation=cv2.INTER_NEAREST)
    label = flat_label(cv2.copyMakeBorder(qr, 30, 30, 30, 30, cv2.BORDER_CONSTANT, value=255), turn, smear_mm=1.2,
                       smear_deg=smear_deg)
    assert balls.Zxing().decode(label) == []
    assert match_label(label, MODULE_PX) is None
    monkeypatch.setattr(match, "LOOK_ALIKE_MARGIN", -1.0)          # no competition
    assert match_label(label, MODULE_PX) == 17


@pytest.mark.parametrize("ball", [5, 20])
def test_a_label_blurred_well_below_a_clean_score_is_still_named(ball):
    """Four modules of smear: no decoder reads it and it scores well under 0.65 (the old
    threshold), yet clear of every other label and look-alike."""
    label = flat_label(ball_sheet.sticker_at(ball, PPM), 40, smear_mm=2.3, smear_deg=15)
    assert balls.Zxing().decode(label) == []
    image = match.square_to_axes(label.astype(np.float32))
    top = float((match.codebook() @ np.array(list(match._grids(image, MODULE_PX))).T).max())
    assert match.MATCH_MIN <= top < 0.65
    assert match_label(label, MODULE_PX) == ball


def test_the_look_alike_codebooks_mapped_from_the_cache_are_the_ones_made_here():
    """Every decoding process maps the same files (vision.cache): they must hold what it would make."""
    for mask in {bl.label_mask(ball) for ball in bl.BALLS}:
        mapped = match.look_alike_book(mask)
        assert not mapped.flags.writeable                     # a file's pages, shared read-only
        assert np.array_equal(mapped, match._rows(bl.look_alike_modules(mask))) and match._unit_rows(mapped)
    assert not match._unit_rows(np.zeros((3, 249), np.float32))        # a file zeroed on the disk is made again
