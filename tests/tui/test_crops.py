"""Review crops: readable whatever folder the console runs in, and gone once the card is ruled."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tui.bingo.console import ConsoleApp

from screens_game import game
from screens_helpers import drive, settle, text_of


def hold_with_crop(session, crop: str, serial: str = "V0101") -> None:
    session.submit({"do": "hold", "card": {"do": "vote", "serial": serial, "turn": 1, "marks": ["X", "Y"]},
                    "reason": "mark between marginal and definite", "crop": crop})


def write_crop(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    image = np.full((40, 80, 3), 255, np.uint8)          # a card is mostly white
    image[:, 40:] = (0, 0, 255)
    cv2.imwrite(str(path), image)


def test_a_crop_relative_to_the_journal_shows_from_another_folder(tmp_path, monkeypatch):
    event = tmp_path / "event"
    event.mkdir()
    session, _ = game(event / "g.db", "turn1_voting")
    write_crop(event / "scans" / "crops" / "V0101.png")
    hold_with_crop(session, "scans/crops/V0101.png")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    app = ConsoleApp.for_journal(event / "g.db", readonly=True)

    async def body(pilot):
        await settle(pilot, lambda app: "▀" in text_of(app) or "cannot read crop" in text_of(app))
        assert "cannot read crop" not in text_of(pilot.app)

    drive(app, body, (120, 36))


def test_the_scanner_stores_its_crop_path_absolute(tmp_path, monkeypatch):
    from vision import layouts as L
    from vision.sim import drawn_cards as C
    from vision.cards import Scanner
    from vision.render import render
    monkeypatch.chdir(tmp_path)
    scanner = Scanner(C.EVENT, C.SECRET, crops="crops")            # as `companion cards --crops crops` gives it
    card = L.Card("vote", C.EVENT, "V0101", 1, 1)
    picture = cv2.cvtColor(render(card, C.SECRET, C.RES, 1), cv2.COLOR_GRAY2BGR)
    b = L.layout("vote").field("mark").bubbles[0]
    y = int((b.y + 3) * C.RES)     # a short dash in the bubble: not blank, not clearly a mark
    cv2.line(picture, (int((b.x - 3.5) * C.RES), y), (int((b.x + 3.5) * C.RES), y), (60, 60, 60), 6)
    result = scanner.scan_image(picture, "faint")
    assert result.decision == "review", result
    assert Path(result.crop).is_absolute() and Path(result.crop).parent == tmp_path / "crops"
    assert result.command["crop"] == result.crop


def test_ruling_the_last_held_card_leaves_no_picture_behind(tmp_path):
    session, _ = game(tmp_path / "g.db", "turn1_voting")
    write_crop(tmp_path / "crop.png")
    hold_with_crop(session, str(tmp_path / "crop.png"))
    app = ConsoleApp(session)

    async def body(pilot):
        await settle(pilot, lambda app: "▀" in text_of(app))
        before = pilot.app.handled
        await pilot.press("1")                                          # held: X
        await settle(pilot, lambda app: app.handled > before and "Review queue (0)" in text_of(app))
        await pilot.pause(0.3)                                          # the review box has resized
        assert session.state.held == {}
        assert "▀" not in text_of(pilot.app) and "#ff0000" not in pilot.app.export_screenshot()

    drive(app, body, (120, 36))


def test_a_crop_that_is_no_picture_is_said_literally(tmp_path):
    """The crop path a hold carries is shown as it is when the file cannot be read: markup in it stays text
    (its file read by Python, never by OpenCV's own file reading, which crashed on some names)."""
    session, _ = game(tmp_path / "g.db", "turn1_voting")
    crop = tmp_path / "[red]x[b] 写.png"
    crop.write_bytes(b"not a picture")
    hold_with_crop(session, str(crop))
    app = ConsoleApp.for_journal(tmp_path / "g.db", readonly=True)

    async def body(pilot):
        await settle(pilot, lambda app: "cannot read crop" in text_of(app))
        assert "[red]x[b] 写.png" in text_of(pilot.app)

    drive(app, body, (160, 36))
