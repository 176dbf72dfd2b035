"""The jail card game on the audience page in a real browser (headless Chromium over DevTools): a
jail journal served by `companion display --serve`. The page draws the public view only: the
rows with a gap between groups, the jail with its progress towards both end conditions (J4),
displays, hand sizes and scores (J5); nothing overflows at three sizes.
UPDATE_SNAPSHOTS=1 writes the PNGs to tests/tui/snapshots/jail/ (look at them)."""
from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

import pytest

from companion import views

from screens_chromium import chromium
from screens_jail import commands, table
from test_web import CHECKS, Browser, start_server

SIZES = [(1920, 1080), (390, 844), (1024, 768)]
SNAPSHOTS = Path(__file__).parent / "snapshots" / "jail"
PAGE = """(() => ({
  top: document.getElementById('j-top').innerText, verdict: document.getElementById('j-verdict').innerText,
  rows: [...document.querySelectorAll('#j-lines .jrow')].map(r => [...r.querySelectorAll('.jcard')]
        .map(c => (c.classList.contains('-group') ? '|' : '') + c.textContent).join('')),
  jail: [...document.querySelectorAll('#j-kinds .jcell')].map(c => c.innerText.replace(/\\s+/g, '')),
  progress: [...document.querySelectorAll('.jprogress')].map(p => [p.querySelector('.done').textContent,
             p.className.includes('-near')]),
  players: [...document.querySelectorAll('.jplayer')].map(p => [p.querySelector('.hand').textContent,
            p.querySelector('.shows').innerText.replace(/\\s+/g, ''), p.className]),
  others: ['game', 'voters', 'final'].map(id => getComputedStyle(document.getElementById(id)).display),
}))()"""

pytestmark = pytest.mark.skipif(chromium() is None, reason="chromium is not installed (apt-get install chromium)")


def wait_shown(browser, session, timeout: float = 10) -> None:
    expected = views.public(session.state)
    deadline = time.monotonic() + timeout
    while json.loads(browser.evaluate("JSON.stringify(state.view)") or "null") != expected:
        assert time.monotonic() < deadline, "the page does not show the journal's public view"
        time.sleep(0.05)


def look(browser, step: str) -> list[dict]:
    pages = []
    for width, height in SIZES:
        browser.size(width, height)
        time.sleep(0.3)
        overflow = browser.evaluate(CHECKS)["overflow"]
        assert overflow == [], f"{step} at {width}x{height}: {overflow}"
        if os.environ.get("UPDATE_SNAPSHOTS"):
            (SNAPSHOTS / f"web-{step}-{width}x{height}.png").write_bytes(browser.screenshot())
        pages.append(browser.evaluate(PAGE))
    return pages


def test_the_page_shows_rows_jail_progress_displays_and_scores_from_the_public_view():
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        session, _ = table(folder / "j.db", 20)                # Aki's G 2 has beaten Ben's G 1
        server, url = start_server(folder / "j.db")
        browser = Browser(str(folder / "profile"))
        try:
            browser.go(url + "/")
            wait_shown(browser, session)
            for page in look(browser, "mid-round"):
                assert page["others"] == ["none", "none", "none"]
                assert "ROUND 1 / 3" in page["top"] and "Aki: Refill the row" in page["top"]
                assert page["rows"] == ["AA|F", "DD|EEEEEE|FF", "G|C|G|C|D"]
                assert page["jail"] == ["B6", "C2", "G2"]
                assert page["progress"] == [["1/2", True], ["3/6", False]]
                assert [p[:2] for p in page["players"]] == [["2 in hand", "B×1C×2G×2"], ["3 in hand", "E×2"]]
                assert "-turn" in page["players"][0][2]
            for command in commands()[20:]:
                session.submit(command)
            wait_shown(browser, session)
            for page in look(browser, "round-over"):
                assert page["verdict"] == "Round 1: Aki 30, Ben 6" and page["jail"] == []
                assert [p[:2] for p in page["players"]] == [["2 in hand", "B×1C×2G×2"], ["5 in hand", "E×2"]]
        finally:
            browser.close()
            server.terminate()
            server.wait(10)
            session.journal.close()
