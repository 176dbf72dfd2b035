"""Running apps under Pilot, reading their screens, and SVG snapshots."""
from __future__ import annotations

import asyncio
import difflib
import os
import re
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tui.headless import screen_text, wait_until

SNAPSHOTS = Path(__file__).parent / "snapshots"


def drive(app, body, size=(120, 34)) -> None:
    """Run `app` headless at `size` and await body(pilot)."""
    async def main():
        async with app.run_test(size=size) as pilot:
            await body(pilot)
    asyncio.run(main())


async def settle(pilot, ready, timeout: float = 10.0) -> None:
    await wait_until(pilot, ready, timeout)


async def steady(pilot, timeout: float = 10.0) -> None:
    """Until the screen stops changing (a table still scrolling to its last row, a style not yet
    applied): a snapshot is of the settled screen, however busy the machine."""
    last, deadline = None, asyncio.get_running_loop().time() + timeout
    while (now := pilot.app.export_screenshot()) != last:
        assert asyncio.get_running_loop().time() < deadline, "the screen never settled"
        last = now
        await pilot.pause(0.1)


def text_of(app) -> str:
    return screen_text(app)


def _normal(svg: str) -> str:
    """Rich names an SVG's styles after a hash of its content; the name is not the picture."""
    return re.sub(r"terminal-\d+", "terminal", svg)


def assert_snapshot(name: str, app) -> None:
    """The screen must match tests/tui/snapshots/NAME.svg (and .txt, for a readable diff).
    UPDATE_SNAPSHOTS=1 rewrites them; a missing one is written and the test fails once."""
    svg, text = _normal(app.export_screenshot()), screen_text(app)
    svg_path, text_path = SNAPSHOTS / f"{name}.svg", SNAPSHOTS / f"{name}.txt"
    if os.environ.get("UPDATE_SNAPSHOTS") or not svg_path.exists():
        SNAPSHOTS.mkdir(exist_ok=True)
        svg_path.write_text(svg, encoding="utf-8")
        text_path.write_text(text, encoding="utf-8")
        if not os.environ.get("UPDATE_SNAPSHOTS"):
            pytest.fail(f"new snapshot {svg_path.name} written: look at it, then run the tests again")
        return
    expected = text_path.read_text(encoding="utf-8")
    if text != expected:
        diff = "\n".join(difflib.unified_diff(expected.splitlines(), text.splitlines(), "snapshot", "now", lineterm=""))
        pytest.fail(f"{name}: the screen's text changed (UPDATE_SNAPSHOTS=1 to accept):\n{diff}")
    assert svg == svg_path.read_text(encoding="utf-8"), \
        f"{name}: same text, different colours or layout (UPDATE_SNAPSHOTS=1 to accept)"


def status_of(url: str) -> tuple[int, str]:
    """The HTTP status and body of a GET (an error status is an answer too)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def first_answer(url: str, server, timeout: float = 30.0, wanted: int | None = None) -> tuple[int, str]:
    """status_of(url) once the server process just started listens (and, with `wanted`, once it
    answers that status: a page server answers 503 until it has read the journal); the test fails
    if it exits first or does not answer so within timeout."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            answer = status_of(url)
            if wanted is None or answer[0] == wanted:
                return answer
        except OSError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            server.kill()
            pytest.fail(f"the display server did not start (wanted {wanted or 'any answer'} from {url})")
        time.sleep(0.2)


def ball_frames(folder: Path, ball: int, count: int) -> tuple:
    """`count` copies of one rendered still of `ball` resting in the cradle that the default
    decoder reads without repairs (whose CPU budget a busy machine may use up), written to
    `folder` as a camera's frames; returns the image."""
    pytest.importorskip("zxingcpp")
    import cv2
    from vision import ball_labels, balls
    from vision.balls import read
    from vision.sim import balls as ball_render
    renderer, decoder = ball_render.Renderer(ball_labels.Design(40.0)), balls.BallDecoder()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(read, "REPAIR_CANDIDATES", 0)
        for seed in range(50):
            image, _, truth = ball_render.single_frame(renderer, seed, ball=ball)
            if truth["kind"] == "cradle" and decoder.read(image).ball == ball:
                break
    folder.mkdir()
    png = cv2.imencode(".png", image)[1].tobytes()
    for i in range(count):
        (folder / f"{i:04d}.png").write_bytes(png)
    return image


@pytest.fixture
def speaking():
    """The screens speak a language for one test (words.choose), then the default again."""
    from companion.core import words
    yield words.choose
    words.choose(words.DEFAULT)


def assert_speaks(language: str, shown: str) -> None:
    """In "ja" no English catalogue word is left on the screen (every word shown is translated);
    "en" shows no Japanese; "ja+en" both."""
    from companion.core import words
    ja, en = words.entries("ja"), words.entries("en")
    english = {en[m] for m in en if en[m] != ja[m] and len(en[m]) > 2 and "{" not in en[m]}
    left = sorted(word for word in english if re.search(rf"(?<!\w){re.escape(word)}(?!\w)", shown))
    japanese = bool(re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", shown))
    if language == "ja":
        assert not left and japanese, f"English left on a Japanese screen: {left}"
    else:
        assert left and japanese == (language == "ja+en"), (left, japanese)


def assert_display_speaks(language: str, app, session, steps, play, caught_up, said: tuple[str, ...]) -> None:
    """The display's screens through `steps` speak `language` and no other (assert_speaks), and
    show each msgid of `said` in that language (or both)."""
    from companion.core import words
    shown = "\n".join(screens_through(app, session, steps, play, caught_up))
    assert_speaks(language, shown)
    for msgid in said:
        assert words.say(msgid, language) in shown, msgid


def screens_through(app, session, steps, play, caught_up) -> list[str]:
    """The display's text after each step is played, once it shows that step's view."""
    screens = []

    async def body(pilot):
        for step in steps:
            play(session, step)
            await settle(pilot, caught_up(session))
            await steady(pilot)
            screens.append(text_of(pilot.app))

    drive(app, body)
    return screens


@pytest.fixture
def english(speaking):
    """The screens speak English only (a module's tests read English words: the staff consoles')."""
    speaking("en")
