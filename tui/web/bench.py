"""`companion bench display`: the page server under many SSE viewers, on loopback only.

A real `companion display --serve` process follows a journal that this process writes through a
Session (as the console would). For each viewer count, that many /events streams are opened;
then `commits` commands that change the public view are committed 0.4-0.6 s apart, and each
viewer notes when each new view arrived. The latency is that moment minus the moment the
commit returned (one process, one monotonic clock). Memory is the server's resident set
(/proc/PID/status) idle, then with the viewers connected after the commits. The viewers run in
this process, on the same two cores as the server: the figures include their share.
Everything is bounded: a viewer count's run stops after `timeout` seconds whatever happens.
"""
from __future__ import annotations

import asyncio
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from companion import views
from companion.bingo.demo import demo_script
from companion.journal import Journal
from companion.session import Session

from .server import PAGE

TARGET_GROWTH_MB = 50
TARGET_P95_S = 1.0
TARGET_PAGE_KB = 300


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


class Viewer:
    """One /events stream: when each view message arrived."""

    def __init__(self):
        self.arrivals: list[float] = []
        self.connected = asyncio.Event()

    async def watch(self, http: aiohttp.ClientSession, url: str) -> None:
        async with http.get(url + "/events") as stream:
            async for line in stream.content:
                if line.startswith(b"data: {\"turn\""):
                    self.arrivals.append(time.monotonic())
                    self.connected.set()


def changing_commands(session: Session, script: list[dict]):
    """Commit the script's commands one by one; yield the moment each commit that changed the
    public view returned."""
    for command in script:
        before = views.public(session.state)
        outcome = session.submit(command)
        done = time.monotonic()
        if outcome.status == "ok" and views.public(session.state) != before:
            yield done


async def measure(url: str, pid: int, session: Session, script: list[dict], viewers: int, commits: int,
                  timeout: float) -> dict:
    idle = rss_mb(pid)
    watching = [Viewer() for _ in range(viewers)]
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None)) as http:
        tasks = [asyncio.create_task(v.watch(http, url)) for v in watching]
        try:
            await asyncio.wait_for(asyncio.gather(*(v.connected.wait() for v in watching)), timeout / 2)
            connected_s = time.monotonic()
            sent = []
            rng = random.Random(viewers)
            for moment in changing_commands(session, script):
                sent.append(moment)
                if len(sent) == commits:
                    break
                await asyncio.sleep(rng.uniform(0.4, 0.6))
            await wait_all(watching, len(sent) + 1, deadline=time.monotonic() + 5)
            loaded = rss_mb(pid)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    latencies, missed = [], 0
    for viewer in watching:
        got = viewer.arrivals[1:]                     # the first is the state on connecting
        missed += max(0, len(sent) - len(got))
        latencies += [arrival - commit for commit, arrival in zip(sent, got)]
    latencies.sort()
    return {"viewers": viewers, "commits": len(sent), "idle_mb": idle, "loaded_mb": loaded,
            "growth_mb": loaded - idle, "missed": missed, "connect_s": connected_s,
            "p50": statistics.median(latencies), "p95": latencies[int(0.95 * (len(latencies) - 1))],
            "max": latencies[-1]}


async def wait_all(watching: list[Viewer], count: int, deadline: float) -> None:
    while time.monotonic() < deadline and any(len(v.arrivals) < count for v in watching):
        await asyncio.sleep(0.05)


def page_weight(url: str) -> int:
    import urllib.request
    total = 0
    for path in PAGE:
        with urllib.request.urlopen(url + path, timeout=5) as answer:
            total += len(answer.read())
    return total


def start_server(journal: Path, port: int) -> subprocess.Popen:
    import urllib.request
    server = subprocess.Popen([sys.executable, "-m", "companion", "display", "--serve", "--journal", str(journal),
                               "--host", "127.0.0.1", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/public.json", timeout=2):
                return server
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                raise TimeoutError("the page server did not start within 30 s")
            time.sleep(0.2)


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_count(viewers: int, commits: int, seed: int, timeout: float) -> dict:
    script = demo_script(players=6, seed=seed)
    with tempfile.TemporaryDirectory() as folder:
        journal = Path(folder) / "bench.db"
        session = Session(Journal(journal))
        session.submit(script[0])
        port = free_port()
        server = start_server(journal, port)
        try:
            url = f"http://127.0.0.1:{port}"
            time.sleep(1.0)                              # idle: started, first view folded
            result = asyncio.run(asyncio.wait_for(
                measure(url, server.pid, session, script[1:], viewers, commits, timeout), timeout))
            result["page_bytes"] = page_weight(url)
            return result
        finally:
            server.terminate()
            server.wait(10)
            session.journal.close()


def run(counts: list[int], commits: int, seed: int = 1, timeout: float = 120) -> int:
    print(f"companion bench display: {commits} commits that change the public view, 0.4-0.6 s apart; "
          f"viewers on 127.0.0.1")
    print(f"{'viewers':>8} {'idle MB':>8} {'with MB':>8} {'growth':>7} {'p50 ms':>7} {'p95 ms':>7} "
          f"{'max ms':>7} {'missed':>6}")
    worst = []
    for viewers in counts:
        r = one_count(viewers, commits, seed, timeout)
        print(f"{viewers:>8} {r['idle_mb']:>8.1f} {r['loaded_mb']:>8.1f} {r['growth_mb']:>7.1f} "
              f"{1000 * r['p50']:>7.0f} {1000 * r['p95']:>7.0f} {1000 * r['max']:>7.0f} {r['missed']:>6}", flush=True)
        if viewers <= 300:
            worst.append(r)
    page_kb = r["page_bytes"] / 1024
    print(f"page weight: {r['page_bytes']:,} bytes (/, /page.css, /page.js; target <= {TARGET_PAGE_KB} KB)")
    met = (page_kb <= TARGET_PAGE_KB and all(r["growth_mb"] <= TARGET_GROWTH_MB and r["p95"] <= TARGET_P95_S
                                               and not r["missed"] for r in worst))
    print(f"targets (up to 300 viewers: growth <= {TARGET_GROWTH_MB} MB, p95 <= {TARGET_P95_S:.0f} s, none missed; "
          f"page <= {TARGET_PAGE_KB} KB): {'met' if met else 'NOT met'}")
    return 0 if met else 1
