"""Auction Bluff on the audience page in a real browser (headless Chromium over DevTools): a bluff
journal served by `companion display --serve`, one server and one browser for the module. The page
shows what the rulebook announces (D8): during the declarations each valid one, the one that would
be selected now marked; per judged period the declaration selected and the win or elimination
(AB2), not the true count; who owns which gem (AB1); at the end the true counts, the dice held (AB5)
and the results (AB6); never a die's face; nothing overflows at three sizes.
UPDATE_SNAPSHOTS=1 writes the PNGs to tests/tui/snapshots/bluff/ (look at them)."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from companion import views
from companion.core.words import both

from screens_bluff import FACES1, NAMES, night, play
from screens_chromium import chromium
from test_web import Browser, start_server, look_at_sizes, wait_for_view

SNAPSHOTS = Path(__file__).parent / "snapshots" / "bluff"
PAGE = """(() => ({
  text: document.getElementById('bluff').innerText, verdict: document.getElementById('b-verdict').innerText,
  top: document.getElementById('b-top').innerText,
  periods: [...document.querySelectorAll('#b-periods .period')].map(r => [...r.children].map(c => c.textContent)),
  gems: [...document.querySelectorAll('#b-gems .gemrow')].map(r => [...r.children].map(c => c.textContent)),
  declarations: [...document.querySelectorAll('#b-declarations .declaration')].map(r => r.textContent),
  leading: [...document.querySelectorAll('#b-declarations .declaration.-leading')].map(r => r.textContent),
  bingo: getComputedStyle(document.getElementById('game')).display,
}))()"""

pytestmark = pytest.mark.skipif(chromium() is None, reason="chromium is not installed (apt-get install chromium)")


@pytest.mark.slow
def test_one_page_through_a_game(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bluff")
    session, _ = night(folder / "b.db", "declare")
    server, url = start_server(folder / "b.db")
    browser = Browser(str(folder / "profile"))
    try:
        browser.go(url + "/")
        world = {"session": session, "browser": browser}
        declarations(world)
        play(session, "eliminated")
        eliminated(world)
        play(session, "won")
        won(world)
    finally:
        browser.close()
        server.terminate()
        server.wait(10)
        session.journal.close()


def look(world, step: str) -> list[dict]:
    wait_for_view(world["browser"], views.public(world["session"].state))
    return look_at_sizes(world["browser"], step, PAGE, SNAPSHOTS)


def declarations(world) -> None:
    for page in look(world, "declare"):
        assert page["bingo"] == "none" and "Period 1: Declarations" in page["top"] and "★ is wild" in page["top"]
        assert "第1期: 宣言受付中" in page["top"]                       # the page speaks ja+en, the default
        assert page["periods"] == [] and both("No period judged yet") in page["verdict"]
        assert not any(faces in page["text"] for faces in FACES1.values())
        assert "6" not in page["verdict"]                                          # nothing judged yet
        assert page["declarations"] == [f"▶ {NAMES[3]}: 9 × 5", f"{NAMES[1]}: 6 × 4"]   # D8: the open auction
        assert page["leading"] == [f"▶ {NAMES[3]}: 9 × 5"] and "× ★" not in page["text"]
        assert [row[:3] for row in page["gems"]] == [[NAMES[no], both(gem), "–"] for no, gem in      # D8: no holdings
                                                      zip(NAMES, ["ruby", "sapphire", "emerald", "garnet",
                                                                  "amethyst", "diamond"])]


def eliminated(world) -> None:
    for page in look(world, "eliminated"):
        assert page["periods"] == [["1", NAMES[3], "9 × 5", "–", "脱落\nELIMINATED"]]     # D8: not the true count
        assert f"{NAMES[3]} {both('ELIMINATED')}" in page["verdict"] and "true count" not in page["verdict"]
        assert page["gems"][2][0] == f"{NAMES[3]} ({both('out')})" and "× 4" not in page["text"]
        assert page["declarations"] == []


def won(world) -> None:
    for page in look(world, "won"):
        assert page["periods"] == [["1", NAMES[3], "9 × 5", "8", "脱落\nELIMINATED"],
                                   ["2", NAMES[4], "6 × 3", "7", "勝利\nWINS"]]
        assert f"{NAMES[4]} {both('WINS')}" in page["verdict"] and "every garnet die pays its holder" in page["verdict"]
        assert "ガーネットのダイス1個ごとに" in page["verdict"] and "true count 7" in page["verdict"]
        results = {row[0]: row[3] for row in page["gems"]}
        assert results[NAMES[5]] == "+¥300,000,000" and results[NAMES[4]] == "+¥100,000,000"
        assert [results[NAMES[no]] for no in (1, 2, 6)] == ["−¥100,000,000"] * 3
        assert page["gems"][4][2] == "アメジスト5個, ガーネット4個\n5 amethyst, 4 garnet"      # a list in each language
