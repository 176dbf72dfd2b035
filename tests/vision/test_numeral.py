"""The numeral printed beside a ball's QR as a second witness (vision.balls.numeral), and the
Acceptor counting a witnessed read as the second of `agree` (vision.acceptance), on frames of
the printed PDF stickers."""
import pytest

from vision.sim.balls import seed_for
from vision import ball_labels as labels
from vision.acceptance import Acceptor, Alert, BallRead
from vision.balls import BallDecoder
from vision.sim import balls as sim

RENDERER = sim.Renderer()
DECODER = BallDecoder("zxing", warn=lambda _: None)


def still(renderer, ball: int, seed: int, forged: bool = False):
    """A sharp still frame of `ball`, one sticker turned 10 degrees from the camera."""
    look = sim.plain_look(renderer, ball, seed)
    look.forged = forged
    return sim.label_view(renderer, look, 0, 10.0, seed)


@pytest.mark.parametrize("ball", [6, 9, 11, 18, 27])
def test_the_numerals_beside_a_label_that_read_witness_its_ball(ball):
    result = DECODER.read(still(RENDERER, ball, 3))
    assert result.ball == ball
    assert result.witnessed, result.why


def test_numerals_of_another_ball_beside_the_qr_witness_nothing(monkeypatch):
    # ball 13's sticker as printed, its QR pasted from ball 18's label
    monkeypatch.setattr(sim, "FORGED", {13: labels.payload(18)})
    result = DECODER.read(still(sim.Renderer(), 13, 3, forged=True))
    assert result.ball == 18
    assert not result.witnessed


def test_a_numeral_beside_a_qr_that_is_no_ball_label_names_nothing():
    assert sim.FORGED[3] == "HELLO"          # ball 3's numerals round a QR holding HELLO
    result = DECODER.read(still(RENDERER, 3, 3, forged=True))
    assert (result.ball, result.witnessed) == (None, False)


def test_one_witnessed_read_is_the_second_of_two():
    out = Acceptor(agree=2).frame(0.0, True, 17, witnessed=True)
    assert len(out) == 1 and isinstance(out[0], BallRead)
    assert (out[0].ball, out[0].reads) == (17, 1)


def test_a_witness_counts_once_a_window():
    acceptor = Acceptor(agree=3)
    assert acceptor.frame(0.0, True, 17, witnessed=True) == []
    assert acceptor.frame(0.033, True, 17, witnessed=True) != []          # two reads and the witness
    acceptor = Acceptor(agree=3)
    acceptor.frame(0.0, True, 17, witnessed=True)
    out = acceptor.frame(0.033, True, None, witnessed=True) + acceptor.tick(2.0)
    assert [m.kind for m in out] == ["unreadable"]


def test_a_witness_without_a_qr_read_names_nothing():
    acceptor = Acceptor(window_ms=300, agree=2)
    out = [m for k in range(5) for m in acceptor.frame(k / 30, True, None, witnessed=True)] + acceptor.tick(1.0)
    assert len(out) == 1 and isinstance(out[0], Alert) and out[0].kind == "unreadable"


def test_a_witnessed_read_after_another_ball_is_still_a_conflict():
    acceptor = Acceptor(agree=2)
    assert acceptor.frame(0.0, True, 18) == []
    out = acceptor.frame(0.033, True, 17, witnessed=True)
    assert len(out) == 1 and isinstance(out[0], Alert) and out[0].kind == "conflict" and out[0].balls == (17, 18)


def test_a_chute_pass_with_one_frame_read_is_accepted_when_its_numerals_agree():
    # the bench's chute pass 198 of seed 5 (ball 10 at 30 fps): one frame of six reads
    p = sim.render_pass(RENDERER, "chute", 30, 10, seed_for(5, "pass198"))
    decoder = BallDecoder("zxing", warn=lambda _: None, distance=sim.RIG_DISTANCE, fall_deg=p.fall_deg)
    acceptor, messages, reads = Acceptor(window_ms=400), [], []
    for i in range(len(p)):
        shot = p.shot(i)
        result = decoder.read(shot.image)
        reads += [result.ball] if result.ball is not None else []
        messages += acceptor.frame(shot.t, result.found, result.ball, result.conflict, result.alert, result.witnessed)
    messages += acceptor.tick(p.shot(len(p) - 1).t + 1.0)
    assert reads == [10]
    assert [(type(m), m.ball) for m in messages] == [(BallRead, 10)]


def test_the_numeral_templates_are_drawn_when_the_decoder_is_made_not_at_the_first_ball():
    from vision.balls import numeral
    numeral._printed_correlations.cache_clear()
    decoder = BallDecoder("zxing", warn=lambda _: None)
    made = numeral._printed_correlations.cache_info().misses
    assert made == 1
    assert decoder.read(still(RENDERER, 11, 3)).witnessed
    assert numeral._printed_correlations.cache_info().misses == made      # the first witness drew nothing
