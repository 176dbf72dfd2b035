"""The served display: textual-serve, offline, display only, seen in a real headless Chromium."""
from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from tui.serve import DisplayServer, display_command
from tui.bingo.widgets import PLACE_COLOURS

from screens_chromium import DevTools, _page, chromium, free_port, launch, stop
from screens_game import game
from screens_helpers import first_answer

needs_chromium = pytest.mark.skipif(
    chromium() is None, reason="chromium is not installed (apt-get install chromium): "
                               "the served display is checked in a real browser")


def descendants(pid: int) -> list[int]:
    children = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.fixture
def served(tmp_path):
    game(tmp_path / "g.db", "turn1_counted")
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "companion", "display", "--journal", str(tmp_path / "g.db"),
                               "--terminal-serve", "--host", "127.0.0.1", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    _, page = first_answer(url, server)
    yield url, page, server
    for pid in descendants(server.pid):
        os.kill(pid, signal.SIGKILL)
    server.terminate()
    server.wait(10)


def test_only_the_display_is_ever_served():
    command = display_command(Path("/x/g.db"))
    assert " -m companion display --journal /x/g.db" in command and "console" not in command
    assert DisplayServer(Path("g.db"), "127.0.0.1", 1).command.endswith(f"display --journal {Path('g.db').resolve()}")


def test_the_page_loads_nothing_from_outside(served):
    url, page, _ = served
    addresses = re.findall(r"""(?:src|href)=["']([^"']+)|url\(["']?([^)"']+)""", page)
    addresses = [a or b for a, b in addresses]
    assert addresses and all(a.startswith("/static/") for a in addresses), addresses
    assert "googleapis" not in page and "http" not in page.replace("http:", "")
    for address in addresses:                      # and each of them is there
        with urllib.request.urlopen(url.rstrip("/") + address, timeout=5) as answer:
            assert answer.status == 200


def board_cells(png: bytes) -> dict[str, int]:
    """Ball-sized blocks of each place colour in a screenshot (the legend's chips are smaller, and
    lower: a chip's words in Japanese and English can be as wide as a ball)."""
    import cv2
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR).astype(int)
    masks = {}
    for place, (background, _) in PLACE_COLOURS.items():
        bgr = np.array([int(background[i:i + 2], 16) for i in (5, 3, 1)])
        masks[place] = (np.abs(image - bgr).max(axis=2) <= 10).astype(np.uint8)
    sizes = {}
    for place, mask in masks.items():
        _, _, stats, _ = cv2.connectedComponentsWithStats(mask)
        sizes[place] = list(zip(stats[1:, cv2.CC_STAT_AREA], stats[1:, cv2.CC_STAT_HEIGHT]))
    largest = max((a for areas in sizes.values() for a, _ in areas), default=0)
    tallest = max((h for areas in sizes.values() for _, h in areas), default=0)
    return {place: sum(1 for a, h in areas if a > largest / 3 and h > tallest / 2) for place, areas in sizes.items()}


@pytest.mark.slow
@needs_chromium
def test_chromium_shows_the_board_and_reconnects(served, tmp_path):
    import aiohttp
    url, _, server = served

    async def run():
        port = free_port()
        profile = tmp_path / "profile"
        browser = launch(f"--user-data-dir={profile}", f"--remote-debugging-port={port}", "--window-size=1920,1080",
                         "about:blank")
        try:
            async with aiohttp.ClientSession() as http:
                target = await _page(http, port, 30)
                async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                    tools = DevTools(ws)
                    await tools.call("Page.enable")
                    await tools.call("Page.navigate", url=url)
                    await wait_for(tools, "document.body.classList.contains('-first-byte')")
                    await asyncio.sleep(1.5)
                    first = await tools.call("Page.captureScreenshot", format="png")
                    sessions = [pid for pid in descendants(server.pid) if "companion display" in cmdline(pid)]
                    assert sessions and not any("console" in cmdline(pid) for pid in descendants(server.pid))
                    await tools.evaluate("window.beforeDrop = true")
                    for pid in sessions:                 # the session drops
                        os.kill(pid, signal.SIGKILL)
                    await wait_for(tools, "window.beforeDrop === undefined && "
                                          "document.body.classList.contains('-first-byte')")
                    await asyncio.sleep(1.5)
                    again = await tools.call("Page.captureScreenshot", format="png")
                    return first["data"], again["data"]
        finally:
            stop(browser)

    import base64
    first, again = (base64.b64decode(data) for data in asyncio.run(run()))
    (tmp_path / "served.png").write_bytes(first)
    (tmp_path / "again.png").write_bytes(again)
    cells = board_cells(first)
    assert cells["valid"] == 3 and cells["machine"] == 24, cells     # turn 1 counted: 1, 2, 3 valid
    assert board_cells(again) == cells


async def wait_for(tools, expression: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if await tools.evaluate(expression):
                return
        except RuntimeError:        # the page is reloading
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"not true within {timeout} s: {expression}")
        await asyncio.sleep(0.2)


def test_a_display_session_ends_when_its_server_dies(served):
    """A browser's display process must not outlive the server (killed, crashed, unplugged)."""
    import aiohttp
    url, _, server = served

    async def connect_then_kill_server():
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(url.replace("http", "ws") + "ws?width=100&height=30"):
                deadline = time.monotonic() + 20
                while not (sessions := [p for p in descendants(server.pid) if "companion display" in cmdline(p)]):
                    assert time.monotonic() < deadline, "no display session started"
                    await asyncio.sleep(0.1)
                await asyncio.sleep(1.5)         # the display is up and watching its parent
                server.kill()
                return sessions

    sessions = asyncio.run(connect_then_kill_server())
    server.wait(10)
    deadline = time.monotonic() + 60         # it checks each second; a loaded machine is slow to exit it
    while any(Path(f"/proc/{pid}").exists() and "companion display" in cmdline(pid) for pid in sessions):
        assert time.monotonic() < deadline, "the display session outlived its server"
        time.sleep(0.2)
