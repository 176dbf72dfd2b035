"""Screens without a terminal: SVG pictures and plain text of what an app shows."""
from __future__ import annotations

import io
import time

from rich.console import Console
from textual.app import App

SIZES = {"display": (120, 34), "console": (160, 45)}


class NotReady(Exception):
    pass


def parse_size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(n) for n in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"size {text!r} is not WIDTHxHEIGHT, e.g. 120x34") from None
    if not (20 <= width <= 1000 and 8 <= height <= 500):
        raise ValueError(f"size {text!r} is out of range (20x8 to 1000x500)")
    return width, height


def screen_text(app: App) -> str:
    """The screen as plain text, line by line (what a person would read)."""
    console = Console(width=app.size.width, height=app.size.height, file=io.StringIO(),
                      force_terminal=True, color_system="truecolor", record=True, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


async def wait_until(pilot, ready, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready(pilot.app):
        if time.monotonic() > deadline:
            raise NotReady("the screen was not ready in time")
        await pilot.pause(0.05)
    await pilot.pause()


def picture(app: App, size: tuple[int, int], ready, timeout: float = 10.0) -> tuple[str, str]:
    """Run `app` headless at `size` until ready(app); returns (svg, text) of its screen."""
    result = {}

    async def shoot(pilot) -> None:
        try:
            await wait_until(pilot, ready, timeout)
            await pilot.pause(0.2)    # let timers and layout settle
            result["svg"] = app.export_screenshot()
            result["text"] = screen_text(app)
        except NotReady as error:
            result["error"] = str(error)
        app.exit()

    app.run(headless=True, size=size, auto_pilot=shoot)
    if "error" in result:
        raise NotReady(result["error"])
    return result["svg"], result["text"]
