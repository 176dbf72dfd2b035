"""The cage link: framing (CRC-16/CCITT lines) and the cage's side of the protocol.

One file for both ends of the cable (hardware/PROTOCOL.md is the contract; this file
implements it). The Pico runs it under MicroPython; the host imports this very file
(drivers/protocol.py) and the simulator runs the Cage class below.

Keep to what MicroPython has: no dataclasses, typing, re, f-strings or annotations.
"""

VERSION = "1.2.0"
BALL_FIRST = 1
BALL_LAST = 27
MAX_LINE = 96            # bytes in a line, its "\r\n" or "\n" not counted; a longer line is damaged
MAX_PAYLOAD = 48
SEQ_MAX = 999999999      # a BALL seq never wraps: the boot after it is a new boot id
NO_BOOT = "00000000"     # boot field of frames the host sends that name no cage boot

HELLO = "HELLO"          # cage -> host: I have just booted (or you asked: SYNC)
BALL = "BALL"            # cage -> host: a ball was read; resent until ACKed
HB = "HB"                # cage -> host: heartbeat with this boot's counters
END = "END"              # cage -> host: an earlier boot's last counters, from flash
LOG = "LOG"              # cage -> host: a note for the operator (unknown tag...)
ACK = "ACK"              # host -> cage: BALL (boot, seq) delivered
NAK = "NAK"              # host -> cage: I dropped a damaged line, resend now
SYNC = "SYNC"            # host -> cage: say HELLO (and END) and resend the ball in flight
CAGE_TYPES = (HELLO, BALL, HB, END, LOG)
HOST_TYPES = (ACK, NAK, SYNC)
COUNTERS = ("rtx", "bad", "misreads")       # since boot, in HB and END
READERS = ("ok", "fault")

DAMAGED = "damaged"      # not a frame: no $...*CRC, wrong CRC digits, CRC mismatch, too long
MALFORMED = "malformed"  # good CRC, but a field breaks the grammar (a bug, a newer protocol)

RESEND_MS = 100          # first resend of an unACKed BALL; doubles up to RESEND_MAX_MS
RESEND_MAX_MS = 1000
HEARTBEAT_MS = 1000
KEEP_MS = 100            # counters reach flash at most this long after they change
BOOTS_KEPT = 3           # earlier boots whose last counters are kept and sent (END) after each HELLO
REPEAT_MS = 2000         # the same ball seen again within this is the reader repeating itself

DIGITS = "0123456789"
LOWER_HEX = "0123456789abcdef"
UPPER_HEX = "0123456789ABCDEF"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
KEY_CHARS = "abcdefghijklmnopqrstuvwxyz"


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


def _only(text, allowed):
    for ch in text:
        if ch not in allowed:
            return False
    return True


def decimal(text, digits=9):
    """The value of a decimal of 1..digits digits without a leading zero ("0" itself is fine), or None."""
    if not 1 <= len(text) <= digits or not _only(text, DIGITS) or (len(text) > 1 and text[0] == "0"):
        return None
    return int(text)


def encode(kind, boot, seq, payload=""):
    """One frame, newline included: $KIND,BOOT,SEQ,PAYLOAD*CRC4"""
    if len(payload) > MAX_PAYLOAD or not _printable(payload):
        raise ValueError("payload must be printable ASCII without $ or *, at most %d characters" % MAX_PAYLOAD)
    if not 0 <= seq <= SEQ_MAX:
        raise ValueError("seq must be 0..%d" % SEQ_MAX)
    body = "%s,%s,%d,%s" % (kind, boot, seq, payload)
    return ("$%s*%04X\n" % (body, crc16(body.encode()))).encode()


def decode(line):
    """(kind, boot, seq, payload) from one line without its line end; raises FrameError.

    Anything before the last '$' is noise (boot banners, a torn frame) and is skipped.
    A good frame also obeys its type's rules (check below): hardware/PROTOCOL.md, "Frames".
    """
    if len(line) > MAX_LINE:
        raise FrameError(DAMAGED, "line longer than %d bytes" % MAX_LINE)
    start = line.rfind(b"$")
    star = line.rfind(b"*")
    if start < 0 or star < start or len(line) - star != 5:
        raise FrameError(DAMAGED, "no $...*CRC frame in %d bytes" % len(line))
    body = line[start + 1:star]
    try:
        digits = line[star + 1:].decode()
    except UnicodeError:
        digits = "?"
    if not _only(digits, UPPER_HEX):
        raise FrameError(DAMAGED, "CRC is not 4 upper-case hex digits")
    if int(digits, 16) != crc16(body):
        raise FrameError(DAMAGED, "CRC mismatch")
    try:
        text = body.decode()
    except UnicodeError:
        raise FrameError(MALFORMED, "not ASCII")
    parts = text.split(",", 3)
    if len(parts) != 4:
        raise FrameError(MALFORMED, "expected TYPE,BOOT,SEQ,PAYLOAD")
    kind, boot, seq_text, payload = parts
    seq = decimal(seq_text)
    problem = check(kind, boot, seq, payload)
    if seq is None:
        problem = problem or "seq %r is not 1-9 digits without a leading zero" % seq_text[:12]
    if problem:
        raise FrameError(MALFORMED, problem)
    return kind, boot, seq, payload


def check(kind, boot, seq, payload):
    """What breaks the grammar in a frame whose CRC matched, or None (seq None: not a decimal)."""
    if not (1 <= len(kind) <= 8 and _only(kind, UPPER)):
        return "type %r is not 1-8 upper-case letters" % kind[:12]
    if len(boot) != 8 or not _only(boot, LOWER_HEX):
        return "boot %r is not 8 lower-case hex digits" % boot[:12]
    if len(payload) > MAX_PAYLOAD or not _printable(payload):
        return "payload is %d characters or not printable ASCII without $ or *" % len(payload)
    if kind not in CAGE_TYPES and kind not in HOST_TYPES:
        return "unknown type %s" % kind
    if seq is None:
        return None
    if kind in CAGE_TYPES and boot == NO_BOOT:
        return "%s from boot 00000000" % kind
    return _check_type(kind, boot, seq, payload)


def _check_type(kind, boot, seq, payload):
    if kind == BALL:
        if seq == 0:
            return "BALL seq 0 (a boot counts its balls from 1)"
        if ball_number(payload) is None:
            return "BALL payload %r is not a ball 1-27 without a leading zero" % payload[:12]
        return None
    if kind == HELLO:
        problem = _fields_problem(kind, payload, ("fw", "reader")) or _seq_zero(kind, seq)
        prev = None if problem else fields(payload).get("prev")
        if prev is not None and not (len(prev) == 8 and _only(prev, LOWER_HEX)):
            problem = "HELLO prev=%s is not a boot id" % prev[:10]
        return problem
    if kind == HB:
        problem = _fields_problem(kind, payload, ("pending",) + COUNTERS + ("reader",))
        if problem is None and fields(payload)["reader"] not in READERS:
            problem = "HB reader must be ok or fault"
        return problem
    if kind == END:
        return _fields_problem(kind, payload, COUNTERS)
    if kind == LOG:
        return _seq_zero(kind, seq)
    if kind == ACK:
        if boot == NO_BOOT or seq == 0 or payload:
            return "ACK names a cage boot and a seq from 1, with no payload"
        return None
    if boot != NO_BOOT or seq != 0 or payload:
        return "%s is boot 00000000, seq 0, no payload" % kind
    return None


def _seq_zero(kind, seq):
    return None if seq == 0 else "%s seq must be 0" % kind


def _fields_problem(kind, payload, required):
    values = fields(payload)
    if values is None:
        return "%s payload is not key=value fields" % kind
    for key in required:
        if key not in values:
            return "%s has no %s=" % (kind, key)
        if key not in ("fw", "reader") and decimal(values[key]) is None:
            return "%s %s=%s is not a decimal" % (kind, key, values[key][:10])
    return None


def fields(payload):
    """'a=1 b=ok' -> {'a': '1', 'b': 'ok'}; None unless it is key=value fields, one space apart,
    keys of lower-case letters, each once, values without spaces or '='."""
    out = {}
    for item in payload.split(" "):
        key, eq, value = item.partition("=")
        if not eq or not key or not value or key in out or not _only(key, KEY_CHARS) or "=" in value:
            return None
        out[key] = value
    return out


def ball_number(payload):
    """The ball in a BALL payload: 1-27 written without a leading zero, or None."""
    ball = decimal(payload, 2)
    return ball if ball is not None and BALL_FIRST <= ball <= BALL_LAST else None


LABEL = "PB"             # a printed ball label: LABEL, the ball as 2 digits, 2 check digits (PB0777 is ball 7)


def check_digits(ball):
    """ISO 7064 MOD 97-10 over the ball's two digits, as printed (vision/ball_labels.py)."""
    return "%02d" % (98 - ball * 100 % 97)


def parse_ball(text, prefix=None):
    """The ball a reader's line names, or None. Without a prefix: the one printed ball label
    anywhere in the line (an AIM id like ]Q1, STX/ETX or a scanner's own prefix round it); a
    wrong check digit, a digit after it or two different labels: None. With a prefix (the old
    labels, PROTOCOL.md "Ball labels"): PREFIX, 1-2 digits, then the end or a separator
    ('-', ':', '/', '.', ' ') and anything."""
    if prefix is not None:
        return _prefixed_ball(text.strip(), prefix)
    found = set()
    at = text.find(LABEL)
    while at >= 0:
        code = text[at + len(LABEL):at + len(LABEL) + 5]
        if len(code) >= 4 and _only(code[:4], DIGITS) and (len(code) == 4 or code[4] not in DIGITS):
            found.add(_ball(code[:2]) if code[2:4] == check_digits(int(code[:2])) else None)
        at = text.find(LABEL, at + len(LABEL))
    return found.pop() if len(found) == 1 else None


def _prefixed_ball(text, prefix):
    if not text.startswith(prefix):
        return None
    text = text[len(prefix):]
    digits = 0
    while digits < len(text) and text[digits] in DIGITS:
        digits += 1
    if not 1 <= digits <= 2 or (digits < len(text) and text[digits] not in "-:/. "):
        return None
    return _ball(text[:digits])


def _ball(digits):
    ball = int(digits)
    return ball if BALL_FIRST <= ball <= BALL_LAST else None


class Labels:
    """A QR module's output: lines ended by CR, LF or CR LF. feed(data) -> for each line its ball
    (int), or the line (str) when it names none; a line over MAX_LINE bytes names none."""

    def __init__(self, prefix=None):
        self.prefix = prefix
        self.lines = Lines()

    def feed(self, data):
        found = []
        for line in self.lines.feed(data.replace(b"\r", b"\n")):
            text = "".join(chr(byte) if 32 <= byte < 127 else "?" for byte in line)
            ball = parse_ball(text, self.prefix) if len(line) <= MAX_LINE else None
            found.append(text if ball is None else ball)
        return found


class Lines:
    """Splits a byte stream into lines without their line end ("\n", or "\r\n": one "\r" before
    the "\n" is dropped). Empty lines are skipped. A line longer than `limit` is cut to
    limit + 1 bytes (decode calls it damaged) and the rest skipped to the next newline, so
    garbage cannot grow memory."""

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
            if line.endswith(b"\r"):
                line = line[:-1]
            if self.skipping:
                self.skipping = False
            elif line:
                out.append(line[:self.limit + 1])
        if len(self.buf) > self.limit + 1:     # + 1: room for the "\r" of a line of exactly `limit`
            if not self.skipping:
                out.append(self.buf[:self.limit + 1])
            self.buf = b""
            self.skipping = True
        return out


def _diff(a, b):
    return a - b


def _next_boot(boot):
    """A stand-in for main.py's new_boot_id (tests, the simulator): the next id that is not 0."""
    return "%08x" % (int(boot, 16) % 0xFFFFFFFF + 1)


class Cage:
    """The cage's protocol logic, without hardware: the caller passes bytes in and the time.

    send(bytes) writes to the host. store keeps what must survive a reboot: the unACKed
    balls (store.load() -> [(boot, seq, ball)], store.save(list)) and the counters of this boot
    and the BOOTS_KEPT before it, newest first (store.load_counts() -> [(boot, seq, rtx, bad,
    misreads)], store.save_counts(that list)).
    One BALL is in flight at a time, oldest first, so the host sees the balls in the order
    they left the cage. diff(a, b) is a - b for the clock in use (time.ticks_diff on the Pico);
    new_boot(boot) makes the next boot id once seq reaches SEQ_MAX.
    """

    def __init__(self, boot, send, store, now, reader="qr", version=VERSION,
                 repeat_ms=REPEAT_MS, diff=_diff, new_boot=_next_boot):
        self.send, self.store = send, store
        self.reader, self.version = reader, version
        self.repeat_ms, self.diff, self.new_boot = repeat_ms, diff, new_boot
        self.pending = list(store.load())
        self.reader_ok = True
        self.last_ball, self.last_ball_at = None, now
        self.sent_at, self.wait = now, RESEND_MS
        self.lines = Lines()
        self._begin(boot, now, list(store.load_counts()))

    def _begin(self, boot, now, earlier):
        self.previous = [counts for counts in earlier if counts[0] != boot][:BOOTS_KEPT]
        self.boot, self.seq = boot, 0
        self.rtx = self.bad = self.misreads = 0
        self.beat_at = now
        self._keep(now)

    def start(self, now):
        self.hello()
        self._send_head(now)

    def hello(self):
        """HELLO (naming the boot before this one, if any), then an END for each earlier boot kept."""
        about = "fw=%s reader=%s" % (self.version, self.reader)
        if self.previous:
            about += " prev=" + self.previous[0][0]
        self.send(encode(HELLO, self.boot, 0, about))
        for boot, seq, rtx, bad, misreads in self.previous:
            self.send(encode(END, boot, seq, "rtx=%d bad=%d misreads=%d" % (rtx, bad, misreads)))

    def read(self, ball, now):
        """The reader saw `ball`; returns its seq, or None for the reader repeating itself."""
        if ball == self.last_ball and self.diff(now, self.last_ball_at) < self.repeat_ms:
            self.last_ball_at = now
            return None
        self.last_ball, self.last_ball_at = ball, now
        if self.seq == SEQ_MAX:            # seq never wraps: carry on as a new boot
            self._begin(self.new_boot(self.boot), now, [self._counts()] + self.previous)
            self.hello()
        self.seq += 1
        self.pending.append((self.boot, self.seq, ball))
        self.store.save(self.pending)   # on flash before it is on the wire
        self._keep(now)
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
                self.hello()
                self._resend(now)

    def tick(self, now):
        """Call often (every few ms): resends on timeout, sends the heartbeat, keeps the counters."""
        if self.pending and self.diff(now, self.sent_at) >= self.wait:
            self.wait = min(self.wait * 2, RESEND_MAX_MS)
            self._resend(now, reset=False)
        if self.diff(now, self.beat_at) >= HEARTBEAT_MS:
            self.beat_at = now
            self.send(encode(HB, self.boot, self.seq, "pending=%d rtx=%d bad=%d misreads=%d reader=%s" % (
                len(self.pending), self.rtx, self.bad, self.misreads, "ok" if self.reader_ok else "fault")))
        if self._counts() != self.kept and self.diff(now, self.kept_at) >= KEEP_MS:
            self._keep(now)

    def next_due(self, now):
        """Milliseconds until tick() has something to do."""
        due = self.diff(self.beat_at, now) + HEARTBEAT_MS
        if self.pending:
            due = min(due, self.diff(self.sent_at, now) + self.wait)
        if self._counts() != self.kept:
            due = min(due, self.diff(self.kept_at, now) + KEEP_MS)
        return max(due, 0)

    def _counts(self):
        return (self.boot, self.seq, self.rtx, self.bad, self.misreads)

    def _keep(self, now):
        self.kept, self.kept_at = self._counts(), now
        self.store.save_counts([self.kept] + self.previous)

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
