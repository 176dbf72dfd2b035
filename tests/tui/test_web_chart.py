"""The balance chart of the audience page for 6, 12 and 26 accounts, in headless Chromium at a
1080p projector, a 1366x768 one and a phone. Read back from the page's own layout: every text of
the chart at least 24 px high at 1080p (scaled with the viewport's height; 16 px on the phone),
no two of them overlapping, the leader and the turn's biggest mover labelled, and every account's
latest change shown on the board, readable and inside the screen. On a phone 13 or more accounts
do not fit under the game at that size: the page scrolls, and is checked scrolled down to them.
UPDATE_SNAPSHOTS=1 writes the PNGs to tests/tui/snapshots/web/ (look at them)."""
from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

import pytest

from screens_chromium import chromium
from test_web import CHECKS, SNAPSHOTS, Browser, companion, start_server, wait_shown

SIZES = [(1920, 1080), (1366, 768), (390, 844)]
ACCOUNTS = [6, 12, 26]

pytestmark = pytest.mark.skipif(chromium() is None, reason="chromium is not installed (apt-get install chromium)")

LAYOUT = """(() => {
  const box = (e) => { const r = e.getBoundingClientRect();
                       return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const px = (e) => parseFloat(getComputedStyle(e).fontSize) * (e.getScreenCTM ? e.getScreenCTM().a : 1);
  const texts = [...document.querySelectorAll('#chart text')].map(t => ({
    words: t.textContent, label: t.classList.contains('label'), px: px(t), ...box(t)}));
  const rows = [...document.querySelectorAll('#accounts .account')].map(row => {
    const delta = row.querySelector('.delta');
    return {account: row.dataset.account, change: delta.textContent, px: px(delta), ...box(delta)};
  });
  return {texts, rows, chart: box(document.getElementById('chart')), boards: state.boards.slice(-2)};
})()"""


def overlapping(boxes: list[dict]) -> list[tuple[str, str]]:
    return [(a["words"], b["words"]) for i, a in enumerate(boxes) for b in boxes[i + 1:]
            if min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0.5
            and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0.5]


def smallest(width: int, height: int) -> float:
    """24 px at 1080p, as much less as the screen is lower; 16 px on a phone."""
    return 16 if width < 600 else 24 * height / 1080


def journal_with(accounts: int, folder: Path) -> Path:
    """A demo night of `accounts` players, after the votes of turn 8 are counted."""
    from companion.bingo.demo import demo_script
    script = demo_script(players=accounts, seed=3)
    counted = [i for i, c in enumerate(script) if c["do"] == "close_voting"][7]
    (folder / "night.jsonl").write_text("".join(json.dumps(c) + "\n" for c in script[:counted + 1]))
    journal = folder / "night.db"
    result = companion("replay", str(folder / "night.jsonl"), "--journal", str(journal))
    assert result.returncode == 0, result.stderr
    return journal


@pytest.fixture(scope="module")
def browser():
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(profile)
        try:
            yield browser
        finally:
            browser.close()


@pytest.mark.parametrize("accounts", ACCOUNTS)
def test_the_chart_is_legible(browser, accounts, tmp_path):
    journal = journal_with(accounts, tmp_path)
    server, url = start_server(journal)
    try:
        browser.go(url + "/")
        wait_shown({"journal": journal, "browser": browser})
        problems = []
        for width, height in SIZES:
            browser.size(width, height)
            time.sleep(0.4)                                   # the page lays out and redraws its chart
            scrolls = width < 600 and accounts > 12     # a phone scrolls down to 13 or more accounts
            if scrolls:
                browser.evaluate("document.getElementById('side').scrollIntoView()")
                time.sleep(0.2)
            if os.environ.get("UPDATE_SNAPSHOTS"):
                (SNAPSHOTS / f"chart{accounts}-{width}x{height}.png").write_bytes(browser.screenshot())
            problems += [f"{accounts} accounts at {width}x{height}: {p}"
                         for p in legibility(browser.evaluate(LAYOUT), width, height)]
            problems += [f"{accounts} accounts at {width}x{height}: out of the screen: {p}"
                         for p in ([] if scrolls else browser.evaluate(CHECKS)["overflow"])]
        assert problems == [], "\n".join(problems)
    finally:
        server.terminate()
        server.wait(10)


def legibility(page: dict, width: int, height: int) -> list[str]:
    least = smallest(width, height)
    problems = [f"{t['words']!r} is {t['px']:.1f} px" for t in page["texts"] if t["px"] < least - 0.05]
    problems += [f"{a!r} overlaps {b!r}" for a, b in overlapping(page["texts"])]
    chart = page["chart"]
    problems += [f"{t['words']!r} is outside the chart" for t in page["texts"]
                 if t["left"] < chart["left"] - 1 or t["right"] > chart["right"] + 1
                 or t["top"] < chart["top"] - 1 or t["bottom"] > chart["bottom"] + 1]
    labelled = {t["words"] for t in page["texts"] if t["label"]}
    before, now = ({a["account"]: a["balance"] for a in board["accounts"]} for board in page["boards"])
    leader = max(now, key=now.get)
    mover = max(now, key=lambda a: abs(now[a] - before.get(a, now[a])))
    problems += [f"the {role} {letter} has no label" for role, letter in (("leader", leader), ("mover", mover))
                 if letter not in labelled]
    rows = page["rows"]
    assert sorted(r["account"] for r in rows) == sorted(now)
    problems += [f"{r['account']}'s change {r['change']!r} is {r['px']:.1f} px" for r in rows if r["px"] < least - 0.05]
    problems += [f"{r['account']}'s change shows {r['change']!r}" for r in rows
                 if r["change"] != change_words(now[r["account"]] - before.get(r["account"], now[r["account"]]))]
    problems += [f"{r['account']}'s change is off the screen" for r in rows
                 if r["right"] <= r["left"] or r["top"] < -1 or r["bottom"] > height + 1 or r["right"] > width + 1]
    if chart["top"] < -1 or chart["bottom"] > height + 1 or chart["bottom"] - chart["top"] < 4 * least:
        problems.append(f"the chart is off the screen or too low: {chart}")
    return problems


def change_words(change: int) -> str:
    sign = "▲ +" if change > 0 else "▼ −" if change < 0 else "= ±"
    return f"{sign}{abs(change):,}"
