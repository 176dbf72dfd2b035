"""Auction Bluff's printed, signed cards (AB7): `companion print cards --periods N`
prints each player's dice-vote card (one row of 6 bubbles 1-5 ★ per die, five rows, for one gem's
dice: the gem is in its signed serial) and declaration card (face 1-5, count as two digit rows);
the scanner reads photos of that PDF rasterised and cut (vision.sim.bluff_cards) into the game's
dice and declare commands; what is unclear goes to review; a forged card is rejected; through the
referee the cards are the period's dice vote and declarations in a bluff journal."""
import shutil
import subprocess

import cv2
import pytest

from companion.core import event_file
from companion.cli import main
from companion.core.journal import Journal
from companion.core.session import Session
from vision import layouts as L
from vision.layouts import bluff
from vision.cards import Scanner, Settings, referee
from vision.sim import bluff_cards as B

cv2.setNumThreads(1)
needs_poppler = pytest.mark.skipif(not shutil.which("pdftoppm"), reason="needs poppler-utils (pdftoppm)")
PERIODS = 2
GEMS = {1: "ruby", 2: "sapphire", 3: "emerald"}       # what `companion init --game bluff` gives players 1-3


def write_event(path, name: str, secret: str):
    assert main(["init", "--game", "bluff", "--players", "3", "--name", name, "--out", str(path)]) == 0
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(f'secret = "{event_file.load(path).secret}"', f'secret = "{secret}"'), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("bluff-cards")


@pytest.fixture(scope="module")
def event(folder):
    return write_event(folder / "event.toml", "Bluff night", "bluff-secret")


@pytest.fixture(scope="module")
def deck(event, folder):
    return B.deck(event, PERIODS, folder / "cache")


@pytest.fixture(scope="module")
def scanner(event):
    ev = event_file.load(event)
    return Scanner(ev.id, ev.secret, Settings(time_limit_ms=60_000))     # what is read, not how fast: a busy machine


def _scan(scanner, deck, serial: str, marks, seed: int = 0, pen=B.BALLPOINT):
    return scanner.scan_image(B.photo(B.marked(deck, serial, marks, seed, pen), seed))


def dice_marks(faces: list[str], styles=("circle", "fill", "tick")) -> list[tuple[str, str, str]]:
    return [(bluff.die_field(row), face, styles[row % len(styles)]) for row, face in enumerate(faces, 1)]


def declare_marks(face: int, count: int, style: str = "circle") -> list[tuple[str, str, str]]:
    return [("face", str(face), style), ("count_tens", str(count // 10), style), ("count_units", str(count % 10), style)]


# --- printing ---------------------------------------------------------------------------------------
def test_AB7_each_player_gets_a_dice_vote_and_a_declaration_card_per_period(event, tmp_path, capsys):
    out = tmp_path / "cards.pdf"
    assert main(["print", "cards", "--event", str(event), "--periods", str(PERIODS), "--out", str(out)]) == 0
    assert f"{3 * PERIODS * 2} cards on 2 pages for players 1, 2, 3" in capsys.readouterr().out
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", str(out), "-"], capture_output=True, text=True, check=True).stdout
        for no, gem in GEMS.items():
            for period in range(1, PERIODS + 1):
                assert f"D{no:02d}{period:02d}{gem}" in text and f"A{no:02d}{period:02d}" in text
            assert f"{gem} · Player {no}" in text
        assert "第 2 期 · Period 2" in text and "★" in text and "個数 · Count (1-30)" in text


def test_gem_prints_dice_cards_for_a_received_gem_and_bad_options_are_one_line(event, tmp_path, capsys):
    out = str(tmp_path / "x.pdf")
    assert main(["print", "cards", "--event", str(event), "--periods", "1", "--gem", "ruby", "--players", "2",
                 "--out", out]) == 0
    assert "1 cards on 1 pages for player 2" in capsys.readouterr().out
    assert main(["print", "cards", "--event", str(event), "--out", out]) == 2
    assert "give --periods N" in capsys.readouterr().err
    assert main(["print", "cards", "--event", str(event), "--periods", "100", "--out", out]) == 2
    assert "--periods 100: give 1-99" in capsys.readouterr().err
    assert main(["print", "cards", "--event", str(event), "--periods", "1", "--gem", "opal", "--out", out]) == 2
    assert "--gem 'opal': this event's gems are emerald, ruby, sapphire" in capsys.readouterr().err
    bingo = tmp_path / "bingo.toml"
    assert main(["init", "--out", str(bingo), "--players", "3", "--seed", "1"]) == 0
    capsys.readouterr()
    assert main(["print", "cards", "--event", str(bingo), "--periods", "1", "--out", out]) == 2
    assert "--periods and --gem are for an Auction Bluff event's cards" in capsys.readouterr().err


def test_AB7_the_layouts_have_a_row_of_six_faces_per_die_and_a_face_and_two_digit_count():
    values = {k: {f.name: [b.value for b in f.bubbles] for f in L.layout(k).fields} for k in ("bluff_dice", "bluff_declare")}
    assert values["bluff_dice"] == {f"die{row}": ["1", "2", "3", "4", "5", "★"] for row in range(1, 6)}
    assert values["bluff_declare"] == {"face": ["1", "2", "3", "4", "5"], "count_tens": ["0", "1", "2", "3"],
                                       "count_units": [str(d) for d in range(10)]}
    card = L.Card("bluff_dice", "night", L.serial("bluff_dice", 4, 3, "garnet"), 4, 3)
    assert L.verify(L.payload(card, "s"), "night", "s") == card and bluff.dice_gem(card.serial) == "garnet"
    texts = {i.text for i in L.items(card) if isinstance(i, L.Text)}
    assert {"第 3 期 · Period 3", "garnet · Player 4", "D0403garnet"} <= texts


@needs_poppler
def test_the_printed_bluff_cards_match_their_layouts(deck):
    expected = {L.serial("bluff_dice", no, period, gem): (no, period) for no, gem in GEMS.items()
                for period in range(1, PERIODS + 1)}
    expected |= {L.serial("bluff_declare", no, period): (no, period) for no in GEMS for period in range(1, PERIODS + 1)}
    assert {c.serial: (c.owner, c.turn) for c in deck.cards} == expected
    for kind in ("bluff_dice", "bluff_declare"):
        for name, b in L.layout(kind).bubbles():
            x, y, r = deck.bubbles[kind][name][b.value]
            assert abs(x - b.x) < 0.3 and abs(y - b.y) < 0.3 and abs(r - b.r) < 0.3, (kind, name, b)
    assert list(deck.bubbles["bluff_dice"]["die1"]) == ["1", "2", "3", "4", "5", "★"]


# --- scanning ---------------------------------------------------------------------------------------
@needs_poppler
@pytest.mark.parametrize("faces", [["1", "1", "2", "3", "★"], ["★", "5", "4", "3", "2"], ["2", "4", "★"]],
                         ids=["five", "five-others", "three-held"])
def test_a_dice_vote_card_is_the_faces_of_its_gems_dice(scanner, deck, faces):
    result = _scan(scanner, deck, "D0201sapphire", dice_marks(faces), seed=len(faces))
    assert result.decision == "counted", result
    assert result.command == {"do": "dice", "player": 2, "faces": {"sapphire": faces}, "serial": "D0201sapphire"}


@needs_poppler
def test_a_die_with_two_faces_or_a_blank_dice_card_goes_to_review(scanner, deck):
    two = _scan(scanner, deck, "D0101ruby", dice_marks(["1", "2"]) + [(bluff.die_field(3), "3", "circle"),
                                                                       (bluff.die_field(3), "5", "circle")])
    assert (two.decision, two.reason) == ("review", "die3: 2 faces"), two
    assert two.command["do"] == "hold" and two.command["card"]["faces"] == {"ruby": ["1", "2"]}
    blank = _scan(scanner, deck, "D0102ruby", [])
    assert (blank.decision, blank.reason) == ("review", "no face marked"), blank


@needs_poppler
@pytest.mark.parametrize("face,count,style", [(4, 12, "circle"), (1, 30, "fill"), (5, 7, "tick")])
def test_a_declaration_card_is_one_face_and_a_two_digit_count(scanner, deck, face, count, style):
    result = _scan(scanner, deck, "A0301", declare_marks(face, count, style), seed=count)
    assert result.decision == "counted", result
    assert result.command == {"do": "declare", "player": 3, "face": face, "count": count, "serial": "A0301"}


@needs_poppler
def test_a_declaration_without_a_count_or_with_two_faces_goes_to_review(scanner, deck):
    no_count = _scan(scanner, deck, "A0101", [("face", "3", "circle")])
    assert no_count.decision == "review" and "count_tens: no mark" in no_count.reason, no_count
    assert no_count.command["card"] == {"do": "declare", "player": 1, "face": 3, "count": None, "serial": "A0101"}
    two = _scan(scanner, deck, "A0102", declare_marks(2, 5) + [("face", "4", "circle")])
    assert two.decision == "review" and "face: 2 marks" in two.reason, two


@needs_poppler
def test_a_faint_pencil_mark_is_held_for_review(scanner, deck):
    result = _scan(scanner, deck, "A0202", declare_marks(3, 4), pen=B.FAINT)
    assert result.decision == "review" and result.command["do"] == "hold", result


@needs_poppler
def test_a_forged_dice_card_is_rejected(scanner, folder):
    other = B.deck(write_event(folder / "forged.toml", "Bluff night", "a-forgers-guess"), 1, folder / "cache")
    result = _scan(scanner, other, "D0101ruby", dice_marks(["1"] * 5))
    assert (result.decision, result.reason.split(":")[0], result.command) == ("rejected", "forged", None), result


# --- into the Auction Bluff journal --------------------------------------------------------------------
@needs_poppler
def test_scanned_cards_are_the_periods_dice_vote_and_declarations(event, scanner, deck, tmp_path):
    """Through the referee (as the watched folder sends them): each dice-vote card is its player's
    faces (AB2), each declaration card a declaration; a dice card for dice the player does not hold
    is refused by the game; a card scanned twice is a duplicate."""
    session = Session(Journal(tmp_path / "bluff.db"))
    for command in (event_file.load(event).setup_command(), {"do": "period"}):
        assert session.submit(command).status == "ok", command

    def submit(command):
        outcome = session.submit(command)
        return outcome.status, outcome.reason

    def scan(serial, marks, seed=0):
        path = tmp_path / f"{serial}-{seed}.png"
        cv2.imwrite(str(path), B.photo(B.marked(deck, serial, marks, seed, B.BALLPOINT), seed))
        return referee(scanner.scan_file(path), submit)
    assert scan("D0101ruby", dice_marks(["5", "5", "★", "1", "2"])).decision == "counted"
    assert scan("D0201sapphire", dice_marks(["5", "★", "3", "3", "3"])).decision == "counted"
    short = scan("D0301emerald", dice_marks(["5", "5"]))
    assert short.decision == "refused" and "player 3 holds 5 emerald dice, not 2" in short.reason, short
    assert scan("D0101ruby", dice_marks(["1"] * 5), seed=1).reason == "duplicate: card D0101ruby was already scanned"
    assert session.state.period.votes == {1: {"ruby": ["5", "5", "★", "1", "2"]},
                                          2: {"sapphire": ["5", "★", "3", "3", "3"]}}
    assert session.submit({"do": "close_dice"}).status == "ok"
    assert scan("A0101", declare_marks(5, 5)).decision == "counted"
    assert scan("A0201", declare_marks(3, 12)).decision == "counted"
    assert [(d.player, d.face, d.count, d.serial) for d in session.state.period.declarations] == \
        [(1, 5, 5, "A0101"), (2, 3, 12, "A0201")]
    assert session.submit({"do": "judge"}).status == "ok"
    period = session.state.periods[0]           # the highest count is judged: three 3s and two ★ are 5, not 12
    assert (period.selected, period.true_count, period.result) == \
        ({"player": 2, "face": 3, "count": 12}, 5, "eliminated")
