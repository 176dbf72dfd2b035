"""The cage link's framing on the host: the firmware's own module, loaded from its file.

hardware/firmware/cagelink.py is the one source of the wire format. The Pico runs it as
it is (copied next to main.py); the host loads that same file here, so the two ends
cannot drift apart.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "hardware" / "firmware" / "cagelink.py"
NAME = "drivers._cagelink"


def _load():
    if NAME in sys.modules:
        return sys.modules[NAME]
    if not SOURCE.is_file():
        raise ImportError(f"{SOURCE}: the cage link framing is missing (it ships in hardware/firmware/)")
    spec = importlib.util.spec_from_file_location(NAME, SOURCE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[NAME] = module
    spec.loader.exec_module(module)
    return module


cagelink = _load()
crc16, encode, decode, fields, parse_ball, ball_number = (
    cagelink.crc16, cagelink.encode, cagelink.decode, cagelink.fields, cagelink.parse_ball, cagelink.ball_number)
FrameError, Lines, Cage = cagelink.FrameError, cagelink.Lines, cagelink.Cage
HELLO, BALL, HB, END, LOG, ACK, NAK, SYNC = (cagelink.HELLO, cagelink.BALL, cagelink.HB, cagelink.END,
                                             cagelink.LOG, cagelink.ACK, cagelink.NAK, cagelink.SYNC)
# The balls a frame can name: the cage's, taken from the wire's own definition so the drivers
# import no game's rules (tests/drivers/test_protocol.py compares them with the balls of the game
# whose console the cage feeds).
BALLS = range(cagelink.BALL_FIRST, cagelink.BALL_LAST + 1)
CAGE_TYPES, HOST_TYPES = cagelink.CAGE_TYPES, cagelink.HOST_TYPES
DAMAGED, MALFORMED, NO_BOOT, SEQ_MAX = cagelink.DAMAGED, cagelink.MALFORMED, cagelink.NO_BOOT, cagelink.SEQ_MAX
