"""`companion bench display`: the page server under many SSE viewers, on loopback only.

A real `companion display --serve` process follows a journal that this process writes through a
Session (as the console would). For each viewer count, that many /events streams are opened;
then `commits` commands that change the public view are committed 0.4-0.6 s apart, and each
viewer notes when each new view arrived. The latency is that moment minus the moment the
commit returned (one process, one monotonic clock). Memory is the server's resident set
(/proc/PID/status) idle, then with the viewers connected after the commits. Viewers held: those
connected within half the timeout whose stream was still open at the end; the last-viewer time of
a commit is when the last of them had it. The server's CPU time per commit (/proc/PID/stat) is its
own share, apart from the viewers'. A viewer served later than the next commit gets only the newest
view: the views it skipped count as missed. The viewers run in
this process, on the same two cores as the server: the figures include their share. They arrive in
waves of WAVE, each wave connected before the next starts.
Everything is bounded: a viewer count's run stops after `timeout` seconds whatever happens.
"""
from __future__ import annotations

import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from companion import views
from companion.core import games
from companion.core.journal import Journal
from companion.core.session import Session

from .crowd import RESERVED_FILES, raise_open_file_limit
from .server import WORDS, page_files

TARGET_GROWTH_MB = 50
TARGET_P95_S = 1.0
TARGET_PAGE_KB = 300
WAVE = 250                        # viewers that connect at once


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_s(pid: int) -> float:
    """The process's CPU time so far (user + system, /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Viewer:
    """One /events stream: when each view message arrived."""

    def __init__(self):
        self.arrivals: list[float] = []
        self.connected = asyncio.Event()

    async def watch(self, http: aiohttp.ClientSession, url: str) -> None:
        previous = b""
        async with http.get(url + "/events") as stream:
            async for line in stream.content:
                if is_view(line, previous):
                    self.arrivals.append(time.monotonic())
                    self.connected.set()
                previous = line


def is_view(line: bytes, previous: bytes) -> bool:
    """An SSE line that brings a public view: data with no event name (any game's view; the
    boards, the clock and the rest come after their "event: " line)."""
    return line.startswith(b"data: ") and not previous.startswith(b"event: ")


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
        tasks = []
        try:
            began = time.monotonic()
            for wave in range(0, viewers, WAVE):           # a crowd arriving, not one instant's burst
                tasks += [asyncio.create_task(v.watch(http, url)) for v in watching[wave:wave + WAVE]]
                await asyncio.wait([asyncio.create_task(v.connected.wait()) for v in watching[wave:wave + WAVE]],
                                   timeout=max(0.1, began + timeout / 2 - time.monotonic()))
            connect_s = time.monotonic() - began
            cpu_before = cpu_s(pid)
            sent = []
            rng = random.Random(viewers)
            for moment in changing_commands(session, script):
                sent.append(moment)
                if len(sent) == commits:
                    break
                await asyncio.sleep(rng.uniform(0.4, 0.6))
            connected = [v for v in watching if v.connected.is_set()]
            await wait_all(connected, len(sent) + 1, deadline=time.monotonic() + 5)
            loaded, cpu_per_commit = rss_mb(pid), (cpu_s(pid) - cpu_before) / max(1, len(sent))
            held = [v for v, task in zip(watching, tasks) if v.connected.is_set() and not task.done()]
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    if not held:
        raise TimeoutError(f"none of {viewers} viewers stayed connected (connecting waited {timeout / 2:.0f} s)")
    latencies, missed = [], 0
    for viewer in held:
        got = viewer.arrivals[1:]                     # the first is the state on connecting
        missed += max(0, len(sent) - len(got))
        latencies += [arrival - commit for commit, arrival in zip(sent, got)]
    latencies.sort()
    return {"viewers": viewers, "held": len(held), "commits": len(sent), "idle_mb": idle, "loaded_mb": loaded,
            "growth_mb": loaded - idle, "missed": missed, "connect_s": connect_s, "cpu_per_commit": cpu_per_commit,
            **spread(latencies), **last_viewer(held, sent)}


def spread(latencies: list[float]) -> dict:
    if not latencies:
        return {"p50": None, "p95": None, "max": None}
    return {"p50": statistics.median(latencies), "p95": latencies[int(0.95 * (len(latencies) - 1))],
            "max": latencies[-1]}


def last_viewer(held: list[Viewer], sent: list[float]) -> dict:
    """Commit to the last held viewer having it: the median and the worst over the commits."""
    last = [max(v.arrivals[1 + i] for v in held) - commit for i, commit in enumerate(sent)
            if all(len(v.arrivals) > 1 + i for v in held)]
    return {"last_p50": statistics.median(last), "last_max": max(last)} if last else {"last_p50": None, "last_max": None}


async def wait_all(watching: list[Viewer], count: int, deadline: float) -> None:
    while time.monotonic() < deadline and any(len(v.arrivals) < count for v in watching):
        await asyncio.sleep(0.05)


def page_weight(url: str) -> dict:
    """The bytes of a browser's first load of the audience page (its files and its words; no web
    font: the page names the machine's Japanese font), and of a reload, which asks for each file
    again with its ETag (the server sends Cache-Control: no-cache) and gets 304 and no body."""
    import urllib.error
    import urllib.request
    first, again, tags = 0, 0, {}
    for path in (*page_files(), WORDS):
        with urllib.request.urlopen(url + path, timeout=5) as answer:
            first += len(answer.read())
            tags[path] = answer.headers.get("ETag")
    for path, tag in tags.items():
        try:
            with urllib.request.urlopen(urllib.request.Request(url + path, headers={"If-None-Match": tag or ""}),
                                        timeout=5) as answer:
                again += len(answer.read())
        except urllib.error.HTTPError as answer:
            if answer.code != 304:                  # Not Modified: the browser's copy is used
                raise
    return {"page_bytes": first, "reload_bytes": again}


def start_server(journal: Path, port: int, log: Path) -> subprocess.Popen:
    """The page server following `journal`, its stderr in `log` (a pipe nobody reads would stall it)."""
    import urllib.request
    with open(log, "wb") as errors:
        server = subprocess.Popen([sys.executable, "-m", "companion", "display", "--serve", "--journal",
                                   str(journal), "--host", "127.0.0.1", "--port", str(port)],
                                  stdout=subprocess.DEVNULL, stderr=errors)
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


def one_count(viewers: int, commits: int, seed: int, timeout: float, demo) -> dict:
    script = demo(players=6, seed=seed)
    with tempfile.TemporaryDirectory() as folder:
        journal = Path(folder) / "bench.db"
        session = Session(Journal(journal))
        session.submit(script[0])
        port = free_port()
        server = start_server(journal, port, Path(folder) / "server.log")
        try:
            url = f"http://127.0.0.1:{port}"
            time.sleep(1.0)                              # idle: started, first view folded
            result = asyncio.run(asyncio.wait_for(
                measure(url, server.pid, session, script[1:], viewers, commits, timeout), timeout))
            result |= page_weight(url)
            return result
        finally:
            stop(server)
            session.journal.close()
            said = (Path(folder) / "server.log").read_text(errors="replace").splitlines()
            if said:
                print(f"  the server logged {len(said)} lines, the last: {said[-1][:200]}", flush=True)


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(10)


def run(counts: list[int], commits: int, seed: int = 1, timeout: float = 120, demo=None) -> int:
    """demo: the game's demo night (GameRules.demo; default the default game's)."""
    open_files = raise_open_file_limit()
    if open_files < max(counts) + RESERVED_FILES:
        raise OSError(f"this process may open {open_files} files, too few for {max(counts)} viewers (ulimit -n)")
    print(f"companion bench display: {commits} commits that change the public view, 0.4-0.6 s apart; "
          f"viewers on 127.0.0.1; latency from a commit to each viewer, and to the last viewer")
    print(f"{'viewers':>8} {'held':>6} {'conn s':>6} {'idle MB':>8} {'with MB':>8} {'growth':>7} {'p50 ms':>7} "
          f"{'p95 ms':>7} {'max ms':>7} {'last p50':>8} {'last max':>8} {'missed':>6} {'cpu/commit':>10}")
    worst = []
    for viewers in counts:
        r = one_count(viewers, commits, seed, timeout, demo or games.demo())
        print(f"{viewers:>8} {r['held']:>6} {r['connect_s']:>6.1f} {r['idle_mb']:>8.1f} {r['loaded_mb']:>8.1f} "
              f"{r['growth_mb']:>7.1f} {ms(r['p50']):>7} {ms(r['p95']):>7} {ms(r['max']):>7} "
              f"{ms(r['last_p50']):>8} {ms(r['last_max']):>8} {r['missed']:>6} {ms(r['cpu_per_commit']):>8} ms",
              flush=True)
        if viewers <= 300:
            worst.append(r)
    page_kb = r["page_bytes"] / 1024
    print(f"page weight: first load {r['page_bytes']:,} bytes ({len(page_files())} files and {WORDS}; no web font, the page "
          f"names the machine's; target <= {TARGET_PAGE_KB} KB); reload {r['reload_bytes']:,} bytes (304 by ETag)")
    met = page_kb <= TARGET_PAGE_KB and r["reload_bytes"] == 0 and all(r["growth_mb"] <= TARGET_GROWTH_MB and r["p95"] is not None
                                            and r["p95"] <= TARGET_P95_S and not r["missed"]
                                            and r["held"] == r["viewers"] for r in worst)
    print(f"targets (up to 300 viewers: all held, growth <= {TARGET_GROWTH_MB} MB, p95 <= {TARGET_P95_S:.0f} s, "
          f"none missed; page <= {TARGET_PAGE_KB} KB): {'met' if met else 'NOT met'}")
    return 0 if met else 1


def ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{1000 * seconds:.0f}"
