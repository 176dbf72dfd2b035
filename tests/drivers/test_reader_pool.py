"""The ball reader's decoding processes: frames dropped are always the oldest, reads fed in the
order the frames were taken (a slow frame holds back no ball the frames after it agree on), a decoding process that dies is said in one line and started
again, and the CPU quota that holds each process to one Pi core. No timings are asserted."""
import os
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from drivers import ball_bench
from drivers.ball_reader import BallReader, ProcessDecoder, Settings
from drivers.camera import PASSED_KEPT, Camera, PlaybackSource
from vision import acceptance, balls
from vision.acceptance import Alert, BallRead
from vision.sim import balls as br
from vision.worker import STOP_SECONDS, ProcessWorker, WorkerDied, WorkerFailed, close_all


def test_a_worker_that_dies_is_said_in_one_line_and_started_again():
    worker = ProcessWorker(dict, ({"ball": 7},), "test worker")
    try:
        first = worker.pid
        assert worker.call("get", "ball") == 7
        os.kill(first, signal.SIGKILL)
        with pytest.raises(WorkerDied) as died:
            worker.call("get", "ball")
        assert str(died.value) == "test worker: its process stopped (killed by signal 9); started again"
        assert worker.pid != first and worker.call("get", "ball") == 7       # a new process, same object
    finally:
        worker.close()


def test_an_error_inside_a_worker_is_one_line_and_the_worker_goes_on():
    worker = ProcessWorker(dict, ({"ball": 7},), "test worker")
    try:
        with pytest.raises(WorkerFailed) as failed:
            worker.call("pop", "none")
        assert str(failed.value) == "test worker: KeyError: 'none'"
        assert worker.call("get", "ball") == 7
    finally:
        worker.close()


def test_workers_still_starting_are_closed_together_and_take_no_call_after():
    """A night stopped at once: workers still making their objects (here asleep for a minute) are
    waited for STOP_SECONDS together, not that much apiece."""
    workers = [ProcessWorker(time.sleep, (60,), f"slow worker {n}") for n in range(3)]
    started = time.monotonic()
    close_all(workers)
    assert time.monotonic() - started < 2 * STOP_SECONDS
    assert not any(worker._process.is_alive() for worker in workers)
    with pytest.raises(WorkerDied) as closed:
        workers[0].call("anything")
    assert str(closed.value) == "slow worker 0: closed"


class Numbered:
    """Reads `ball` after `seconds`; raises `fail` on frame number `bad` (its first pixel). found:
    False, no ball in view."""
    name = "numbered"

    def __init__(self, seconds=0.0, bad=None, fail=None, ball=5, found=True):
        self.seconds, self.bad, self.fail, self.ball, self.found = seconds, bad, fail, ball, found

    def read(self, image):
        time.sleep(self.seconds)
        if int(image[0, 0]) == self.bad:
            raise self.fail
        if not self.found:
            return balls.FrameRead(None, False, "no ball in view", self.name)
        return balls.FrameRead(self.ball, True, "read" if self.ball else "ball found, no label readable", self.name)


def _frames(n):
    return [np.full((8, 8), i, np.uint8) for i in range(n)]


def _play(decoders, n, fps, lockstep=False):
    """lockstep: no frame dropped however loaded the machine (for what is not about dropping)."""
    fed, messages = [], []
    camera = Camera(PlaybackSource(_frames(n), fps), lockstep=lockstep)
    reader = BallReader(camera, decoders, acceptance.Acceptor(), messages.append, on_read=lambda seq, r: fed.append(seq))
    reader.start()
    reader.join(timeout=n / fps + 10)
    reader.stop()
    return fed, messages, camera


def test_a_busy_pool_drops_the_oldest_frames_and_feeds_reads_in_frame_order():
    fed, _, camera = _play([Numbered(0.04, found=False) for _ in range(3)], 40, 200)
    assert fed == sorted(fed) and fed[-1] == 39                        # in order, and the newest frame read
    assert camera.dropped > 0 and len(fed) + camera.dropped == 40
    skipped = sorted(set(range(40)) - set(fed))
    assert all(any(f > s for f in fed) for s in skipped)             # every frame dropped had a newer one read


class Held:
    """Finds a ball it cannot read, once `release` is set."""
    name = "held"

    def __init__(self, release):
        self.release = release

    def read(self, image):
        self.release.wait(10)
        return balls.FrameRead(None, True, "ball found, no label readable", self.name)


def _held_play(window_ms: int):
    """40 frames at 100 fps to three decoders held on their first frames until the stream has gone by."""
    release, messages, fed = threading.Event(), [], []
    camera = Camera(PlaybackSource(_frames(40), 100))
    reader = BallReader(camera, [Held(release) for _ in range(3)], acceptance.Acceptor(window_ms), messages.append,
                        on_read=lambda seq, r: fed.append(seq)).start()
    try:
        deadline = time.monotonic() + 10
        while not camera.ended and camera.captured < 40 and time.monotonic() < deadline:
            time.sleep(0.01)
        release.set()
        reader.join(timeout=10)
    finally:
        reader.stop()
    return fed, messages, camera, reader


def test_frames_dropped_while_a_ball_is_unread_are_read_when_no_new_frame_waits_the_newest_first():
    """Once free, the decoders read the newest frame, then (the window open, no verdict, no new
    frame) the newest PASSED_KEPT of the frames dropped, the newest first; the window closes as it did."""
    fed, messages, camera, reader = _held_play(1500)
    held, after = fed[:3], fed[3:]
    dropped = sorted(set(range(39)) - set(held), reverse=True)
    assert camera.dropped == len(dropped) == 36 and reader.late == PASSED_KEPT
    assert after == [39] + dropped[:PASSED_KEPT]
    assert [m.kind for m in messages] == ["unreadable"]


def test_no_frame_dropped_is_read_once_the_window_is_past_its_end():
    """The same with a 100 ms window, over before the decoders are free (the stream takes 0.4 s)."""
    fed, messages, camera, reader = _held_play(100)
    assert reader.late == 0 and reader.missed == camera.dropped == 36 and len(fed) == 4
    assert [m.kind for m in messages] == ["unreadable"]


def test_a_decoder_that_fails_on_a_frame_is_one_alert_and_the_frames_after_it_are_read():
    died = WorkerDied("ball decoder 2: its process stopped (killed by signal 9); started again")
    fed, messages, _ = _play([Numbered(bad=3, fail=died)], 6, 20, lockstep=True)
    alerts = [m for m in messages if isinstance(m, Alert)]
    assert fed == [0, 1, 2, 4, 5]
    assert [(a.kind, a.message) for a in alerts] == [("decoder", f"frame 3 not read: {died}")]
    assert [m.ball for m in messages if isinstance(m, BallRead)] == [5]


class StuckOnFirst:
    """Frame 0 (the ball coming into view) is read only once `release` is set; every other frame
    reads ball 5 at once."""
    name = "stuck"

    def __init__(self, release):
        self.release = release

    def read(self, image):
        if int(image[0, 0]) == 0:
            self.release.wait(10)
            return balls.FrameRead(None, True, "ball found, no label readable", self.name)
        return balls.FrameRead(5, True, "read", self.name)


def test_a_slow_frame_does_not_hold_back_the_ball_the_frames_after_it_agree_on():
    release, messages, fed = threading.Event(), [], []
    camera = Camera(PlaybackSource(_frames(6), 50))
    reader = BallReader(camera, [StuckOnFirst(release) for _ in range(3)], acceptance.Acceptor(), messages.append,
                        on_read=lambda seq, r: fed.append(seq)).start()
    try:
        deadline = time.monotonic() + 5
        while not messages and time.monotonic() < deadline:
            time.sleep(0.01)
        ruled_while_stuck = list(messages)
    finally:
        release.set()
        reader.join(timeout=10)
        reader.stop()
    assert [m.ball for m in ruled_while_stuck] == [5]                 # frame 0 still being read
    assert messages == ruled_while_stuck                             # frame 0, read at last, adds nothing
    assert 0 in fed and len(fed) == len(set(fed)) == reader.frames


class Cradle(PlaybackSource):
    """A pass into the cradle, then the ball resting there (as it does until the staff take it)
    until `ruled()`: a busy machine's reader, however slow, has the frames it needs."""

    def __init__(self, images: list, fps: float, ruled):
        super().__init__(images, fps)
        self.ruled = ruled

    def read(self):
        if len(self.shown_at) < len(self.images) or self.ruled():
            return super().read()
        self.shown_at.append(time.monotonic())
        return self.images[-1]


def test_a_killed_decoding_process_is_an_alert_and_the_pass_is_still_read():
    """The window is as long as the test: how fast a loaded machine reads two frames is not what
    this test is about (a process restarting takes 1-2 s here, a read up to seconds under load)."""
    p = br.render_pass(br.Renderer(), "cradle", 30, 12, seed=3)
    settings = Settings(window_ms=60_000)
    decoder = ProcessDecoder(balls.BallDecoder(distance=br.RIG_DISTANCE), 1)
    messages, fed = [], []
    try:
        os.kill(decoder.worker.pid, signal.SIGKILL)
        source = Cradle([p.shot(i).image for i in range(len(p))], 4, lambda: any(isinstance(m, BallRead) for m in messages))
        reader = BallReader(Camera(source), [decoder], settings.acceptor_for(), messages.append,
                            on_read=lambda seq, read: fed.append(seq)).start()
        reader.join(timeout=120)                # returns once the ball is ruled on
        reader.stop()
    finally:
        decoder.close()
    alerts = [m.message for m in messages if isinstance(m, Alert)]
    assert len(alerts) == 1, alerts
    failed = re.fullmatch(r"frame (\d+) not read: ball decoder 1: its process stopped \(killed by signal 9\); "
                          r"started again", alerts[0])
    assert failed and fed and min(fed) > int(failed[1]), (alerts, fed)       # the first frame taken
    assert [m.ball for m in messages if isinstance(m, BallRead)] == [12]


@pytest.mark.skipif(os.cpu_count() == 1 or not os.path.isdir("/proc/self/task"), reason="one core, or no /proc")
def test_a_decoding_process_reads_a_frame_in_one_thread():
    """One core's work: no thread pool of OpenCV's or OpenBLAS's beside it, to compete with the
    other decoding processes or, under a CPU quota, spin the process's budget away. The frame is
    one read by matching (numpy's matrix products and OpenCV's parallel loops both run)."""
    chute = br.render_pass(br.Renderer(), "chute", 30, 3, seed=2_451_801_072)
    decoder = ProcessDecoder(balls.BallDecoder(distance=br.RIG_DISTANCE, fall_deg=chute.fall_deg), 1)
    try:
        read = decoder.read(chute.shot(2).image)
        threads = os.listdir(f"/proc/{decoder.worker.pid}/task")
    finally:
        decoder.close()
    assert (read.ball, read.matched) == (3, True)
    assert len(threads) == 1, threads


class Blurring:
    """Runs one of OpenCV's parallel loops (a big blur) and says how many threads OpenCV has."""

    def blur(self) -> int:
        import cv2
        cv2.GaussianBlur(np.zeros((2000, 2000), np.uint8), (31, 31), 0)
        return cv2.getNumThreads()


@pytest.mark.skipif(os.cpu_count() == 1 or not os.path.isdir("/proc/self/task"), reason="one core, or no /proc")
def test_every_worker_process_runs_opencv_in_one_thread():
    """Any worker (a card scanning process of the watched folder too), not only the ball decoders."""
    worker = ProcessWorker(Blurring, (), "blurring")
    try:
        assert worker.call("blur") == 1
        assert len(os.listdir(f"/proc/{worker.pid}/task")) == 1
    finally:
        worker.close()


def test_a_decoding_process_is_warm_before_its_first_frame():
    """The process reads a drawn ball as it starts: the first ball going by does not pay for it."""
    decoder = ProcessDecoder(balls.BallDecoder(distance=br.RIG_DISTANCE, fall_deg=30.0), 1)
    try:
        warmed = decoder.ready()
    finally:
        decoder.close()
    assert (warmed.ball, warmed.found) == (1, True), warmed.why


def test_the_bench_waits_for_its_decoding_processes_before_the_first_pass():
    run = ball_bench.Run(passes=1, kinds=[("chute", 30)], seed=1, workers=2, share=None, cores=1, jobs=1, frames=0)
    before = time.monotonic()
    held, live = ball_bench._held(run, {"zxing": balls.BallDecoder(distance=br.RIG_DISTANCE)})
    try:
        seconds = held.warm()        # what the bench prints: from their start until all are warm
        assert 0 < seconds <= time.monotonic() - before
        assert [d.worker.call("warmed").ball for d in live["zxing"]] == [1, 1]
        each = [ball_bench._memory_mb(d.worker.pid) for d in live["zxing"]]
        assert all(30 < mb < 1000 for mb in each) and held.memory_mb() == pytest.approx(sum(each), rel=0.05)
        assert ball_bench._memory_mb(2 ** 22 + 1) == 0.0                    # no such process
    finally:
        held.close()


def test_a_quota_of_several_cores_holds_each_process_to_one(tmp_path):
    (tmp_path / "cgroup.controllers").write_text("cpu\n")
    quota = ball_bench.CpuQuota(0.3, cores=3, pids=lambda: [101, 102, 103, 104], root=tmp_path)
    groups = [tmp_path / f"companion-bench-{os.getpid()}"] + \
        [tmp_path / f"companion-bench-{os.getpid()}-{i}" for i in (1, 2)]
    assert quota.groups == groups and all((g / "cpu.max").read_text() == "1500 5000" for g in groups)
    with quota:
        # this process, then 101, 102 one a group, then round again: 103 with this one, 104 with 101
        # (a fake cgroup file keeps only the last pid written to it)
        assert [(g / "cgroup.procs").read_text() for g in groups] == ["103", "104", "102"]
    assert (tmp_path / "cgroup.procs").read_text() == "104"          # each moved back home


def test_a_reader_made_from_settings_leaves_the_codebooks_to_its_decoding_processes():
    """The console's own process only hands the settings on: building the codebooks there too
    cost every start a second or more."""
    script = ("from drivers.ball_reader import BallReader, Settings\n"
              "from vision.balls import match\n"
              "reader = BallReader.from_settings(Settings.from_section({'source': 'sim:chute', 'workers': 1}), print)\n"
              "reader._close_owned()\n"
              "print(match.codebook.cache_info().currsize)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.split() == ["0"], done.stderr
