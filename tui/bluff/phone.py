"""Auction Bluff's private phone pages on the display server (its GameRules.phones): /p/<token>.

A token names one player: "<no>.<generation>.<mac>", the mac an HMAC-SHA256 of the event id, the
player no. and the generation, keyed with the event's secret. Revoking a player's page bumps their
generation in the passes file beside the journal (`<journal>.phones.json`, written only by `companion
print sheets --revoke`; read at every request, so a revocation holds at once): the old token no
longer matches. A page shows only its player's gem, dice held, own dice vote and declaration, and
the public view; an action goes to the game through the open console's door (the one writer),
with a command id, and is refused by the server's clock after [bluff] dice_until / declare_until.

The token leaves the address bar at the first visit: /p/<token> sets it as a cookie (HttpOnly,
SameSite=Strict, Secure over HTTPS, path /p/) and sends the browser on to /p/, so it is not left in
screenshots and history. A browser that arrived from another site (a link in a message) is sent on
by a same-origin page instead of a 303, since SameSite=Strict withholds the cookie all along a
redirect chain that began elsewhere. Anything that is not a well-formed token is 403.
"""
from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import re
import socket
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable

from importlib import resources

from aiohttp import web

from companion.core.words import _
from companion.core.door import door_path, through_door
from companion.core.files import write_atomic

MAC_BYTES = 12                       # 96 bits: guessing another player's page is hopeless
TOKEN = re.compile(r"(?P<no>[0-9]{1,3})\.(?P<generation>[0-9]{1,9})\.[A-Za-z0-9_-]{16}")   # 16: MAC_BYTES in base64
COOKIE = "phone"
COOKIE_MAX_AGE_S = 24 * 3600         # a night; a revoked pass is refused however old its cookie
BODY_WITHIN_S = 5.0                  # an action's body must have arrived by then
NONCE = re.compile(r"[A-Za-z0-9-]{8,40}")
FOLD_WAIT_S = 3.0                    # how long an answer waits for the server to fold its own command
ACTIONS = {"dice": ("faces",), "declare": ("face", "count")}
ASSETS = {"/phone.js": ("phone.js", "text/javascript"), "/phone.css": ("phone.css", "text/css")}


def page_file(name: str) -> bytes:
    """A file of the phone page (phone.html, .js, .css), beside this module."""
    return resources.files(__package__).joinpath(name).read_bytes()


class PassesError(ValueError):
    pass


def token(event_id: str, secret: str, no: int, generation: int) -> str:
    body = f"phone|{event_id}|{no}|{generation}"
    digest = hmac.new(secret.encode("utf-8"), body.encode("utf-8"), hashlib.sha256).digest()[:MAC_BYTES]
    return f"{no}.{generation}.{base64.urlsafe_b64encode(digest).decode('ascii')}"


def passes_path(journal: str | Path) -> Path:
    return Path(f"{journal}.phones.json")


def generations(journal: str | Path) -> dict[int, int]:
    """Each player's current generation (0 when never revoked)."""
    path = passes_path(journal)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise PassesError(f"{path}: cannot read the phone passes ({error})") from None
    table = data.get("generations") if isinstance(data, dict) else None
    if not isinstance(table, dict) or not all(k.isdigit() and type(v) is int for k, v in table.items()):
        raise PassesError(f"{path}: not a phone passes file ({{\"generations\": {{\"<no>\": <int>}}}})")
    return {int(no): n for no, n in table.items()}


def revoke(journal: str | Path, players: list[int]) -> dict[int, int]:
    """Bump the players' generations (their old pages answer 403 from now on); the new generations."""
    table = generations(journal)
    table.update({no: table.get(no, 0) + 1 for no in players})
    path = passes_path(journal)
    text = json.dumps({"generations": {str(no): n for no, n in sorted(table.items())}}, indent=1) + "\n"
    write_atomic(path, text)
    return {no: table[no] for no in players}


def page_url(base: str, event_id: str, secret: str, no: int, journal: str | Path) -> str:
    return f"{base.rstrip('/')}/p/{token(event_id, secret, no, generations(journal).get(no, 0))}"


def private_view(state, no: int) -> dict:
    """What player `no` may see of the open period: their own dice, vote and declaration only."""
    from companion.bluff.decide import holdings
    player, period = state.players[no], state.period
    open_period = period if period is not None and period.result is None else None
    mine = [d for d in open_period.declarations if d.player == no] if open_period else []
    last = mine[-1] if mine else None
    return {"no": no, "name": player.name, "gem": player.gem, "eliminated": player.eliminated,
            "dice": holdings(state, no), "vote": open_period.votes.get(no) if open_period else None,
            "declaration": last and {"face": last.face, "count": last.count, "invalid": last.reason or None}}


@dataclass
class Phone:
    """The phone pages of one Auction Bluff event; clock() is the server's (local) time."""
    event_id: str
    secret: str
    journal: Path
    dice_until: str = "22:00"
    declare_until: str = "23:00"
    clock: Callable[[], datetime] = datetime.now
    follower: object = field(default=None, repr=False)
    headers: dict = field(default_factory=dict, repr=False)

    @classmethod
    def for_event(cls, event, **kwargs) -> "Phone | None":
        if event is None or event.game != "bluff":
            return None
        return cls(event.id, event.secret, Path(event.journal), event.rules.dice_until, event.rules.declare_until,
                   **kwargs)

    def announcement(self) -> str:
        """What the server's first line adds about these pages."""
        return (f"each player's private page at /p/<pass> (`companion print sheets`), dice votes until "
                f"{self.dice_until} and declarations until {self.declare_until} by this machine's clock")

    def player_of(self, text: str) -> int | None:
        """The player a token is for, if it is well formed, genuine and not revoked."""
        shape = TOKEN.fullmatch(text)
        if shape is None:
            return None
        no, generation = int(shape["no"]), int(shape["generation"])
        if generations(self.journal).get(no, 0) != generation:
            return None
        return no if hmac.compare_digest(text, token(self.event_id, self.secret, no, generation)) else None

    def deadlines(self) -> dict:
        now = f"{self.clock():%H:%M}"
        return {"now": now, "dice": {"until": self.dice_until, "open": now < self.dice_until},
                "declare": {"until": self.declare_until, "open": now < self.declare_until}}

    def routes(self, app: web.Application, follower, headers: dict) -> None:
        self.follower, self.headers = follower, headers
        assets = {path: (page_file(name), kind) for path, (name, kind) in ASSETS.items()}
        page = page_file("phone.html")

        async def asset(request):
            body, kind = assets[request.path]
            return web.Response(body=body, content_type=kind, charset="utf-8", headers=headers)

        async def phone_page(request):
            self._player(request)
            return web.Response(body=page, content_type="text/html", charset="utf-8", headers=headers)

        for path in ASSETS:
            app.router.add_get(path, asset)
        app.router.add_get("/p/", phone_page)                     # the pass in the cookie
        app.router.add_get("/p/state.json", self.state_json)
        app.router.add_post("/p/{action:dice|declare}", self.act)
        app.router.add_get("/p/{token}", self.first_visit)         # the pass in the address, from the sheet
        app.router.add_get("/p/{token}/state.json", self.state_json)
        app.router.add_post("/p/{token}/{action:dice|declare}", self.act)

    # --- the handlers ------------------------------------------------------------------------------
    def _player(self, request) -> int:
        """The player of the pass in the address, else in the cookie; 403 when neither is valid."""
        pass_ = request.match_info.get("token") or request.cookies.get(COOKIE)
        if not pass_:
            raise web.HTTPForbidden(text=_("no pass: open this page from the QR code on your sheet"),
                                    headers=self.headers)
        try:
            no = self.player_of(pass_)
        except PassesError as error:
            raise web.HTTPServiceUnavailable(text=str(error), headers=self.headers)
        state = self._state()
        if no is None or (state is not None and no not in state.players):
            raise web.HTTPForbidden(text=_("this page's pass is not valid (revoked, or not of this event)"),
                                    headers=self.headers)
        return no

    async def first_visit(self, request) -> web.Response:
        """The pass moves from the address into a cookie, and the browser on to /p/."""
        self._player(request)
        headers = {**self.headers, "Cache-Control": "no-store"}
        if request.headers.get("Sec-Fetch-Site", "none") in ("none", "same-origin"):
            answer = web.Response(status=303, headers={**headers, "Location": "/p/"})
        else:
            answer = web.Response(body=send_on(), content_type="text/html", charset="utf-8", headers=headers)
        answer.set_cookie(COOKIE, request.match_info["token"], path="/p/", max_age=COOKIE_MAX_AGE_S,
                          httponly=True, samesite="Strict", secure=request.secure)
        return answer

    def _state(self):
        feed, view = self.follower.feed, self.follower.view
        return feed.state if feed is not None and view and view.get("game") == "bluff" else None

    def _json(self, data: dict, status: int = 200) -> web.Response:
        return web.json_response(data, status=status, headers=self.headers,
                                 dumps=lambda v: json.dumps(v, ensure_ascii=False))

    def _view(self, no: int) -> dict:
        state = self._state()
        if state is None:
            return {"waiting": "the game has not started on this journal yet", "deadlines": self.deadlines()}
        return {"me": private_view(state, no), "public": self.follower.view, "deadlines": self.deadlines(),
                "console": console_open(self.journal)}

    async def state_json(self, request) -> web.Response:
        no = self._player(request)
        return self._json(await asyncio.to_thread(self._view, no))

    async def act(self, request) -> web.Response:
        no, action = self._player(request), request.match_info["action"]
        try:
            body = await asyncio.wait_for(request.json(), BODY_WITHIN_S)
        except ValueError:
            return self._json({"status": "refused", "reason": "send one JSON object"}, 400)
        except asyncio.TimeoutError:
            return self._json({"status": "refused", "reason": f"the body did not arrive within {BODY_WITHIN_S:.0f} s"},
                              408)
        problem = body_problem(body, action)
        if problem:
            return self._json({"status": "refused", "reason": problem}, 400)
        window = self.deadlines()[action]
        if not window["open"]:
            what = "dice votes" if action == "dice" else "declarations"
            return self._json({"status": "closed", "reason": f"{what} closed at {window['until']} "
                                                            f"(the server's clock says {self.deadlines()['now']})"}, 409)
        command = {"do": action, "player": no, **{key: body[key] for key in ACTIONS[action]},
                   "id": f"phone-{no}-{body['nonce']}"}
        try:
            outcome = await asyncio.to_thread(lambda: next(through_door(self.journal, [command])))
        except OSError:
            return self._json({"status": "no_console", "reason": "no console is open: ask the dealer"}, 503)
        if outcome.batch is not None:
            await self._folded(outcome.batch)
        return self._json({"status": outcome.status, "reason": outcome.reason, **await asyncio.to_thread(self._view, no)})

    async def _folded(self, batch: int) -> None:
        """Wait (a little) until the follower has read the command's batch, so the answer shows it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + FOLD_WAIT_S
        while (self.follower.feed is None or self.follower.feed.last < batch) and loop.time() < deadline:
            await asyncio.sleep(0.02)


def send_on() -> bytes:
    """The same-origin page that sends a browser arriving from another site on to /p/."""
    return (f'<!DOCTYPE html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=/p/">'
            f'<title>{_("Auction Bluff")}</title><a href="/p/">{_("Open your page")}</a>\n').encode()


def body_problem(body, action: str) -> str | None:
    """Why an action's body is not what the page sends, or None. Only the token names the player."""
    if not isinstance(body, dict):
        return "send one JSON object"
    allowed = {*ACTIONS[action], "nonce"}
    extra = sorted(set(body) - allowed)
    if extra:
        return f"unknown key {extra[0]!r} (only {', '.join(sorted(allowed))})"
    missing = sorted(allowed - set(body))
    if missing:
        return f"missing key {missing[0]!r}"
    if not isinstance(body["nonce"], str) or not NONCE.fullmatch(body["nonce"]):
        return "nonce: 8-40 letters, digits or dashes"
    return None


def console_open(journal: Path) -> bool:
    """Someone listens at the journal's door (a socket file left by a killed console does not count)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(door_path(journal)))
            return True
        except OSError:
            return False

