"""`companion report`: the night's report as a PDF and an HTML page for each game, read back (pdftotext,
pdffonts): every font embedded, text 5 mm inside the page, people's text shown literally, the public
report keeping R13's secrets, and one clear line when there is no report to make."""
import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion.bingo.demo import demo_script
from companion.core.journal import Journal
from companion.core.session import Session
from test_printed_pdfs import LONG_NAME, _fonts, _too_near_the_edge

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "companion"))
from journal_games import run  # noqa: E402
from test_night_report import jail_game, script  # noqa: E402
HOSTILE = ['<script>alert("owned")</script>', "$\\frac{1}{0}$ & <b>bold</b> %s {name}", LONG_NAME,
           "ＷＩＤＥ全角の名前をとても長く書いたプレイヤー" * 3]

pytestmark = pytest.mark.skipif(not (shutil.which("pdffonts") and shutil.which("pdftotext")),
                                reason="needs poppler-utils (pdffonts, pdftotext)")


def night(tmp_path, lines: list[dict], game: str = "bingo") -> Path:
    """An event file for the game and, beside it, its journal holding the lines."""
    event = tmp_path / "event.toml"
    assert run("init", "--out", event, "--game", game, "--seed", 1)[0] == 0
    journal = tmp_path / re.search(r'^journal = "([^"]+)"', event.read_text(), re.M).group(1)
    session = Session(Journal(journal))
    for line in lines:
        session.submit(line)
    session.journal.close()
    return event


def report(event: Path, out: Path, *flags) -> None:
    code, said, err = run("report", "--event", event, "--out", out, *flags)
    assert code == 0, err
    assert said.startswith(f"{out}: the ")


def pdf_text(pdf: Path, *options: str) -> str:
    """The PDF's text, its lines as laid out (or with options, e.g. -raw: in the order drawn)."""
    return subprocess.run(["pdftotext", *(options or ["-layout"]), str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout


def page_text(page: Path) -> str:
    """The HTML page's text as a reader sees it: tags dropped, entities read."""
    return html.unescape(re.sub(r"<svg.*?</svg>|<[^>]+>", " ", page.read_text(encoding="utf-8"), flags=re.S))


def printable(pdf: Path) -> None:
    fonts = _fonts(str(pdf))
    assert fonts and all(embedded == "yes" for _, embedded in fonts), fonts
    assert not _too_near_the_edge(str(pdf))


def bingo_lines(players: int = 6, names: list[str] | None = None, reveal: bool = False) -> list[dict]:
    lines = demo_script(players, seed=3)
    for player, name in zip(lines[0]["players"], names or []):
        player["name"] = name
    if reveal:
        lines[0]["reveal_accounts"] = True
    return lines


def test_a_finished_bingo_night_as_pdf_and_html(tmp_path):
    event = night(tmp_path, bingo_lines())
    report(event, tmp_path / "night.pdf")
    report(event, tmp_path / "night.html")
    printable(tmp_path / "night.pdf")
    for text in (pdf_text(tmp_path / "night.pdf"), page_text(tmp_path / "night.html")):
        for heading in ("強奪ビンゴ · Plunder Bingo", "順位 · Ranking", "Each turn: draw, votes, valid number, robberies",
                        "Account balances by letter over the turns", "Robberies per turn", "beat the secretariat"):
            assert heading in text
        assert "Akiyama" in text and "最終 final" in text
    assert tmp_path.joinpath("night.html").read_text().count("<svg") == 2       # the two charts, inline


def test_the_final_board_is_in_the_report_only_when_the_event_reveals_accounts(tmp_path):
    secret, shown = tmp_path / "secret", tmp_path / "shown"
    for folder, reveal in ((secret, False), (shown, True)):
        folder.mkdir()
        report(night(folder, bingo_lines(reveal=reveal)), folder / "night.html")
    assert "Final account board" not in page_text(secret / "night.html")
    assert "whole 10,000 L$ chips" in page_text(secret / "night.html")
    assert "Final account board" in page_text(shown / "night.html")


# ---- R13: the public report keeps every secret the public view keeps

def secrets_shown(rows: list[str], lines: list[dict]) -> list[str]:
    """What R13 keeps from the audience that these rows (lines of text, table rows) show: a name in
    the same row as its account letter, a robbery or vote card's serial (who robbed whom, who voted what)."""
    found = [f"serial {serial}" for row in rows for serial in re.findall(r"\b[RV]\d{4}\b", row)]
    for player in lines[0]["players"]:
        found += [f"{player['name']} beside {player['account']}" for row in rows if player["name"] in row
                  and player["account"] in re.findall(r"\b[A-Z]\b", row.replace(player["name"], ""))]
    return found


def rows_of_page(page: Path) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", " ", row))
            for row in re.findall(r"<tr>.*?</tr>", page.read_text(encoding="utf-8"), re.S)]


def test_R13_the_public_report_shows_no_name_with_its_letter_no_robber_no_vote(tmp_path):
    lines = bingo_lines(players=12)
    event = night(tmp_path, lines)
    for flags, name in (((), "public"), (("--staff",), "staff")):
        report(event, tmp_path / f"{name}.pdf", *flags)
        report(event, tmp_path / f"{name}.html", *flags)
    public = {"PDF": secrets_shown(pdf_text(tmp_path / "public.pdf").splitlines(), lines),
              "HTML": secrets_shown(rows_of_page(tmp_path / "public.html"), lines)}
    assert public == {"PDF": [], "HTML": []}
    staff = {"PDF": secrets_shown(pdf_text(tmp_path / "staff.pdf").splitlines(), lines),
             "HTML": secrets_shown(rows_of_page(tmp_path / "staff.html"), lines)}
    for found in staff.values():     # the check finds the staff report's secrets, or it proves nothing
        assert len({s for s in found if "beside" in s}) == 12 and any(s.startswith("serial R") for s in found)
    text = pdf_text(tmp_path / "public.pdf")
    assert all(name in text for name in (p["name"] for p in lines[0]["players"]))
    for staff_only in ("Who owns which letter", "Every robbery", "robber\n", "victim", "Held cards"):
        assert staff_only not in text and staff_only not in page_text(tmp_path / "public.html")
    finals = [int(m.replace(",", "")) for m in re.findall(r"(-?[\d,]{7,}) +[○—]", text)]
    assert len(finals) == 12 and all(final % 10_000 == 0 for final in finals), finals   # D21: whole chips


# ---- people's text is data

def test_hostile_names_are_shown_literally_in_pdf_and_html(tmp_path):
    event = night(tmp_path, bingo_lines(names=HOSTILE))
    for out in ("night.pdf", "night.html", "staff.pdf", "staff.html"):
        report(event, tmp_path / out, *(("--staff",) if out.startswith("staff") else ()))
    page = (tmp_path / "night.html").read_text(encoding="utf-8")
    assert "<script>" not in page and "<b>bold</b>" not in page
    assert html.escape(HOSTILE[0]) in page and html.escape(HOSTILE[1]) in page
    for pdf in ("night.pdf", "staff.pdf"):
        printable(tmp_path / pdf)
        text = re.sub(r"\s+", "", pdf_text(tmp_path / pdf, "-raw"))     # long names wrap over lines
        for name in HOSTILE:
            assert re.sub(r"\s+", "", name) in text, name


def test_a_long_event_name_stays_inside_the_page(tmp_path):
    event = night(tmp_path, bingo_lines())
    event.write_text(event.read_text().replace('name = "Night 1"', 'name = "' + LONG_NAME * 2 + '"', 1))
    report(event, tmp_path / "night.pdf", "--staff")
    printable(tmp_path / "night.pdf")


def held_for_review(lines: list[dict], crops: dict[int, str]) -> list[dict]:
    """The lines with the vote cards at these indexes held (with these crops), then counted as read."""
    out = []
    for index, line in enumerate(lines):
        if index in crops:
            out += [{"do": "hold", "card": line, "reason": "a faint mark", "crop": crops[index]},
                    {"do": "rule", "serial": line["serial"], "card": line}]
        else:
            out.append(line)
    return out


def test_the_staff_report_shows_held_cards_with_their_crops(tmp_path):
    lines = bingo_lines()
    first, second = [i for i, line in enumerate(lines) if line["do"] == "vote"][:2]
    event = night(tmp_path, held_for_review(lines, {first: "crops/kept.png", second: "crops/gone.png"}))
    (tmp_path / "crops").mkdir()
    _png(tmp_path / "crops" / "kept.png")
    report(event, tmp_path / "staff.html", "--staff")
    report(event, tmp_path / "staff.pdf", "--staff")
    page = (tmp_path / "staff.html").read_text(encoding="utf-8")
    assert page.count('<img class="crop" src="data:image/png;base64,') == 1
    assert "crop not found: crops/gone.png" in page_text(tmp_path / "staff.html")
    images = subprocess.run(["pdfimages", "-list", str(tmp_path / "staff.pdf")], capture_output=True, text=True).stdout
    assert [line.split()[2] for line in images.splitlines()[2:]].count("image") == 3   # two charts, the crop kept
    text = pdf_text(tmp_path / "staff.pdf")
    assert text.count("counted as read") == 2 and "a faint mark" in text and "crop not found" in text
    printable(tmp_path / "staff.pdf")


def _png(path: Path) -> None:
    from PIL import Image
    Image.new("L", (120, 80), 200).save(path)


# ---- the other games

@pytest.mark.parametrize("game, example, headings", [
    ("voters", "voters-night.jsonl", ("ボーター · Voters", "Each game", "DOBON", "Ledger", "The ledger after each game")),
    ("bluff", "bluff-night.jsonl", ("オークションブラフ · Auction Bluff", "Each period's judgement", "true count", "Payouts")),
])
def test_a_report_for_the_other_games(tmp_path, game, example, headings):
    event = night(tmp_path, script(example), game)
    report(event, tmp_path / "night.pdf")
    report(event, tmp_path / "night.html")
    printable(tmp_path / "night.pdf")
    for text in (pdf_text(tmp_path / "night.pdf"), page_text(tmp_path / "night.html")):
        assert all(heading in text for heading in headings), text[:400]


def test_a_report_for_the_jail_card_game(tmp_path):
    event = night(tmp_path, jail_game(), "jail")
    report(event, tmp_path / "night.pdf", "--staff")
    printable(tmp_path / "night.pdf")
    text = pdf_text(tmp_path / "night.pdf")
    assert "Each round" in text and "6+6+6" in text.replace(" ", "") and "勝者 winner" in text and "Hands at the end" in text


# ---- refusals: one line each

def refused(*argv) -> tuple[int, str]:
    code, out, err = run("report", *argv)
    assert code != 0 and out == "" and len(err.strip().splitlines()) == 1, (code, out, err)
    return code, err.strip()


def test_no_report_of_a_game_not_finished_or_a_wrong_event_file(tmp_path):
    event = night(tmp_path, bingo_lines()[:60])
    out = tmp_path / "night.pdf"
    assert "no report yet: the game is not finished (turn" in refused("--event", event, "--out", out)[1]
    assert not out.exists()
    assert "name a .pdf or .html file" in refused("--event", event, "--out", tmp_path / "night.txt")[1]
    assert "cannot read" in refused("--event", tmp_path / "missing.toml", "--out", out)[1]
    broken = tmp_path / "broken.toml"
    broken.write_text(event.read_text() + "\n[event2]\nx = 1\n")
    code, line = refused("--event", broken, "--out", out)
    assert code == 2 and "unknown section or key 'event2'" in line
    other = tmp_path / "voters"
    other.mkdir()
    voters = night(other, script("voters-night.jsonl"), "voters")
    journal = next(other.glob("*.db"))
    journal.unlink()
    shutil.copy(next(tmp_path.glob("*.db")), journal)
    assert "the event file is for voters, but its journal" in refused("--event", voters, "--out", out)[1]
    journal.unlink()
    assert "does not exist" in refused("--event", voters, "--out", out)[1]
