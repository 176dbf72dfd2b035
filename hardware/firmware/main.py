"""Cage firmware for a Raspberry Pi Pico (RP2040), MicroPython 1.20 or later.

Reads each ball leaving the cage (a UART QR module, or an RC522 RFID reader with a tag
in each ball) and reports it to the Pi over the cage link (hardware/PROTOCOL.md).
Copy this file and cagelink.py to the Pico:  mpremote cp main.py cagelink.py :
Pins: hardware/WIRING.md. To get the REPL back (for updates), hold GP22 to GND at power-up.
"""
import machine
import micropython
import os
import select
import sys
import time

import cagelink

# ---- settings for this cage ----
READER = "qr"            # "qr": UART QR/barcode module; "rfid": RC522 reader on SPI0
HOST = "usb"             # "usb": USB serial to the Pi; "uart": UART1 to the Pi's GPIO UART
HOST_BAUD = 115200
QR_BAUD = 9600           # the module's factory speed (GM65/GM805-class modules)
LABEL_PREFIX = None      # None: the printed ball labels (PB0777 is ball 7); "BALL-": older labels (PROTOCOL.md)
ENROLL = False           # rfid: an unknown tag becomes the next ball (1, 2, ...) and is saved
MAINTENANCE_PIN = 22     # held low at power-up: do not start, leave the REPL to mpremote
WATCHDOG_MS = 8000       # a crash or hang reboots the cage; unACKed balls wait in flash
PENDING_FILE = "pending.txt"
COUNTS_FILE = "counts.txt"   # counters of this boot and the few before it, for later boots to report (END)
BOOTS_FILE = "boots.txt"
TAGS_FILE = "tags.txt"   # rfid: "UID BALL" per line


class FlashStore:
    """The unACKed balls, on flash: written before a ball goes on the wire, so a reboot keeps it;
    and the counters (boot seq rtx bad misreads) of this boot and the few before it, newest
    first, so that later boots can report them."""

    def __init__(self, path, counts_path):
        self.path, self.counts_path = path, counts_path

    def load(self):
        return _read_rows(self.path, 3)

    def save(self, pending):
        _write_atomic(self.path, "".join("%s %d %d\n" % entry for entry in pending))

    def load_counts(self):
        return _read_rows(self.counts_path, 5)

    def save_counts(self, kept):
        _write_atomic(self.counts_path, "".join("%s %d %d %d %d\n" % counts for counts in kept))


def _read_rows(path, width):
    """Lines of `width` words, a boot id then numbers, as tuples; what cannot be read is left out."""
    rows = []
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == width:
                    rows.append((parts[0],) + tuple(int(part) for part in parts[1:]))
    except (OSError, ValueError):
        pass
    return rows


def _write_atomic(path, text):
    temporary = path + ".new"
    with open(temporary, "w") as f:
        f.write(text)
    os.rename(temporary, path)   # atomic on littlefs: the old file or the new, never half


def new_boot_id():
    """A boot counter kept on flash (4 hex digits, 1-ffff: never 00000000) and 4 random ones:
    never the same twice running."""
    count = 0
    try:
        with open(BOOTS_FILE) as f:
            count = int(f.read().strip() or "0")
    except (OSError, ValueError):
        pass
    count = count % 0xFFFF + 1
    with open(BOOTS_FILE, "w") as f:
        f.write("%d" % count)
    noise = os.urandom(2)
    return "%04x%02x%02x" % (count, noise[0], noise[1])


class UsbHost:
    def __init__(self):
        micropython.kbd_intr(-1)          # a 0x03 byte on the wire must not stop the firmware
        self.poll = select.poll()
        self.poll.register(sys.stdin, select.POLLIN)

    def write(self, data):
        sys.stdout.buffer.write(data)

    def read(self):
        data = b""
        while len(data) < 128 and self.poll.poll(0):
            data += sys.stdin.buffer.read(1)
        return data


class UartHost:
    def __init__(self):
        self.uart = machine.UART(1, HOST_BAUD, tx=machine.Pin(4), rx=machine.Pin(5), timeout=0)

    def write(self, data):
        self.uart.write(data)

    def read(self):
        return self.uart.read() or b""


class QrReader:
    """A QR/barcode module that sends each code it decodes as a line (CR or LF) on UART0."""

    def __init__(self):
        self.uart = machine.UART(0, QR_BAUD, tx=machine.Pin(0), rx=machine.Pin(1), timeout=0)
        self.labels = cagelink.Labels(LABEL_PREFIX)

    def ok(self):
        return True   # these modules have no status query; a dead one shows as no reads

    def poll(self):
        """Ball numbers (int) and unreadable labels (str) since the last call."""
        return self.labels.feed(self.uart.read() or b"")


class RC522:
    """The few MFRC522 operations needed to read a tag's UID (cascade level 1: 4-byte UIDs)."""
    COMMAND, COM_IRQ, ERROR, FIFO_DATA, FIFO_LEVEL, BIT_FRAMING = 0x01, 0x04, 0x06, 0x09, 0x0A, 0x0D
    MODE, TX_CONTROL, TX_ASK, T_MODE, T_PRESCALER, T_RELOAD_H, T_RELOAD_L, VERSION = (
        0x11, 0x14, 0x15, 0x2A, 0x2B, 0x2C, 0x2D, 0x37)
    IDLE, TRANSCEIVE, SOFT_RESET = 0x00, 0x0C, 0x0F

    def __init__(self, spi, cs, rst):
        self.spi, self.cs = spi, cs
        cs.init(machine.Pin.OUT, value=1)
        rst.init(machine.Pin.OUT, value=0)
        time.sleep_ms(10)
        rst.value(1)
        time.sleep_ms(50)
        self.write(self.COMMAND, self.SOFT_RESET)
        time.sleep_ms(50)
        self.write(self.T_MODE, 0x8D)        # timer starts after each transmission
        self.write(self.T_PRESCALER, 0x3E)
        self.write(self.T_RELOAD_H, 0)
        self.write(self.T_RELOAD_L, 30)      # about 25 ms to answer
        self.write(self.TX_ASK, 0x40)        # 100 % ASK modulation
        self.write(self.MODE, 0x3D)          # CRC preset 0x6363 (ISO 14443-3)
        self.write(self.TX_CONTROL, self.read(self.TX_CONTROL) | 0x03)   # antenna on

    def write(self, register, value):
        self.cs.value(0)
        self.spi.write(bytes(((register << 1) & 0x7E, value)))
        self.cs.value(1)

    def read(self, register):
        self.cs.value(0)
        self.spi.write(bytes((((register << 1) & 0x7E) | 0x80,)))
        value = self.spi.read(1)[0]
        self.cs.value(1)
        return value

    def alive(self):
        return self.read(self.VERSION) in (0x88, 0x90, 0x91, 0x92, 0xB2)

    def transceive(self, data, last_bits=0):
        self.write(self.COMMAND, self.IDLE)
        self.write(self.COM_IRQ, 0x7F)                 # clear every interrupt flag
        self.write(self.FIFO_LEVEL, 0x80)              # flush the FIFO
        for byte in data:
            self.write(self.FIFO_DATA, byte)
        self.write(self.COMMAND, self.TRANSCEIVE)
        self.write(self.BIT_FRAMING, 0x80 | last_bits)  # StartSend
        irq = 0
        for _ in range(200):
            irq = self.read(self.COM_IRQ)
            if irq & 0x31:                             # received, idle, or timer ran out
                break
        self.write(self.BIT_FRAMING, last_bits)
        if not irq & 0x30 or irq & 0x01 or self.read(self.ERROR) & 0x1B:
            return None
        return bytes(self.read(self.FIFO_DATA) for _ in range(self.read(self.FIFO_LEVEL)))

    def uid(self):
        """The UID of a tag in the field as hex, or None."""
        if self.transceive(b"\x26", last_bits=7) is None:     # REQA, 7 bits
            return None
        got = self.transceive(b"\x93\x20")                      # anticollision, cascade level 1
        if not got or len(got) != 5 or got[0] ^ got[1] ^ got[2] ^ got[3] != got[4]:
            return None
        return "%02X%02X%02X%02X" % (got[0], got[1], got[2], got[3])


class RfidReader:
    """An RC522 on SPI0 (SCK GP18, MOSI GP19, MISO GP16, CS GP17, RST GP20); tags.txt maps UID -> ball."""

    def __init__(self):
        spi = machine.SPI(0, baudrate=1000000, sck=machine.Pin(18), mosi=machine.Pin(19), miso=machine.Pin(16))
        self.rc = RC522(spi, machine.Pin(17), machine.Pin(20))
        self.tags = {}
        self.last_unknown = None
        try:
            with open(TAGS_FILE) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 2:
                        self.tags[parts[0]] = int(parts[1])
        except (OSError, ValueError):
            pass

    def ok(self):
        return self.rc.alive()

    def poll(self):
        uid = self.rc.uid()
        if uid is None:
            return []
        if uid in self.tags:
            return [self.tags[uid]]
        if ENROLL and len(self.tags) < cagelink.BALL_LAST:
            ball = len(self.tags) + 1
            self.tags[uid] = ball
            with open(TAGS_FILE, "a") as f:
                f.write("%s %d\n" % (uid, ball))
            return [ball]
        if uid == self.last_unknown:
            return []
        self.last_unknown = uid
        return ["tag " + uid]


def main():
    if machine.Pin(MAINTENANCE_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0:
        return
    watchdog = machine.WDT(timeout=WATCHDOG_MS)
    led = machine.Pin("LED", machine.Pin.OUT)
    host = UsbHost() if HOST == "usb" else UartHost()
    reader = QrReader() if READER == "qr" else RfidReader()
    now = time.ticks_ms()
    cage = cagelink.Cage(new_boot_id(), host.write, FlashStore(PENDING_FILE, COUNTS_FILE), now,
                         reader=READER, diff=time.ticks_diff, new_boot=lambda old: new_boot_id())
    cage.start(now)
    checked = now
    while True:
        watchdog.feed()
        now = time.ticks_ms()
        data = host.read()
        if data:
            cage.feed(data, now)
        for item in reader.poll():
            if isinstance(item, int):
                cage.read(item, now)
                led.toggle()
            else:
                cage.misread(item, now)
        if time.ticks_diff(now, checked) >= 1000:
            checked = now
            cage.reader_ok = reader.ok()
        cage.tick(now)
        time.sleep_ms(2)


main()
