"""Auction Bluff's private phone pages in a real browser (headless Chromium over
DevTools): the display server runs in this process with the test's clock, the game's one writer is
a session behind a real console door (companion.core.door.Door on the journal's .sock). A player's
page sets their dice faces and declares (AB2) through that door; a token cannot read or act for
another player; a vote after [bluff] dice_until and a declaration after declare_until are refused
by the server's clock; a revoked or forged token is 403; with no console open the page says so. The
pass leaves the address bar for an HttpOnly cookie, also when the sheet's link is opened from another
site (where SameSite=Strict withholds the cookie along a plain redirect)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import urllib.request

import pytest

from companion import views
from companion.cli import main
from tui.bluff import phone as P

from bluff_world import Clock, Server, Table, bluff_night
from screens_chromium import chromium
from screens_helpers import assert_speaks, speaking  # noqa: F401 (a fixture)
from test_web import Browser, get

pytestmark = pytest.mark.skipif(chromium() is None, reason="chromium is not installed (apt-get install chromium)")
READY = "document.body.dataset.ready === '1'"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bluff-phone")
    event, table = bluff_night(folder)
    table.open_door()
    clock = Clock()
    server = Server(event.journal, P.Phone.for_event(event, clock=clock))
    browser = Browser(str(folder / "profile"))
    browser.size(390, 844)
    try:
        yield {"event": event, "table": table, "clock": clock, "server": server, "browser": browser,
               "url": server.url, "folder": folder}
    finally:
        browser.close()
        server.close()
        table.close_door()
        table.session.journal.close()


def token_of(world, no: int) -> str:
    event = world["event"]
    return P.page_url("http://x", event.id, event.secret, no, event.journal).rsplit("/", 1)[1]


def post(url: str, body) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null") if error.code != 403 else None


def state_of(world, no: int) -> tuple[int, dict | None]:
    status, body = get(f"{world['url']}/p/{token_of(world, no)}/state.json")
    return status, json.loads(body) if status == 200 else None


def batches(world) -> int:
    return world["table"].session.journal.count()


def open_page(world, no: int) -> Browser:
    browser = world["browser"]
    browser.go(f"{world['url']}/p/{token_of(world, no)}")
    browser.wait(READY)
    return browser


def click_faces(browser, gem: str, faces: list[str]) -> None:
    for die, face in enumerate(faces):
        browser.evaluate(f"document.querySelector('.die[data-gem=\"{gem}\"][data-die=\"{die}\"] "
                         f".face[data-face=\"{face}\"]').click()")


def answered(browser, button: str) -> str:
    browser.evaluate("document.getElementById('answer').removeAttribute('data-status')")
    browser.evaluate(f"document.getElementById('{button}').click()")
    browser.wait("document.getElementById('answer').dataset.status !== undefined")
    return browser.evaluate("document.getElementById('answer').dataset.status + ' ' + "
                            "document.getElementById('answer').textContent")


def test_a_token_reads_and_acts_only_for_its_own_player(world):
    table = world["table"]
    world["clock"].at = "21:00"
    secret_faces = ["5", "5", "4", "4", "3"]
    table.do({"do": "dice", "player": 2, "faces": {"sapphire": secret_faces}})
    status, body = get(f"{world['url']}/p/{token_of(world, 1)}/state.json")
    data = json.loads(body)
    assert status == 200 and set(data) == {"me", "public", "deadlines", "console"}
    assert data["me"]["no"] == 1 and data["public"] == views.public(table.session.state)
    assert "sapphire" not in json.dumps(data["me"]) and '"5", "5", "4"' not in body.decode()
    before = batches(world)
    url1 = f"{world['url']}/p/{token_of(world, 1)}"
    status, answer = post(url1 + "/dice", {"player": 2, "faces": {"sapphire": ["1"] * 5}, "nonce": "a" * 12})
    assert status == 400 and "unknown key 'player'" in answer["reason"]
    status, answer = post(url1 + "/dice", {"faces": {"sapphire": ["1"] * 5}, "nonce": "b" * 12})
    assert status == 200 and answer["status"] == "rejected" and "player 1 holds 5 ruby" in answer["reason"]
    _, generation, mac = token_of(world, 1).split(".")
    event = world["event"]
    forged = [f"2.{generation}.{mac}", f"1.7.{mac}", P.token(event.id, "a guess", 2, 0), "2", "1.0.x"]
    for token in forged:
        assert get(f"{world['url']}/p/{token}")[0] == 403, token
        assert get(f"{world['url']}/p/{token}/state.json")[0] == 403, token
        assert post(f"{world['url']}/p/{token}/dice", {"faces": {"sapphire": ["1"] * 5}, "nonce": "c" * 12})[0] == 403
    assert get(f"{world['url']}/p/{P.token(event.id, event.secret, 9, 0)}")[0] == 403       # no player 9
    assert batches(world) == before and table.session.state.period.votes[2] == {"sapphire": secret_faces}


def test_a_dice_vote_after_dice_until_is_refused_by_the_servers_clock(world):
    table, clock = world["table"], world["clock"]
    before = batches(world)
    url = f"{world['url']}/p/{token_of(world, 3)}"
    clock.at = "22:00"                                        # [bluff] dice_until = "22:00"
    status, answer = post(url + "/dice", {"faces": {"emerald": ["1"] * 5}, "nonce": "d" * 12})
    assert status == 409 and answer["status"] == "closed" and "closed at 22:00" in answer["reason"]
    browser = open_page(world, 3)
    assert "Dice votes closed at 22:00" in browser.evaluate("document.getElementById('notice').textContent")
    assert browser.evaluate("[...document.querySelectorAll('.face')].every(b => b.disabled)")
    assert batches(world) == before and 3 not in table.session.state.period.votes
    clock.at = "21:59"
    assert post(url + "/dice", {"faces": {"emerald": ["1"] * 5}, "nonce": "e" * 12})[1]["status"] == "ok"
    assert table.session.state.period.votes[3] == {"emerald": ["1"] * 5}


def test_a_command_sent_twice_is_journaled_once(world):
    world["clock"].at = "20:00"
    url = f"{world['url']}/p/{token_of(world, 2)}/dice"
    before = batches(world)
    first = post(url, {"faces": {"sapphire": ["2"] * 5}, "nonce": "same-nonce-1"})
    again = post(url, {"faces": {"sapphire": ["2"] * 5}, "nonce": "same-nonce-1"})
    assert first[1]["status"] == again[1]["status"] == "ok" and batches(world) == before + 1


def test_AB2_a_players_page_sets_faces_then_declares_through_the_console_door(world):
    table, clock = world["table"], world["clock"]
    clock.at = "21:30"
    browser = open_page(world, 1)
    assert browser.evaluate("document.getElementById('gem').textContent") == "ルビー · ruby"
    assert browser.evaluate("document.querySelectorAll('.die').length") == 5
    faces = ["1", "1", "2", "3", "★"]
    click_faces(browser, "ruby", faces)
    assert answered(browser, "send-dice").startswith("ok")
    assert table.session.state.period.votes[1] == {"ruby": faces}
    assert browser.evaluate("document.getElementById('my-vote').textContent") == "ルビーの目 1 1 2 3 ★ · ruby 1 1 2 3 ★"
    table.do({"do": "close_dice"})
    browser.go(browser.evaluate("location.href"))
    browser.wait(READY + " && !document.getElementById('send-declare').disabled")
    assert browser.evaluate("document.querySelector('.face').disabled")        # the dice vote is closed
    browser.evaluate("document.getElementById('face').value = '4'; document.getElementById('count').value = '7'")
    assert answered(browser, "send-declare").startswith("ok")
    [declaration] = table.session.state.period.declarations
    assert (declaration.player, declaration.face, declaration.count, declaration.valid) == (1, 4, 7, True)
    assert browser.evaluate("document.getElementById('my-declaration').textContent") == "4 × 7"
    assert "already declared" in answered(browser, "send-declare")             # D6, the game's own refusal


def test_a_declaration_after_declare_until_is_refused(world):
    table, clock = world["table"], world["clock"]
    url = f"{world['url']}/p/{token_of(world, 3)}"
    before = batches(world)
    clock.at = "23:00"                                        # declare_until = "23:00"
    status, answer = post(url + "/declare", {"face": 2, "count": 3, "nonce": "f" * 12})
    assert status == 409 and "declarations closed at 23:00" in answer["reason"] and batches(world) == before
    clock.at = "22:30"
    assert post(url + "/declare", {"face": 2, "count": 3, "nonce": "g" * 12})[1]["status"] == "ok"
    assert [(d.player, d.face, d.count) for d in table.session.state.period.declarations][-1] == (3, 2, 3)


def test_a_revoked_page_is_refused_and_its_new_sheet_works(world, capsys):
    event, folder = world["event"], world["folder"]
    old = token_of(world, 3)
    assert main(["print", "sheets", "--event", str(folder / "event.toml"), "--out", str(folder / "s.pdf"),
                 "--url", world["url"], "--players", "3", "--revoke"]) == 0
    assert "revoked the old pages of player 3" in capsys.readouterr().out
    new = token_of(world, 3)
    assert new != old and P.generations(event.journal)[3] == 1
    assert get(f"{world['url']}/p/{old}")[0] == 403 and get(f"{world['url']}/p/{old}/state.json")[0] == 403
    assert post(f"{world['url']}/p/{old}/declare", {"face": 1, "count": 1, "nonce": "h" * 12})[0] == 403
    assert get(f"{world['url']}/p/{new}/state.json")[0] == 200
    assert get(f"{world['url']}/p/{token_of(world, 1)}/state.json")[0] == 200      # the others keep theirs


def test_with_no_console_open_the_page_says_so_in_one_line(world):
    table = world["table"]
    table.close_door()
    try:
        world["clock"].at = "20:00"
        before = batches(world)
        status, answer = post(f"{world['url']}/p/{token_of(world, 1)}/dice",
                              {"faces": {"ruby": ["1"] * 5}, "nonce": "i" * 12})
        assert status == 503 and answer["reason"] == "no console is open: ask the dealer"
        browser = open_page(world, 1)
        assert browser.evaluate("document.getElementById('notice').textContent") == \
            "卓のコンソールが開いていません · No console is open: ask the dealer"
        assert batches(world) == before
    finally:
        table.open_door()


def test_the_audience_page_is_unchanged_and_still_read_only(world):
    status, body = get(world["url"] + "/public.json")
    assert status == 200 and json.loads(body) == views.public(world["table"].session.state)
    for path in ("/", "/public.json", "/events"):
        request = urllib.request.Request(world["url"] + path, method="POST", data=b"{}")
        try:
            urllib.request.urlopen(request, timeout=5)
            code = 200
        except urllib.error.HTTPError as error:
            code = error.code
        assert code == 405, path


@pytest.mark.skipif(not shutil.which("pdftoppm"), reason="needs poppler-utils (pdftoppm)")
def test_each_sheet_carries_its_players_page_as_a_qr_code(world, tmp_path, capsys):
    import cv2
    import zxingcpp
    out = tmp_path / "sheets.pdf"
    assert main(["print", "sheets", "--event", str(world["folder"] / "event.toml"), "--out", str(out),
                 "--url", world["url"]]) == 0
    assert "3 sheets for players 1, 2, 3" in capsys.readouterr().out
    subprocess.run(["pdftoppm", "-r", "100", "-png", str(out), str(tmp_path / "page")], check=True)
    pages = sorted(tmp_path.glob("page-*.png"))
    assert len(pages) == 3
    for no, page in enumerate(pages, 1):
        [code] = [r.text for r in zxingcpp.read_barcodes(cv2.imread(str(page)))]
        assert code == f"{world['url']}/p/{token_of(world, no)}"
        status, body = get(code + "/state.json")
        assert status == 200 and json.loads(body)["me"]["no"] == no


def test_print_sheets_names_a_bad_option_in_one_line(world, tmp_path, capsys):
    event = str(world["folder"] / "event.toml")
    assert main(["print", "sheets", "--event", event, "--out", str(tmp_path / "s.pdf"), "--url", "phone"]) == 2
    assert "--url 'phone': give the server's address" in capsys.readouterr().err
    assert main(["print", "sheets", "--event", event, "--out", str(tmp_path / "s.pdf"), "--url", "http://h:1",
                 "--players", "8"]) == 2
    assert "there is no player 8" in capsys.readouterr().err
    P.passes_path(world["event"].journal).write_text("{broken", encoding="utf-8")
    try:
        assert main(["print", "sheets", "--event", event, "--out", str(tmp_path / "s.pdf"), "--url", "http://h:1"]) == 1
        assert "cannot read the phone passes" in capsys.readouterr().err
        assert get(f"{world['url']}/p/{token_of_unchecked(world, 1)}/state.json")[0] == 503
    finally:
        P.passes_path(world["event"].journal).unlink()


def token_of_unchecked(world, no: int) -> str:
    event = world["event"]
    return P.token(event.id, event.secret, no, 0)


def test_D8_a_phone_shows_its_players_own_holdings_the_public_part_only_first_owners():
    table = Table(":memory:")
    table.do({"do": "setup", "game": "bluff", "event": "x", "players": [
        {"no": 1, "name": "Aki", "gem": "ruby"}, {"no": 2, "name": "Ben", "gem": "sapphire"}]},
        {"do": "transfer", "from": 1, "to": 2, "gem": "ruby", "count": 2})
    s = table.session.state
    assert P.private_view(s, 2)["dice"] == {"sapphire": 5, "ruby": 2} and P.private_view(s, 1)["dice"] == {"ruby": 3}
    assert [p.get("dice") for p in views.public(s)["players"]] == [None, None]


def test_the_pass_leaves_the_address_bar_for_a_cookie_the_page_cannot_read(world):
    browser = open_page(world, 2)
    assert browser.evaluate("location.pathname") == "/p/"
    assert browser.evaluate("document.getElementById('gem').dataset.gem") == "sapphire"
    assert token_of(world, 2) not in browser.evaluate("location.href + document.cookie")      # HttpOnly


def test_a_link_from_another_site_still_opens_the_players_page(world):
    browser = world["browser"]
    browser.go("about:blank")
    browser.run(browser.tools.call("Network.clearBrowserCookies"))
    other_site = world["url"].replace("127.0.0.1", "localhost")          # another host: another site
    browser.go(other_site + "/")
    browser.wait("document.readyState === 'complete'")
    browser.evaluate(f"location.href = '{world['url']}/p/{token_of(world, 3)}'")
    browser.wait(READY)
    assert browser.evaluate("location.pathname") == "/p/"
    assert browser.evaluate("document.getElementById('gem').dataset.gem") == "emerald"


@pytest.mark.parametrize("language", ["ja", "en", "ja+en"])
def test_the_phone_page_speaks_the_events_language(world, language, speaking):
    """[display] language: every word the phone page shows is the catalogue's, in that language
    (the player's name stays as typed); a closed window's notice too."""
    from companion.core import words
    speaking(language)
    server = Server(world["event"].journal, P.Phone.for_event(world["event"], clock=world["clock"]))
    try:
        world["clock"].at = "23:30"                             # both windows closed: the notice says which
        browser = world["browser"]
        browser.go(f"{server.url}/p/{token_of(world, 1)}")
        browser.wait(READY + " && document.getElementById('players').tBodies[0].rows.length > 0")
        shown = browser.evaluate("document.title + '\\n' + document.body.innerText")
        names = [player.name for player in world["table"].session.state.players.values()]
        assert names[0] in shown
        assert_speaks(language, re.sub("|".join(map(re.escape, names)), "", shown))      # a name is the player's
        for msgid in ("Send faces", "Your vote", "Declare", "The table", "Dice held", "ruby"):
            assert words.say(msgid, language) in shown, msgid
        assert browser.evaluate("document.getElementById('gem').textContent") == words.say("ruby", language)
        closed = {"dice": ("Dice votes closed at {until}", "22:00"),
                  "declare": ("Declarations closed at {until}", "23:00")}[table_phase(world)]
        assert words.say(closed[0], language, until=closed[1]) in shown
    finally:
        server.close()


def table_phase(world) -> str:
    return views.public(world["table"].session.state)["phase"]
