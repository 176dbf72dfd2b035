"""The cage link: framing (CRC-16/CCITT lines) and the cage's side of the protocol.

One file for both ends of the cable (hardware/PROTOCOL.md). The Pico runs it under
MicroPython; the host imports this very file (drivers/protocol.py) and the simulator
runs the Cage class below, so the tests exercise the firmware's own logic.

Keep to what MicroPython has: no dataclasses, typing, re, f-strings or annotations.
"""

VERSION = "1.0.0"
BALL_FIRST = 1
BALL_LAST = 27
MAX_LINE = 96            # longest line kept; longer ones are damaged by definition
MAX_PAYLOAD = 48
NO_BOOT = "00000000"     # boot field of frames the host sends that name no cage boot

HELLO = "HELLO"          # cage -> host: I have just booted (or you asked: SYNC)
BALL = "BALL"            # cage -> host: a ball was read; resent until ACKed
HB = "HB"                # cage -> host: heartbeat with counters
LOG = "LOG"              # cage -> host: a note for the operator (unknown tag...)
ACK = "ACK"              # host -> cage: BALL (boot, seq) delivered
NAK = "NAK"              # host -> cage: I dropped a damaged line, resend now
SYNC = "SYNC"            # host -> cage: I have just opened the port

DAMAGED = "damaged"      # failed the CRC, or not a frame at all (boot garbage)
MALFORMED = "malformed"  # good CRC, but fields we do not understand

RESEND_MS = 100          # first resend of an unACKed BALL; doubles up to RESEND_MAX_MS
RESEND_MAX_MS = 1000
HEARTBEAT_MS = 1000
REPEAT_MS = 2000         # the same ball seen again within this is the reader repeating itself


class FrameError(ValueError):
    def __init__(self, reason, detail):
        super().__init__(reason + ": " + detail)
        self.reason = reason
        self.detail = detail


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection, no final XOR."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        crc &= 0xFFFF
    return crc


def _printable(text):
    for ch in text:
        if ch < " " or ch > "~" or ch in "$*":
            return False
    return True


def _is_hex(text):
    for ch in text:
        if ch not in "0123456789abcdef":
            return False
    return True


def encode(kind, boot, seq, payload=""):
    """One frame, newline included: $KIND,BOOT,SEQ,PAYLOAD*CRC4"""
    if len(payload) > MAX_PAYLOAD or not _printable(payload):
        raise ValueError("payload must be printable ASCII without $ or *, at most %d characters" % MAX_PAYLOAD)
    body = "%s,%s,%d,%s" % (kind, boot, seq, payload)
    return ("$%s*%04X\n" % (body, crc16(body.encode()))).encode()


def decode(line):
    """(kind, boot, seq, payload) from one line without its newline; raises FrameError.

    Anything before the last '$' is noise (boot banners, a torn frame) and is skipped.
    """
    start = line.rfind(b"$")
    star = line.rfind(b"*")
    if start < 0 or star < start or len(line.rstrip(b"\r")) - star != 5:
        raise FrameError(DAMAGED, "no frame in %d bytes" % len(line))
    body = line[start + 1:star]
    try:
        crc = int(line[star + 1:star + 5].decode(), 16)
    except (ValueError, UnicodeError):
        raise FrameError(DAMAGED, "bad CRC digits")
    if crc != crc16(body):
        raise FrameError(DAMAGED, "CRC mismatch")
    try:
        text = body.decode()
    except UnicodeError:
        raise FrameError(MALFORMED, "not ASCII")
    parts = text.split(",", 3)
    if len(parts) != 4:
        raise FrameError(MALFORMED, "expected 4 fields")
    kind, boot, seq, payload = parts
    if not (kind.isalpha() and kind.upper() == kind and len(boot) == 8 and _is_hex(boot)
            and seq.isdigit() and len(seq) <= 9 and _printable(payload)):
        raise FrameError(MALFORMED, text[:40])
    return kind, boot, int(seq), payload


def fields(payload):
    """'a=1 b=ok' -> {'a': '1', 'b': 'ok'}"""
    out = {}
    for item in payload.split():
        key, _, value = item.partition("=")
        out[key] = value
    return out


def parse_ball(text, prefix=""):
    """The ball number in a label or payload: PREFIX, 1-2 digits, then the end or a separator
    ('-', ':', '/', '.', ' ') and anything (a check value). None if it is not a ball 1-27."""
    text = text.strip()
    if not text.startswith(prefix):
        return None
    text = text[len(prefix):]
    digits = 0
    while digits < len(text) and text[digits] in "0123456789":
        digits += 1
    if not 1 <= digits <= 2 or (digits < len(text) and text[digits] not in "-:/. "):
        return None
    ball = int(text[:digits])
    return ball if BALL_FIRST <= ball <= BALL_LAST else None


class Lines:
    """Splits a byte stream into lines (without newline). A line longer than MAX_LINE is
    cut there and the rest skipped to the next newline, so garbage cannot grow memory."""

    def __init__(self, limit=MAX_LINE):
        self.limit = limit
        self.buf = b""
        self.skipping = False

    def feed(self, data):
        out = []
        self.buf += data
        while True:
            end = self.buf.find(b"\n")
            if end < 0:
                break
            line, self.buf = self.buf[:end], self.buf[end + 1:]
            if self.skipping:
                self.skipping = False
            elif line:
                out.append(line)
        if len(self.buf) > self.limit:
            if not self.skipping:
                out.append(self.buf[:self.limit])
            self.buf = b""
            self.skipping = True
        return out


def _diff(a, b):
    return a - b


class Cage:
    """The cage's protocol logic, without hardware: the caller passes bytes in and the time.

    send(bytes) writes to the host; store keeps the unACKed balls through a reboot
    (store.load() -> [(boot, seq, ball)], store.save(list)). One BALL is in flight at a
    time, oldest first, so the host sees the balls in the order they left the cage.
    diff(a, b) is a - b for the clock in use (time.ticks_diff on the Pico).
    """

    def __init__(self, boot, send, store, now, reader="qr", version=VERSION,
                 repeat_ms=REPEAT_MS, diff=_diff):
        self.boot, self.send, self.store = boot, send, store
        self.reader, self.version = reader, version
        self.repeat_ms, self.diff = repeat_ms, diff
        self.pending = list(store.load())
        self.seq = 0
        self.reader_ok = True
        self.rtx = self.bad = self.misreads = 0
        self.last_ball, self.last_ball_at = None, now
        self.sent_at, self.wait = now, RESEND_MS
        self.beat_at = now
        self.lines = Lines()

    def start(self, now):
        self.hello(now)

    def hello(self, now):
        self.send(encode(HELLO, self.boot, 0, "fw=%s reader=%s" % (self.version, self.reader)))
        self.beat_at = now
        self._send_head(now)

    def read(self, ball, now):
        """The reader saw `ball`; returns its seq, or None for the reader repeating itself."""
        if ball == self.last_ball and self.diff(now, self.last_ball_at) < self.repeat_ms:
            self.last_ball_at = now
            return None
        self.last_ball, self.last_ball_at = ball, now
        self.seq += 1
        self.pending.append((self.boot, self.seq, ball))
        self.store.save(self.pending)   # on flash before it is on the wire
        if len(self.pending) == 1:
            self._send_head(now)
        return self.seq

    def misread(self, label, now):
        """The reader saw something that is not a ball label."""
        self.misreads += 1
        self.note("unreadable label " + label)

    def note(self, text):
        clean = "".join(ch if _printable(ch) else "?" for ch in text)[:MAX_PAYLOAD]
        self.send(encode(LOG, self.boot, 0, clean))

    def feed(self, data, now):
        for line in self.lines.feed(data):
            try:
                kind, boot, seq, payload = decode(line)
            except FrameError:
                self.bad += 1
                self._resend(now)   # it may have been our ACK: try again now, not after the timer
                continue
            if kind == ACK:
                self._acked(boot, seq, now)
            elif kind == NAK:
                self._resend(now)
            elif kind == SYNC:
                self.hello(now)

    def tick(self, now):
        """Call often (every few ms): resends on timeout and sends the heartbeat."""
        if self.pending and self.diff(now, self.sent_at) >= self.wait:
            self.wait = min(self.wait * 2, RESEND_MAX_MS)
            self._resend(now, reset=False)
        if self.diff(now, self.beat_at) >= HEARTBEAT_MS:
            self.beat_at = now
            self.send(encode(HB, self.boot, self.seq, "pending=%d rtx=%d bad=%d misreads=%d reader=%s" % (
                len(self.pending), self.rtx, self.bad, self.misreads, "ok" if self.reader_ok else "fault")))

    def next_due(self, now):
        """Milliseconds until tick() has something to do."""
        due = self.diff(self.beat_at, now) + HEARTBEAT_MS
        if self.pending:
            due = min(due, self.diff(self.sent_at, now) + self.wait)
        return max(due, 0)

    def _acked(self, boot, seq, now):
        if self.pending and self.pending[0][:2] == (boot, seq):
            self.pending.pop(0)
            self.store.save(self.pending)
            self._send_head(now)

    def _resend(self, now, reset=True):
        if self.pending:
            self.rtx += 1
            self._send_head(now, reset)

    def _send_head(self, now, reset=True):
        if not self.pending:
            return
        boot, seq, ball = self.pending[0]
        self.sent_at = now
        if reset:
            self.wait = RESEND_MS
        self.send(encode(BALL, boot, seq, "%d" % ball))
