"""Text from the world is data, never markup (ARCHITECTURE law 9), on the calibration screen: a
code on a sticker, the cage link's lines, the event file's path, headless under Pilot. (Apart from
test_markup.py so that the two files' examples run in parallel, one on each worker.)"""
from __future__ import annotations

import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import assume, example, given

from companion.cli import main
from tui.calibrate import CalibrateApp
from tui.forms import Confirm

from screens_helpers import settle, text_of
from test_markup import SLOW, run, shows, texts


class Link:
    """A cage link whose health line says what the test wants it to."""

    def __init__(self, detail: str):
        self.detail = detail

    def start(self, send, note) -> None:
        pass

    def stop(self) -> None:
        pass

    def health(self):
        from tui.sources import Health
        return Health("degraded", self.detail)


@pytest.mark.slow
@SLOW
@given(texts(3))
@example(["[/bold]", "[link=x]q", "[b]"])
@example(["[link=a]x[/]", "oC", "*n"])
def test_calibration(names):
    """A sticker's code that is no ball label (the decoders' table quotes it), the cage link's
    health line, and the event file's path (a folder named like markup) in the save's answer."""
    import cv2
    import numpy
    from vision.balls import BallDecoder, FrameRead
    folder, sticker, detail = names
    assume(".." not in folder)

    def read(self, image):
        return FrameRead(None, True, f"a code that is not a ball label: {sticker[:40]!r}", self.name)

    with tempfile.TemporaryDirectory() as tmp:
        event = Path(tmp) / f"d{folder}" / "event.toml"
        event.parent.mkdir(parents=True)
        assert main(["init", "--out", str(event), "--players", "4", "--seed", "3"]) == 0
        # small grey frames: the decoders' answer is the test's, and a small preview is quick to draw
        # (a 160x120 one took four times the CPU of everything else in an example)
        frames = Path(tmp) / "frames"
        frames.mkdir()
        for n in range(200):                          # 100 s of camera: it must not end before the save
            cv2.imwrite(str(frames / f"{n:02d}.png"), numpy.full((30, 40), 128, numpy.uint8))
        with event.open("a") as out:
            out.write(f'\n[camera]\nsource = "{frames}"\nfps = 2\n\n[serial]\nurl = "loop://"\n')

        async def body(pilot):
            await settle(pilot, lambda app: app.frames > 0, timeout=30)
            await pilot.pause(0.6)
            shows(pilot.app, repr(sticker), f"degraded  {detail}")
            await pilot.press("s")
            await settle(pilot, lambda app: isinstance(app.screen, Confirm))
            await pilot.press("y")
            await settle(pilot, lambda app: "saved to" in text_of(app), timeout=30)
            shows(pilot.app, f"saved to {event}")

        with mock.patch.object(BallDecoder, "read", read), \
                mock.patch("tui.calibrate.link_for", lambda section, places: Link(detail)):
            run(CalibrateApp(event), body, (170, 44))
