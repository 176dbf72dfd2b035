"""The firmware's protocol module under real MicroPython (its WebAssembly build, run by node),
printing the same answers as under CPython. ./dev setup installs it with npm into
.venv/micropython; without node or that package the test is skipped."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CAGELINK = ROOT / "hardware" / "firmware" / "cagelink.py"
PACKAGE = Path(os.environ.get("MICROPYTHON_WASM", ROOT / ".venv" / "micropython" / "node_modules" / "@micropython"
                              / "micropython-webassembly-pyscript" / "micropython.mjs"))
NODE = shutil.which("node")

RUNNER = """
import { loadMicroPython } from %s;
import fs from "fs";
const mp = await loadMicroPython({stdout: (line) => process.stdout.write(line + "\\n")});
mp.runPython(fs.readFileSync(process.argv[2], "utf8"));
"""

FLASH = r'''
class Flash:
    """What the cage keeps through a reboot, in RAM (a test's flash)."""
    def __init__(self):
        self.saved, self.counts = [], []
    def load(self):
        return list(self.saved)
    def save(self, pending):
        self.saved = list(pending)
    def load_counts(self):
        return list(self.counts)
    def save_counts(self, counts):
        self.counts = list(counts)
'''

EXERCISE = r'''
import sys
print("impl", sys.implementation.name)
frame = encode("BALL", "1a2b3c4d", 7, "17")
print(frame, decode(frame[:-1]), "%04X" % crc16(b"123456789"))
for line in (b"$BALL,1a2b3c4d,7,17*0000", b"noise", b"$BALL,XYZ,7,17*" + (b"%04X" % crc16(b"BALL,XYZ,7,17"))):
    try:
        decode(line)
    except FrameError as error:
        print("caught", error.reason, error.detail)
print(parse_ball("27-K", ""), parse_ball("07", ""), parse_ball("28", ""), parse_ball("PB-3", "PB-"))
print(parse_ball("]Q1PB0777"), parse_ball("\x02PB2717\x03"), parse_ball("PB0778"), parse_ball("PB07771"),
      parse_ball("7"))
print(Labels().feed(b"]Q1PB0777\r\nPB0778\rPB2717"), Labels().feed(b"\x02PB1747\x03\r"))
print(sorted(fields("pending=1 reader=ok").items()))
lines = Lines(16)
print(lines.feed(b"ab\ncd"), lines.feed(b"x" * 40), lines.feed(b"y\nok\n"))

sent = []
flash = Flash()
cage = Cage("0000beef", sent.append, flash, 0)
cage.start(0)
print(cage.read(5, 1), cage.read(5, 2), cage.read(6, 3))
cage.feed(encode("ACK", "0000beef", 1), 4)
cage.feed(b"junk\n", 5)
cage.feed(encode("NAK", NO_BOOT, 0), 6)
for now in range(0, 1600, 5):
    cage.tick(now)
cage.feed(encode("SYNC", NO_BOOT, 0), 1600)
again = Cage("0000f00d", sent.append, flash, 1700)
again.start(1700)
again.feed(encode("ACK", "0000beef", 2), 1701)
print(again.read(9, 1702), cage.pending, again.pending, cage.rtx, cage.bad, again.next_due(1702))
for frame in sent:
    print(frame)
'''


@pytest.mark.skipif(NODE is None or not PACKAGE.exists(), reason="MicroPython (npm @micropython/"
                    "micropython-webassembly-pyscript) not installed: ./dev setup installs it when npm is there")
def test_cagelink_answers_the_same_under_micropython(tmp_path):
    script = tmp_path / "exercise.py"
    script.write_text(CAGELINK.read_text() + "\n" + FLASH + EXERCISE)
    runner = tmp_path / "run.mjs"
    runner.write_text(RUNNER % repr(PACKAGE.as_uri()))
    micro = subprocess.run([NODE, str(runner), str(script)], capture_output=True, text=True, timeout=60)
    assert micro.returncode == 0, micro.stderr[-2000:]
    cpython = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert cpython.returncode == 0, cpython.stderr
    micro_lines, cpython_lines = micro.stdout.splitlines(), cpython.stdout.splitlines()
    assert micro_lines[0] == "impl micropython" and cpython_lines[0] == "impl cpython"
    assert micro_lines[1:] == cpython_lines[1:]
    assert len(cpython_lines) > 15
