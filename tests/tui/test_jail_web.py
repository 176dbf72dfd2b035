"""The jail card game on the audience page in a real browser (headless Chromium over DevTools): a
jail journal served by `companion display --serve`. The page draws the public view only: the
rows with a gap between groups, the jail with its progress towards both end conditions (J4),
displays, hand sizes and scores (J5); nothing overflows at three sizes.
UPDATE_SNAPSHOTS=1 writes the PNGs to tests/tui/snapshots/jail/ (look at them)."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from companion import views
from companion.core.words import both

from screens_chromium import chromium
from screens_jail import commands, table
from test_web import Browser, start_server, look_at_sizes, wait_for_view

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


def wait_shown(browser, session) -> None:
    wait_for_view(browser, views.public(session.state))


def look(browser, step: str) -> list[dict]:
    return look_at_sizes(browser, step, PAGE, SNAPSHOTS)


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
                assert "ROUND 1 / 3" in page["top"] and "Aki: Refill the row" in page["top"]       # ja+en, the default
                assert "ラウンド 1 / 3" in page["top"] and "Akiの番: 列を補充してください" in page["top"]
                assert page["rows"] == ["AA|F", "DD|EEEEEE|FF", "G|C|G|C|D"]
                assert page["jail"] == ["B6", "C2", "G2"]
                assert page["progress"] == [["1/2", True], ["3/6", False]]
                assert [p[:2] for p in page["players"]] == [[both("{n} in hand", n=2), "B×1C×2G×2"],
                                                            [both("{n} in hand", n=3), "E×2"]]
                assert "-turn" in page["players"][0][2]
            for command in commands()[20:]:
                session.submit(command)
            wait_shown(browser, session)
            for page in look(browser, "round-over"):
                assert page["verdict"] == "ラウンド1: Aki 30, Ben 6\nRound 1: Aki 30, Ben 6" and page["jail"] == []
                assert [p[:2] for p in page["players"]] == [[both("{n} in hand", n=2), "B×1C×2G×2"],
                                                            [both("{n} in hand", n=5), "E×2"]]
        finally:
            browser.close()
            server.terminate()
            server.wait(10)
            session.journal.close()
