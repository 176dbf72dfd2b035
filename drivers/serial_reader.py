"""A serial port kept open: a pyserial URL read in a thread and reopened with backoff whenever it
fails or vanishes (a kicked USB cable), its bytes handed to a protocol object that answers with the
bytes to send back (in the manner of pyserial's serial.threaded ReaderThread and Protocol).
"""
from __future__ import annotations

import threading
import time
from typing import Protocol as Interface

import serial

BACKOFF = (0.05, 1.0)        # first and longest wait between attempts to reopen the port
STABLE_SECONDS = 5.0         # a port that worked this long starts the backoff afresh when it fails
READ_TIMEOUT = 0.1           # how often the reader thread looks at its stop flag


class Protocol(Interface):
    """What a ReconnectingReader drives: one object for the port's whole life, across reopenings."""

    def connection_made(self) -> list[bytes]:
        """The port is (re)opened; the bytes to send first."""

    def data_received(self, data: bytes) -> list[bytes]:
        """Bytes as read (any part of a line); the bytes to send back."""

    def connection_lost(self, why: str | None) -> None:
        """The port closed, or could not be opened: why (None: stopped)."""


class ReconnectingReader:
    """reader.start() ... reader.stop(): keeps `url` open and read while started."""

    def __init__(self, url: str, baud: int, protocol: Protocol, backoff: tuple[float, float] = BACKOFF):
        self.url, self.baud, self.protocol, self.backoff = url, baud, protocol, backoff
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"serial-link {self.url}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=2)
        self._thread = None

    def _run(self) -> None:
        delay = self.backoff[0]
        while not self._stop.is_set():
            opened = time.monotonic()
            try:
                port = serial.serial_for_url(self.url, baudrate=self.baud, timeout=READ_TIMEOUT,
                                             write_timeout=1, exclusive=self.url.startswith("/") or None)
            except (serial.SerialException, OSError, ValueError) as error:
                self.protocol.connection_lost(f"cannot open {self.url}: {error}")
            else:
                self._serve(port)
                if time.monotonic() - opened > STABLE_SECONDS:
                    delay = self.backoff[0]   # it worked for a while: this is a new failure
            self._stop.wait(delay)
            delay = min(delay * 2, self.backoff[1])

    def _serve(self, port) -> None:
        why = None
        try:
            port.reset_input_buffer()   # whatever sat in the buffer is stale
            for reply in self.protocol.connection_made():
                port.write(reply)
            while not self._stop.is_set():
                for reply in self.protocol.data_received(port.read(port.in_waiting or 1)):
                    port.write(reply)
        except (serial.SerialException, OSError) as error:
            why = f"{self.url}: {error}"
        finally:
            self.protocol.connection_lost(why)
            try:
                port.close()
            except (serial.SerialException, OSError):
                pass
