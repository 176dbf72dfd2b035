"""Ball labels: the one design the printed sticker sheets follow and the reader expects (the
test world renders the printed PDF itself: vision.sim.ball_sheet).

Each ball carries COPIES round stickers at the 12 vertices of an icosahedron (top, bottom,
and two rings of five, like the pentagons of a football): wherever the ball rests, one
sticker's centre is within 37.4 degrees of the camera's line of sight. A sticker is a
version-1 QR code (error correction H: 30% of it may be lost to glare) holding "PB", the
ball number and two ISO 7064 MOD 97-10 check digits, with the ball's numeral printed in
the caps above and below it. Units are millimetres, origin at the sticker's centre, y down.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

BALLS = range(1, 28)          # the cage's balls (the cage protocol's, hardware/PROTOCOL.md)
PREFIX = "PB"                 # our ball label (as printed since the first labels); anything else is not one of ours
COPIES = 12
QR_MODULES = 21               # version 1
FINDER_SPACING = QR_MODULES - 7   # modules between the centres of two finder squares
# Fractions of the ball diameter, chosen by measurement (README, `companion bench balls`):
STICKER_FRACTION = 0.53       # sticker diameter: the icosahedral cell allows 0.55 D; keep a gap between stickers
QR_FRACTION = 0.3             # QR symbol side (without quiet zone): 12 mm on a 40 mm ball, 0.57 mm modules
QUIET_MODULES = 2.0           # white between the symbol and a numeral; the white sticker is the rest of the quiet zone
UNDERLINED = {6, 9}           # so 6 and 9 are not read upside down
_PAYLOAD = re.compile(rf"^{PREFIX}(\d\d)(\d\d)$")


def check_digits(ball: int) -> str:
    """ISO 7064 MOD 97-10 over the two ball digits: catches any changed digit or swapped pair."""
    return f"{98 - (ball * 100) % 97:02d}"


def payload(ball: int) -> str:
    """The QR text: alphanumeric mode, 6 characters (version 1-H holds 10)."""
    if ball not in BALLS:
        raise ValueError(f"ball {ball} is not 1-27")
    return f"{PREFIX}{ball:02d}{check_digits(ball)}"


def parse_payload(text: str) -> int | None:
    """The ball a QR text names, or None when it is not a valid ball label."""
    match = _PAYLOAD.match(text.strip())
    if not match:
        return None
    ball = int(match.group(1))
    return ball if ball in BALLS and match.group(2) == check_digits(ball) else None


@lru_cache(maxsize=None)
def modules(ball: int) -> np.ndarray:
    """The ball label's QR: its dark modules (21x21 bool), with the mask the encoder chose."""
    return qr_modules(payload(ball), label_mask(ball))


@lru_cache(maxsize=None)
def label_mask(ball: int) -> int:
    """The QR mask pattern (0-7) the encoder chose for the ball's label (it tries all eight)."""
    return _code(payload(ball)).getBestMaskPattern()


def qr_modules(text: str, mask: int | None = None) -> np.ndarray:
    """The dark modules (21x21 bool) of `text` as a QR of version 1, error correction H, with
    `mask` (default: the one the encoder chooses, as printed)."""
    return _encoded(_code(text), mask)


def encoder_version() -> str:
    """ReportLab's version: its QR encoder makes the labels' modules and its canvas the printed sheets."""
    import reportlab
    return reportlab.Version


def _code(data):
    from reportlab.graphics.barcode import qrencoder
    code = qrencoder.QRCode(1, qrencoder.QRErrorCorrectLevel.H)
    code.addData(data)
    return code


def _encoded(code, mask: int | None) -> np.ndarray:
    code.makeImpl(False, code.getBestMaskPattern() if mask is None else mask)
    n = code.getModuleCount()
    assert n == QR_MODULES, f"{code.dataList!r} did not fit a version-1 QR"
    return np.array(code.modules, dtype=bool)


LOOK_ALIKE_DIGITS = 4         # the look-alikes: every PREFIX + 4 digits that is not a ball label
_PAIR_BITS = 9                # two digits in alphanumeric mode: 45 a + b <= 414, nine bits


@lru_cache(maxsize=1)
def look_alikes() -> tuple[str, ...]:
    """The texts that look most like ball labels without being one (wrong check digits)."""
    return tuple(t for t in (f"{PREFIX}{n:0{LOOK_ALIKE_DIGITS}d}" for n in range(10 ** LOOK_ALIKE_DIGITS))
                 if parse_payload(t) is None)


def look_alike_modules(mask: int) -> np.ndarray:
    """The dark modules (N x 21 x 21 bool, 4.4 MB: not kept, the reader keeps its codebook rows)
    of every look_alikes() text as a QR with `mask`.
    Encoded from 19 probes, not one by one (that takes a minute): with the mode, the length
    and the "PB" pair fixed, a QR's modules are an XOR of one pattern per set bit of the two
    digit pairs' values (Reed-Solomon codes and the mask are linear over GF(2))."""
    base, flips = _probe_patterns()[mask]
    numbers = np.array([int(t[len(PREFIX):]) for t in look_alikes()])
    values = np.stack([45 * (numbers // 1000) + numbers // 100 % 10, 45 * (numbers // 10 % 10) + numbers % 10], 1)
    bits = ((values[:, :, None] >> np.arange(_PAIR_BITS)) & 1).astype(bool).reshape(len(values), -1)
    dark = np.repeat(base.reshape(1, -1), len(values), 0)
    for k, flip in enumerate(flips):
        dark ^= bits[:, k, None] & flip
    return dark.reshape(-1, QR_MODULES, QR_MODULES)


@lru_cache(maxsize=1)
def _probe_patterns() -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Under each of the 8 masks, the probe with both digit pairs 0 and, for each bit of either
    pair, what setting that bit flips. Each probe's error correction is computed once (the code
    keeps it) and masked eight ways."""
    from reportlab.graphics.barcode import qrencoder

    class Pairs(qrencoder.QRAlphaNum):
        """Six alphanumeric characters given as the values of their three pairs, any values."""
        def __init__(self, values):
            super().__init__("0" * 6)
            self.values = values

        def write(self, buffer, version):
            self.write_header(buffer, version)
            for value in self.values:
                buffer.put(value, 11)

    chars = qrencoder.QRAlphaNum.chars
    head = 45 * chars.index(PREFIX[0]) + chars.index(PREFIX[1])
    probes = [_code(Pairs(values)) for values in [(head, 0, 0)] + [
        (head, 1 << bit, 0) if pair == 1 else (head, 0, 1 << bit) for pair in (1, 2) for bit in range(_PAIR_BITS)]]
    patterns = {}
    for mask in range(8):
        base, *flipped = (_encoded(probe, mask).reshape(-1) for probe in probes)
        patterns[mask] = base, np.array([f ^ base for f in flipped])
    return patterns


@dataclass(frozen=True)
class Design:
    """Sizes for one ball diameter; every size scales with it."""
    diameter: float = 40.0

    @property
    def radius(self) -> float:
        return self.diameter / 2

    @property
    def sticker(self) -> float:
        return STICKER_FRACTION * self.diameter

    @property
    def qr(self) -> float:
        return QR_FRACTION * self.diameter

    @property
    def module(self) -> float:
        return self.qr / QR_MODULES

    @property
    def numeral_box(self) -> tuple[float, float, float]:
        """(centre distance from the sticker centre, height, width) of each numeral."""
        r = self.sticker / 2
        inner = self.qr / 2 + QUIET_MODULES * self.module
        outer = r - 0.06 * r                               # a thin white rim at the cut
        height = outer - inner
        width = 2 * math.sqrt(max(r * r - outer * outer, 0) + 0.0) + 0.9 * height   # the cap's chord, roughly
        return (inner + outer) / 2, height, min(width, self.qr)


def copies() -> np.ndarray:
    """Unit vectors (ball frame, z up) of the 12 sticker centres: poles and two rings of five."""
    lat = math.atan(0.5)                 # 26.57 degrees: where the rings sit
    points = [(0.0, 0.0, 1.0), (0.0, 0.0, -1.0)]
    for k in range(5):
        for ring, offset in ((1, 0.0), (-1, math.pi / 5)):
            a = 2 * math.pi * k / 5 + offset
            points.append((math.cos(lat) * math.cos(a), math.cos(lat) * math.sin(a), ring * math.sin(lat)))
    return np.array(points)


def covering_angle() -> float:
    """Degrees: the farthest any direction is from its nearest sticker centre (icosahedron: 37.38)."""
    return math.degrees(math.acos(math.sqrt((5 + 2 * math.sqrt(5)) / 15)))


# --- the numerals printed above and below the QR ---

@dataclass(frozen=True)
class Numeral:
    text: str
    y: float            # centre, mm from the sticker centre (y down)
    height: float
    width: float
    flipped: bool       # printed upside down (the cap below the QR)
    underline: bool


def numerals(ball: int, design: Design) -> list[Numeral]:
    centre, height, width = design.numeral_box
    under = ball in UNDERLINED
    return [Numeral(str(ball), -centre, height, width, False, under),
            Numeral(str(ball), centre, height, width, True, under)]


# --- printing ---

PAGE_MARGIN = 10.0     # mm; more than a printer leaves blank at its edges (5 mm)
GAP = 2.0              # mm between stickers
ACROSS = COPIES // 2   # a ball's stickers print in two rows
PAGE_MM = (210.0, 297.0)     # A4
# The largest ball whose stickers fit across the page between the margins.
MAX_DIAMETER = math.floor(((PAGE_MM[0] - 2 * PAGE_MARGIN) / ACROSS - GAP) / STICKER_FRACTION)
# Fonts embedded in the sheets (a printer's own Helvetica differs, or is missing): Bitstream Vera,
# which ReportLab ships, so printing labels needs no system font.
FONT, BOLD = "Vera", "VeraBd"
HEADER_SIZE, HEADER_LEADING = 2.6, 3.6     # mm: the instructions, wrapped to the page's width


@dataclass(frozen=True)
class Place:
    """Where one sticker sits on the printed sheets: page (from 0) and centre, mm from the
    page's top-left corner."""
    ball: int
    copy: int
    page: int
    x: float
    y: float


def sheet_places(design: Design = Design(), balls=BALLS) -> list[Place]:
    """Each sticker's place on the sheets: for each ball a block of its 12 stickers (6 x 2)."""
    page_w, page_h = PAGE_MM
    pitch = design.sticker + GAP
    block_w, block_h = ACROSS * pitch, 2 * pitch + 6.0
    per_row = max(1, int((page_w - 2 * PAGE_MARGIN + GAP) // block_w))
    rows = max(1, int((page_h - 2 * PAGE_MARGIN - 22.0) // block_h))
    places = []
    for i, ball in enumerate(balls):
        page, slot = divmod(i, per_row * rows)
        x = PAGE_MARGIN + (slot % per_row) * block_w
        y = PAGE_MARGIN + 22.0 + (slot // per_row) * block_h
        places += [Place(ball, k, page, x + (k % ACROSS) * pitch + pitch / 2, y + 6.0 + (k // ACROSS) * pitch + pitch / 2)
                   for k in range(COPIES)]
    return places


def write_pdf(path, design: Design = Design(), balls=BALLS, inverted: bool = False,
              forged: dict[int, str] | None = None) -> int:
    """Sticker sheets with cut circles; the same design always gives the same bytes (the test
    world caches its rasters by the file's hash). `forged` (for the bench only): ball -> another
    text its stickers' QR holds instead of its label. Returns the number of pages."""
    from reportlab.lib.units import mm
    from reportlab.pdfgen import canvas as pdf

    _register_fonts()
    places = sheet_places(design, list(balls))
    doc = pdf.Canvas(str(path), pagesize=(PAGE_MM[0] * mm, PAGE_MM[1] * mm), invariant=1, initialFontName=FONT)
    doc.setTitle(f"Ball labels, {design.diameter:g} mm balls")
    pages = places[-1].page + 1 if places else 0
    for page in range(pages):
        doc.saveState()
        doc.scale(mm, mm)
        doc.translate(0, PAGE_MM[1])
        doc.scale(1, -1)                       # mm, y down, like the design
        _header(doc, design, page + 1)
        for place in (p for p in places if p.page == page):
            if place.copy == 0:
                _text(doc, place.x - (design.sticker + GAP) / 2, place.y - (design.sticker + GAP) / 2 - 2.5,
                      3.5, f"Ball {place.ball}", bold=True)
            text = (forged or {}).get(place.ball)
            mods = modules(place.ball) if text is None else qr_modules(text)
            _sticker(doc, place.ball, mods, design, place.x, place.y, inverted)
        doc.restoreState()
        doc.showPage()
    doc.save()
    return pages


def _register_fonts() -> None:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    for name in (FONT, BOLD):
        if name not in pdfmetrics.getRegisteredFontNames():
            pdfmetrics.registerFont(TTFont(name, f"{name}.ttf"))     # found in ReportLab's own fonts folder


def _text(doc, x: float, y: float, size: float, text: str, bold: bool = False, anchor: str = "start",
          flipped: bool = False) -> None:
    """Text on a y-down canvas: un-flip locally so letters are upright (or upside down when flipped)."""
    doc.saveState()
    doc.translate(x, y)
    doc.scale(1, -1)
    if flipped:
        doc.rotate(180)
    doc.setFont(BOLD if bold else FONT, size)
    {"start": doc.drawString, "middle": doc.drawCentredString}[anchor](0, 0, text)
    doc.restoreState()


def _header(doc, design: Design, page: int) -> None:
    d = design
    _text(doc, PAGE_MARGIN, PAGE_MARGIN + 4, 4.2, f"Ball labels - {d.diameter:g} mm balls - page {page}",
          bold=True)
    from reportlab.lib.utils import simpleSplit
    text = (f"Per ball: {COPIES} stickers ({d.sticker:g} mm round, QR {d.qr:g} mm, module {d.module:.2f} mm, "
            f"error correction H). Print at 100% (no 'fit to page'); check: the QR is {d.qr:g} mm wide. "
            "Stick one on top, one on the bottom, five in a ring a little above the equator (evenly spaced), "
            "and five a little below it, each below the gap between two upper ones (rings at latitude "
            f"+/-26.6 deg, {math.radians(26.57) * d.radius:.1f} mm from the equator along the surface). "
            "Press flat; keep them clean of tape.")
    for i, line in enumerate(simpleSplit(text, FONT, HEADER_SIZE, PAGE_MM[0] - 2 * PAGE_MARGIN)):
        _text(doc, PAGE_MARGIN, PAGE_MARGIN + 9.5 + HEADER_LEADING * i, HEADER_SIZE, line)


def _sticker(doc, ball: int, mods: np.ndarray, design: Design, cx: float, cy: float, inverted: bool) -> None:
    r = design.sticker / 2
    paper, ink = (0, 1) if inverted else (1, 0)
    doc.setFillGray(paper)
    doc.setStrokeGray(0.6)
    doc.setLineWidth(0.15)
    doc.setDash(0.8, 0.6)
    doc.circle(cx, cy, r, stroke=1, fill=1)
    doc.setDash()
    doc.setFillGray(ink)
    m = design.module
    x0, y0 = cx - design.qr / 2, cy - design.qr / 2
    for row, col in zip(*np.nonzero(mods)):
        # a hair of overlap so neighbouring modules print as one solid area
        doc.rect(x0 + col * m, y0 + row * m, m + 0.01, m + 0.01, stroke=0, fill=1)
    for n in numerals(ball, design):
        _numeral(doc, n, cx, cy, ink)


CAP = 1493 / 2048   # Vera Bold's digits stand this many em tall


def numeral_type(n: Numeral) -> tuple[float, float]:
    """The numeral's font size (mm) and its baseline (mm above the box's centre, upright)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth
    _register_fonts()
    cap = n.height * (0.75 if n.underline else 1.0)
    size = min(cap / CAP, n.width / max(stringWidth(n.text, BOLD, 1.0), 1e-6))
    cap = size * CAP
    return size, (n.height / 2 - cap if n.underline else -cap / 2)


def underline(n: Numeral) -> tuple[float, float]:
    """Where an underlined numeral's line runs (mm above the box's centre, upright) and its thickness."""
    return -n.height / 2 + 0.06 * n.height, 0.1 * n.height


def _numeral(doc, n: Numeral, cx: float, cy: float, ink: float) -> None:
    """The numeral centred in its box; underlined (6, 9) it sits higher with the line below."""
    from reportlab.pdfbase.pdfmetrics import stringWidth
    size, base = numeral_type(n)
    doc.saveState()
    doc.translate(cx, cy + n.y)
    doc.scale(1, -1)                     # y up around the numeral's centre
    if n.flipped:
        doc.rotate(180)
    doc.setFillGray(ink)
    doc.setFont(BOLD, size)
    doc.drawCentredString(0, base, n.text)
    if n.underline:
        width = stringWidth(n.text, BOLD, size)
        doc.setStrokeGray(ink)
        y, thick = underline(n)
        doc.setLineWidth(thick)
        doc.line(-width / 2, y, width / 2, y)
    doc.restoreState()
