"""The page server before a crowd: open files, a connection cap, slow clients cut, one log line.

At start the process's soft open-file limit is raised to its hard limit, and the cap on open
connections is derived from it (what is left after two bursts of BACKLOG sockets the accept loop may
take and RESERVED_FILES for the journal, the broker, the console door and threads). Every connection goes
through a Doorman: one that has not sent whole request headers within HEADERS_WITHIN_S is cut
(slowloris); at the cap a new connection makes room by closing the longest-idle one, and only when
every connection is busy (viewers streaming, requests in flight) is it told HTTP 503. Refusals,
cuts, evictions and failed accepts (EMFILE) are counted and logged as one line per
SUMMARY_EVERY_S, never a line or a traceback per connection.
"""
from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections import Counter

from aiohttp import web

log = logging.getLogger("companion.web")

HEADERS_WITHIN_S = 5.0        # a new connection must have sent whole request headers by then
IDLE_S = 10.0                 # a keep-alive connection idle this long after its last answer is closed
SUMMARY_EVERY_S = 10.0
BACKLOG = 128                 # the listen queue, and the most sockets one accept burst takes
RESERVED_FILES = 64
NO_LIMIT = 1 << 20            # what "unlimited" (RLIM_INFINITY) becomes


def raise_open_file_limit() -> int:
    """Raise this process's soft RLIMIT_NOFILE to its hard limit; the soft limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = NO_LIMIT if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):       # a kernel's nr_open below an unlimited hard limit
            pass
    return NO_LIMIT if soft == resource.RLIM_INFINITY else soft


def default_cap(open_files: int) -> int:
    """Room for two accept bursts: one burst's sockets may still be open (closed to make room, the
    close not yet done) while the next is accepted."""
    return max(16, open_files - 2 * BACKLOG - RESERVED_FILES)


def refusal(cap: int) -> bytes:
    text = (f"the page server is full: {cap} connections are open, its limit (--max-connections {cap}); "
            f"try again in a moment\n").encode()
    return (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 5\r\n"
            b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(text)) + text


class Visit:
    """One open connection: since when it is idle, how many requests it is in, whether it has sent
    a request's whole headers."""
    __slots__ = ("since", "busy", "asked")

    def __init__(self):
        self.since, self.busy, self.asked = time.monotonic(), 0, False


class Doorman:
    """The server's protocol factory, wrapping aiohttp's (`factory`, set once the runner is set up)."""

    def __init__(self, cap: int):
        self.factory, self.cap = None, cap
        self.open: dict[asyncio.BaseTransport, Visit] = {}
        self.tally: Counter[str] = Counter()

    def __call__(self) -> asyncio.Protocol:
        return Tracked(self, self.factory())

    def admit(self, transport) -> bool:
        if len(self.open) >= self.cap and not self._make_room():
            self.tally["refused with 503 (the cap)"] += 1
            return False
        self.open[transport] = Visit()
        return True

    def asked(self, transport) -> None:
        """The connection has sent a request's whole headers."""
        visit = self.open.get(transport)
        if visit is not None:
            visit.asked = True

    def left(self, transport) -> None:
        self.open.pop(transport, None)

    def _make_room(self) -> bool:
        idle = [(visit.asked, visit.since, transport) for transport, visit in self.open.items() if not visit.busy]
        if not idle:
            return False
        self._close(min(idle, key=lambda found: found[:2])[2], "closed idle to make room")
        return True

    def _close(self, transport, why: str) -> None:
        self.open.pop(transport, None)
        transport.close()
        self.tally[why] += 1

    @web.middleware
    async def middleware(self, request: web.Request, handler):
        visit = self.open.get(request.transport)
        if visit is None:
            return await handler(request)
        visit.busy, visit.asked = visit.busy + 1, True
        try:
            return await handler(request)
        finally:
            visit.busy -= 1
            visit.since = time.monotonic()

    def sweep(self) -> None:
        """Cut every connection that has been open HEADERS_WITHIN_S without sending whole request headers."""
        late = time.monotonic() - HEADERS_WITHIN_S
        for transport in [t for t, visit in self.open.items() if not visit.asked and visit.since < late]:
            self._close(transport, f"cut: no whole request headers within {HEADERS_WITHIN_S:.0f} s")

    def on_loop_error(self, loop: asyncio.AbstractEventLoop, context: dict) -> None:
        """The event loop's error handler: a failed accept (out of open files) is counted, not logged."""
        if context.get("message") == "socket.accept() out of system resource":
            self.tally[f"accept failed ({context.get('exception')})"] += 1
        else:
            loop.default_exception_handler(context)

    def report(self) -> None:
        """Log one line for what happened since the last report, if anything did."""
        if self.tally:
            log.warning(f"page server: {', '.join(f'{n} {what}' for what, n in self.tally.items())} "
                        f"in the last {SUMMARY_EVERY_S:.0f} s ({len(self.open)} open, limit {self.cap})")
            self.tally.clear()

    async def watch(self) -> None:
        """Sweep every second; log the summary every SUMMARY_EVERY_S."""
        next_summary = time.monotonic() + SUMMARY_EVERY_S
        while True:
            await asyncio.sleep(1.0)
            self.sweep()
            if time.monotonic() >= next_summary:
                next_summary += SUMMARY_EVERY_S
                self.report()


class Tracked(asyncio.Protocol):
    """aiohttp's protocol for one connection, seen by the doorman first (refused: a 503 and close)."""

    def __init__(self, doorman: Doorman, handler: asyncio.Protocol):
        self.doorman, self.handler, self.transport, self.admitted = doorman, handler, None, False
        self.tail = b""             # the last bytes received, until the first request's headers are whole

    def connection_made(self, transport) -> None:
        self.transport = transport
        self.admitted = self.doorman.admit(transport)
        if self.admitted:
            self.handler.connection_made(transport)
        else:
            transport.write(refusal(self.doorman.cap))
            transport.close()

    def connection_lost(self, exc) -> None:
        if self.admitted:
            self.doorman.left(self.transport)
            self.handler.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.admitted:
            if self.tail is not None and b"\r\n\r\n" in self.tail + data:     # the blank line ending the headers
                self.tail = None
                self.doorman.asked(self.transport)
            elif self.tail is not None:
                self.tail = data[-3:]
            self.handler.data_received(data)

    def eof_received(self):
        return self.handler.eof_received() if self.admitted else None

    def pause_writing(self) -> None:
        if self.admitted:
            self.handler.pause_writing()

    def resume_writing(self) -> None:
        if self.admitted:
            self.handler.resume_writing()
