"""Every PDF the companion prints, read back by poppler: each font embedded (a printer or viewer
without it draws boxes or another font's widths) and every word at least 5 mm inside the page (a
printer clips its outer few millimetres), also with the longest names people give."""
import re
import shutil
import subprocess

import pytest

from companion.cli import main

MARGIN_MM = 5.0
LONG_EVENT = "Grand Summer Plunder Night at the Old Harbour Warehouse, second floor, members and guests"
LONG_NAME = "Wolfgang Amadeus Mozart-Takahashi 高橋ヴォルフガング・アマデウス・モーツァルト the Third"

pytestmark = pytest.mark.skipif(not (shutil.which("pdffonts") and shutil.which("pdftotext")),
                                reason="needs poppler-utils (pdffonts, pdftotext)")


def _event(tmp_path, game: str, *extra: str):
    path = tmp_path / f"{game}.toml"
    assert main(["init", "--out", str(path), "--game", game, "--name", LONG_EVENT, "--seed", "3", *extra]) == 0
    path.write_text(path.read_text(encoding="utf-8").replace('name = "Player 1"', f'name = "{LONG_NAME}"', 1),
                    encoding="utf-8")
    return str(path)


def _every_pdf(tmp_path) -> dict[str, list[str]]:
    """What each `companion print` command writes, by a name for the failure message."""
    bingo, voters, bluff = (_event(tmp_path, game) for game in ("bingo", "voters", "bluff"))
    out = lambda name: str(tmp_path / f"{name}.pdf")       # noqa: E731
    return {
        "bingo cards": ["print", "cards", "--event", bingo, "--out", out("bingo"), "--players", "1,2"],
        "special cards": ["print", "cards", "--event", bingo, "--out", out("special"), "--only-special",
                          "--special", "inout=1", "--special", "change=1", "--special", "exclusion=1"],
        "Voters number cards": ["print", "cards", "--event", voters, "--out", out("voters"), "--games", "2"],
        "Auction Bluff cards": ["print", "cards", "--event", bluff, "--out", out("bluff"), "--periods", "1"],
        "Auction Bluff phone sheets": ["print", "sheets", "--event", bluff, "--out", out("sheets"),
                                       "--url", "http://plunder-night-display-server.example.org:8080"],
        "ball labels": ["print", "balls", "--out", out("balls")],
        "ball labels, smallest balls": ["print", "balls", "--out", out("balls-small"), "--diameter", "10"],
        "ball labels, largest balls": ["print", "balls", "--out", out("balls-large"), "--diameter", "55"],
        "ball labels, inverted": ["print", "balls", "--out", out("balls-inverted"), "--inverted", "--balls", "6-9"],
    }


def _fonts(pdf: str) -> list[tuple[str, str]]:
    """(font name, embedded yes/no) for every font pdffonts lists."""
    lines = subprocess.run(["pdffonts", pdf], capture_output=True, text=True, check=True).stdout.splitlines()[2:]
    return [(line.split()[0], line.split()[-5]) for line in lines if line.strip()]


WORD = re.compile(r'<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">(.*?)</word>')


def _too_near_the_edge(pdf: str) -> list[str]:
    """Each word closer than MARGIN_MM to an edge of its page: page, word and distance."""
    html = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True, check=True).stdout
    near = []
    for number, page in enumerate(html.split("<page ")[1:], 1):
        width, height = map(float, re.search(r'width="([\d.]+)" height="([\d.]+)"', page).groups())
        for match in WORD.finditer(page):
            x0, y0, x1, y1 = map(float, match.groups()[:4])
            mm = min(x0, y0, width - x1, height - y1) * 25.4 / 72
            if mm < MARGIN_MM:
                near.append(f"page {number}: {match.group(5)!r} {mm:.1f} mm from the edge")
    return near


@pytest.mark.slow
def test_every_printed_pdf_embeds_its_fonts_and_keeps_text_5_mm_inside_the_page(tmp_path, capsys):
    for what, argv in _every_pdf(tmp_path).items():
        assert main(argv) == 0, f"{what}: {capsys.readouterr().err}"
        pdf = argv[argv.index("--out") + 1]
        fonts = _fonts(pdf)
        assert fonts, f"{what}: no font found"
        assert all(embedded == "yes" for _, embedded in fonts), f"{what}: fonts not embedded: {fonts}"
        near = _too_near_the_edge(pdf)
        assert not near, f"{what}: text closer than {MARGIN_MM:g} mm to the page's edge: {near[:5]}"
    capsys.readouterr()


def test_ball_labels_for_balls_too_big_for_the_page_are_refused_in_one_line(tmp_path, capsys):
    assert main(["print", "balls", "--out", str(tmp_path / "b.pdf"), "--diameter", "80"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--diameter 80" in err and "A4" in err
    assert not (tmp_path / "b.pdf").exists()
