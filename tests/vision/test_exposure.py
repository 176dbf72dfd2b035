"""The exposure for a chute, from a test drop (vision/exposure.py)."""
import math

import cv2
import pytest

from vision import balls
from vision.exposure import BLUR_LIMIT_PX, DropError, Sighting, ball_sightings, chute_speed, propose_exposure
from vision.sim import balls as sim


def drop(px_per_frame: list[float], diameter: float = 180.0, angle_deg: float = 30.0) -> list[Sighting]:
    """A ball stepping px_per_frame[i] px between frames i and i + 1, along angle_deg."""
    x, y, out = 100.0, 100.0, [Sighting(0, 100.0, 100.0, diameter)]
    for seq, step in enumerate(px_per_frame, 1):
        x += step * math.cos(math.radians(angle_deg))
        y += step * math.sin(math.radians(angle_deg))
        out.append(Sighting(seq, x, y, diameter))
    return out


def test_a_ball_at_1_5_m_s_gets_the_exposure_that_keeps_its_blur_within_the_limit():
    # 180 px across a 40 mm ball: 4.5 px/mm; 1.5 m/s = 6,750 px/s = 225 px a frame at 30 fps
    proposal = propose_exposure(drop([225.0, 225.0]), fps=30, ball_mm=40.0, current_us=4000)
    assert proposal.speed_m_s == pytest.approx(1.5)
    assert proposal.speed_px_s == pytest.approx(6750)
    assert proposal.exposure_us == int(BLUR_LIMIT_PX / 6750 * 1e6)          # 1,037 µs
    assert proposal.speed_px_s * proposal.exposure_us / 1e6 <= BLUR_LIMIT_PX
    assert proposal.blur_now_px == pytest.approx(27.0)
    assert proposal.light == pytest.approx(4000 / proposal.exposure_us)       # about 3.9x the light
    text = "\n".join(proposal.lines())
    assert "1.50 m/s" in text and f"exposure_us = {proposal.exposure_us}" in text and "3.9x the light" in text


def test_the_fastest_step_counts_and_a_dropped_frame_is_two_steps():
    speeding_up = drop([150.0, 200.0, 250.0])
    assert chute_speed(speeding_up, 30, 40.0)[0] == pytest.approx(250 * 30)
    gappy = [Sighting(0, 0.0, 0.0, 180.0), Sighting(2, 300.0, 0.0, 180.0)]        # frame 1 was dropped
    assert chute_speed(gappy, 30, 40.0)[0] == pytest.approx(150 * 30)


def test_a_slow_ball_keeps_a_whole_frame_and_automatic_exposure_is_weighed_as_a_whole_frame():
    proposal = propose_exposure(drop([2.0]), fps=30, ball_mm=40.0)
    assert proposal.exposure_us == proposal.frame_us == 33333
    assert proposal.light == 1.0 and "no more light than now" in "\n".join(proposal.lines())
    assert "automatic" in proposal.lines()[1]


def test_a_drop_seen_whole_in_one_frame_or_not_moving_says_why_in_one_line():
    with pytest.raises(DropError, match="whole ball in 1 frame"):
        propose_exposure(drop([]), 30, 40.0)
    with pytest.raises(DropError, match="did not move"):
        propose_exposure(drop([0.0]), 30, 40.0)


def test_only_frames_showing_the_whole_ball_are_sightings():
    seen = [None, (3, 50.0, 240.0, 90.0), (4, 200.0, 240.0, 90.0), (5, 600.0, 240.0, 90.0), None]
    assert ball_sightings(seen, 640, 480) == [Sighting(4, 200.0, 240.0, 180.0)]


def test_a_simulated_drop_down_the_chute_measures_the_balls_speed():
    """Balls found in a rendered chute pass (30 fps, the ball entering at 0.6-1.3 m/s and
    speeding up): the speed measured is the ball's own at its fastest step, within 5%."""
    renderer = sim.Renderer()
    view = balls.View.of(sim.WIDTH, sim.HEIGHT, sim.FOV)
    for seed in (1, 2):
        p = sim.render_pass(renderer, "chute", 30, 9, seed)
        seen = []
        for i in range(len(p)):
            gray = cv2.cvtColor(p.shot(i, encode=False).image, cv2.COLOR_BGR2GRAY)
            found = balls.find_balls(gray, balls.ball_radius_px(view, 20.0, sim.RIG_DISTANCE))
            seen.append((i, found[0].x, found[0].y, found[0].r) if found else None)
        sightings = ball_sightings(seen, sim.WIDTH, sim.HEIGHT)
        px_per_s, m_per_s = chute_speed(sightings, 30, 40.0)
        # the fastest step is the last between whole-ball frames; the true speed at its middle
        last, before = sightings[-1], sightings[-2]
        t = (p.times[last.seq] + p.times[before.seq]) / 2
        true = (p.pose.params["v0"] + p.pose.params["accel"] * t) / 1000
        assert m_per_s == pytest.approx(true, rel=0.05), seed
