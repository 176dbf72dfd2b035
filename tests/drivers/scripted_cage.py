"""A tiny cage written from hardware/PROTOCOL.md alone, not from the firmware: it frames
lines with its own CRC (binascii) and sends exactly what a test scripts, on a pseudo-terminal
or a TCP socket, and keeps every line the host sends back."""
from __future__ import annotations

import binascii
import os
import queue
import select
import socket
import threading
import tty


def frame(kind: str, boot: str, seq: int, payload: str = "") -> bytes:
    """One frame as PROTOCOL.md writes it, without its line end."""
    body = f"{kind},{boot},{seq},{payload}"
    return f"${body}*{binascii.crc_hqx(body.encode(), 0xFFFF):04X}".encode()


class _Wire:
    """Lines the host sent, gathered by a thread, and a way to send ours."""

    def __init__(self):
        self.heard: queue.Queue = queue.Queue()
        self._buffer = b""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._gather, daemon=True)

    def _gather(self) -> None:
        while not self._stop.is_set():
            data = self._receive()
            if data is None:
                continue
            self._buffer += data
            *lines, self._buffer = self._buffer.split(b"\n")
            for line in lines:
                self.heard.put(line)

    def expect(self, kind: str, seconds: float = 5.0) -> bytes:
        """The next line from the host whose type is `kind` (others are skipped)."""
        while True:
            line = self.heard.get(timeout=seconds)
            if line.startswith(b"$" + kind.encode() + b","):
                return line

    def say(self, *lines: bytes) -> None:
        for line in lines:
            self._send(line + b"\n")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)


class PtyCage(_Wire):
    """with PtyCage() as cage: SerialLink(cage.url, ...); cage.say(frame(...)); cage.expect("ACK")"""

    def __enter__(self) -> "PtyCage":
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.url = os.ttyname(self.slave)
        self._thread.start()
        return self

    def _receive(self):
        ready, _, _ = select.select([self.master], [], [], 0.05)
        return os.read(self.master, 4096) if ready else None

    def _send(self, data: bytes) -> None:
        os.write(self.master, data)

    def __exit__(self, *exc) -> None:
        self.close()
        os.close(self.master)
        os.close(self.slave)


class SocketCage(_Wire):
    """A listener on 127.0.0.1; `hang_up_first` connections are accepted and closed at once."""

    def __init__(self, hang_up_first: int = 0):
        super().__init__()
        self.hang_up_first = hang_up_first
        self.accepted = 0
        self.client: socket.socket | None = None
        self._hang_up = threading.Event()

    def __enter__(self) -> "SocketCage":
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"socket://127.0.0.1:{self.listener.getsockname()[1]}"
        self._thread.start()
        return self

    def _receive(self):
        if self._hang_up.is_set() and self.client is not None:
            self._hang_up.clear()
            self.client.close()
            self.client = None
        watched = [self.client] if self.client is not None else [self.listener]
        ready, _, _ = select.select(watched, [], [], 0.05)
        if not ready:
            return None
        if self.client is None:
            client, _ = self.listener.accept()
            self.accepted += 1
            if self.accepted <= self.hang_up_first:
                client.close()
            else:
                self.client = client
            return None
        data = self.client.recv(4096)
        if not data:
            self.client.close()
            self.client = None
        return data or None

    def hang_up(self) -> None:
        """The cable is pulled: the host's next open is a new connection."""
        self._hang_up.set()

    def _send(self, data: bytes) -> None:
        self.client.sendall(data)

    def __exit__(self, *exc) -> None:
        self.close()
        if self.client is not None:
            self.client.close()
        self.listener.close()
