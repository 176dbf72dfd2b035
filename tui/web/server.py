"""One aiohttp server for every browser: the page, /public.json and /events (SSE).

A single task polls the journal's batch count every `poll` seconds (reading it in a thread, so a
writer's commit that makes the read-only journal retry never stalls the server) and folds what is
new. When what the audience sees changes, the SSE message is encoded once and every open
/events stream is sent those same bytes. Only GET (and HEAD) is answered: the page cannot act on
the game (an Auction Bluff event's private phone pages, /p/..., tui/bluff/phone.py, post a player's
own commands to the open console's door: the console stays the one writer). The page's words come from /words.json. Everything shown comes from views.public (the same JSON as `companion status --public
--json`); beside it travel only the voting deadline and the public boards announced so far.
A view that raises on a state nobody foresaw, in the follower or in a request, is one line in
the log (the same failure again is not repeated, tui/failures.py): the follower keeps the last
view it built, a request gets a 500.
"""
from __future__ import annotations

import asyncio
import hashlib
import html
import importlib
import json
import logging
import signal
import sqlite3
import ssl
import threading
import time
from importlib import resources
from pathlib import Path

from aiohttp import web

from companion import views
from companion.core import games, words
from companion.core.journal import Journal, JournalError

from ..failures import Once
from ..feed import Feed
from . import crowd

log = logging.getLogger("companion.web")

KEEP_ALIVE_S = 15.0
POLL_S = 0.2
PAGE = {"/": ("index.html", "text/html"), "/page.css": ("page.css", "text/css"),
        "/words.js": ("words.js", "text/javascript"), "/page.js": ("page.js", "text/javascript")}   # the shared page (each game's part: GameRules.page)
PARTS = {".css": ('<link rel="stylesheet" href="/{}">', "text/css"), ".js": ('<script src="/{}" defer></script>', "text/javascript")}
MARKUP = ".html"                  # a game's markup: written into the page's body, not served alone
GAMES_MARK = "<!-- games -->"     # where index.html takes each game's styles and scripts (GameRules.page)
MARKUP_MARK = "<!-- markup -->"   # where it takes each game's markup (its script shows it when its game runs)
TITLE_MARK = "<!-- title -->"     # where it takes the running game's title
# npm mqtt 5.16.0's browser bundle (dist/mqtt.min.js, 342 KB; MIT: mqtt.min.js.LICENSE.txt): only /?mqtt= loads it
ASSETS = {"/mqtt.min.js": ("mqtt.min.js", "text/javascript")}
WORDS = "/words.json"             # what page.js loads first: the words, made in make_app
MQTT_POLL_S = 0.05        # polled faster when publishing: a change is on the broker within 100 ms
HEADERS = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "Content-Security-Policy": "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
                                      "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"}


def asset(name: str) -> bytes:
    return resources.files(__package__).joinpath(name).read_bytes()


def page_files() -> dict[str, tuple[str, str]]:
    """The page's files: the default page's and each game's styles and scripts (GameRules.page)."""
    return PAGE | {f"/{name}": (name, PARTS[Path(name).suffix][1]) for game in games.GAMES.values()
                   for name in game.page if not name.endswith(MARKUP)}


def index_page(title: str) -> bytes:
    """index.html titled so, with each game's styles and scripts (a line a game) and markup."""
    parts = ["".join(PARTS[Path(name).suffix][0].format(name) for name in game.page if not name.endswith(MARKUP))
             for game in games.GAMES.values() if game.page]
    markup = [asset(name).decode() for game in games.GAMES.values() for name in game.page if name.endswith(MARKUP)]
    page = asset("index.html").decode().replace(GAMES_MARK, "\n  ".join(parts))
    return page.replace(MARKUP_MARK, "".join(markup).rstrip()).replace(TITLE_MARK, html.escape(title)).encode()


def titles() -> dict[str, str]:
    """Each game's title in the page's language(s), by its name: the page shows the running game's."""
    return {name: game.heading(words.chosen()) for name, game in games.GAMES.items()}


def entity_tag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:20] + '"'


def revalidated(request: web.Request, tag: str) -> bool:
    """The browser holds this version (If-None-Match): Cache-Control no-cache makes it ask each load."""
    held = [part.strip().removeprefix("W/") for part in request.headers.get("If-None-Match", "").split(",")]
    return tag in held or "*" in held


def sse(data, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n".encode()


class Boards:
    """The account boards announced so far, each with its turn: what the page's chart draws.
    Built from public views only; empty whenever the view itself shows no board (after the
    results, unless the event reveals accounts), so the chart never says more than the view."""

    def __init__(self):
        self.seen: list[dict] = []

    def update(self, view: dict) -> None:
        if "accounts" not in view:                                   # a game without account boards
            return
        board, turn = view["accounts"], view["turn"]
        while self.seen and self.seen[-1]["turn"] > turn:          # undone back past an announcement
            self.seen.pop()
        if board and (not self.seen or self.seen[-1]["accounts"] != board):
            if self.seen and self.seen[-1]["turn"] == turn:
                self.seen.pop()                                     # re-announced within the turn
            self.seen.append({"turn": turn, "accounts": board})

    def shown(self, view: dict) -> list[dict]:
        return self.seen if view.get("accounts") else []


class BoardFeed(Feed):
    """A Feed that also notes the public board after every batch it folds, so a server started
    late in the night still charts every announcement."""

    def __init__(self, journal: Journal, boards: Boards):
        super().__init__(journal)
        self.boards = boards

    def _track(self, batch) -> None:
        super()._track(batch)
        self.boards.update(views.public(self.state))


class Follower:
    """Follows the journal and keeps the current SSE message, encoded once per change."""

    def __init__(self, journal: Path, poll: float = POLL_S, publisher=None):
        self.path, self.poll, self.publisher = Path(journal), poll, publisher
        self.feed: Feed | None = None
        self.view: dict | None = None
        self.game: str | None = None         # the name of the journal's game, once read
        self.waiting = "waiting for the journal"
        self.message = sse({"waiting": self.waiting}, "waiting")
        self.batch = 0                       # the last batch folded (for the bench)
        self.version = 0                     # counts the changes of `message`
        self.changed = asyncio.Event()       # set, then replaced, at each change
        self.boards = Boards()
        self.failures = Once(log)            # the server's one failure boundary (requests too: make_app)
        # Held while a thread reads the journal: cancelling run() does not stop that thread, and
        # closing the connection under it crashes SQLite.
        self.reading = threading.Lock()

    def _read(self) -> tuple[dict, float | None] | None:
        with self.reading:
            return self._read_new()

    def _read_new(self) -> tuple[dict, float | None] | None:
        """In a thread: fold new batches; the view and deadline when there were any (or at first)."""
        if self.feed is None:
            self.boards = Boards()
            self.feed = BoardFeed(Journal(self.path, readonly=True), self.boards)
        elif self.feed.journal.count() == self.feed.last:
            return None
        fresh = self.feed.poll() or self.view is None
        return (views.public(self.feed.state), self.feed.deadline()) if fresh else None

    async def run(self) -> None:
        shown = None
        while True:
            try:
                read = await asyncio.to_thread(self._read)
            except (JournalError, sqlite3.Error, OSError) as error:
                self._drop_feed()
                self._publish_waiting(f"waiting for the journal: {error}")
                shown = None
                await asyncio.sleep(1)
                continue
            except Exception as error:             # a view that chokes on this state: the last one stays
                self.failures("building the audience view", error)
                read = None
            if read is not None and read != shown:
                shown = read
                self._publish(*read)
            await asyncio.sleep(self.poll)

    def _drop_feed(self) -> None:
        with self.reading:
            if self.feed is not None:
                self.feed.journal.close()
            self.feed, self.view, self.game = None, None, None

    def _publish(self, view: dict, deadline: float | None) -> None:
        self.failures.recovered()
        self.view, self.batch, self.game = view, self.feed.last, self.feed.game.rules.name
        self.message = (sse(self.boards.shown(view), "boards") + sse({"deadline": deadline}, "clock")
                        + sse(view))
        if self.publisher is not None:
            self.publisher.publish(json.dumps(view, ensure_ascii=False, separators=(",", ":")).encode())
        self._wake()

    def _publish_waiting(self, reason: str) -> None:
        if reason != self.waiting or self.view is not None:
            self.waiting, self.message = reason, sse({"waiting": reason}, "waiting")
            self._wake()

    def _wake(self) -> None:
        self.version += 1
        self.nudge()

    def nudge(self) -> None:
        """Wake every stream: those whose version is current send a keep-alive comment."""
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()

    async def keep_alive(self, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            self.nudge()


@web.middleware
async def read_only(request: web.Request, handler):
    if request.method not in ("GET", "HEAD") and not request.path.startswith("/p/"):   # /p/: phone.py's pages
        raise web.HTTPMethodNotAllowed(request.method, ["GET", "HEAD"], headers={"Allow": "GET, HEAD"})
    return await handler(request)


def answering(follower: Follower):
    """The middleware of the failure boundary: a handler that raises is one line in the log (the
    route's pattern, never the address: a phone's pass is in it) and a 500."""
    @web.middleware
    async def boundary(request: web.Request, handler):
        try:
            return await handler(request)
        except web.HTTPException:
            raise
        except Exception as error:
            route = request.match_info.route.resource
            follower.failures(f"{request.method} {route.canonical if route else 'a request'}", error)
            return web.Response(status=500, text="this could not be answered: the failure is in the server's log",
                                headers=HEADERS)
    return boundary


def make_app(journal: Path, poll: float = POLL_S, keep_alive: float = KEEP_ALIVE_S,
             publisher=None, phone=None) -> web.Application:
    """publisher: a tui.web.mqtt.Publisher (not yet started) that each new view also goes to;
    phone: a game's private phone pages (its GameRules.phones' Phone: Auction Bluff's,
    tui/bluff/phone.py), served beside the audience page."""
    follower = Follower(journal, poll, publisher)
    app = web.Application(middlewares=[read_only, answering(follower)])
    files = {**page_files(), **ASSETS}
    pages = {path: (asset(name), kind) for path, (name, kind) in files.items()}
    # The page's words in the event's [display] language (companion/core/words.py), fixed for the process.
    pages[WORDS] = (json.dumps({"language": words.chosen(), "words": words.every_word(), "titles": titles(),
                                "default_game": games.DEFAULT}, ensure_ascii=False).encode(), "application/json")
    pages = {path: (body, kind, entity_tag(body)) for path, (body, kind) in pages.items()}
    titled = {name: index_page(title) for name, title in titles().items()}     # the page, by the game running
    titled = {name: (body, "text/html", entity_tag(body)) for name, body in titled.items()}

    def served(path: str) -> tuple[bytes, str, str]:
        """A file of the page; the page itself titled for the running game (the default one until
        the journal names it)."""
        if path != "/":
            return pages[path]
        return titled.get(follower.game, titled[games.DEFAULT])

    async def page(request: web.Request) -> web.Response:
        """A file of the page, with its ETag: a reload sends 304 and no body."""
        body, kind, tag = served(request.path)
        if revalidated(request, tag):
            return web.Response(status=304, headers={**HEADERS, "ETag": tag})
        return web.Response(body=body, content_type=kind, charset="utf-8", headers={**HEADERS, "ETag": tag})

    async def public_json(request: web.Request) -> web.Response:
        if follower.view is None:
            return web.json_response({"waiting": follower.waiting}, status=503, headers=HEADERS)
        return web.json_response(follower.view, headers=HEADERS,
                                 dumps=lambda v: json.dumps(v, ensure_ascii=False))

    async def events(request: web.Request) -> web.StreamResponse:
        stream = web.StreamResponse(headers={**HEADERS, "Content-Type": "text/event-stream",
                                             "Cache-Control": "no-store", "X-Accel-Buffering": "no"})
        try:
            await stream.prepare(request)            # raises when the viewer has already gone
            sent = follower.version
            await stream.write(b"retry: 2000\n" + sse({"now": time.time()}, "now") + follower.message)
            while True:
                if sent != follower.version:         # changed while the last write waited
                    sent = follower.version
                    await stream.write(follower.message)
                    continue
                await follower.changed.wait()         # no timer per viewer: follower.keep_alive wakes them all
                if sent == follower.version:
                    await stream.write(b": keep-alive\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        return stream

    for path in pages:
        app.router.add_get(path, page)
    app.router.add_get("/public.json", public_json)
    app.router.add_get("/events", events)
    if phone is not None:
        phone.routes(app, follower, HEADERS)

    async def start_following(app: web.Application):
        if publisher is not None:
            publisher.start()
        tasks = [asyncio.create_task(follower.run()), asyncio.create_task(follower.keep_alive(keep_alive))]
        yield
        for task in tasks:
            task.cancel()
        follower._drop_feed()
        if publisher is not None:
            publisher.close()

    app.cleanup_ctx.append(start_following)
    return app


def serve(journal: Path, host: str, port: int, mqtt: str | None = None, event_id: str | None = None,
          event=None, tls: ssl.SSLContext | None = None, max_connections: int | None = None) -> int:
    """Raises OSError when the address cannot be used (port taken, no such interface), ValueError
    for a bad [publish] mqtt URL. mqtt: the event file's [publish] mqtt, publishing to
    plunder/<event_id>/public. event: the event file; an Auction Bluff event's phone pages are served too.
    tls: serve HTTPS with this context. max_connections: the cap on open connections (default: from
    the open-file limit, raised first; tui/web/crowd.py)."""
    publisher = None
    cap = max_connections or crowd.default_cap(crowd.raise_open_file_limit())
    scheme = "https" if tls else "http"
    listening = (f"companion: the audience page on {scheme}://{host}:{port}/ (following {journal}; "
                 f"at most {cap} connections)")
    if mqtt:
        from .mqtt import Publisher, topic_for
        publisher = Publisher(mqtt, topic_for(event_id))
        listening += f"; publishing to {publisher.url} topic {publisher.topic}"
    phones = games.rules(event.game).phones if event is not None else None
    phone = importlib.import_module(phones).Phone.for_event(event) if phones else None
    if phone is not None:
        listening += f"; {phone.announcement()}"
    app = make_app(journal, MQTT_POLL_S if publisher else POLL_S, publisher=publisher, phone=phone)
    quiet_logging()
    asyncio.run(run_guarded(app, host, port, cap, tls, listening))
    return 0


def quiet_logging() -> None:
    """The server's warnings (one summary line per interval) on stderr as `companion: ...` lines."""
    if not log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("companion: %(message)s"))
        log.addHandler(handler)
        log.propagate = False


def app_runner(app: web.Application) -> web.AppRunner:
    """The page server's runner: idle connections closed after crowd.IDLE_S, and at shutdown the
    open event streams (each waiting for its next change) given a second, not aiohttp's minute."""
    return web.AppRunner(app, keepalive_timeout=crowd.IDLE_S, shutdown_timeout=1)


async def run_guarded(app: web.Application, host: str, port: int, cap: int, tls: ssl.SSLContext | None,
                      listening: str) -> None:
    """Serve `app` behind a crowd.Doorman until SIGINT or SIGTERM."""
    loop = asyncio.get_running_loop()
    runner = app_runner(app)
    doorman = crowd.Doorman(cap)
    app.middlewares.insert(0, doorman.middleware)
    await runner.setup()
    doorman.factory = runner.server
    loop.set_exception_handler(doorman.on_loop_error)
    watching = asyncio.create_task(doorman.watch())
    try:
        server = await loop.create_server(doorman, host, port, ssl=tls, backlog=crowd.BACKLOG,
                                          ssl_handshake_timeout=crowd.HEADERS_WITHIN_S if tls else None)
        stop = asyncio.Event()
        for signal_number in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signal_number, stop.set)
        print(listening, flush=True)
        try:
            await stop.wait()
        finally:
            server.close()            # not wait_closed(): from Python 3.12 it waits for every viewer to leave
    finally:
        watching.cancel()
        await runner.cleanup()
        doorman.report()
