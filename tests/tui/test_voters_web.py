"""Voters on the audience page in a real browser (headless Chromium over DevTools): a Voters
journal served by `companion display --serve`, one server and one browser for the module. Before
the open the page names who has bet and shows no number (V2); at the open every number, the
unique ones marked (V3), the winner or DOBON (V4), the pot and the ledger; nothing overflows.
UPDATE_SNAPSHOTS=1 writes the PNGs to tests/tui/snapshots/voters/ (look at them)."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from companion import views

from screens_chromium import chromium
from screens_voters import GAME1, GAME2, NAMES, night, play
from test_web import Browser, get, start_server, look_at_sizes, wait_for_view

SNAPSHOTS = Path(__file__).parent / "snapshots" / "voters"
PAGE = """(() => ({
  bets: document.getElementById('v-bets').innerText, verdict: document.getElementById('v-verdict').innerText,
  ledger: document.getElementById('v-ledger').innerText, top: document.getElementById('v-top').innerText,
  cards: [...document.querySelectorAll('#v-bets .vcard')].map(c => [c.dataset.player, c.className,
          c.querySelector('.number').textContent]),
  bingo: getComputedStyle(document.getElementById('game')).display,
}))()"""

pytestmark = pytest.mark.skipif(chromium() is None, reason="chromium is not installed (apt-get install chromium)")


@pytest.fixture(scope="module")
def served():
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        session, _ = night(folder / "v.db", "betting")
        server, url = start_server(folder / "v.db")
        browser = Browser(str(folder / "profile"))
        try:
            browser.go(url + "/")
            world = {"session": session, "browser": browser, "url": url}
            wait_shown(world)
            yield world
        finally:
            browser.close()
            server.terminate()
            server.wait(10)
            session.journal.close()


def wait_shown(world) -> None:
    wait_for_view(world["browser"], views.public(world["session"].state))


def look(world, step: str) -> list[dict]:
    return look_at_sizes(world["browser"], step, PAGE, SNAPSHOTS)


def cards_of(page: dict) -> dict[int, tuple[str, str]]:
    """Player -> (the card's classes, the number it shows)."""
    return {int(no): (kind, number) for no, kind, number in page["cards"]}


def test_before_the_open_the_page_names_the_bettors_and_shows_no_number(served):
    for step in ("betting", "closed"):
        if step != "betting":
            play(served["session"], step)
            wait_shown(served)
        assert "bets" not in json.dumps(json.loads(get(served["url"] + "/public.json")[1])["games"])
        for page in look(served, step):
            assert page["bingo"] == "none" and "GAME 1" in page["top"] and "POT" in page["top"]
            assert not any(ch.isdigit() for ch in page["bets"]), f"{step}: a number shows: {page['bets']!r}"
            assert page["cards"] == [] and NAMES[1] in page["bets"] and NAMES[6] not in page["bets"]  # 6 deals
            assert page["bets"].count("✔") == (3 if step == "betting" else 5)


def test_the_open_shows_every_number_the_unique_ones_and_the_winner(served):
    play(served["session"], "won")
    wait_shown(served)
    for page in look(served, "won"):
        cards = cards_of(page)
        assert {no: int(number) for no, (_, number) in cards.items()} == GAME1
        assert [no for no, (kind, _) in cards.items() if "-unique" in kind] == [2, 4, 5]   # 2, 0 and 3 once
        assert "-winner" in cards[4][0] and f"{NAMES[4]} WINS" in page["verdict"] and "5,000" in page["verdict"]
        assert "+4,000" in page["ledger"]


def test_dobon_and_an_invalid_card(served):
    play(served["session"], "dobon")
    wait_shown(served)
    for page in look(served, "dobon"):
        cards = cards_of(page)
        assert set(cards) == set(GAME2) and "-invalid" in cards[6][0] and cards[6][1] == "✖"
        assert not any("-unique" in kind for kind, _ in cards.values())
        assert "DOBON" in page["verdict"] and NAMES[1] in page["verdict"] and "2,500" in page["verdict"]
