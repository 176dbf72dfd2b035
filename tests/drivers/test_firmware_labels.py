"""Framed mode with a QR module in the cage: the firmware, at its default settings, reads the
printed ball labels (`companion print balls`, as a QR decoder reads them off the rasterised PDF)
and reports each ball over the cage protocol to the companion; noise and near misses are no ball."""
import ast
import random
import subprocess
import sys

import pytest

from drivers import protocol as p
from drivers.cage_sim import Flash
from drivers.serial_link import SerialLink
from vision import ball_labels as bl

from test_protocol_micropython import CAGELINK, NODE, PACKAGE, RUNNER
from test_raw_scanner import FRAMINGS, line_noise, near_misses, printed_texts  # noqa: F401 (a fixture)

MAIN = CAGELINK.parent / "main.py"


def firmware_setting(name: str):
    """A setting at the top of the shipped main.py, as it ships (main.py itself needs a Pico)."""
    for node in ast.parse(MAIN.read_text()).body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == [name]:
            return ast.literal_eval(node.value)
    raise AssertionError(f"main.py has no setting {name}")


def labels():
    """The firmware's label reader as main.py's QrReader makes it."""
    return p.cagelink.Labels(firmware_setting("LABEL_PREFIX"))


def feed_in_chunks(reader, data: bytes, rng: random.Random) -> list:
    found, at = [], 0
    while at < len(data):
        size = rng.randint(1, 64)
        found += reader.feed(data[at:at + size])
        at += size
    return found


@pytest.mark.parametrize("framing", FRAMINGS)
def test_every_printed_label_reaches_the_companion_through_the_firmware(printed_texts, framing):
    got, wire = [], []
    link = SerialLink("loop://", got.append)                       # framed, the default
    cage = p.Cage("0000beef", wire.append, Flash(), 0, reader="qr", repeat_ms=0)
    cage.start(0)
    reader, rng = labels(), random.Random(7)
    for now, ball in enumerate(bl.BALLS, 1):
        for item in feed_in_chunks(reader, framing % printed_texts[ball].encode("ascii"), rng):
            assert isinstance(item, int), f"the firmware did not read {item!r}"
            cage.read(item, now)
        while wire:
            for reply in link.receive(wire.pop(0)):
                cage.feed(reply, now)
    assert [(r.ball, r.source, r.seq) for r in got] == [(ball, "cage", ball) for ball in bl.BALLS]
    assert cage.pending == [] and cage.misreads == 0
    health = link.health()
    assert health.crc_errors == health.malformed == health.gaps == 0


def test_a_megabyte_of_noise_yields_no_ball_from_the_firmware():
    rng = random.Random(27)
    reader = labels()
    found = feed_in_chunks(reader, line_noise(rng), rng)
    assert [item for item in found if not isinstance(item, str)] == []
    assert len(found) > 60_000
    assert reader.feed(b"\r\n]Q1" + bl.payload(9).encode() + b"\r") == [9]   # and a label right after it is read


def test_near_misses_in_every_framing_are_misreads():
    misses = near_misses()
    found = labels().feed(b"".join(framing % text.encode() for text in misses for framing in FRAMINGS))
    assert len(found) == len(misses) * len(FRAMINGS) and all(isinstance(item, str) for item in found)


def test_the_firmware_and_the_printer_agree_on_every_pb_and_four_digits():
    for number in range(10_000):
        text = f"{bl.PREFIX}{number:04d}"
        assert p.parse_ball(text) == bl.parse_payload(text), text
        assert p.parse_ball(f"]Q1{text}\r") == bl.parse_payload(text), text
    assert p.cagelink.LABEL == bl.PREFIX


@pytest.mark.parametrize("line", ["PB0777PB0777", "xPB0777;", "\x02PB0777\x03"])
def test_one_label_however_wrapped_is_its_ball(line):
    assert p.parse_ball(line) == 7


@pytest.mark.parametrize("line", ["PB0777PB1747", "PB0777 PB0778", "PB07771", "pb0777", "PB777", "PB07 77", "PB0712",
                                  "PB2890", "PB0001", "07", "7", "", "PB", "PBPB"])
def test_two_labels_or_a_near_miss_is_no_ball(line):
    assert p.parse_ball(line) is None


def test_the_old_prefixed_labels_are_read_only_when_configured():
    assert p.cagelink.Labels("BALL-").feed(b"BALL-7\rBALL-12/x\r\nPB0777\r") == [7, 12, "PB0777"]
    assert labels().feed(b"7\r12\r") == ["7", "12"]


@pytest.mark.skipif(NODE is None or not PACKAGE.exists(), reason="MicroPython (npm @micropython/"
                    "micropython-webassembly-pyscript) not installed: ./dev setup installs it when npm is there")
@pytest.mark.slow
def test_the_firmware_reads_labels_alike_under_micropython(printed_texts, tmp_path):
    rng = random.Random(5)
    cases = [framing % text.encode() for framing in FRAMINGS for text in list(printed_texts.values()) + near_misses()]
    cases += [bytes(rng.randrange(256) for _ in range(rng.randint(1, 120))) for _ in range(300)]
    script = tmp_path / "labels.py"
    script.write_text(CAGELINK.read_text() + "\nDATA = %r\n" % b"\n".join(cases + [b""]) + r'''
for item in Labels().feed(DATA):
    print(repr(item))
''')
    runner = tmp_path / "run.mjs"
    runner.write_text(RUNNER % repr(PACKAGE.as_uri()))
    micro = subprocess.run([NODE, str(runner), str(script)], capture_output=True, text=True, timeout=120)
    assert micro.returncode == 0, micro.stderr[-2000:]
    cpython = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert cpython.returncode == 0, cpython.stderr[-2000:]
    assert micro.stdout.splitlines() == cpython.stdout.splitlines()
    balls = [int(line) for line in cpython.stdout.splitlines() if line.isdigit()]
    assert balls == list(bl.BALLS) * len(FRAMINGS)
