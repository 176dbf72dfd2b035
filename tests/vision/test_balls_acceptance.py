"""Acceptance: agreement across frames, conflicts and strangers are alerts, the beam."""
import pytest

from companion.core.journal import Journal
from companion.core.session import Session
from vision.acceptance import Acceptor, Alert, BallRead

FRAME = 1 / 30


def feed(acceptor, reads, start=0.0, found=True):
    """Frames 1/30 s apart; each read is a ball number, None (seen, not read) or "-" (no ball)."""
    out = []
    for i, read in enumerate(reads):
        seen = found and read != "-"
        out += acceptor.frame(start + i * FRAME, seen, None if read in (None, "-") else read)
    return out


def test_two_agreeing_frames_accept_the_ball_as_a_draw_ball_command():
    out = feed(Acceptor(agree=2), [None, 17, None, 17, 17])
    assert len(out) == 1 and isinstance(out[0], BallRead)
    read = out[0]
    assert (read.ball, read.reads, read.frames) == (17, 2, 4)
    assert read.first_seen == 0.0 and read.latency_ms == pytest.approx(3 * FRAME * 1000)
    assert read.command() == {"do": "draw_ball", "ball": 17}


def test_one_read_is_not_enough_and_the_window_ends_in_an_alert():
    acceptor = Acceptor(window_ms=300, agree=2)
    assert feed(acceptor, [None, 17, None]) == []
    out = acceptor.tick(0.5)
    assert len(out) == 1 and isinstance(out[0], Alert)
    assert out[0].kind == "unreadable" and out[0].balls == (17,) and "1 of the 2" in out[0].message
    assert out[0].at == pytest.approx(0.3)


def test_a_ball_read_too_seldom_is_read_again_when_staff_turn_it_even_if_no_empty_frame_was_read_between():
    """After "read in only 1 of the 2 frames needed" staff turn the ball and show it again. A reader on a
    loaded machine may read no frame of the moment it was lifted (no empty view between): the ball must
    still be read when it shows again, not be taken for the one already ruled on (the demo waited 30 s)."""
    acceptor = Acceptor(window_ms=300, agree=2)
    first = feed(acceptor, [17, None, None, None, None, None, None, None, None, None, None])
    assert [m.kind for m in first] == ["unreadable"] and "1 of the 2" in first[0].message
    again = feed(acceptor, [None, 17, None, 17], start=1.0)
    assert [(type(m), m.ball) for m in again] == [(BallRead, 17)]


def test_a_window_waits_for_a_verdict_from_its_first_frame_until_its_time_runs_out_or_a_ball_is_read():
    acceptor = Acceptor(window_ms=300, agree=2)
    assert acceptor.open_since(0.0) is None                              # nothing seen yet
    feed(acceptor, [None, 17], start=1.0)
    assert acceptor.open_since(1.2) == 1.0 and acceptor.open_since(1.3) is None
    feed(acceptor, [17], start=1.1)
    assert acceptor.open_since(1.2) is None                              # ball 17 accepted


def test_different_balls_in_one_window_are_an_alert_never_a_guess():
    acceptor = Acceptor(agree=2)
    out = feed(acceptor, [17, 21, 17, 17, 17])
    assert [type(m) for m in out] == [Alert]
    assert out[0].kind == "conflict" and out[0].balls == (17, 21)
    conflict = Acceptor().frame(0.0, True, None, conflict=(4, 9))
    assert conflict[0].kind == "conflict" and conflict[0].balls == (4, 9)


def test_a_ball_the_referee_has_elsewhere_is_an_alert_not_a_draw():
    places = {ball: "machine" for ball in range(1, 28)}
    places[17] = "drawn"
    acceptor = Acceptor(agree=2, places=lambda: places)
    out = feed(acceptor, [17, 17])
    assert out[0].kind == "not_in_machine" and "drawn" in out[0].message and out[0].balls == (17,)
    places[17] = "machine"
    out = feed(acceptor, ["-"] * 12 + [17, 17], start=1.0)        # it left; it comes again
    assert isinstance(out[0], BallRead) and out[0].ball == 17


def test_a_ball_resting_in_view_is_reported_once_and_again_after_it_leaves():
    acceptor = Acceptor(agree=2, gone_ms=300)
    assert len(feed(acceptor, [5, 5] + [5] * 28)) == 1                # frames 0-29, to t = 0.97 s
    assert feed(acceptor, ["-"] * 5, start=1.0) == []                 # out of sight 0.13 s: the same ball
    assert feed(acceptor, [5, 5], start=1.2) == []
    assert feed(acceptor, ["-"] * 12, start=1.3) == []                # out of sight 0.37 s: it has left
    out = feed(acceptor, [5, 5], start=1.8)
    assert isinstance(out[0], BallRead)


def test_one_frame_missing_the_ball_on_a_slow_reader_is_not_the_ball_gone():
    """A busy reader takes a frame every few tenths of a second: one of them not finding the
    resting ball does not let the same ball be read, and drawn, again."""
    acceptor = Acceptor(agree=2, gone_ms=300)
    assert len(feed(acceptor, [5, 5])) == 1
    assert acceptor.frame(0.45, False, None) == []                   # 0.42 s after the last sight
    assert acceptor.frame(0.55, True, 5) + acceptor.frame(0.65, True, 5) == []
    assert acceptor.frame(0.9, False, None) + acceptor.frame(1.25, False, None) == []   # gone 0.35 s
    assert isinstance((acceptor.frame(1.3, True, 5) + acceptor.frame(1.35, True, 5))[0], BallRead)


def test_a_frame_ruled_on_late_does_not_hasten_the_balls_leaving():
    """The reader rules on later frames while an earlier one is still being read, and feeds that
    one afterwards: its time is past, and the ball it missed was seen since. It counts at the
    latest frame's time, so the ball resting in view is not taken for gone, nor drawn twice."""
    acceptor = Acceptor(agree=2, gone_ms=300)
    assert len(feed(acceptor, [5, 5])) == 1                          # t = 0 and 0.03
    assert acceptor.frame(0.30, True, 5) == []
    assert acceptor.frame(0.01, False, None) == []                   # late: taken before the ball was read
    assert acceptor.frame(0.35, False, None) == []                   # 0.05 s out of sight, not 0.34
    assert acceptor.frame(0.40, True, 5) + acceptor.frame(0.45, True, 5) == []


def test_a_trial_copy_rules_on_frames_and_leaves_the_acceptor_as_it_was():
    acceptor = Acceptor(agree=2)
    feed(acceptor, [None, 9])
    trial = acceptor.trial()
    assert [m.ball for m in trial.frame(0.1, True, 9)] == [9]
    assert [m.ball for m in acceptor.frame(0.1, True, 9)] == [9]     # the same frame, ruled for real


def test_the_next_ball_may_follow_without_a_gap():
    acceptor = Acceptor(agree=2)
    out = feed(acceptor, [5, 5, 5, 8, 8])
    assert [m.ball for m in out] == [5, 8] and all(isinstance(m, BallRead) for m in out)


def test_the_beam_opens_the_window_and_a_ball_never_read_is_reported():
    acceptor = Acceptor(window_ms=400, agree=2)
    assert acceptor.beam(10.0) == []
    assert feed(acceptor, [None, None], start=10.05) == []
    out = acceptor.tick(10.5)
    assert out[0].kind == "unreadable" and out[0].balls == () and out[0].at == pytest.approx(10.4)
    acceptor.beam(11.0)
    out = feed(acceptor, [12, 12], start=11.05)
    assert out[0].ball == 12 and out[0].first_seen == 11.0          # latency counts from the beam


def test_settings_are_checked():
    with pytest.raises(ValueError):
        Acceptor(agree=0)


def test_an_accepted_read_is_a_draw_the_referee_takes():
    session = Session(Journal(None))
    session.submit({"do": "setup", "event": "Test", "players": [
        {"no": n, "name": f"P{n}", "account": "AB"[n - 1], "card": list(range(9 * n - 8, 9 * n + 1))}
        for n in (1, 2)]})
    session.submit({"do": "begin_turn"})
    acceptor = Acceptor(agree=2, places=lambda: session.state.place)
    read = feed(acceptor, [14, 14])[0]
    assert session.submit(read.command()).status == "ok"
    assert session.state.place[14] == "drawn"
    again = feed(acceptor, ["-"] * 12 + [14, 14], start=1.0)[0]
    assert isinstance(again, Alert) and again.kind == "not_in_machine"


def test_a_bench_run_of_some_kinds_draws_the_passes_a_full_run_draws_of_those_kinds():
    from companion.cli import CommandError
    from companion.cli.balls import _kinds as named
    from drivers.ball_bench import pass_indices
    from vision.sim.balls import PASS_KINDS

    def _kinds(text):
        return named(text, PASS_KINDS)
    full = pass_indices(40, list(PASS_KINDS))
    assert full == list(range(40))
    some = _kinds("chute30,cradle60")
    assert some == [("cradle", 60), ("chute", 30)]
    assert pass_indices(20, some) == [k for k in full if PASS_KINDS[k % 4] in some]
    cradle = pass_indices(27, _kinds("cradle60"))
    assert {k % 27 + 1 for k in cradle} == set(range(1, 28))         # every ball, as in a full run
    with pytest.raises(CommandError, match="cradle30, cradle60, chute30, chute60"):
        _kinds("cradle 60")
