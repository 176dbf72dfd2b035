"""Headless Chromium driven over the DevTools protocol: load a page, wait until it has
drawn, take a screenshot. Only loopback addresses are used."""
from __future__ import annotations

import asyncio
import base64
import itertools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import aiohttp

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def launch(*args: str) -> subprocess.Popen:
    """Chromium with FLAGS and args, in a process group of its own (its helpers with it: see stop)."""
    return subprocess.Popen([chromium(), *FLAGS, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def stop(browser: subprocess.Popen, seconds: float = 10) -> None:
    """Chromium and every helper it started gone: a helper outliving the browser still wrote in its profile
    folder while the folder was removed (`Directory not empty: 'Default'`)."""
    for sign in (signal.SIGTERM, signal.SIGKILL):       # the group asked to end, then made to
        try:
            os.killpg(browser.pid, sign)
            browser.wait(seconds)                        # (reaped: a zombie still counts in its group)
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                os.killpg(browser.pid, 0)
                time.sleep(0.05)
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DevTools:
    def __init__(self, ws):
        self.ws, self.ids = ws, itertools.count(1)

    async def call(self, method: str, **params):
        number = next(self.ids)
        await self.ws.send_json({"id": number, "method": method, "params": params})
        async for message in self.ws:
            data = message.json()
            if data.get("id") == number:
                if "error" in data:
                    raise RuntimeError(f"{method}: {data['error']}")
                return data["result"]
        raise RuntimeError("DevTools closed the connection")

    async def evaluate(self, expression: str):
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")


async def _shoot(url: str, size: tuple[int, int], ready_js: str, settle: float, timeout: float) -> bytes:
    port = free_port()
    with tempfile.TemporaryDirectory() as profile:
        browser = launch(f"--user-data-dir={profile}", f"--remote-debugging-port={port}",
                         f"--window-size={size[0]},{size[1]}", "about:blank")
        try:
            async with aiohttp.ClientSession() as http:
                target = await _page(http, port, timeout)
                async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                    tools = DevTools(ws)
                    await tools.call("Page.enable")
                    await tools.call("Page.navigate", url=url)
                    deadline = time.monotonic() + timeout
                    while not await tools.evaluate(ready_js):
                        if time.monotonic() > deadline:
                            raise TimeoutError(f"{url} did not draw within {timeout} s")
                        await asyncio.sleep(0.2)
                    await asyncio.sleep(settle)
                    shot = await tools.call("Page.captureScreenshot", format="png")
                    return base64.b64decode(shot["data"])
        finally:
            stop(browser)


async def _page(http, port: int, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        try:
            async with http.get(f"http://127.0.0.1:{port}/json/list") as answer:
                pages = [t for t in await answer.json() if t.get("type") == "page"]
                if pages:
                    return pages[0]
        except aiohttp.ClientError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError("Chromium's DevTools did not come up")
        await asyncio.sleep(0.2)


def screenshot(url: str, size=(1920, 1080), ready_js: str = "document.body.classList.contains('-first-byte')",
               settle: float = 1.5, timeout: float = 30) -> bytes:
    return asyncio.run(_shoot(url, size, ready_js, settle, timeout))
