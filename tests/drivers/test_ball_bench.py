"""The ball bench on the wall clock: a pass played to the live reader, a slow CPU seen as
frames dropped and latency, and the CPU quota that stands for a Pi."""
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from companion.cli import main
from drivers import ball_bench
from vision import acceptance, balls
from vision.sim import balls as br

RENDERER = br.Renderer()


class Sleepy:
    """A decoder that answers `ball` after `seconds` of wall-clock time (no CPU)."""
    name = "sleepy"

    def __init__(self, seconds, ball=None):
        self.seconds, self.ball = seconds, ball

    def read(self, image):
        import time
        time.sleep(self.seconds)
        return balls.FrameRead(self.ball, self.ball is not None, "slept", self.name)

    def twin(self):
        return Sleepy(self.seconds, self.ball)


def test_a_reader_still_busy_drops_frames_and_reads_the_newest_never_a_queue():
    images = [_grey()] * 30
    run = ball_bench.play(images, 60, Sleepy(0.05), acceptance.Acceptor(), workers=1)
    read = sorted(run.reads)
    assert run.kept + run.dropped == 30 and run.dropped >= 10        # 3 frame periods a read: most missed
    assert read[-1] == 29                                            # the newest frame, not a backlog
    assert max(b - a for a, b in zip(read, read[1:])) >= 2            # frames skipped, not queued


def test_the_bench_sees_a_slow_cpu_as_dropped_frames_and_latency():
    p = br.render_pass(RENDERER, "cradle", 30, 4, seed=8)
    decoder = balls.BallDecoder(distance=br.RIG_DISTANCE)
    fast = ball_bench.bench_pass(p, decoder, workers=2)
    slow = ball_bench.bench_pass(p, ball_bench.Slowed(decoder, 0.05), workers=2)   # cores 20 times slower
    assert fast["outcome"] == "accepted" and fast["processed"] + fast["dropped"] == len(p)
    assert slow["dropped"] > fast["dropped"] and slow["processed"] + slow["dropped"] == len(p)
    assert slow["outcome"] != "accepted" or slow["latency_ms"] > fast["latency_ms"]
    assert sorted(slow["ms"])[len(slow["ms"]) // 2] > sorted(fast["ms"])[len(fast["ms"]) // 2]   # wall-clock ms


class Marked:
    """A decoder that reads `ball` in the frames marked readable (pixel 0 at 255), at once, but
    lingers `slow` seconds over the first frame it is given: a reader that falls behind."""
    name = "marked"

    def __init__(self, ball, slow):
        self.ball, self.slow, self.fall_deg = ball, slow, None

    def read(self, image):
        import time
        time.sleep(self.slow)
        self.slow = 0.0
        ball = self.ball if image[0, 0, 0] == 255 else None
        return balls.FrameRead(ball, ball is not None, "marked", self.name)


class MarkedPass:
    """A chute pass of 20 grey frames at 30 fps, ball 5 readable in the frames `readable`."""
    kind, fps, ball, fall_deg = "chute", 30, 5, 90.0

    def __init__(self, readable):
        self.visible = [True] * 20
        self.images = [_grey() for _ in range(20)]
        for i in readable:
            self.images[i][0, 0] = 255

    def __len__(self):
        return len(self.images)

    def shot(self, i):
        from types import SimpleNamespace
        return SimpleNamespace(image=self.images[i])


def test_a_pass_whose_only_readable_frames_were_dropped_is_lost_to_falling_behind():
    # the first frame takes half a second (15 frames at 30 fps): frames 5-7, the only ones that
    # read, pass while the reader is busy
    p = MarkedPass(readable=[5, 6, 7])
    record = ball_bench.bench_pass(p, Marked(5, slow=0.5))
    assert record["outcome"] == "none" and record["dropped"] >= 3 and record["behind"]


def test_a_pass_no_frame_of_which_reads_is_not_lost_to_falling_behind():
    record = ball_bench.bench_pass(MarkedPass(readable=[]), Marked(5, slow=0.5))
    assert record["outcome"] == "none" and record["dropped"] >= 3 and not record["behind"]


def test_a_pass_read_at_full_speed_is_accepted_and_not_counted_behind():
    record = ball_bench.bench_pass(MarkedPass(readable=[5, 6, 7]), Marked(5, slow=0.0))
    assert record["outcome"] == "accepted" and not record["behind"]


def test_the_report_counts_passes_lost_to_falling_behind_per_kind_and_against_its_target(capsys):
    stats = ball_bench.Stats()
    for behind in (True, False):
        stats.add({"kind": "chute 30 fps", "outcome": "none", "latency_ms": None, "ms": [20.0], "empty_ms": [],
                   "frames_read": 0, "frames_matched": 0, "frames_leaning": 0, "leaning_elsewhere": 0,
                   "false_finds": 0, "dropped": 15, "late": 2, "processed": 5, "behind": behind})
    summary = stats.summary()
    assert summary["lost_behind"] == 1 and summary["kinds"]["chute 30 fps"]["behind"] == 1
    ball_bench.print_report({"zxing": summary})
    out = capsys.readouterr().out
    assert "lost to falling behind 1" in out and "dropped 30 (75.0%; read late, of the dropped: 4)" in out
    assert "passes lost because the reader fell behind: 1 (target 0: MISSED by 1" in out


def test_a_cpu_quota_writes_cpu_max_and_moves_the_process_in_and_back(tmp_path):
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory\n")
    quota = ball_bench.CpuQuota(0.3, root=tmp_path)
    group = tmp_path / f"companion-bench-{os.getpid()}"
    assert (group / "cpu.max").read_text() == "1500 5000"
    assert (tmp_path / "cgroup.subtree_control").read_text() == "+cpu"
    with quota:
        assert (group / "cgroup.procs").read_text() == str(os.getpid())
    quota.close()


def test_a_cpu_quota_that_cannot_be_set_says_why_in_one_line(tmp_path):
    with pytest.raises(ball_bench.QuotaUnavailable) as error:
        ball_bench.CpuQuota(0.3, root=tmp_path / "none")
    assert "no cpu controller" in str(error.value) and "\n" not in str(error.value)
    (tmp_path / "cgroup.controllers").write_text("cpu\n")
    (tmp_path / "cgroup.subtree_control").mkdir()                     # not writable as a file
    with pytest.raises(ball_bench.QuotaUnavailable) as error:
        ball_bench.CpuQuota(0.3, root=tmp_path)
    assert "cannot set a CPU quota" in str(error.value) and "\n" not in str(error.value)


@pytest.mark.skipif(not os.access(ball_bench.CGROUPS / "cpu", os.W_OK) and
                    not os.access(ball_bench.CGROUPS / "cgroup.procs", os.W_OK), reason="no writable cgroup here")
def test_a_real_cpu_quota_holds_the_process_and_lets_it_go():
    quota = ball_bench.CpuQuota(0.5)
    try:
        with quota:
            assert quota.group.name in Path("/proc/self/cgroup").read_text()
        assert quota.group.name not in Path("/proc/self/cgroup").read_text()
    finally:
        quota.close()
    assert not quota.group.exists()


@pytest.mark.parametrize("value", ["fast", "0", "2"])
def test_a_bad_cpu_quota_is_one_line(value, capsys):
    code = main(["bench", "balls", "--passes", "4", "--cpu-quota", value, "--decoder", "zxing"])
    err = capsys.readouterr().err
    assert code == 2 and f"--cpu-quota {value!r}" in err and len(err.strip().splitlines()) == 1


def _grey():
    import numpy as np
    return np.full((480, 640, 3), 128, np.uint8)


def test_a_pass_not_accepted_is_named_as_it_is_rendered_again():
    p = SimpleNamespace(kind="chute", fps=60.0, ball=22)
    line = ball_bench.not_accepted(1155, p, "zxing", {"outcome": "unreadable", "behind": True})
    assert line == "  pass1155 (chute 60 fps, ball 22, zxing): unreadable, lost because the reader fell behind"
    assert ball_bench.not_accepted(3, p, "zxing", {"outcome": "misread", "behind": False}).endswith("): misread")
