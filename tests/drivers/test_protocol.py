"""The cage link's framing and the firmware's protocol logic (hardware/firmware/cagelink.py)."""
import ast
import binascii
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.bingo.rules import BALLS
from drivers import protocol as p
from drivers.cage_sim import Flash

FIRMWARE = Path(__file__).resolve().parents[2] / "hardware" / "firmware"
PAYLOAD = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E, blacklist_characters="$*"),
                  max_size=48)


def test_the_host_runs_the_firmware_file_itself():
    assert Path(p.cagelink.__file__).resolve() == FIRMWARE / "cagelink.py"


def test_crc_is_ccitt_false():
    assert p.crc16(b"123456789") == 0x29B1   # the catalogue check value of CRC-16/CCITT-FALSE


@given(st.binary(max_size=200))
def test_crc_matches_the_standard_library(data):
    assert p.crc16(data) == binascii.crc_hqx(data, 0xFFFF)


@given(st.integers(1, 2**32 - 1), st.integers(1, p.SEQ_MAX), st.integers(1, 27), PAYLOAD)
def test_frames_round_trip(boot, seq, ball, payload):
    boot = f"{boot:08x}"
    for kind, number, text in (("BALL", seq, str(ball)), ("LOG", 0, payload), ("ACK", seq, "")):
        frame = p.encode(kind, boot, number, text)
        assert frame.endswith(b"\n") and frame.count(b"\n") == 1
        assert p.decode(frame[:-1]) == (kind, boot, number, text)
        assert p.Lines().feed(frame[:-1] + b"\r\n") == [frame[:-1]]     # "\r\n" ends a line too


def test_every_single_byte_change_is_caught():
    frame = p.encode("BALL", "1a2b3c4d", 1234, "17")[:-1]
    for i in range(len(frame)):
        for delta in (1, 0x20, 0x80, 0xFF):
            damaged = bytearray(frame)
            damaged[i] = (damaged[i] + delta) % 256
            with pytest.raises(p.FrameError):
                p.decode(bytes(damaged))


@pytest.mark.parametrize("line", [b"MicroPython v1.22.0 on 2024-01-01; Raspberry Pi Pico", b"\x00\xff\xfe",
                                  b"$BALL,1a2b3c4d,1,17", b"$BALL,1a2b3c4d,1,17*zzzz", b"*ABCD$"])
def test_noise_is_damaged(line):
    with pytest.raises(p.FrameError) as caught:
        p.decode(line)
    assert caught.value.reason == p.DAMAGED


def test_good_crc_but_bad_fields_is_malformed():
    body = b"BALL,not-hex!,1,17"
    with pytest.raises(p.FrameError) as caught:
        p.decode(b"$" + body + b"*%04X" % p.crc16(body))
    assert caught.value.reason == p.MALFORMED


def test_boot_garbage_before_a_frame_is_skipped():
    frame = p.encode("HELLO", "00c0ffee", 0, "fw=1.0.0 reader=qr")
    assert p.decode(b"\x00\x13rst:0x1 boot$$" + frame[:-1])[0] == "HELLO"


@pytest.mark.parametrize("payload", ["a$b", "a*b", "new\nline", "é", "x" * 49])
def test_payloads_that_would_break_framing_are_refused(payload):
    with pytest.raises(ValueError):
        p.encode("LOG", "00000000", 0, payload)


def test_lines_split_a_stream_and_cut_runaway_garbage():
    lines = p.Lines(limit=16)
    assert lines.feed(b"ab") == []
    assert lines.feed(b"c\n\nde\r\n\r\nf") == [b"abc", b"de"]   # empty lines, "\r\n" or "\n", are skipped
    assert lines.feed(b"x" * 40) == [b"f" + b"x" * 16]      # cut one byte past the limit, once
    assert lines.feed(b"yyy\nok\n") == [b"ok"]               # the rest of the long line is skipped
    assert p.Lines(limit=4).feed(b"abcd\r\nabcde\n") == [b"abcd", b"abcde"]   # the line end is not counted


@pytest.mark.parametrize("label, ball", [("17", 17), ("07", 7), (" 3 ", 3), ("27-K", 27), ("5:abc", 5),
                                         ("28", None), ("0", None), ("123", None), ("17x", None), ("", None),
                                         ("B17", None)])
def test_parse_ball_of_old_labels_configured_with_an_empty_prefix(label, ball):
    assert p.parse_ball(label, prefix="") == ball


def test_parse_ball_with_prefix():
    assert p.parse_ball("PB-12/9f", prefix="PB-") == 12
    assert p.parse_ball("12", prefix="PB-") is None


def test_the_firmware_knows_the_same_balls_as_the_rules():
    assert range(p.cagelink.BALL_FIRST, p.cagelink.BALL_LAST + 1) == p.BALLS == BALLS


# -- MicroPython: the firmware files must stay within what it runs --

MICROPYTHON_MODULES = {"machine", "micropython", "os", "sys", "time", "select", "cagelink", "rp2", "gc"}


@pytest.mark.parametrize("name", ["cagelink.py", "main.py"])
def test_firmware_stays_within_micropython(name):
    tree = ast.parse((FIRMWARE / name).read_text())
    for node in ast.walk(tree):
        assert not isinstance(node, ast.JoinedStr), f"{name}:{node.lineno}: f-string"
        assert not isinstance(node, (ast.AnnAssign, ast.NamedExpr, ast.Match)), f"{name}:{node.lineno}"
        if isinstance(node, ast.arg):
            assert node.annotation is None, f"{name}:{node.lineno}: annotation"
        if isinstance(node, ast.FunctionDef):
            assert node.returns is None, f"{name}:{node.lineno}: annotation"
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            assert set(modules) <= MICROPYTHON_MODULES, f"{name}:{node.lineno}: imports {modules}"


# -- the cage's side of the protocol, on a clock we drive --

class Wire:
    def __init__(self):
        self.sent = []

    def __call__(self, frame):
        self.sent.append(p.decode(frame[:-1]))

    def take(self):
        sent, self.sent = self.sent, []
        return sent


def cage(flash=None, boot="0000beef", now=0):
    wire = Wire()
    c = p.Cage(boot, wire, flash or Flash(), now, reader="qr")
    c.start(now)
    return c, wire


def ack(boot, seq):
    return p.encode("ACK", boot, seq)


def test_hello_at_boot_then_one_ball_in_flight_oldest_first():
    c, wire = cage()
    assert wire.take() == [("HELLO", "0000beef", 0, "fw=%s reader=qr" % p.cagelink.VERSION)]
    assert c.read(17, 10) == 1 and c.read(4, 20) == 2
    assert wire.take() == [("BALL", "0000beef", 1, "17")]          # 4 waits for 17's ACK
    c.feed(ack("0000beef", 1), 30)
    assert wire.take() == [("BALL", "0000beef", 2, "4")]
    c.feed(ack("0000beef", 2), 40)
    assert c.pending == [] and wire.take() == []


def test_unacked_ball_is_resent_with_backoff_and_a_stray_ack_changes_nothing():
    c, wire = cage()
    wire.take()
    c.read(9, 0)
    wire.take()
    times = []
    for now in range(0, 2000, 5):
        c.tick(now)
        times += [now for kind, *_ in wire.take() if kind == "BALL"]
    assert times[:4] == [100, 300, 700, 1500]                       # 100 ms, doubling
    c.feed(ack("0000beef", 7) + ack("ffffffff", 1), 2000)
    assert c.pending == [("0000beef", 1, 9)] and c.rtx == 4


def test_nak_or_a_damaged_line_resends_at_once():
    c, wire = cage()
    c.read(3, 0)
    wire.take()
    c.feed(p.encode("NAK", p.NO_BOOT, 0), 5)
    c.feed(b"$ACK,0000beef,1,*0000\n", 6)                          # our ACK, garbled on the way
    assert [f[0] for f in wire.take()] == ["BALL", "BALL"] and c.bad == 1


def test_sync_answers_hello_and_the_ball_in_flight():
    c, wire = cage()
    c.read(3, 0)
    wire.take()
    c.feed(p.encode("SYNC", p.NO_BOOT, 0), 50)
    assert [f[0] for f in wire.take()] == ["HELLO", "BALL"]


def test_balls_survive_a_reboot_under_their_old_boot_id():
    flash = Flash()
    c, wire = cage(flash, boot="00000001")
    c.read(5, 0)
    c.read(6, 1)
    wire.take()
    c2, wire2 = cage(flash, boot="00000002", now=5)                 # power cut: RAM gone, flash kept
    assert wire2.take() == [("HELLO", "00000002", 0, "fw=%s reader=qr prev=00000001" % p.cagelink.VERSION),
                            ("END", "00000001", 2, "rtx=0 bad=0 misreads=0"),
                            ("BALL", "00000001", 1, "5")]
    c2.feed(ack("00000001", 1), 6)
    assert wire2.take() == [("BALL", "00000001", 2, "6")]
    assert c2.read(7, 7) == 1                                       # the new boot counts from 1
    c2.feed(ack("00000001", 2), 8)
    assert wire2.take() == [("BALL", "00000002", 1, "7")]


def test_the_reader_repeating_itself_is_one_ball():
    c, wire = cage()
    assert c.read(8, 0) == 1
    assert c.read(8, 1500) is None        # the ball still sits in front of the reader
    assert c.read(8, 3000) is None        # ... and the window runs from the last sighting
    assert c.read(9, 3100) == 2
    assert c.read(8, 3200) == 3


def test_heartbeat_carries_the_counters():
    c, wire = cage()
    wire.take()
    c.read(1, 0)
    c.misread("??", 10)
    c.reader_ok = False
    c.tick(1000)
    hb = [f for f in wire.take() if f[0] == "HB"]
    assert len(hb) == 1 and hb[0][:3] == ("HB", "0000beef", 1)      # seq: the last ball this boot
    assert p.fields(hb[0][3]) == {"pending": "1", "rtx": "1", "bad": "0", "misreads": "1", "reader": "fault"}


def test_resends_after_the_last_heartbeat_reach_the_host_after_a_reboot():
    flash = Flash()
    c, wire = cage(flash, boot="00000001")
    c.read(5, 0)
    c.tick(1000)                                       # HB: rtx so far; then the cable is out
    hb = [f for f in wire.take() if f[0] == "HB"][-1]
    for now in range(1000, 3000, 10):
        c.tick(now)
    assert c.rtx > int(p.fields(hb[3])["rtx"])          # resent since that heartbeat ...
    c2, wire2 = cage(flash, boot="00000002", now=3000)  # ... then a power cut
    end = [f for f in wire2.take() if f[0] == "END"]
    assert end == [("END", "00000001", 1, "rtx=%d bad=0 misreads=0" % c.rtx)]
    c2.feed(p.encode("SYNC", p.NO_BOOT, 0), 3001)       # said again on SYNC, until the next boot
    assert [f[0] for f in wire2.take()] == ["HELLO", "END", "BALL"]


def test_seq_never_wraps_the_boot_after_seq_max_is_a_new_boot():
    c, wire = cage(boot="0000beef")
    c.seq = p.SEQ_MAX - 1
    assert c.read(3, 0) == p.SEQ_MAX
    c.feed(ack("0000beef", p.SEQ_MAX), 1)
    wire.take()
    assert c.read(4, 2) == 1 and c.boot == "0000bef0"
    assert [f[:3] for f in wire.take()] == [("HELLO", "0000bef0", 0), ("END", "0000beef", p.SEQ_MAX),
                                            ("BALL", "0000bef0", 1)]


def test_a_crash_loop_still_reports_each_earlier_boots_counters():
    flash = Flash()
    c, wire = cage(flash, boot="00000001")
    c.read(5, 0)
    for now in range(0, 800, 10):
        c.tick(now)                                     # resends at 100, 300 and 700 ms that nobody hears
    for boot in ("00000002", "00000003", "00000004"):
        c, wire = cage(flash, boot=boot, now=1000)      # each boot dies before its END gets out
    ends = [(f[1], p.fields(f[3])["rtx"]) for f in wire.take() if f[0] == "END"]
    assert ends == [("00000003", "0"), ("00000002", "0"), ("00000001", "3")]   # newest first
    c, wire = cage(flash, boot="00000005")
    assert [f[1] for f in wire.take() if f[0] == "END"] == ["00000004", "00000003", "00000002"]   # 3 kept
