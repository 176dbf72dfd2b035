"""The served display's limits (testing ladder, step 6: hostile browsers): it listens on this machine
only unless told otherwise, and serves at most --max-viewers browsers (one display process each);
one more is told so with HTTP 503 and gets its place when a viewer leaves."""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from screens_chromium import free_port
from screens_game import game
from screens_helpers import first_answer, status_of


def listening_addresses(port: int) -> set[str]:
    """Local addresses (hex, as in /proc/net/tcp) with a listening socket on this port."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if int(hex_port, 16) == port and state == "0A":
                found.add(address)
    return found


@pytest.fixture
def server(tmp_path):
    game(tmp_path / "g.db", "turn1_counted")
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "companion", "display", "--journal", str(tmp_path / "g.db"),
                                "--terminal-serve", "--port", str(port), "--max-viewers", "1"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    first_answer(url, process)
    yield port, url
    os.killpg(process.pid, signal.SIGKILL)       # the server and the display processes it started
    process.wait(10)


def test_by_default_only_this_machine_can_reach_the_display(server):
    port, _ = server
    assert listening_addresses(port) == {"0100007F"}          # 127.0.0.1, not 0.0.0.0


def test_one_browser_more_than_max_viewers_is_told_so_and_gets_in_when_one_leaves(server):
    port, url = server

    async def browsers():
        async with aiohttp.ClientSession() as http:
            first = await http.ws_connect(f"ws://127.0.0.1:{port}/ws?width=80&height=24")
            await first.receive(timeout=30)                    # its display process is talking
            code, page = await asyncio.to_thread(status_of, url)
            assert code == 503 and "already has 1 viewers, its limit (--max-viewers 1)" in page
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(f"ws://127.0.0.1:{port}/ws")
            assert refused.value.status == 503
            await first.close()
            for _ in range(50):
                code, _ = await asyncio.to_thread(status_of, url)
                if code == 200:
                    break
                await asyncio.sleep(0.2)
            assert code == 200
    asyncio.run(browsers())
