"""The card scanner on generated cards and bad input, and the way into the referee."""
import json
import math
import os
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.core import event_file
from companion.cli import main
from companion.core.journal import Journal
from companion.core.session import Session
from vision import layouts as L
from vision.sim import drawn_cards as C
from vision.cards import FolderWatcher, Scanner, referee
from vision.render import render

cv2.setNumThreads(1)


@pytest.fixture(scope="module")
def scanner():
    return Scanner(C.EVENT, C.SECRET)


@pytest.mark.slow
@pytest.mark.parametrize("tier,n", [("clean", 24), ("hard", 24)])
def test_no_generated_card_is_counted_wrongly(scanner, tier, n):
    verdicts = []
    for s in C.generate(n, tier, seed=11):
        result = scanner.scan_image(C.decoded(s))
        verdicts.append(C._verdict(result, s.truth))
        assert verdicts[-1] != "wrong", (s.truth, result)
    if tier == "clean":
        assert verdicts.count("correct") >= n - 3, verdicts


def _card_photo(card: L.Card, secret: str, marks: dict, turn_deg: float = 0) -> np.ndarray:
    """A rendered card with pen dots in the named bubbles, photographed at an angle on a table."""
    picture = cv2.cvtColor(render(card, secret, C.RES, 1), cv2.COLOR_GRAY2BGR)
    layout = L.layout(card.kind)
    for name, values in marks.items():
        for b in layout.field(name).bubbles:
            if b.value in values:
                C._mark(np.random.default_rng(1), picture, b, "dot", (20, 20, 20))
    h, w = picture.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), turn_deg, 0.9)
    m[:, 2] += (800 - w / 2, 600 - h / 2)
    return cv2.warpAffine(picture, m, (1600, 1200), borderValue=(60, 90, 120))


def test_forged_other_event_and_unreadable_are_distinct_reasons(scanner):
    card = L.Card("vote", C.EVENT, "V0101", 1, 1)
    forged = scanner.scan_image(_card_photo(card, "wrong-secret", {"mark": ["X"]}))
    other = scanner.scan_image(_card_photo(L.Card("vote", "other", "V0101", 1, 1), "x", {"mark": ["X"]}))
    assert (forged.decision, forged.reason.split(":")[0]) == ("rejected", "forged")
    assert (other.decision, other.reason.split(":")[0]) == ("rejected", "other event")
    assert forged.command is None and other.command is None
    hidden = _card_photo(card, C.SECRET, {"mark": ["X"]})
    x, y, side = L.QR_BOX
    cv2.rectangle(hidden, (0, 0), (1600, 1200), (255, 255, 255), 0)
    gone = scanner.scan_image(_qr_smudged(card))
    assert (gone.decision, gone.reason.split(":")[0]) == ("rejected", "unreadable")


def _qr_smudged(card):
    picture = cv2.cvtColor(render(card, C.SECRET, C.RES, 1), cv2.COLOR_GRAY2BGR)
    x, y, side = (v * C.RES for v in L.QR_BOX)
    cv2.rectangle(picture, (int(x + side * 0.3), int(y + side * 0.3)), (int(x + side * 0.7), int(y + side * 0.7)),
                  (0, 0, 0), -1)
    return picture


def test_upside_down_and_every_kind_read_right(scanner):
    cases = [(L.Card("robbery", C.EVENT, "R0203", 2), {"robber_tens": ["0"], "robber_units": ["2"], "victim_tens": ["2"],
                                                       "victim_units": ["5"], "ordinal": ["3"]},
              {"do": "rob", "serial": "R0203", "robber": 2, "victim": 25, "ordinal": 3}),
             (L.Card("inout", C.EVENT, "I03001", 3), {"dir": ["OUT"], "ball": ["14"]},
              {"do": "inout", "player": 3, "dir": "out", "ball": 14, "serial": "I03001"}),
             (L.Card("change", C.EVENT, "C01002", 1), {"cell": ["5"], "number": ["27"]},
              {"do": "change", "player": 1, "cell": 5, "number": 27, "serial": "C01002"}),
             (L.Card("exclusion", C.EVENT, "E04001", 4), {"ball": ["9"]},
              {"do": "exclude", "player": 4, "ball": 9, "serial": "E04001"})]
    for card, marks, command in cases:
        result = scanner.scan_image(_card_photo(card, C.SECRET, marks, 183))
        assert (result.decision, result.command) == ("counted", command), result


def test_bad_input_gets_a_reason_never_a_crash(scanner, tmp_path):
    (tmp_path / "empty.jpg").write_bytes(b"")
    ok, jpeg = cv2.imencode(".jpg", _card_photo(L.Card("vote", C.EVENT, "V0101", 1, 1), C.SECRET, {}))
    (tmp_path / "cut.jpg").write_bytes(jpeg.tobytes()[:len(jpeg) // 2])
    (tmp_path / "noise.png").write_bytes(bytes(range(256)) * 10)
    rng = np.random.default_rng(2)
    cv2.imwrite(str(tmp_path / "table.png"), C._finish(rng, C._table(rng, 1600, 1200), 0.5, 3))
    cv2.imwrite(str(tmp_path / "tiny.png"), np.zeros((50, 50), np.uint8))
    reasons = {p.name: scanner.scan_file(p) for p in sorted(tmp_path.iterdir())}
    assert all(r.decision == "rejected" for r in reasons.values()), reasons
    assert reasons["empty.jpg"].reason == "empty file"
    assert reasons["cut.jpg"].reason.startswith("truncated JPEG")
    assert reasons["noise.png"].reason.startswith("not an image")
    assert reasons["table.png"].reason.startswith("not a card")
    assert reasons["tiny.png"].reason.startswith("not a card")


def test_a_blurred_card_is_not_read_silently(scanner):
    photo = _card_photo(L.Card("vote", C.EVENT, "V0101", 1, 1), C.SECRET, {"mark": ["Y"]})
    result = scanner.scan_image(cv2.GaussianBlur(photo, (0, 0), 7))
    assert result.decision in ("review", "rejected") and "blurred" in result.reason, result


def test_a_covered_marker_falls_back_and_still_reads(scanner):
    card = L.Card("vote", C.EVENT, "V0105", 1, 5)
    picture = cv2.cvtColor(render(card, C.SECRET, C.RES, 1), cv2.COLOR_GRAY2BGR)
    C._mark(np.random.default_rng(3), picture, L.layout("vote").field("mark").bubbles[0], "circle", (20, 20, 20))
    C._finger(np.random.default_rng(4), picture, 1)
    result = scanner.scan_image(cv2.copyMakeBorder(picture, 80, 80, 80, 80, cv2.BORDER_CONSTANT, value=(90, 60, 40)))
    assert (result.decision, result.fields) == ("counted", {"mark": ["X"]}), result


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "event.toml"
    assert main(["init", "--out", str(path), "--players", "4", "--seed", "3"]) == 0
    ev = event_file.load(path)
    session = Session(Journal(tmp_path / "game.db"))
    for command in (ev.setup_command(), {"do": "begin_turn"}, {"do": "draw", "balls": [4, 17, 22]}):
        assert session.submit(command).status == "ok"
    return ev, session


def _submit(session):
    def submit(command):
        outcome = session.submit(command)
        return outcome.status, outcome.reason
    return submit


def test_a_counted_vote_goes_to_the_referee_once(game, tmp_path):
    ev, session = game
    scanner = Scanner(ev.id, ev.secret, crops=tmp_path / "crops")
    photo = _card_photo(L.Card("vote", ev.id, "V0201", 2, 1), ev.secret, {"mark": ["Y"]})
    first = referee(scanner.scan_image(photo), _submit(session))
    again = referee(scanner.scan_image(photo), _submit(session))
    assert first.decision == "counted" and again.decision == "duplicate"
    wrong_turn = referee(scanner.scan_image(_card_photo(L.Card("vote", ev.id, "V0305", 3, 5), ev.secret,
                                                        {"mark": ["X"]})), _submit(session))
    assert wrong_turn.decision == "invalid" and "turn 5" in wrong_turn.reason
    assert sum(1 for b in session.state.ballots if b.choice) == 1


def test_D22_a_printed_IN_OUT_card_takes_its_direction_from_its_bubbles_whatever_was_bought(game, tmp_path):
    ev, session = game
    scanner = Scanner(ev.id, ev.secret, crops=tmp_path / "crops")
    assert session.submit({"do": "buy", "player": 3, "item": "in"}).status == "ok"      # an older script's word
    photo = _card_photo(L.Card("inout", ev.id, "I03001", 3), ev.secret, {"dir": ["OUT"], "ball": ["9"]})
    result = referee(scanner.scan_image(photo), _submit(session))
    assert result.decision == "counted", result
    assert session.state.inout == [(9, "out")] and session.state.players[3].items == {"inout": 0}


def test_a_doubtful_card_is_held_for_the_operator_with_its_crop(game, tmp_path):
    ev, session = game
    scanner = Scanner(ev.id, ev.secret, crops=tmp_path / "crops")
    card = L.Card("vote", ev.id, "V0101", 1, 1)
    picture = cv2.cvtColor(render(card, ev.secret, C.RES, 1), cv2.COLOR_GRAY2BGR)
    b = L.layout("vote").field("mark").bubbles[0]
    y = int((b.y + 3) * C.RES)     # a short dash in the bubble, below the letter: not blank, not clearly a mark
    cv2.line(picture, (int((b.x - 3.5) * C.RES), y), (int((b.x + 3.5) * C.RES), y), (60, 60, 60), 6)
    result = referee(scanner.scan_image(picture, "faint"), _submit(session))
    assert result.decision == "review", result
    assert result.command["do"] == "hold" and result.command["card"]["serial"] == "V0101"
    assert result.crop and cv2.imread(result.crop) is not None
    assert "V0101" in session.state.held
    assert session.state.held["V0101"].scores == result.scores and result.scores["mark"]["X"] > 0   # shown to the operator
    assert session.submit({"do": "rule", "serial": "V0101", "card": {"do": "vote", "serial": "V0101", "turn": 1,
                                                                     "marks": ["X"]}}).status == "ok"


def test_a_file_is_read_in_grey_but_its_crop_keeps_the_pens_colour(game, tmp_path):
    ev, _ = game
    scanner = Scanner(ev.id, ev.secret, crops=tmp_path / "crops")
    picture = cv2.cvtColor(render(L.Card("vote", ev.id, "V0102", 1, 1), ev.secret, C.RES, 1), cv2.COLOR_GRAY2BGR)
    b = L.layout("vote").field("mark").bubbles[0]
    y = int((b.y + 3) * C.RES)     # the doubtful dash above, in blue ink
    cv2.line(picture, (int((b.x - 3.5) * C.RES), y), (int((b.x + 3.5) * C.RES), y), (160, 60, 20), 6)
    cv2.imwrite(str(tmp_path / "blue.png"), picture)
    result = scanner.scan_file(tmp_path / "blue.png")
    assert result.decision == "review", result
    crop = cv2.imread(result.crop).astype(int)
    blue, red = crop[..., 0], crop[..., 2]
    assert (blue - red > 80).sum() > 100          # the dash is blue on the operator's crop


def test_watched_folder_counts_logs_and_moves(game, tmp_path):
    ev, session = game
    folder = tmp_path / "in"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), _card_photo(L.Card("vote", ev.id, "V0401", 4, 1), ev.secret, {"mark": ["Z"]}))
    cv2.imwrite(str(folder / "b.png"), _card_photo(L.Card("vote", ev.id, "V0401", 4, 1), "forger", {"mark": ["X"]}))
    (folder / "c.jpg").write_bytes(b"")
    (folder / "notes.txt").write_text("not an image")
    watcher = FolderWatcher(Scanner(ev.id, ev.secret), folder, _submit(session))
    watcher.SETTLE = watcher.GIVE_UP = 0     # the empty file too is given up on at once
    results = {r.image.split("/")[-1]: r for r in watcher.poll()}
    assert results["a.png"].decision == "counted" and (folder / "done" / "a.png").exists()
    assert results["b.png"].reason.startswith("forged") and (folder / "rejected" / "b.png").exists()
    assert results["c.jpg"].reason == "empty file" and (folder / "rejected" / "c.jpg").exists()
    assert (folder / "notes.txt").exists() and watcher.poll() == []
    log = [json.loads(line) for line in (folder / "scan-log.jsonl").read_text().splitlines()]
    assert [entry["decision"] for entry in log] == ["counted", "rejected", "rejected"]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_photo_named_in_bytes_no_utf8_newline_and_escape_is_held_and_the_folder_goes_on(game, tmp_path, workers):
    """A photo's name is anyone's. Its crop, its log line and what is printed of it take the name literally
    (OpenCV's own file writing crashed the process on such a name; the log's UTF-8, the watcher)."""
    ev, session = game
    folder = tmp_path / "in"
    folder.mkdir()
    card = L.Card("vote", ev.id, "V0101", 1, 1)
    picture = cv2.cvtColor(render(card, ev.secret, C.RES, 1), cv2.COLOR_GRAY2BGR)
    b = L.layout("vote").field("mark").bubbles[0]
    y = int((b.y + 3) * C.RES)     # the doubtful dash of test_a_doubtful_card_is_held_for_the_operator_with_its_crop
    cv2.line(picture, (int((b.x - 3.5) * C.RES), y), (int((b.x + 3.5) * C.RES), y), (60, 60, 60), 6)
    hostile = os.fsencode(folder) + b"/bad\xff\nname\x1b[31m.png"
    with open(hostile, "wb") as out:
        out.write(cv2.imencode(".png", picture)[1].tobytes())
    cv2.imwrite(str(folder / "z.png"), _card_photo(L.Card("vote", ev.id, "V0201", 2, 1), ev.secret, {"mark": ["Y"]}))
    watcher = FolderWatcher(Scanner(ev.id, ev.secret), folder, _submit(session), workers)
    watcher.SETTLE = 0
    try:
        results = sorted(watcher.poll(), key=lambda r: r.serial)
    finally:
        watcher.close()
    assert [r.decision for r in results] == ["review", "counted"]
    held = session.state.held["V0101"]
    assert Path(held.crop).name == "V0101-bad_name_31m.png" and cv2.imread(held.crop) is not None
    assert os.listdir(os.fsencode(folder / "review")) == [b"bad\xff\nname\x1b[31m.png"]
    logged = [json.loads(line) for line in (folder / "scan-log.jsonl").read_text(encoding="utf-8").splitlines()]
    assert logged[0]["image"].endswith("/review/bad\\xff\\nname\\x1b[31m.png")


def test_a_crop_that_cannot_be_written_costs_the_crop_never_the_card(game, tmp_path):
    """The crops folder cannot be made (a file in its place here; a full disk at a venue): the card is held all
    the same, without a crop, and the console's scanner source says so."""
    ev, session = game
    (tmp_path / "crops").write_text("in the way")
    card = L.Card("vote", ev.id, "V0101", 1, 1)
    picture = cv2.cvtColor(render(card, ev.secret, C.RES, 1), cv2.COLOR_GRAY2BGR)
    b = L.layout("vote").field("mark").bubbles[0]
    y = int((b.y + 3) * C.RES)     # the doubtful dash of test_a_doubtful_card_is_held_for_the_operator_with_its_crop
    cv2.line(picture, (int((b.x - 3.5) * C.RES), y), (int((b.x + 3.5) * C.RES), y), (60, 60, 60), 6)
    result = referee(Scanner(ev.id, ev.secret, crops=tmp_path / "crops").scan_image(picture, "faint"), _submit(session))
    assert result.decision == "review" and result.crop is None and result.command["crop"] == ""
    assert session.state.held["V0101"].crop == ""


def test_the_consoles_scanner_says_a_hostile_name_literally_and_a_card_held_without_its_crop(game, tmp_path):
    """tui.sources.ScannerSource, as the console runs it: its note names the photo as it is (no newline, no
    escape) and says the card was held without its crop when the crops folder cannot be written."""
    from tui.sources import ScannerSource
    ev, session = game
    folder = tmp_path / "scan"
    folder.mkdir()
    (folder / "crops").write_text("in the way")
    card = L.Card("vote", ev.id, "V0101", 1, 1)
    picture = cv2.cvtColor(render(card, ev.secret, C.RES, 1), cv2.COLOR_GRAY2BGR)
    b = L.layout("vote").field("mark").bubbles[0]
    y = int((b.y + 3) * C.RES)
    cv2.line(picture, (int((b.x - 3.5) * C.RES), y), (int((b.x + 3.5) * C.RES), y), (60, 60, 60), 6)
    with open(os.fsencode(folder) + b"/bad\xff\nname.png", "wb") as out:
        out.write(cv2.imencode(".png", picture)[1].tobytes())
    notes = []
    source = ScannerSource(folder, ev)
    source.workers = 1
    source.start(lambda command, reply: reply(session.submit(command)), lambda text, level="info": notes.append(text))
    deadline = time.monotonic() + 30
    while len(notes) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    source.stop()
    assert notes[0].startswith("card scanner: bad\\xff\\nname.png: review: unclear mark"), notes
    assert "held without its crop" in notes[1] and "V0101" in session.state.held
    assert all("\n" not in note for note in notes)


def test_a_scan_folder_that_goes_away_is_said_and_read_again_once_it_is_back(game, tmp_path, monkeypatch):
    """The scan folder on a stick pulled out (or a full disk): the console's scanner says so and is degraded, not
    stopped for the night; the folder back, the next card dropped in it is counted."""
    from tui.sources import ScannerSource
    monkeypatch.setattr(FolderWatcher, "GIVE_UP", 0.3)
    ev, session = game
    folder = tmp_path / "scan"
    folder.mkdir()
    notes = []
    source = ScannerSource(folder, ev)
    source.workers = 1
    source.start(lambda command, reply: reply(session.submit(command)), lambda text, level="info": notes.append(text))
    try:
        folder.rmdir()
        assert wait_for(lambda: source.health().state == "degraded")
        assert "No such file or directory" in source.health().detail and "trying again" in notes[-1]
        folder.mkdir()
        cv2.imwrite(str(folder / "v.png"), _card_photo(L.Card("vote", ev.id, "V0201", 2, 1), ev.secret, {"mark": ["Y"]}))
        assert wait_for(lambda: source.scanned == 1)
    finally:
        source.stop()
    assert source.health().state == "down" and "works again" in " ".join(notes)     # stopped: by us
    assert [b.choice for b in session.state.ballots if b.choice] == ["Y"]


def wait_for(done, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.05)
    return done()


def test_a_crops_name_is_the_serial_and_the_photos_in_safe_letters_and_bounded():
    from companion.core.review import CROP_NAME_CHARS, crop_name
    assert crop_name("V0101", "scan 0001") == "V0101-scan_0001.png" and crop_name(None, "") == "card-card.png"
    assert crop_name("V0101", "../" + "写" * 300) == "V0101-.._.png"
    assert crop_name("V0101", "x" * 300) == ("V0101-" + "x" * 300)[:CROP_NAME_CHARS] + ".png"


def test_a_pool_of_scanning_processes_files_in_arrival_order_and_a_dead_one_rejects_its_card(game, tmp_path):
    """[cards] workers > 1: the files due are scanned side by side, then refereed, logged and moved
    one at a time in the order they arrived; a scanning process that dies rejects the card it had,
    saying so in one line, and is started again for the next."""
    import os
    import signal
    ev, session = game
    folder = tmp_path / "in"
    folder.mkdir()
    names = ["a.png", "b.png", "c.png", "d.png"]
    for i, name in enumerate(names):
        cv2.imwrite(str(folder / name), _card_photo(L.Card("vote", ev.id, f"V0{i + 1}01", i + 1, 1), ev.secret,
                                                         {"mark": ["Z"]}))
        os.utime(folder / name, ns=(i * 10**9, i * 10**9))          # arrived a, b, c, d
    watcher = FolderWatcher(Scanner(ev.id, ev.secret), folder, _submit(session), workers=2)
    watcher.SETTLE = 0
    try:
        watcher.ready()
        first = [worker.pid for worker in watcher.workers]
        for pid in first:
            os.kill(pid, signal.SIGKILL)
        results = watcher.poll()
        assert all(worker.pid not in first for worker in watcher.workers)        # started again
    finally:
        watcher.close()
    assert [r.image.split("/")[-1] for r in results] == names
    assert [r.decision for r in results] == ["rejected", "rejected", "counted", "counted"]
    assert results[0].reason.startswith("the scanner failed on it: card scanner ") and \
        results[0].reason.endswith(": its process stopped (killed by signal 9); started again")
    assert (folder / "rejected" / "a.png").exists() and (folder / "done" / "d.png").exists()
    log = [json.loads(line) for line in (folder / "scan-log.jsonl").read_text().splitlines()]
    assert [entry["image"].split("/")[-1] for entry in log] == names


def test_the_live_scan_command_says_a_hostile_name_literally_and_outlives_its_folder(tmp_path):
    """`companion scan --watch` as the README runs it, in its own process: a card named in bytes no UTF-8 with a
    terminal escape is printed literally; its folder taken away (a stick pulled) and given back, it goes on."""
    import subprocess
    import sys
    import threading
    path, folder = tmp_path / "event.toml", tmp_path / "inbox"
    assert main(["init", "--out", str(path), "--players", "3", "--seed", "3"]) == 0
    assert main(["start", "--event", str(path), "--journal", str(tmp_path / "night.db")]) == 0
    ev = event_file.load(path)
    folder.mkdir()
    live = subprocess.Popen([sys.executable, "-m", "companion", "scan", "--watch", str(folder), "--event", str(path),
                             "--journal", str(tmp_path / "night.db")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    out, err = [], []
    for stream, lines in ((live.stdout, out), (live.stderr, err)):
        threading.Thread(target=lambda s=stream, l=lines: l.extend(iter(s.readline, "")), daemon=True).start()
    try:
        assert wait_for(lambda: any(line.startswith("watching") for line in err))
        folder.rmdir()
        assert wait_for(lambda: any("trying again" in line for line in err)), err
        folder.mkdir()
        assert wait_for(lambda: any("works again" in line for line in err)), err
        picture = _card_photo(L.Card("vote", ev.id, "V0102", 1, 2), ev.secret, {"mark": ["X"]})
        with open(os.fsencode(folder) + b"/v\xff\x1b[2J.png", "wb") as photo:
            photo.write(cv2.imencode(".png", picture)[1].tobytes())
        assert wait_for(lambda: out), err
    finally:
        live.terminate()        # (Ctrl-C once left it running past 30 s on a loaded CI machine: not explained yet)
        live.wait(timeout=30)
    assert "/v\\xff\\x1b[2J.png: " in out[0] and "\x1b" not in out[0], out
    assert not any("Traceback" in line for line in err), err


def test_scan_command_prints_json(tmp_path, capsys):
    path = tmp_path / "event.toml"
    assert main(["init", "--out", str(path), "--players", "3", "--seed", "3"]) == 0
    ev = event_file.load(path)
    cv2.imwrite(str(tmp_path / "v.png"), _card_photo(L.Card("vote", ev.id, "V0102", 1, 2), ev.secret, {"mark": ["X"]}))
    capsys.readouterr()
    assert main(["scan", "--event", str(path), "--json", str(tmp_path / "v.png")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["decision"] == "counted" and data["command"] == {"do": "vote", "serial": "V0102", "turn": 2,
                                                                 "marks": ["X"]}
    assert set(data["scores"]["mark"]) == {"X", "Y", "Z"} and data["ms"] > 0


@pytest.mark.slow
def test_corpus_command_writes_images_with_truth(tmp_path, capsys):
    assert main(["corpus", "cards", "--n", "3", "--tier", "hard", "--out", str(tmp_path)]) == 0
    truths = sorted(tmp_path.glob("*.json"))
    assert len(truths) == 3
    for truth in truths:
        data = json.loads(truth.read_text())
        assert {"kind", "serial", "fields", "style", "expected", "capture", "code"} <= set(data)
        assert any(truth.with_suffix(s).exists() for s in (".jpg", ".png"))


@pytest.mark.parametrize("index", [594, 1250])
def test_faint_marks_that_once_went_uncounted_go_to_review(scanner, index):
    """Bench seed 1, hard tier (both still misread without these checks): #594, a pencil circle
    drawn right over Z's printed ring (its ink hidden by the print model, read blank), and #1250, a
    light pencil tick in cell 6 scoring just under marginal (read as cell 1 alone). Both were
    counted wrongly; a person must look at them."""
    s = C.sample(np.random.default_rng([1, index, True]), "hard", index)
    assert any(len(v) for v in s.truth["fields"].values()) and "pencil" in s.truth["styles"]
    result = scanner.scan_image(C.decoded(s))
    assert C._verdict(result, s.truth) in ("review", "correct"), (s.truth, result)
    assert result.decision == "review", result


def test_the_cards_own_printed_data_is_not_a_stray_line(scanner):
    """The serial under the code once sat in a robber bubble's surrounding band; the blank leaves it
    out, so it read as a pen line through that bubble and sent clean cards to review."""
    card = L.Card("robbery", C.EVENT, "R0105", 1)
    picture = cv2.cvtColor(render(card, C.SECRET, C.RES, 1), cv2.COLOR_GRAY2BGR)
    layout = L.layout("robbery")
    marks = {"robber_tens": ["1"], "robber_units": ["5"], "victim_tens": ["0"], "victim_units": ["2"], "ordinal": ["3"]}
    for name, (value,) in marks.items():
        bubble = next(b for b in layout.field(name).bubbles if b.value == value)
        C._mark(np.random.default_rng(7), picture, bubble, "circle", (30, 30, 30))
    result = scanner.scan_image(cv2.copyMakeBorder(picture, 60, 60, 60, 60, cv2.BORDER_CONSTANT, value=(90, 60, 40)))
    assert (result.decision, result.fields) == ("counted", marks), result


def test_the_same_photo_scanned_twice_is_journaled_once(game, tmp_path):
    """A scanned card's command id is its serial and the photo's hash: the same photo sent again
    (a retry after a crash, a file copied back into the folder) is journaled once."""
    ev, session = game
    folder = tmp_path / "in"
    folder.mkdir()
    photo = _card_photo(L.Card("vote", ev.id, "V0301", 3, 1), ev.secret, {"mark": ["X"]})
    cv2.imwrite(str(folder / "vote.png"), photo)
    kept = (folder / "vote.png").read_bytes()
    watcher = FolderWatcher(Scanner(ev.id, ev.secret), folder, _submit(session))
    watcher.SETTLE = 0
    assert [r.decision for r in watcher.poll()] == ["counted"]
    journaled = len(list(Journal(session.journal.path, readonly=True).batches()))
    (folder / "vote.png").write_bytes(kept)                        # the photo comes back
    watcher.poll()
    batches = list(Journal(session.journal.path, readonly=True).batches())
    assert len(batches) == journaled
    assert batches[-1].id.startswith("card:V0301:")


def _digest(data: bytes) -> str:
    import hashlib
    return hashlib.sha256(data).hexdigest()[:16]


def _watch_until(watcher, until: float, done=lambda results: False) -> list:
    """Poll as FolderWatcher.run does (every 0.1 s) until `until` (time.monotonic()) or done(results)."""
    import time
    results = []
    while time.monotonic() < until and not done(results):
        results += watcher.poll()
        time.sleep(0.1)
    return results


@pytest.mark.parametrize("suffix", [".jpg", ".png"])
def test_a_card_written_in_two_halves_a_second_apart_is_counted(game, tmp_path, suffix):
    """A slow scanner or a network copy pauses mid-file: the first half alone does not decode, and
    is neither read as a card nor moved to rejected/ while the file may still grow."""
    import time
    ev, session = game
    folder = tmp_path / "in"
    folder.mkdir()
    photo = _card_photo(L.Card("vote", ev.id, "V0401", 4, 1), ev.secret, {"mark": ["Z"]})
    data = cv2.imencode(suffix, photo)[1].tobytes()
    watcher = FolderWatcher(Scanner(ev.id, ev.secret), folder, _submit(session))
    path = folder / f"card{suffix}"
    path.write_bytes(data[:len(data) // 2])
    assert _watch_until(watcher, time.monotonic() + 1.0) == []
    assert path.exists() and not (folder / "rejected").exists()
    with path.open("ab") as file:
        file.write(data[len(data) // 2:])
    [result] = _watch_until(watcher, time.monotonic() + 5.0, done=bool)
    assert result.decision == "counted" and (folder / "done" / path.name).exists(), result
    assert session.journal.find(referee_id := f"card:V0401:{_digest(data)}") is not None, referee_id


def test_a_file_that_never_decodes_is_rejected_once_it_has_stopped_changing(tmp_path):
    """Only a file left unchanged for GIVE_UP seconds and still not an image is given up on."""
    import time
    folder = tmp_path / "in"
    folder.mkdir()
    data = cv2.imencode(".jpg", np.full((300, 400, 3), 200, np.uint8))[1].tobytes()
    (folder / "half.jpg").write_bytes(data[:len(data) // 2])
    watcher = FolderWatcher(Scanner("ev", "secret"), folder)
    watcher.SETTLE, watcher.GIVE_UP = 0.0, 0.5
    assert watcher.poll() == [] and (folder / "half.jpg").exists()
    [result] = _watch_until(watcher, time.monotonic() + 3.0, done=bool)
    assert result.decision == "rejected" and result.reason.startswith("truncated JPEG")
    assert (folder / "rejected" / "half.jpg").exists()


@pytest.mark.parametrize("name, brand", [("IMG_0001.HEIC", b"heic"), ("photo.heif", b"mif1"),
                                         ("sent-as.jpg", b"heix")])
def test_a_heic_photo_is_refused_saying_how_to_send_jpeg(tmp_path, name, brand):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / name).write_bytes(b"\x00\x00\x00\x18ftyp" + brand + b"\x00\x00\x00\x00mif1heic" + bytes(500))
    watcher = FolderWatcher(Scanner("ev", "secret"), folder)
    watcher.SETTLE = watcher.GIVE_UP = 0.0
    [result] = watcher.poll()
    assert result.decision == "rejected" and (folder / "rejected" / name).exists()
    assert "\n" not in result.reason and "JPEG" in result.reason, result.reason
    assert "Settings > Camera > Formats > Most Compatible" in result.reason, result.reason
