"""The audience page in a real browser (headless Chromium over DevTools), against the demo game
replayed into a journal with `companion replay --journal` and carried on with `companion do`,
served by `companion display --serve`. One server and one browser for the whole module; at each
phase and size: nothing overflows the viewport, every announced letter shows, X/Y/Z are at least
12% of the viewport high, nothing secret is in the DOM or any response.
UPDATE_SNAPSHOTS=1 writes the PNGs to tests/tui/snapshots/web/ (look at them)."""
from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import aiohttp
import pytest

from companion.core import words

from screens_chromium import DevTools, _page, chromium, free_port, launch, stop

ROOT = Path(__file__).resolve().parents[2]
DEMO = [json.loads(line) for line in (ROOT / "examples/demo-game.jsonl").read_text().splitlines()
        if line.strip() and not line.startswith("#")]
SIZES = [(1920, 1080), (1366, 768), (390, 844), (1024, 768)]      # the last: a 4:3 projector
SNAPSHOTS = Path(__file__).parent / "snapshots" / "web"
NAMES = [p["name"] for p in DEMO[0]["players"]]

pytestmark = pytest.mark.skipif(chromium() is None, reason="chromium is not installed (apt-get install chromium)")


def index(turn: int, do: str, nth: int = 1) -> int:
    """Where in the demo script the nth `do` command of `turn` is."""
    seen_turn, seen = 0, 0
    for i, command in enumerate(DEMO):
        seen_turn += command["do"] == "begin_turn"
        if seen_turn == turn and command["do"] == do:
            seen += 1
            if seen == nth:
                return i
    raise ValueError(f"no {do} #{nth} in turn {turn}")


def first_draw_one_by_one() -> list[dict]:
    """Turn 1 as the reader sees it: one ball at a time (the script draws all three at once)."""
    return [{"do": "draw_ball", "ball": n} for n in DEMO[index(1, "draw")]["balls"]]


FIRST_DRAW = index(1, "draw")
# phase: the commands to send after the previous phase (the first phase is replayed from a file)
PHASES = {
    "drawing": [*DEMO[:FIRST_DRAW], first_draw_one_by_one()[0]],
    "voting": [*first_draw_one_by_one()[1:], *DEMO[FIRST_DRAW + 1:index(5, "vote", 3) + 1]],
    "counted": DEMO[index(5, "vote", 3) + 1:index(9, "close_voting") + 1],
    "finished": DEMO[index(9, "close_voting") + 1:],
}

CHECKS = """(() => {
  const W = innerWidth, H = innerHeight, out = [];
  for (const e of document.querySelectorAll('body *')) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(e).visibility === 'hidden') continue;
    if (r.left < -1 || r.top < -1 || r.right > W + 1 || r.bottom > H + 1)
      out.push(`${e.tagName}#${e.id}.${e.className.baseVal ?? e.className} at ${r.left|0},${r.top|0}-${r.right|0},${r.bottom|0}`);
    const s = getComputedStyle(e);
    if (s.overflow !== 'visible' && e.namespaceURI.endsWith('xhtml') &&
        (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1))
      out.push(`clipped ${e.tagName}.${e.className} "${e.textContent}"`);
  }
  for (const [box, inner] of [['.pick', '.num'], ['.ball', '.n'], ['.account', '.balance']])
    for (const e of document.querySelectorAll(`${box} ${inner}`)) {
      const r = e.getBoundingClientRect(), p = e.closest(box).getBoundingClientRect();
      if (r.left < p.left - 1 || r.right > p.right + 1 || r.top < p.top - 1 || r.bottom > p.bottom + 1)
        out.push(`${inner} "${e.textContent}" out of its ${box}`);
    }
  const numbers = [...document.querySelectorAll('.pick .num')].filter(e => !e.classList.contains('-none'))
    .map(e => e.getBoundingClientRect().height / H);
  const letters = [...document.querySelectorAll('.account')].filter(e => {
    const r = e.getBoundingClientRect(); return r.width && r.height && r.bottom <= H + 1 && r.right <= W + 1;
  }).map(e => e.dataset.account);
  return {overflow: out, numbers, letters, text: document.body.innerText, html: document.documentElement.outerHTML,
          phase: document.body.dataset.phase, shown: document.body.dataset.shown || '',
          chart: document.querySelectorAll('#chart polyline').length,
          podium: [...document.querySelectorAll('#podium .who')].map(e => e.textContent),
          ranking: [...document.querySelectorAll('#ranking li')].map(e => e.getBoundingClientRect().bottom <= H + 1),
          marks: [...document.querySelectorAll('#ranking li .beats')].map(e => e.textContent),
          beaten: document.getElementById('beaten').textContent};
})()"""


def companion(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=60)


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


class Browser:
    """One headless Chromium and its page for the whole module."""

    def __init__(self, profile: str):
        self.loop = asyncio.new_event_loop()
        port = free_port()
        self.process = launch(f"--user-data-dir={profile}", f"--remote-debugging-port={port}", "about:blank")
        self.run(self._connect(port))

    def run(self, work):
        return self.loop.run_until_complete(asyncio.wait_for(work, 60))

    async def _connect(self, port: int) -> None:
        self.http = aiohttp.ClientSession()
        target = await _page(self.http, port, 30)
        self.ws = await self.http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0)
        self.tools = DevTools(self.ws)
        await self.tools.call("Page.enable")

    def size(self, width: int, height: int) -> None:
        self.run(self.tools.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                                 deviceScaleFactor=1, mobile=width < 600))

    def go(self, url: str) -> None:
        self.run(self.tools.call("Page.navigate", url=url))

    def wait(self, expression: str, timeout: float = 10) -> float:
        """Seconds until `expression` is true in the page."""
        async def waiting():
            start = time.monotonic()
            while not await self._settled(expression):
                if time.monotonic() - start > timeout:
                    raise TimeoutError(expression)
                await asyncio.sleep(0.02)
            return time.monotonic() - start
        return self.run(waiting())

    async def _settled(self, expression: str):
        try:
            return await self.tools.evaluate(expression)
        except RuntimeError as error:        # the page is between two documents: not yet
            if "navigated or closed" in str(error) or "context" in str(error):
                return False
            raise

    def evaluate(self, expression: str):
        return self.run(self.tools.evaluate(expression))

    def screenshot(self) -> bytes:
        return base64.b64decode(self.run(self.tools.call("Page.captureScreenshot", format="png"))["data"])

    def close(self) -> None:
        async def closing():
            await self.ws.close()
            await self.http.close()
        self.run(closing())
        self.loop.close()
        stop(self.process)


@pytest.fixture(scope="module")
def world():
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        journal = folder / "demo.db"
        script = folder / "start.jsonl"
        script.write_text("".join(json.dumps(c) + "\n" for c in PHASES["drawing"]))
        result = companion("replay", str(script), "--journal", str(journal))
        assert result.returncode == 0, result.stderr
        server, url = start_server(journal)
        browser = Browser(str(folder / "profile"))
        browser.go(url + "/")
        browser.wait("document.body.dataset.shown !== undefined")
        wait_shown({"journal": journal, "browser": browser})
        world = {"journal": journal, "url": url, "browser": browser, "server": server}
        try:
            yield world
        finally:
            browser.close()
            world["server"].terminate()     # the restart test starts a new one in its place
            world["server"].wait(10)


GAME_SIZES = [(1920, 1080), (390, 844), (1024, 768)]   # another game's page: a screen, a phone, a projector


def wait_for_view(browser: "Browser", view: dict, timeout: float = 10) -> None:
    """Until the page holds `view` (the journal's public view)."""
    deadline = time.monotonic() + timeout
    while json.loads(browser.evaluate("JSON.stringify(state.view)") or "null") != view:
        assert time.monotonic() < deadline, "the page does not show the journal's public view"
        time.sleep(0.05)


def look_at_sizes(browser: "Browser", step: str, page_js: str, snapshots: Path) -> list[dict]:
    """The page at each of GAME_SIZES: nothing out of the viewport or clipped; what page_js reads
    of it (UPDATE_SNAPSHOTS=1 also keeps a picture of each in `snapshots`)."""
    pages = []
    for width, height in GAME_SIZES:
        browser.size(width, height)
        time.sleep(0.3)
        overflow = browser.evaluate(CHECKS)["overflow"]
        assert overflow == [], f"{step} at {width}x{height}: {overflow}"
        if os.environ.get("UPDATE_SNAPSHOTS"):
            (snapshots / f"web-{step}-{width}x{height}.png").write_bytes(browser.screenshot())
        pages.append(browser.evaluate(page_js))
    return pages


def start_server(journal: Path, port: int | None = None) -> tuple[subprocess.Popen, str]:
    port = port or free_port()
    server = subprocess.Popen([sys.executable, "-m", "companion", "display", "--serve", "--journal", str(journal),
                               "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while get_quietly(url + "/public.json") != 200:
        assert time.monotonic() < deadline and server.poll() is None, "the page server did not start"
        time.sleep(0.1)
    return server, url


def get_quietly(url: str) -> int | None:
    try:
        return get(url)[0]
    except OSError:
        return None


def advance(world, phase: str) -> None:
    """The journal at `phase`: the demo's next commands sent with `companion do`; then wait
    until the page shows what `companion status --public --json` says."""
    result = companion("do", "--journal", str(world["journal"]), *[json.dumps(c) for c in PHASES[phase]])
    assert result.returncode == 0, result.stdout + result.stderr
    wait_shown(world)


def wait_shown(world, timeout: float = 10) -> None:
    status = json.loads(companion("status", "--journal", str(world["journal"]), "--public", "--json").stdout)
    deadline = time.monotonic() + timeout
    while json.loads(world["browser"].evaluate("JSON.stringify(state.view)") or "null") != status:
        assert time.monotonic() < deadline, "the page does not show the journal's public view"
        time.sleep(0.05)


def public(world) -> dict:
    return json.loads(get(world["url"] + "/public.json")[1])


def secrets_in(text: str, phase: str) -> list[str]:
    found = [word for word in ('"players"', '"card"', '"robber"', '"victim"', '"serial"', '"items"', '"owner"',
                               "V0101", "R0") if word in text]
    if phase != "finished":
        found += [name for name in NAMES if name in text]
    return found


@pytest.mark.parametrize("phase", list(PHASES))
def test_the_page_at_every_size(world, phase):
    advance_to(world, phase)
    view, browser = public(world), world["browser"]
    assert json.loads(companion("status", "--journal", str(world["journal"]), "--public", "--json").stdout) == view
    letters = sorted(a["account"] for a in view["accounts"])
    for width, height in SIZES:
        browser.size(width, height)
        time.sleep(0.3)                                   # the page lays out and redraws its chart
        page = browser.evaluate(CHECKS)
        if os.environ.get("UPDATE_SNAPSHOTS"):
            (SNAPSHOTS / f"{phase}-{width}x{height}.png").write_bytes(browser.screenshot())
        where = f"{phase} at {width}x{height}"
        assert page["overflow"] == [], where
        assert sorted(page["letters"]) == letters, where
        assert not secrets_in(page["html"], phase), where
        if phase == "finished":
            by_rank = {r["rank"]: r["name"] for r in view["ranking"]}
            assert page["podium"] == [by_rank[2], by_rank[1], by_rank[3]], where
            assert len(page["ranking"]) == len(by_rank) and all(page["ranking"]), where
            beats = [row["beats_secretariat"] for row in view["ranking"]]      # R2: the demo has one in debt
            assert page["marks"] == ["★" if b else "" for b in beats] and not all(beats), where
            assert page["beaten"] == "★ " + words.both("beat the secretariat (no debt): {beaten} of {players}",
                                                       beaten=sum(beats), players=len(beats)), where
        else:
            drawn = len(view["balls"]["drawn"]) or len(view["tally"]["options"] if view["tally"] else [])
            assert len(page["numbers"]) == drawn and min(page["numbers"], default=1) >= 0.12, (where, page["numbers"])
        if phase in ("voting", "counted"):
            assert page["chart"] == len(letters), where
        bars = browser.evaluate("[...document.querySelectorAll('#bars .bar')].map(b => b.innerText.split(/\\s+/))")
        if phase == "voting":
            assert bars == [], where                      # never a count while voting is open
        if phase == "counted":
            tally = view["tally"]
            assert [b[-1].rstrip("✓").strip() or b[-2] for b in bars] == \
                [str(tally["votes"].get(s, 0)) for s in "XYZ" if s in tally["options"]], where


def test_every_response_is_public_and_read_only(world):
    url = world["url"]
    for path in ("/", "/page.css", "/page.js", "/public.json"):
        status, body = get(url + path)
        assert status == 200, path
        assert not secrets_in(body.decode(), world.get("reached", "drawing")), path
        assert b"//" not in body.replace(b"http://www.w3.org/2000/svg", b"").replace(b"// ", b"") or path != "/", path
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        for path in ("/", "/public.json", "/events", "/do"):
            request = urllib.request.Request(url + path, method=method, data=b"{}")
            assert get_request(request) == 405, (method, path)


def get_request(request) -> int:
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def test_a_viewer_that_connects_gets_the_current_state_at_once(world):
    with urllib.request.urlopen(world["url"] + "/events", timeout=5) as stream:
        lines = []
        while not (lines and lines[-1].startswith("data: {\"turn\"")):
            lines.append(stream.readline().decode().rstrip("\n"))
    assert json.loads(lines[-1][len("data: "):]) == public(world)


def test_a_command_reaches_the_open_page_within_a_second(world):
    advance_to(world, "finished")
    browser = world["browser"]
    assert browser.evaluate("document.body.classList.contains('-finished')")
    result = companion("do", "--journal", str(world["journal"]), '{"do":"undo"}')
    assert result.returncode == 0, result.stderr
    seconds = browser.wait("!document.body.classList.contains('-finished')", timeout=5)
    assert seconds < 1.0
    assert not public(world).get("ranking")


def test_the_page_comes_back_by_itself_when_the_server_restarts(world):
    browser, journal, port = world["browser"], world["journal"], world["url"].rsplit(":", 1)[1]
    world["server"].terminate()
    world["server"].wait(10)
    browser.wait("document.body.classList.contains('-waiting')")           # "Reconnecting…"
    result = companion("do", "--journal", str(journal), '{"do":"undo"}')   # changed while it was away
    assert result.returncode == 0, result.stderr
    world["server"], _ = start_server(journal, int(port))
    browser.wait("!document.body.classList.contains('-waiting')", timeout=15)
    wait_shown(world)


def test_twelve_accounts_all_show_with_the_chart_at_every_size(world, tmp_path):
    """The largest table the issue names (accounts J, K and L were cut off by the old page)."""
    from companion.bingo.demo import demo_script
    script = demo_script(players=12, seed=3)
    counted = [i for i, c in enumerate(script) if c["do"] == "close_voting"][7]
    (tmp_path / "twelve.jsonl").write_text("".join(json.dumps(c) + "\n" for c in script[:counted + 1]))
    journal = tmp_path / "twelve.db"
    assert companion("replay", str(tmp_path / "twelve.jsonl"), "--journal", str(journal)).returncode == 0
    server, url = start_server(journal)
    browser = world["browser"]
    try:
        browser.go(url + "/")
        wait_shown({"journal": journal, "browser": browser})
        for width, height in SIZES:
            browser.size(width, height)
            time.sleep(0.3)
            page = browser.evaluate(CHECKS)
            where = f"12 players at {width}x{height}"
            assert page["overflow"] == [], where
            assert page["letters"] == list("ABCDEFGHIJKL"), where
            assert page["chart"] == 12 and min(page["numbers"]) >= 0.12, where
            if os.environ.get("UPDATE_SNAPSHOTS"):
                (SNAPSHOTS / f"twelve-{width}x{height}.png").write_bytes(browser.screenshot())
    finally:
        server.terminate()
        server.wait(10)


def advance_to(world, phase: str) -> None:
    order = list(PHASES)
    reached = world.setdefault("reached", "drawing")
    for later in order[order.index(reached) + 1:order.index(phase) + 1]:
        advance(world, later)
        world["reached"] = later
