"""Raw mode: a plain USB/UART QR scanner, left at its default settings, reading the printed ball
labels (`companion print balls`) and typing each as a line; and line noise that is no ball."""
import os
import random
import time

import pytest

from companion.cli import main
from drivers.serial_link import SerialLink
from vision import ball_labels as bl
from vision.sim import ball_sheet


@pytest.fixture(scope="module")
def printed_texts(tmp_path_factory) -> dict[int, str]:
    """Ball -> the text its first printed sticker's QR holds, read by a QR decoder (zxing-cpp) from
    the rasterised PDF, as a scanner reads it (not the text the printer was given)."""
    import zxingcpp
    pdf = tmp_path_factory.mktemp("print") / "balls.pdf"
    assert main(["print", "balls", "--out", str(pdf)]) == 0
    pages = ball_sheet.rasterise(pdf.read_bytes(), ball_sheet.PX_PER_MM)
    texts = {}
    for place in (p for p in bl.sheet_places(bl.Design()) if p.copy == 0):
        sticker = ball_sheet.cut(pages[place.page], place, bl.Design(), ball_sheet.PX_PER_MM)
        [code] = zxingcpp.read_barcodes(sticker, formats=zxingcpp.BarcodeFormat.QRCode)
        texts[place.ball] = code.text
    assert sorted(texts) == list(bl.BALLS)
    return texts


def scanner_link(got: list) -> SerialLink:
    return SerialLink("loop://", got.append, mode="raw", raw_repeat=0)


def feed(link: SerialLink, data: bytes, rng: random.Random | None = None) -> None:
    """Bytes as the port delivers them: in chunks of any size."""
    at = 0
    while at < len(data):
        size = rng.randint(1, 64) if rng else len(data)
        link.receive(data[at:at + size])
        at += size


# What a scanner sends round the text at its defaults, or as commonly set: line ends CR, LF or
# CR LF; an AIM symbology identifier (]Q1: QR, model 2); STX/ETX; a prefix or suffix typed by the user.
FRAMINGS = [b"%s\r", b"%s\n", b"%s\r\n", b"]Q1%s\r", b"]Q1%s\r\n", b"\x02%s\x03\r\n", b"SCAN:%s\r", b"%s;\r",
            b" %s \t\r\n"]


@pytest.mark.parametrize("framing", FRAMINGS)
def test_every_printed_ball_label_is_read_as_its_ball(printed_texts, framing):
    got = []
    link = scanner_link(got)
    for ball in bl.BALLS:
        feed(link, framing % printed_texts[ball].encode("ascii"), random.Random(ball))
    assert [r.ball for r in got] == list(bl.BALLS)
    assert {r.source for r in got} == {"scanner"} and link.health().malformed == 0


def test_labels_ending_in_cr_alone_over_a_real_port():
    """Many scanners end a code with CR alone: each is a line, read at once (not when a LF comes)."""
    import queue
    import tty
    master, slave = os.openpty()
    tty.setraw(slave)
    got = queue.Queue()
    try:
        with SerialLink(os.ttyname(slave), got, mode="raw", raw_repeat=0) as link:
            deadline = time.monotonic() + 5
            while not link.health().connected and time.monotonic() < deadline:
                time.sleep(0.01)
            os.write(master, b"]Q1" + bl.payload(17).encode() + b"\r")
            assert got.get(timeout=5).ball == 17
            os.write(master, bl.payload(4).encode() + b"\r")
            assert got.get(timeout=5).ball == 4
    finally:
        os.close(master)
        os.close(slave)


def near_misses() -> list[str]:
    """Texts that look like ball labels and are none: a check digit wrong, the pairs swapped, a ball
    out of range with its own check digits, a digit short or over, lower case, the old bare number."""
    texts = []
    for ball in bl.BALLS:
        good = bl.payload(ball)
        texts += [good[:-1] + str((int(good[-1]) + 1) % 10), good[:2] + good[4:] + good[2:4], good[:-1],
                  good + "0", good.lower(), str(ball), f"{ball:02d}", f"PB{ball}", f"PB{ball:02d}"]
    texts += [f"PB{ball:02d}{bl.check_digits(ball)}" for ball in (0, 28, 50, 99)]
    return [text for text in texts if bl.parse_payload(text) is None]


def line_noise(rng: random.Random) -> bytes:
    """1 MB of random bytes, random digits, and near-miss texts in every framing."""
    noise = [os.urandom(400_000), "\r\n".join(str(rng.randrange(10 ** rng.randint(1, 8)))
                                              for _ in range(70_000)).encode()]
    misses = near_misses()
    noise.append(b"".join(rng.choice(FRAMINGS) % rng.choice(misses).encode() for _ in range(25_000)))
    data = b"\r\n".join(noise)
    assert len(data) >= 1_000_000
    return data


def test_a_megabyte_of_line_noise_yields_no_ball():
    """Line noise (line_noise), fed in random chunks."""
    rng = random.Random(27)
    data = line_noise(rng)
    got = []
    link = scanner_link(got)
    feed(link, data, rng)
    assert got == [] and link.health().reads == 0
    assert link.health().malformed > 60_000
    feed(link, b"\r\n" + bl.payload(9).encode() + b"\r\n")     # and a label right after it is read
    assert [r.ball for r in got] == [9]


def test_a_custom_raw_pattern_still_reads_other_labels():
    got = []
    link = SerialLink("loop://", got.append, mode="raw", raw_pattern=r"(\d+)")
    feed(link, b"12\r7\r\nPB0712\r")
    assert [r.ball for r in got] == [12, 7]
