"""The reconnecting reader on its own, with a protocol object that records what it is told
(the link's two protocols are tested through SerialLink: test_link, test_raw_scanner)."""
from __future__ import annotations

import threading
import time

from drivers.serial_reader import ReconnectingReader


class Recorder:
    def __init__(self, first: list[bytes]):
        self.first, self.made, self.lost, self.data = first, 0, [], b""
        self.heard = threading.Event()

    def connection_made(self) -> list[bytes]:
        self.made += 1
        return self.first

    def data_received(self, data: bytes) -> list[bytes]:
        self.data += data
        if self.data.endswith(b"\n"):
            self.heard.set()
        return []

    def connection_lost(self, why):
        self.lost.append(why)


def test_what_the_protocol_sends_first_goes_out_and_what_comes_back_reaches_it():
    recorder = Recorder([b"hello\n"])
    reader = ReconnectingReader("loop://", 115200, recorder)      # loop:// hands back what is written
    reader.start()
    try:
        assert recorder.heard.wait(5)
    finally:
        reader.stop()
    assert recorder.made == 1 and recorder.data == b"hello\n"
    assert recorder.lost == [None]                          # stopped, not failed


def test_a_port_that_cannot_open_is_told_to_the_protocol_and_tried_again():
    recorder = Recorder([])
    reader = ReconnectingReader("/dev/no-such-cage", 115200, recorder, backoff=(0.01, 0.02))
    reader.start()
    deadline = time.monotonic() + 5
    while len(recorder.lost) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    reader.stop()
    assert len(recorder.lost) >= 3 and recorder.made == 0
    assert all(why.startswith("cannot open /dev/no-such-cage:") for why in recorder.lost)
