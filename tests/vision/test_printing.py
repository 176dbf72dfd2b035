"""Printing: A4 PDF, the Japanese font embedded, and the printed card scans back."""
import shutil
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.core import event_file
from companion.cli import main
from vision import layouts as L, printing, render
from vision.cards import Scanner


@pytest.fixture
def event(tmp_path):
    path = tmp_path / "event.toml"
    assert main(["init", "--out", str(path), "--players", "3", "--seed", "7"]) == 0
    return path


def test_print_cards_writes_every_players_cards_with_the_font_embedded(event, tmp_path, capsys):
    out = tmp_path / "cards.pdf"
    assert main(["print", "cards", "--event", str(event), "--out", str(out), "--special", "change=2x2"]) == 0
    said = capsys.readouterr().out
    # 3 players x (1 bingo + 15 vote + 8 robbery) + 2 change cards, 6 a page
    assert "74 cards on 13 pages" in said and "next special card number: 3" in said
    pdf = out.read_bytes()
    assert pdf.startswith(b"%PDF") and b"/FontFile2" in pdf and b"IPAexGothic" in pdf
    assert b"/Helvetica" not in pdf, "every font in the PDF is the embedded one"
    assert pdf.count(b"/Type /Page\n") + pdf.count(b"/Type /Page ") >= 13 or b"/Count 13" in pdf


def test_print_refuses_bad_requests_with_a_clear_line(event, tmp_path, capsys):
    out = str(tmp_path / "x.pdf")
    assert main(["print", "cards", "--event", str(event), "--out", out, "--special", "bribe=1"]) == 2
    assert "KIND=PLAYER" in capsys.readouterr().err
    assert main(["print", "cards", "--event", str(event), "--out", out, "--players", "9"]) == 2
    assert "no player 9" in capsys.readouterr().err
    assert main(["print", "cards", "--event", str(tmp_path / "none.toml"), "--out", out]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_a_missing_font_is_named(event, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(render, "FONT_PATH", Path("/nowhere/ipaexg.ttf"))
    monkeypatch.setattr(printing.pdfmetrics, "getRegisteredFontNames", lambda: [])
    assert main(["print", "cards", "--event", str(event), "--out", str(tmp_path / "x.pdf")]) == 3
    assert "fonts-ipaexfont-gothic" in capsys.readouterr().err


@pytest.mark.skipif(not shutil.which("pdftoppm"), reason="needs poppler-utils (pdftoppm)")
def test_a_printed_card_rendered_by_poppler_scans_back(event, tmp_path):
    ev = event_file.load(event)
    cards = [L.Card("vote", ev.id, L.serial("vote", 2, t), 2, t) for t in (1, 2)]
    out = tmp_path / "cards.pdf"
    printing.print_cards(cards, ev.secret, out)
    subprocess.run(["pdftoppm", "-r", "200", "-png", "-singlefile", str(out), str(tmp_path / "page")], check=True)
    page = cv2.imread(str(tmp_path / "page.png"))
    s = 200 / 25.4
    x, y = printing.card_origin(1)
    crop = page[int((y - 3) * s):int((y + L.CARD_H + 3) * s), int((x - 3) * s):int((x + L.CARD_W + 3) * s)].copy()
    z = L.layout("vote").field("mark").bubbles[2]
    cv2.circle(crop, (int((z.x + 3) * s), int((z.y + 3) * s)), int(z.r * 0.3 * s), (30, 30, 30), -1)
    result = Scanner(ev.id, ev.secret).scan_image(cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE))
    assert (result.decision, result.serial, result.fields) == ("counted", "V0202", {"mark": ["Z"]})
    assert result.command == {"do": "vote", "serial": "V0202", "turn": 2, "marks": ["Z"]}
    # the blank rendered by the layout is the printed card: poppler's page and ours agree
    ours = render.render(cards[1], ev.secret, s, 2)
    theirs = cv2.cvtColor(page[int(y * s):int(y * s) + ours.shape[0], int(x * s):int(x * s) + ours.shape[1]],
                          cv2.COLOR_BGR2GRAY)
    soft = [cv2.GaussianBlur(image, (0, 0), 1.5).astype(int) for image in (ours, theirs)]   # edges fall between pixels
    assert np.mean(np.abs(soft[0] - soft[1]) > 60) < 0.012
