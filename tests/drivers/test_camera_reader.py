"""The ball reader end to end (frames -> decoder -> acceptance -> callback), its settings from
the event file, and the `companion ... balls` commands."""
import json
import os
import shutil
import threading
import time

import numpy as np
import pytest

from companion.core import event_file
from companion.cli import main
from drivers.ball_reader import BallReader, Settings, SettingsError
from drivers.camera import Camera, FolderSource, Source
from vision.sim import balls as br
from vision import balls
from vision.acceptance import Alert, BallRead

RENDERER = br.Renderer()


def pass_folder(folder, ball, seed, kind="cradle", fps=30, empty=8):
    """A rendered pass written as numbered JPEGs, then some empty frames."""
    folder.mkdir()
    p = br.render_pass(RENDERER, kind, fps, ball, seed)
    jpegs = [p.shot(i).jpeg for i in range(len(p))] + [br.single_frame(RENDERER, seed, empty=True)[1]] * empty
    for i, data in enumerate(jpegs):
        (folder / f"{i:03d}.jpg").write_bytes(data)
    return folder


def test_frames_of_a_ball_come_out_as_one_accepted_read(tmp_path):
    folder = pass_folder(tmp_path / "pass", ball=19, seed=42)
    messages = []
    settings = Settings(source=str(folder), fps=30)
    camera = Camera(FolderSource(str(folder), fps=30))
    reader = BallReader(camera, settings.decoder_for(), settings.acceptor_for(), messages.append).start()
    reader.join(timeout=20)
    reader.stop()
    assert [type(m) for m in messages] == [BallRead], messages
    assert messages[0].ball == 19 and messages[0].command() == {"do": "draw_ball", "ball": 19}
    assert reader.frames + camera.dropped == camera.captured


def test_two_decoding_workers_read_a_chute_pass_each_frame_fed_once(tmp_path):
    folder = pass_folder(tmp_path / "pass", ball=8, seed=7, kind="chute", fps=60)
    messages, fed = [], []
    camera = Camera(FolderSource(str(folder), fps=15))      # paced slowly: a busy machine drops no frame
    # the chute's direction, as calibration sets it: deblurred along it, 6 of the 10 frames read (2 without)
    fall_deg = br.render_pass(RENDERER, "chute", 60, 8, 7).fall_deg
    settings = Settings(fps=15, window_ms=3000, workers=2, fall_deg=fall_deg)
    reader = BallReader(camera, settings.decoder_for(), settings.acceptor_for(), messages.append, workers=2,
                        on_read=lambda seq, read: fed.append(seq))
    reader.start()
    reader.join(timeout=20)
    reader.stop()
    assert [(type(m), m.ball) for m in messages] == [(BallRead, 8)], messages
    # in frame order, but for a frame still being read when the frames after it agreed on the ball
    assert len(set(fed)) == len(fed) == reader.frames == camera.captured - camera.dropped


class Blank(Source):
    """An empty cradle, forever (until stopped)."""
    name, fps, paced = "blank", 30.0, True

    def read(self):
        return np.zeros((480, 640, 3), np.uint8)


class TwoThenQuiet(Source):
    """Two frames of a ball, then nothing for a while, then the end (a camera pausing)."""
    name, fps, paced = "two then quiet", 30.0, False

    def __init__(self):
        self.sent = 0

    def read(self):
        self.sent += 1
        if self.sent == 2:
            time.sleep(0.1)
        elif self.sent == 3:
            time.sleep(0.8)
            return None
        return np.full((480, 640, 3), self.sent, np.uint8)


class SlowOnSecond:
    """Reads ball 5 in every frame; the second frame (its pixels 2) takes 0.5 s."""
    name = "slow"

    def read(self, image):
        if image[0, 0, 0] == 2:
            time.sleep(0.5)
        return balls.FrameRead(5, True, "read", "slow")

    def twin(self):
        return SlowOnSecond()


def test_a_window_is_not_closed_by_the_clock_while_its_second_frame_is_still_being_read():
    """The window (300 ms) opens with the first frame's read; the second frame, taken 0.1 s later,
    takes 500 ms to read while the camera sends nothing: the idle worker must not rule on the
    window meanwhile (an 'unreadable' alert), the second read makes it a ball."""
    messages = []
    reader = BallReader(Camera(TwoThenQuiet()), SlowOnSecond(), Settings(window_ms=300).acceptor_for(),
                        messages.append, workers=2).start()
    reader.join(timeout=10)
    reader.stop()
    assert [(type(m), getattr(m, "ball", None)) for m in messages] == [(BallRead, 5)], messages


def test_a_beam_break_with_nothing_readable_is_an_alert(tmp_path):
    messages = []
    reader = BallReader(Camera(Blank()), balls.BallDecoder(), Settings(window_ms=200).acceptor_for(),
                        messages.append).start()
    threading.Thread(target=reader.beam, args=(1,)).start()        # the panel calls on_beam(count)
    deadline = time.monotonic() + 5
    while not messages and time.monotonic() < deadline:
        time.sleep(0.05)
    reader.stop()
    assert len(messages) == 1 and isinstance(messages[0], Alert) and messages[0].kind == "unreadable"


def test_a_camera_that_fails_is_reported_as_an_alert(tmp_path):
    (tmp_path / "bad.jpg").write_bytes(b"nope")
    messages = []
    reader = BallReader(Camera(FolderSource(str(tmp_path / "*.jpg"))), balls.BallDecoder(),
                        Settings().acceptor_for(), messages.append).start()
    reader.join(timeout=5)
    assert messages and messages[-1].kind == "camera" and "bad.jpg" in messages[-1].message


def test_settings_come_from_the_event_files_camera_section(tmp_path):
    text = event_file.example("Night", 2, seed=1, secret="s") + (
        '\n[camera]\nsource = "sim:chute"\nfps = 60\nroi = [10, 20, 600, 400]\ndecoder = "pyzbar"\n'
        "window_ms = 400\nagree = 3\nball_diameter = 38\nball_distance = [80, 130]\n")
    path = tmp_path / "event.toml"
    path.write_text(text)
    settings = Settings.from_section(event_file.load(path).sections["camera"])
    assert (settings.source, settings.fps, settings.roi, settings.decoder) == ("sim:chute", 60, (10, 20, 600, 400),
                                                                                  "pyzbar")
    assert settings.acceptor_for().agree == 3 and settings.decoder_for().design.diameter == 38
    assert settings.ball_distance == (80.0, 130.0) and settings.decoder_for().distance == (80.0, 130.0)
    path.write_text(text.replace("agree = 3", "agreement = 3"))
    with pytest.raises(event_file.EventFileError, match=r"event.toml:\d+: unknown key 'agreement' in \[camera\]"):
        event_file.load(path)
    path.write_text(text.replace('"pyzbar"', '"tesseract"'))
    with pytest.raises(event_file.EventFileError, match="decoder must be one of 'zxing', 'pyzbar', 'opencv'"):
        event_file.load(path)
    assert event_file.SECTIONS["camera"]["decoder"][1] == balls.DECODERS


@pytest.mark.parametrize("section, message", [
    ({"roi": [1, 2, 3]}, "roi must be"), ({"roi": [0, 0, 5, 5]}, r"\[camera\] roi must be 4 ints: .*16 to"),
    ({"agree": 0}, r"\[camera\] agree must be 1 to 100, not 0"),
    ({"ball_diameter": 400.0}, "ball_diameter must be 10 to 200"), ({"exposure": 3}, "unknown key 'exposure'"),
    ({"ball_distance": [150]}, r"ball_distance must be 2 floats"),
    ({"ball_distance": [130, 80]}, "ball_distance must be"),
    ({"ball_distance": [15, 80]}, "more than the ball's radius")])
def test_bad_settings_name_the_key(section, message):
    with pytest.raises(SettingsError, match=message):
        Settings.from_section(section)


def run(capsys, *argv):
    code = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return code, out, err


def test_print_balls_writes_the_sticker_sheets(tmp_path, capsys):
    code, out, _ = run(capsys, "print", "balls", "--out", tmp_path / "balls.pdf", "--diameter", 40)
    assert code == 0 and (tmp_path / "balls.pdf").read_bytes().startswith(b"%PDF")
    assert "27 ball(s) x 12 stickers" in out and "QR 12.0 mm" in out
    code, out, _ = run(capsys, "print", "balls", "--out", tmp_path / "few.pdf", "--balls", "1-3,9")
    assert code == 0 and "4 ball(s)" in out
    code, _, err = run(capsys, "print", "balls", "--out", tmp_path / "x.pdf", "--balls", "0-30")
    assert code == 2 and "balls are 1-27" in err


def test_read_balls_says_the_ball_or_why_not(tmp_path, capsys):
    look = br.plain_look(RENDERER, 23, seed=1)
    (tmp_path / "ball.jpg").write_bytes(_jpeg(br.label_view(RENDERER, look, 3, 10, seed=1)))
    (tmp_path / "empty.jpg").write_bytes(br.single_frame(RENDERER, 2, empty=True)[1])
    code, out, _ = run(capsys, "read", "balls", tmp_path / "ball.jpg", tmp_path / "empty.jpg")
    lines = out.splitlines()
    assert code == 0 and "ball 23" in lines[0] and "zxing" in lines[0] and "none: no ball in view" in lines[1]
    code, out, _ = run(capsys, "read", "balls", tmp_path / "ball.jpg", "--json", "--decoder", "pyzbar")
    record = json.loads(out)
    assert record["ball"] == 23 and record["decoder"] == "pyzbar" and record["ms"] > 0 and not record["matched"]
    code, _, err = run(capsys, "read", "balls", tmp_path / "missing.jpg")
    assert code == 1 and "missing.jpg: no such file" in err
    hostile = os.fsdecode(os.fsencode(tmp_path) + b"/b\xff\nall.jpg")      # a name of bytes no UTF-8, and a newline
    shutil.copy(tmp_path / "ball.jpg", hostile)
    code, out, _ = run(capsys, "read", "balls", hostile, "--json")
    assert code == 0 and json.loads(out)["image"].endswith("/b\\xff\\nall.jpg") and json.loads(out)["ball"] == 23


def test_corpus_balls_writes_frames_and_passes_with_truth(tmp_path, capsys):
    code, out, _ = run(capsys, "corpus", "balls", "--n", 2, "--passes", 1, "--out", tmp_path / "c")
    assert code == 0
    frames = [json.loads(line) for line in (tmp_path / "c" / "frames" / "truth.jsonl").read_text().splitlines()]
    passes = [json.loads(line) for line in (tmp_path / "c" / "passes" / "truth.jsonl").read_text().splitlines()]
    assert len(frames) == 2 and all((tmp_path / "c" / "frames" / f["image"]).is_file() for f in frames)
    assert [(p["kind"], p["fps"]) for p in passes] == [("cradle", 30), ("cradle", 60), ("chute", 30), ("chute", 60)]
    first = passes[0]
    assert all((tmp_path / "c" / "passes" / first["pass"] / f["image"]).is_file() for f in first["frames"])


def test_the_bench_records_a_pass_and_reports_misses_by_how_much(capsys):
    from drivers import ball_bench as bench
    p = br.render_pass(RENDERER, "cradle", 30, 4, seed=8)       # every frame reads: a loaded machine dropping some still accepts
    record = bench.bench_pass(p, balls.BallDecoder())
    assert record["outcome"] == "accepted" and record["latency_ms"] > 0
    assert record["ms"] and record["processed"] + record["dropped"] == len(p)
    stats = bench.Stats()
    stats.add(record)
    stats.label(True, 4)
    summary = stats.summary()
    assert summary["kinds"]["cradle 30 fps"]["success_pct"] == 100 and summary["misreads"] == 0
    summary["kinds"]["cradle 30 fps"]["success_pct"] = 97.5
    for k, (kind, truth, ball) in enumerate([("two balls", [3, 4], None), ("sheet", [], 7), ("blur", [5], 5)]):
        stats.add_frame({"set": kind, "truth": truth, "ball": ball, "blur": 9.0, "alert": kind == "two balls",
                         "wrong": ball is not None and ball not in truth})
    summary = {**summary, **{key: stats.summary()[key] for key in ("sets", "blur_bands")}}
    bench.print_report({"zxing": summary})
    out = capsys.readouterr().out
    assert "cradle 30 fps" in out and "MISSED by 2.4%" in out          # the cradle's target is 99.9%
    assert "8-15 px 100.0% of 1" in out
    assert "sheet" in out and "wrong ball named 1 (target 0: MISSED by 1)" in out
    assert "two balls" in out and "conflict/alert raised 1" in out


def _jpeg(image):
    import cv2
    return cv2.imencode(".jpg", image)[1].tobytes()


@pytest.mark.parametrize("line, message", [
    ("exposure_us = 5", r"event.toml:\d+: \[camera\] exposure_us must be 10 to 1000000, not 5"),
    ("gain = 40.0", r"event.toml:\d+: \[camera\] gain must be 1 to 16, not 40.0"),
    ('fall_deg = "down"', r"event.toml:\d+: \[camera\] fall_deg must be float")])
def test_exposure_gain_and_fall_direction_are_range_checked_with_their_line(tmp_path, line, message):
    path = tmp_path / "event.toml"
    path.write_text(event_file.example("Night", 2, seed=1, secret="s") + f"\n[camera]\n{line}\n")
    with pytest.raises(event_file.EventFileError, match=message):
        event_file.load(path)


def test_a_fixed_exposure_reaches_the_camera_and_longer_than_a_frame_is_refused():
    from drivers.camera import Picamera2Source
    settings = Settings.from_section({"exposure_us": 4000, "gain": 2.0, "fall_deg": 30.0, "fps": 30})
    assert settings.decoder_for().fall_deg == 30.0
    source = Picamera2Source(exposure_us=settings.exposure_us, gain=settings.gain)
    assert source._exposure_controls({"ExposureTime": (1, 10**6, 0), "AeEnable": (False, True, True)}) == \
        {"ExposureTime": 4000, "AeEnable": False}
    assert source.unset == ["AnalogueGain"]
    with pytest.raises(SettingsError, match="exposure_us 40000: 10 to 33333"):
        Settings.from_section({"exposure_us": 40000, "fps": 30})
