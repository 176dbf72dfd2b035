"""Conformance to hardware/PROTOCOL.md, read from the document itself: its grammar, frame
table, field values, line examples and transcripts (fenced blocks) drive the host
(drivers/serial_link.py) and the shipped firmware (hardware/firmware/cagelink.py, under
CPython and under real MicroPython), so the document and the code cannot drift apart.

The reference classifier below is built from the document's rules alone; the scripted cage
(scripted_cage.py) frames its lines with its own CRC. Neither uses the firmware's code."""
from __future__ import annotations

import binascii
import queue
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drivers import protocol as p
from drivers.cage_sim import SimCage, SocketPort
from drivers.serial_link import SerialLink

from scripted_cage import PtyCage, SocketCage, frame
from test_protocol_micropython import CAGELINK, FLASH, NODE, PACKAGE, RUNNER

DOC = Path(__file__).resolve().parents[2] / "hardware" / "PROTOCOL.md"
TEXT = DOC.read_text(encoding="utf-8")


def blocks(kind: str) -> list[list[str]]:
    """The lines of each fenced block of this kind (```kind ... ```)."""
    found = re.findall(rf"^```{kind}\n(.*?)^```", TEXT, re.S | re.M)
    assert found, f"{DOC.name} has no ```{kind} block"
    return [[line for line in block.splitlines() if line.strip()] for block in found]


def table(kind: str) -> list[list[str]]:
    header, *rows = blocks(kind)[0]
    return [row.split(None, len(header.split()) - 1) for row in rows]


GRAMMAR = {name: re.compile(rule) for name, rule in (line.split(None, 1) for line in blocks("grammar")[0])}
FRAMES = {row[0]: dict(zip(("from", "boot", "seq", "payload", "required"), row[1:])) for row in table("frames")}
VALUES = {(kind, field): rule for kind, field, rule in table("values")}
MAX_LINE = int(re.search(r"^\| line \| (\d+) bytes, line end not counted", TEXT, re.M).group(1))
NO_BOOT = "00000000"


def unescape(text: str) -> bytes:
    """A line as the document writes it (\\r, \\xNN escapes) as bytes."""
    return text.encode("latin-1").decode("unicode_escape").encode("latin-1")


def crc(body: str) -> int:
    return binascii.crc_hqx(body.encode("latin-1"), 0xFFFF)


# -- the document's rules, as a reference classifier --

def classify(line: bytes) -> tuple[str, dict | None]:
    """("damaged" | "malformed" | "good", the body's fields) for one line without its "\n"."""
    if line.endswith(b"\r"):          # one "\r" before the "\n" is part of the line end
        line = line[:-1]
    if len(line) > MAX_LINE:
        return "damaged", None
    text = line[line.rfind(b"$"):].decode("latin-1") if b"$" in line else line.decode("latin-1")
    match = GRAMMAR["frame"].fullmatch(text)
    if not match or int(match["crc"], 16) != crc(match["body"]):
        return "damaged", None
    body = GRAMMAR["body"].fullmatch(match["body"])
    if not body or not _obeys_its_type(body.groupdict()):
        return "malformed", None
    return "good", body.groupdict()


def _obeys_its_type(f: dict) -> bool:
    rule = FRAMES.get(f["type"])
    if rule is None:
        return False
    if (f["boot"] == NO_BOOT) != (rule["boot"] == "none"):
        return False
    low, _, high = rule["seq"].partition("-")
    if not int(low) <= int(f["seq"]) <= int(high or low):
        return False
    payload = f["payload"]
    if rule["payload"] == "ball":
        return bool(GRAMMAR["ball"].fullmatch(payload))
    if rule["payload"] == "empty":
        return payload == ""
    if rule["payload"] == "fields":
        return _fields_obey(f["type"], payload, rule["required"].split())
    return True


def _fields_obey(kind: str, payload: str, required: list[str]) -> bool:
    if not GRAMMAR["fields"].fullmatch(payload):
        return False
    pairs = [item.split("=", 1) for item in payload.split(" ")]
    values = dict(pairs)
    if len(values) != len(pairs) or not set(required) <= set(values):
        return False
    for key in set(required) | {key for key in values if (kind, key) in VALUES}:
        rule = VALUES[(kind, key)]
        if not (GRAMMAR[rule] if rule in GRAMMAR else re.compile(rule)).fullmatch(values[key]):
            return False
    return True


EXAMPLES = [line.split(None, 2) for line in blocks("lines")[0]]
TABLE_EXAMPLES = re.findall(r"^\| `[A-Z]+` \| `([^`]+)` \|", TEXT, re.M)


@pytest.mark.parametrize("verdict, answer, line", EXAMPLES, ids=[e[2][:40] for e in EXAMPLES])
def test_each_line_example_follows_the_documents_own_grammar(verdict, answer, line):
    assert classify(unescape(line))[0] == verdict


def test_the_examples_cover_every_rule():
    verdicts = {verdict for verdict, _, _ in EXAMPLES}
    assert verdicts == {"good", "damaged", "malformed"}
    good_types = {classify(unescape(line))[1]["type"] for verdict, _, line in EXAMPLES if verdict == "good"}
    assert good_types >= {kind for kind, rule in FRAMES.items() if rule["from"] == "cage"}
    assert len(TABLE_EXAMPLES) == len(FRAMES)


@pytest.mark.parametrize("example", TABLE_EXAMPLES)
def test_the_frame_tables_examples_are_what_the_firmware_writes(example):
    verdict, fields = classify(example.encode())
    assert verdict == "good", example
    assert p.encode(fields["type"], fields["boot"], int(fields["seq"]), fields["payload"]) == example.encode() + b"\n"


def host(**kw):
    got, alerts = [], []
    return SerialLink("loop://", got.append, on_alert=alerts.append, **kw), got, alerts


def feed(link, data: bytes, lines=None) -> list[bytes]:
    """Bytes as they come off the wire, through the host's line splitter, into the host."""
    replies = []
    for line in (lines or p.Lines()).feed(data):
        replies += link.handle(line)
    return replies


def expected_answer(answer: str, line: bytes) -> list[bytes]:
    if answer == "-":
        return []
    if answer == "ACK":
        f = classify(line)[1]
        return [frame("ACK", f["boot"], int(f["seq"])) + b"\n"]
    return [frame(answer, NO_BOOT, 0) + b"\n"]


@pytest.mark.parametrize("verdict, answer, line", EXAMPLES, ids=[e[2][:40] for e in EXAMPLES])
def test_the_host_answers_and_counts_each_line_example_as_documented(verdict, answer, line):
    link, got, alerts = host()
    raw = unescape(line)
    assert feed(link, raw + b"\n") == expected_answer(answer, raw)
    h = link.health()
    assert (h.frames, h.crc_errors, h.malformed) == {"good": (1, 0, 0), "damaged": (0, 1, 0),
                                                     "malformed": (0, 0, 1)}[verdict]
    if verdict == "malformed":
        assert len(alerts) == 1 and alerts[0].startswith("refused a malformed frame") and h.alerts == 1
    if answer == "ACK":
        assert [r.ball for r in got] == [int(classify(raw)[1]["payload"])]
    else:
        assert got == []


def test_empty_lines_are_ignored_whatever_their_line_end():
    link, got, alerts = host()
    assert feed(link, b"\n\r\n\n\r\n") == []
    h = link.health()
    assert (h.frames, h.crc_errors, h.malformed, alerts) == (0, 0, 0, [])


def test_a_line_just_over_the_limit_is_damaged_once_and_the_next_line_is_read():
    longest = unescape(next(line for v, _, line in EXAMPLES if v == "malformed" and "LOG" in line))
    link, got, _ = host()
    lines = p.Lines()
    fits = b"x" * (MAX_LINE - len(longest)) + longest              # noise before the $ is allowed
    assert feed(link, fits + b"\r\n", lines) == [] and link.health().malformed == 1
    over = b"x" + fits
    assert feed(link, over + b"\r\n" + b"y" * 500 + b"\n", lines) == [frame("NAK", NO_BOOT, 0) + b"\n"] * 2
    ball = frame("BALL", "0007a3f1", 1, "3")
    assert feed(link, ball + b"\n", lines) == [frame("ACK", "0007a3f1", 1) + b"\n"]
    assert link.health().crc_errors == 2 and [r.ball for r in got] == [3]


# -- the transcripts --

TRANSCRIPTS = blocks("transcript")


def run_transcript(script: list[str]) -> None:
    marks = {boot: int(seq) for line in script if line.startswith("marks:")
             for boot, seq in (item.split("=") for item in line.split()[1:])}
    link, got, _ = host(marks=marks)
    step = None

    def check(step) -> None:
        if step is None:
            return
        where = f"after cage: {step['line']}"
        new = got[step["reads"]:]
        assert step["replies"] == step["host"], where
        assert [r.ball for r in new] == step["deliver"], where
        read_alerts = [r.alert for r in new if r.alert]
        raised = read_alerts + [link.health().alert] * (link.health().alerts - step["alerts"] - len(read_alerts))
        assert len(raised) == len(step["alert"]), f"{where}: {raised}"
        for text in step["alert"]:
            assert any(text in alert for alert in raised), f"{where}: {raised}"

    for line in script:
        what, _, rest = line.partition(": ")
        if what == "cage":
            check(step)
            step = {"line": rest, "host": [], "deliver": [], "alert": [], "reads": len(got),
                    "alerts": link.health().alerts}
            step["replies"] = feed(link, unescape(rest) + b"\n")
        elif what in ("host", "deliver", "alert"):
            step[what].append({"host": lambda: unescape(rest) + b"\n", "deliver": lambda: int(rest),
                               "alert": lambda: rest}[what]())
        elif what == "counts":
            check(step)
            step = None
            h = link.health()
            for item in rest.split():
                name, value = item.split("=")
                assert getattr(h, name) == int(value), f"{name}: {getattr(h, name)}, the document says {value}"
        else:
            assert what == "marks" or line.startswith("#"), f"{DOC.name}: what is {line!r}?"
    check(step)


@pytest.mark.parametrize("script", TRANSCRIPTS, ids=[f"transcript{i + 1}" for i in range(len(TRANSCRIPTS))])
def test_the_host_follows_each_transcript(script):
    assert any(line.startswith("counts:") for line in script)
    run_transcript(script)


# -- a scripted cage on a real port --

def until(condition, seconds=5.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


BOOT = "0007a3f1"
HELLO = frame("HELLO", BOOT, 0, "fw=9.9.9 reader=sim")
HB = frame("HB", BOOT, 0, "pending=0 rtx=0 bad=0 misreads=0 reader=ok")


def test_a_lost_hello_is_asked_for_again_over_the_wire():
    with PtyCage() as cage, SerialLink(cage.url, lambda read: None) as link:
        cage.expect("SYNC")                              # on opening the port; our HELLO is lost
        cage.say(HB)
        cage.expect("SYNC")                              # asked again
        cage.say(HELLO, HB)
        until(lambda: link.health().firmware == "9.9.9")
        assert link.health().ok


def test_a_pipelining_cage_loses_nothing_and_is_told_on_screen():
    q, alerts = queue.Queue(), []
    with PtyCage() as cage, SerialLink(cage.url, q, on_alert=alerts.append) as link:
        cage.expect("SYNC")
        cage.say(HELLO, frame("BALL", BOOT, 1, "4"), frame("BALL", BOOT, 3, "6"), frame("BALL", BOOT, 2, "5"))
        assert [cage.expect("ACK") for _ in range(2)] == [frame("ACK", BOOT, 1), frame("ACK", BOOT, 2)]
        cage.say(frame("BALL", BOOT, 3, "6"))            # no ACK for 3: it resends it
        assert cage.expect("ACK") == frame("ACK", BOOT, 3)
        assert [(r.ball, r.seq) for r in (q.get(timeout=5) for _ in range(3))] == [(4, 1), (5, 2), (6, 3)]
        assert link.health().gaps == 1 and "seq 2 has not arrived" in alerts[0]


def test_a_connection_closed_before_a_good_line_is_not_a_reconnect():
    with SocketCage(hang_up_first=2) as cage, SerialLink(cage.url, lambda read: None, backoff=(0.01, 0.05)) as link:
        cage.expect("SYNC")
        cage.say(HELLO)
        until(lambda: link.health().firmware is not None)
        assert cage.accepted == 3 and link.health().reconnects == 0
        cage.hang_up()
        cage.expect("SYNC")
        cage.say(HELLO)
        until(lambda: link.health().reconnects == 1)


def test_the_host_shows_every_resend_even_those_made_while_unplugged_before_a_reboot():
    with SimCage(SocketPort(), seed=5) as sim, SerialLink(sim.url, lambda read: None) as link:
        until(lambda: link.health().boot_id == sim.boot)
        sim.unplug(1.2)                      # resends at 100, 300, 700 ms go nowhere; no HB gets out
        sim.draw()
        time.sleep(0.9)
        sim.reboot()
        until(lambda: link.health().boot_id == sim.boot and link.health().pending == 0, 10)
        assert sim.resent() >= 3
        until(lambda: link.health().retransmits == sim.resent())


# -- the shipped firmware's obligations, under CPython and under real MicroPython --

SCENARIO = r'''
clock = [0]
out = []
def wire(data):
    out.append("%d > %s" % (clock[0], data.decode()[:-1]))

def tell(cage, data):
    out.append("%d < %s" % (clock[0], data.decode()[:-1]))
    cage.feed(data, clock[0])

flash = Flash()
cage = Cage("0001beef", wire, flash, 0, reader="sim", repeat_ms=0)
cage.start(0)
reads = {10: 5, 20: 6, 30: 7, 2495: 11, 2990: 8, 3500: 9, 3510: 10}
said = {1500: encode(NAK, NO_BOOT, 0), 1510: b"\x00junk\n", 2500: encode(SYNC, NO_BOOT, 0),
        2600: encode(ACK, "0001beef", 99), 3700: b"$ACK,0001beef,1,*zzzz\n"}
lose_first_ack = (2, 3)          # seqs whose first ACK is lost on the way
lost = []
due = []                         # (when, ACK) the host will send
heard = 0
t = 0
while t <= 7000:
    clock[0] = t
    if t == 3000:                # power cut: RAM gone, flash kept
        cage = Cage("0002cafe", wire, flash, t, reader="sim", repeat_ms=0)
        cage.start(t)
    if t in reads:
        cage.read(reads[t], t)
    if t in said:
        tell(cage, said[t])
    for item in [d for d in due if d[0] <= t]:
        due.remove(item)
        tell(cage, item[1])
    cage.tick(t)
    while heard < len(out):
        line = out[heard].split(" ", 2)
        heard += 1
        if line[1] != ">" or not line[2].startswith("$BALL"):
            continue
        kind, boot, seq, payload = decode(line[2].encode())
        if 2900 <= t < 3100:         # the cable is out around the reboot
            continue
        if seq in lose_first_ack and (boot, seq) not in lost:
            lost.append((boot, seq))
            continue
        due.append((t + 20, encode(ACK, boot, seq)))
    t += 5
for line in out:
    print(line)
'''


def firmware_transcript(under_micropython: bool, tmp_path) -> list[tuple[int, str, bytes]]:
    script = tmp_path / "scenario.py"
    script.write_text(CAGELINK.read_text() + "\n" + FLASH + SCENARIO)
    if under_micropython:
        runner = tmp_path / "run.mjs"
        runner.write_text(RUNNER % repr(PACKAGE.as_uri()))
        command = [NODE, str(runner), str(script)]
    else:
        command = [sys.executable, str(script)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return [(int(t), way, line.encode()) for t, way, line in (row.split(" ", 2) for row in done.stdout.splitlines())]


def check_cage_obligations(rows) -> None:
    """PROTOCOL.md, "The cage's obligations", checked on everything the cage sent."""
    sent = [(t, classify(line)) for t, way, line in rows if way == ">"]
    assert all(verdict == "good" for _, (verdict, _) in sent), [r for r in rows if classify(r[2])[0] != "good"]
    assert all(FRAMES[f["type"]]["from"] == "cage" for _, (_, f) in sent)
    acked, current, announced, last_seq = set(), None, None, {}
    sends: dict = {}                      # (boot, seq) -> times sent
    resends_by_boot: dict = {}
    first_sent_by: set = set()
    heartbeats: dict = {}
    prompt = -1                           # time of the last line that calls for a resend at once
    told_bad: dict = {}
    for t, way, line in rows:
        if way == "<":
            verdict, f = classify(line)
            if verdict == "good" and f["type"] == "ACK":
                acked.add((f["boot"], int(f["seq"])))
            else:
                prompt = t
            if verdict != "good":
                told_bad[current] = told_bad.get(current, 0) + 1
            continue
        f = classify(line)[1]
        kind, boot, seq = f["type"], f["boot"], int(f["seq"])
        if kind == "HELLO":
            current = boot
            announced = dict(item.split("=") for item in f["payload"].split()).get("prev")
        elif kind == "HB":
            assert boot == current and seq == last_seq.get(boot, 0)
            heartbeats.setdefault(boot, []).append(t)
            assert int(dict(i.split("=") for i in f["payload"].split())["rtx"]) == resends_by_boot.get(boot, 0)
        elif kind == "END":
            values = dict(item.split("=") for item in f["payload"].split())
            assert int(values["rtx"]) == resends_by_boot.get(boot, 0), "END rtx: the old boot's resends"
            assert int(values["bad"]) == told_bad.get(boot, 0)
            assert seq == last_seq.get(boot, 0) and boot == announced, "END right after the HELLO naming it"
        elif kind == "BALL":
            key = (boot, seq)
            if key not in sends:                                        # a new ball
                assert all(k in acked for k in sends), f"{t}: BALL {key} while an earlier one is unACKed"
                assert boot == current and seq == last_seq.get(boot, 0) + 1, f"{t}: seq {key}"
                last_seq[boot] = seq
            elif (current, key) in first_sent_by:
                resends_by_boot[current] = resends_by_boot.get(current, 0) + 1
                gap = t - sends[key][-1]
                assert t == prompt or 100 <= gap <= 1005, f"{t}: resend of {key} after {gap} ms"
            first_sent_by.add((current, key))
            sends.setdefault(key, []).append(t)
    for boot, times in heartbeats.items():
        assert all(995 <= b - a <= 1005 for a, b in zip(times, times[1:])), f"heartbeats of {boot}: {times}"
    assert acked >= set(sends), "every ball got through in the end"
    boots = [classify(line)[1]["boot"] for t, way, line in rows if way == ">" and line.startswith(b"$HELLO")]
    assert len(set(boots)) == 2 and any(line.startswith(b"$END") for _, _, line in rows)


def test_the_shipped_firmware_meets_the_cages_obligations(tmp_path):
    rows = firmware_transcript(False, tmp_path)
    check_cage_obligations(rows)
    reboot = [line for t, way, line in rows if t == 3000 and way == ">"]
    assert [line.split(b",")[0] for line in reboot] == [b"$HELLO", b"$END", b"$BALL"]   # step 6
    sync = [line.split(b",")[0] for t, way, line in rows if t == 2500 and way == ">"]
    assert sync == [b"$HELLO", b"$BALL"]


@pytest.mark.skipif(NODE is None or not PACKAGE.exists(), reason="MicroPython (npm @micropython/"
                    "micropython-webassembly-pyscript) not installed: ./dev setup installs it when npm is there")
def test_the_shipped_firmware_meets_them_under_micropython_too(tmp_path):
    rows = firmware_transcript(True, tmp_path)
    check_cage_obligations(rows)
    assert rows == firmware_transcript(False, tmp_path)


@pytest.mark.skipif(NODE is None or not PACKAGE.exists(), reason="MicroPython not installed (see above)")
def test_the_firmware_sorts_every_line_example_alike_under_micropython(tmp_path):
    cases = "".join(f"    {unescape(line)!r},\n" for _, _, line in EXAMPLES)
    script = tmp_path / "sort.py"
    script.write_text(CAGELINK.read_text() + "\nCASES = [\n" + cases + "]\n" + r'''
for case in CASES:
    got = Lines().feed(case + b"\n")
    if not got:
        print("empty")
        continue
    try:
        decode(got[0])
        print("good")
    except FrameError as error:
        print(error.reason)
''')
    runner = tmp_path / "run.mjs"
    runner.write_text(RUNNER % repr(PACKAGE.as_uri()))
    done = subprocess.run([NODE, str(runner), str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [verdict for verdict, _, _ in EXAMPLES]
