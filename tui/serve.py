"""The audience display in any browser on the venue network, with textual-serve.

Each browser gets its own `companion display --journal J` process: only the display
command is ever built here, so the console is never served. The page is ours, not
textual-serve's: it loads nothing from the internet (the font ships with textual-serve)
and, when the session drops (network blip, display process ended, server restarted),
it waits for the server and reloads itself, so a kiosk needs no one to press "Restart".

Each browser costs a process (about 40 MB), so at most `max_viewers` are served at once: one more
gets HTTP 503 and a page saying so, which tries again every few seconds (a kiosk takes the place
of a viewer that left). The server listens on 127.0.0.1 unless told another address.
"""
from __future__ import annotations

import asyncio
import logging
import os
import shlex
import string
import sys
from pathlib import Path

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from companion.core import games, words

from .game_display import SERVER_PID
from .failures import Once

log = logging.getLogger("companion.serve")

PAGE = string.Template("""<!DOCTYPE html>
<html>
<head>
  <meta charset="utf-8">
  <title>$title</title>
  <link rel="preload" href="/static/fonts/RobotoMono-VariableFont_wght.ttf" as="font" type="font/ttf" crossorigin>
  <link rel="stylesheet" href="/static/css/xterm.css">
  <style>
    @font-face {
      font-family: "Roboto Mono";
      src: url("/static/fonts/RobotoMono-VariableFont_wght.ttf") format("truetype");
      font-weight: 100 700;
    }
    html, body { margin: 0; height: 100%; background: #000000; overflow: hidden; }
    #terminal { width: 100vw; height: 100vh; }
    #notice {
      display: none; position: absolute; inset: 0; z-index: 10;
      align-items: center; justify-content: center;
      font: 32px "Roboto Mono", monospace; color: #ffd400; background: #000000;
    }
    body.-closed #notice { display: flex; }
  </style>
  <script src="/static/js/textual.js"></script>
</head>
<body>
  <div id="notice">Reconnecting…</div>
  <div id="terminal" class="textual-terminal"
       data-session-websocket-url="$websocket" data-font-size="$font_size"></div>
  <script>
    // textual.js marks the body "-closed" when the session ends: wait for the server, then reload.
    setInterval(async () => {
      if (!document.body.classList.contains("-closed")) return;
      try {
        const answer = await fetch(location.pathname + "?ping=" + Date.now(), {cache: "no-store"});
        if (answer.ok) location.reload();
      } catch (error) { /* server still down: try again */ }
    }, $retry_ms);
  </script>
</body>
</html>
""")


FULL = string.Template("""<!DOCTYPE html>
<html>
<head><meta charset="utf-8"><meta http-equiv="refresh" content="$retry_s"><title>$title</title></head>
<body style="margin: 0; height: 100vh; display: flex; align-items: center; justify-content: center;
             background: #000000; color: #ffd400; font: 32px monospace; text-align: center;">
  <p>The display already has $viewers viewers, its limit (--max-viewers $viewers).<br>
     This page tries again every $retry_s seconds.</p>
</body>
</html>
""")
MAX_VIEWERS = 4


def display_command(journal: Path) -> str:
    """The one command the server runs per browser: the read-only display. `exec`, so the
    display's parent is the server itself, whose pid it is given (were the server gone before
    the display had started, its parent would already be another process)."""
    return (f"exec env {SERVER_PID}={os.getpid()} {shlex.quote(sys.executable)} -m companion display "
            f"--journal {shlex.quote(str(journal.resolve()))}")


class DisplaySession(AppService):
    """One browser's display process. When the process ends for any reason, the browser's
    connection is closed too, so the page notices and reconnects (textual-serve alone
    closes it only when the app exits cleanly, leaving a frozen picture otherwise)."""

    async def run(self) -> None:
        await super().run()
        await self.remote_close()


class DisplayServer(Server):
    def __init__(self, journal: Path, host: str, port: int, font_size: int = 24, retry_ms: int = 2000,
                 max_viewers: int = MAX_VIEWERS, game: str = games.DEFAULT):
        """game: the journal's (its title heads the page)."""
        super().__init__(display_command(journal), host=host, port=port, title=games.rules(game).heading(words.chosen()))
        self.font_size = font_size
        self.retry_ms = retry_ms
        self.max_viewers = max_viewers
        self.viewers = 0            # browsers with a display process now
        self.failures = Once(log)

    def full(self) -> web.Response | None:
        """HTTP 503 and a page saying why, when every viewer's place is taken."""
        if self.viewers < self.max_viewers:
            return None
        page = FULL.substitute(title=self.title, viewers=self.max_viewers, retry_s=max(1, self.retry_ms // 1000))
        return web.Response(status=503, text=page, content_type="text/html",
                            headers={"Cache-Control": "no-store", "Retry-After": str(max(1, self.retry_ms // 1000))})

    async def handle_index(self, request: web.Request) -> web.Response:
        """The page, with addresses taken from the request: a browser on another machine
        reaches the server by the name it used, whatever --host the server listens on."""
        refused = self.full()
        if refused:
            return refused
        scheme = "wss" if request.secure else "ws"
        page = PAGE.substitute(
            title=self.title, websocket=f"{scheme}://{request.host}/ws",
            font_size=to_int(request.query.get("fontsize", ""), self.font_size), retry_ms=self.retry_ms)
        return web.Response(text=page, content_type="text/html", headers={"Cache-Control": "no-store"})


    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
        refused = self.full()           # two pages loaded at once: the second socket is refused here
        if refused:
            return refused
        self.viewers += 1
        try:
            return await self._serve_viewer(request)
        finally:
            self.viewers -= 1

    async def _serve_viewer(self, request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse(heartbeat=15)     # a silent network drop is noticed too
        await websocket.prepare(request)
        session = DisplaySession(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                                 close=websocket.close, download_manager=self.download_manager, debug=self.debug)
        try:
            await session.start(to_int(request.query.get("width", "80"), 80),
                                to_int(request.query.get("height", "24"), 24))
            await self._process_messages(websocket, session)
        except asyncio.CancelledError:
            pass
        except Exception as error:
            self.failures("a display session", error)
        finally:
            await session.stop()
            await websocket.close()
        return websocket


def serve_display(journal: Path, host: str, port: int, font_size: int = 24, max_viewers: int = MAX_VIEWERS,
                  game: str = games.DEFAULT) -> int:
    """Raises OSError when the address cannot be used (port taken, no such interface)."""
    DisplayServer(journal, host, port, font_size, max_viewers=max_viewers, game=game).serve()
    return 0
