"""The page server before a crowd (testing ladder, step 6: hostile browsers), run as a real
`companion display --serve` process with its open-file limit set as `ulimit -n` would: it raises
its soft limit to the hard one, keeps answering /public.json within a second while 1,100 idle
connections are held open under a 1,024-file limit, cuts a connection that never finishes its
headers, tells a connection beyond a cap of busy ones HTTP 503, and logs all that as one summary
line, never a traceback per connection. Loopback only; every socket and process is closed."""
from __future__ import annotations

import resource
import select
import socket
import struct
import subprocess
import sys
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path

import pytest

from tui.web import crowd

from screens_chromium import free_port
from screens_game import game
from screens_helpers import first_answer


class PageServer:
    """`companion display --serve` on a loopback port, with RLIMIT_NOFILE (soft, hard) set before it starts."""

    def __init__(self, folder: Path, files: tuple[int, int], *options: str):
        game(folder / "g.db", "turn1_counted")[0].journal.close()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / "server.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "companion", "display", "--serve", "--journal", str(folder / "g.db"),
                 "--host", "127.0.0.1", "--port", str(self.port), *options],
                stdout=subprocess.PIPE, stderr=log, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, files))
        first_answer(self.url + "/public.json", self.process, wanted=200)     # the view is built
        self.listening = self.process.stdout.readline().decode()

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> str:
        """Stop the server (SIGTERM); its whole log."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.process.stdout.close()
        return self.log()


@pytest.fixture
def start(tmp_path):
    servers = []

    def starting(files, *options):
        servers.append(PageServer(tmp_path, files, *options))
        return servers[-1]
    yield starting
    for server in servers:
        server.stop()


def open_files_of(pid: int) -> tuple[int, int]:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError("no open-file limit in /proc")


def connections(stack: ExitStack, port: int, count: int) -> list[socket.socket]:
    """`count` connections to the server that send nothing, closed when the stack closes."""
    return [stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=5)) for _ in range(count)]


def timed_get(url: str) -> tuple[int, float]:
    began = time.monotonic()
    with urllib.request.urlopen(url, timeout=5) as answer:
        answer.read()
        return answer.status, time.monotonic() - began


def test_the_server_raises_its_soft_open_file_limit_to_the_hard_limit(start):
    server = start((256, 4096))
    assert open_files_of(server.process.pid) == (4096, 4096)
    assert f"at most {crowd.default_cap(4096)} connections" in server.listening


def test_with_1024_files_and_1100_idle_connections_public_json_answers_within_a_second(start):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < 1300:
        pytest.skip("this test process needs 1,300 open files for its 1,100 connections")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    server = start((1024, 1024))
    try:
        with ExitStack() as stack:
            idle = connections(stack, server.port, 1100)
            status, took = timed_get(server.url + "/public.json")
            assert status == 200 and took < 1.0, took
            assert len(idle) == 1100
        log = server.stop()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert "Traceback" not in log and len(log) < 1000, log
    assert "closed idle to make room" in log
    print(f"\n/public.json answered in {1000 * took:.0f} ms beside 1,100 idle connections under a 1,024-file limit; "
          f"the server logged {len(log.splitlines())} line(s), {len(log)} bytes: {log.strip()}")


def test_a_connection_that_never_finishes_its_headers_is_cut_within_seconds(start):
    server = start((1024, 1024))
    with socket.create_connection(("127.0.0.1", server.port), timeout=crowd.HEADERS_WITHIN_S + 5) as slow:
        slow.sendall(b"GET /public.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        began = time.monotonic()
        for _ in range(10):                   # a slowloris: one more byte a second until the server hangs up
            if select.select([slow], [], [], 1.0)[0]:
                break
            slow.sendall(b"a")
        assert time.monotonic() - began < crowd.HEADERS_WITHIN_S + 2
        assert slow.recv(100) == b""
    assert timed_get(server.url + "/public.json")[0] == 200
    log = server.stop()
    assert "Traceback" not in log and "1 cut: no whole request headers within 5 s" in log


def test_beyond_a_cap_of_busy_connections_a_new_one_is_told_503_and_logged_once(start):
    server = start((1024, 1024), "--max-connections", "2")
    with ExitStack() as stack:
        for _ in range(2):                         # two viewers: busy, streaming
            viewer = stack.enter_context(socket.create_connection(("127.0.0.1", server.port), timeout=5))
            viewer.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert viewer.recv(100).startswith(b"HTTP/1.1 200")
        answers = []
        for _ in range(50):
            with socket.create_connection(("127.0.0.1", server.port), timeout=5) as more:
                more.sendall(b"GET /public.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                answers.append(more.recv(1000))
    assert all(a.startswith(b"HTTP/1.1 503") for a in answers)
    assert b"the page server is full: 2 connections are open, its limit (--max-connections 2)" in answers[0]
    log = server.stop()
    assert "Traceback" not in log
    assert [line for line in log.splitlines() if "refused" in line] == [
        line for line in log.splitlines() if "50 refused with 503 (the cap)" in line]
    assert len(log.splitlines()) <= 2, log


def test_the_bench_reports_viewers_held_memory_and_commit_to_last_viewer(capsys):
    from companion.cli import main
    assert main(["bench", "display", "--viewers", "4", "--commits", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    header, row = out[1].split(), out[2].split()
    assert header[:2] == ["viewers", "held"] and "last" in header and row[:2] == ["4", "4"]
    numbers = dict(zip(["viewers", "held", "conn", "idle", "with", "growth", "p50", "p95", "max", "last_p50",
                        "last_max", "missed"], row))
    assert float(numbers["with"]) > 10 and int(numbers["missed"]) == 0
    assert int(numbers["p50"]) <= int(numbers["last_p50"]) <= int(numbers["last_max"]) < 5000


def test_a_viewer_gone_before_its_stream_starts_leaves_no_traceback(start):
    server = start((1024, 1024))
    for _ in range(50):                  # ask for the stream, then reset the connection at once
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as gone:
            gone.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            gone.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert timed_get(server.url + "/public.json")[0] == 200
    log = server.stop()
    assert "Traceback" not in log, log[:2000]
