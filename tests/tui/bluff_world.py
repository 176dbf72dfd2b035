"""An Auction Bluff night for the phone-page tests: the server's clock, the display server in a
thread of the test's process, and the dealer's side (the one writer and its console door)."""
from __future__ import annotations

import asyncio
import threading
from datetime import datetime

from aiohttp import web

from companion.core import event_file
from companion.cli import main
from companion.core.journal import Journal
from companion.core.door import Door
from companion.core.session import Session
from tui.bluff import phone as P
from tui.web.server import app_runner, make_app

from screens_chromium import free_port


class Clock:
    """The server's clock, set by the test: a time of day today."""

    def __init__(self, at: str = "21:00"):
        self.at = at

    def __call__(self) -> datetime:
        hour, minute = map(int, self.at.split(":"))
        return datetime.now().replace(hour=hour, minute=minute, second=0, microsecond=0)


class Server:
    """make_app's server on a loopback port, in a thread of this process."""

    def __init__(self, journal, phone: P.Phone):
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.port = free_port()
        self.runner = app_runner(make_app(journal, poll=0.05, phone=phone))
        self.call(self._start())
        self.url = f"http://127.0.0.1:{self.port}"

    def call(self, work):
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(30)

    async def _start(self):
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.port).start()

    def close(self):
        self.call(self.runner.cleanup())
        self.loop.call_soon_threadsafe(self.loop.stop)


class Table:
    """The dealer's side: the one writer session and its console door."""

    def __init__(self, journal):
        self.session = Session(Journal(journal))
        self.door = None

    def open_door(self):
        self.door = Door.for_session(self.session, lambda command, reply: reply(self.session.submit(command)))

    def close_door(self):
        self.door.close()

    def do(self, *commands):
        for command in commands:
            outcome = self.session.submit(command)
            assert outcome.status == "ok", (command, outcome.reason)


def bluff_night(folder) -> tuple:
    """A 3-player Auction Bluff event in `folder` (event.toml), its first period open: (event, table)."""
    assert main(["init", "--game", "bluff", "--players", "3", "--name", "Phone night",
                 "--out", str(folder / "event.toml")]) == 0
    event = event_file.load(folder / "event.toml")
    table = Table(event.journal)
    table.do(event.setup_command(), {"do": "period"})
    return event, table
