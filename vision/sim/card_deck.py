"""The printed cards the test world marks and photographs: `companion print cards` output, rasterised.

The cards are printed with the CLI (three event files: this event, a forger who knows the event id
but not its secret, another event), each PDF is rasterised with poppler's pdftoppm, and every card
is cut out of its page along the lines its cut marks give. Each cut card is named by decoding its
own QR code, and its printed rings are found in the raster near where the layout puts them, so a
mark is drawn where a player sees the bubble: an error in printing geometry, scale or orientation
shows on the bench instead of cancelling out against the scanner. Nothing here draws a card.

The deck is cached under ~/.cache/companion/cards-print/<hash of the PDFs>/.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from .. import layouts as L
from ..cache import folder as cache_folder

RES = 12.0                       # px per mm of the raster (304.8 dpi)
DPI = RES * 25.4
EVENT_NAME, SECRET = "Corpus night", "corpus-secret"
FORGER_SECRET = "not-the-secret"
OTHER_NAME, OTHER_SECRET = "Other night", "other-secret"
PLAYERS = 6
SPECIALS = ("inout", "change", "exclusion")
CUT_TOLERANCE = 0.015            # a cut card may differ from the layout's size by this share
RING_SEARCH = 3.0                # mm around the layout's centre where a printed ring is looked for
RING_MATCH = 0.45                # least normalised correlation of a printed ring with a drawn one
DECK_VERSION = 1


class DeckError(RuntimeError):
    """The printed cards cannot be made or read: one line saying what and where."""


@dataclass(frozen=True)
class PrintedCard:
    kind: str
    serial: str
    owner: int
    turn: int
    event: str
    code: str            # ok | forged | other event
    file: str            # the cut card's PNG, in the deck folder


@dataclass(frozen=True)
class Deck:
    folder: Path
    cards: tuple[PrintedCard, ...]
    bubbles: dict        # kind -> field -> value -> (x, y, r) in mm, as printed
    offsets: dict        # kind -> largest distance (mm) of a printed ring from its layout centre

    @property
    def event(self) -> str:
        return next(c.event for c in self.cards if c.code == "ok")

    def of(self, kind: str, code: str = "ok") -> list[PrintedCard]:
        return [c for c in self.cards if c.kind == kind and c.code == code]

    def raster(self, card: PrintedCard) -> np.ndarray:
        return _png(str(self.folder / card.file))


@lru_cache(maxsize=512)
def _png(path: str) -> np.ndarray:
    image = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    if image is None:
        raise DeckError(f"{path}: cannot read the cut card (delete the deck folder to make it again)")
    image.setflags(write=False)
    return image


def event_id() -> str:
    """The printed event's id (the event file makes it from the name)."""
    from companion.core import event_file
    return event_file.slug(EVENT_NAME)


def cache_root(folder: Path | None = None) -> Path:
    if folder:
        return Path(folder)
    return cache_folder()


def deck(cache: Path | None = None, players: int = PLAYERS) -> Deck:
    """The printed deck: printed now (cheap), rasterised and cut only when these PDFs are new."""
    with tempfile.TemporaryDirectory() as work:
        pdfs = _print_all(Path(work), players)
        digest = hashlib.sha256(b"".join(p.read_bytes() for _, p in pdfs)).hexdigest()[:16]
        folder = cache_root(cache) / "cards-print" / f"v{DECK_VERSION}-{digest}"
        if not (folder / "index.json").exists():
            _cut_deck(pdfs, folder, Path(work))
    return load(folder)


def of_pdf(pdf: Path, cache: Path | None = None) -> Deck:
    """One event's own printed cards (a `companion print cards` PDF) as a deck: rasterised and cut once
    per PDF, under the cache's cards-print/event-<hash of the PDF>/ (the demo night's cards)."""
    digest = hashlib.sha256(Path(pdf).read_bytes()).hexdigest()[:16]
    folder = cache_root(cache) / "cards-print" / f"event-v{DECK_VERSION}-{digest}"
    if not (folder / "index.json").exists():
        with tempfile.TemporaryDirectory() as work:
            _cut_deck([("ok", Path(pdf))], folder, Path(work))
    return load(folder)


def load(folder: Path) -> Deck:
    try:
        data = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise DeckError(f"{folder}: no readable printed deck ({error})")
    bubbles = {kind: {name: {value: tuple(xyr) for value, xyr in values.items()} for name, values in fields.items()}
               for kind, fields in data["bubbles"].items()}
    return Deck(folder, tuple(PrintedCard(**c) for c in data["cards"]), bubbles, data["offsets"])


# --- printing -----------------------------------------------------------------------------------
def _print_all(work: Path, players: int) -> list[tuple[str, Path]]:
    """(code, PDF) for this event's cards, a forger's and another event's."""
    from reportlab import rl_config
    rl_config.invariant = 1          # no creation date or random id in the PDF: same cards, same hash
    everyone = [f"{kind}={no}" for kind in SPECIALS for no in range(1, players + 1)]
    runs = [("ok", EVENT_NAME, SECRET, [], everyone), ("forged", EVENT_NAME, FORGER_SECRET, ["--players", "1"], []),
            ("other event", OTHER_NAME, OTHER_SECRET, ["--players", "1"], [])]
    out = []
    for n, (code, name, secret, chosen, specials) in enumerate(runs):
        event, pdf = work / f"event{n}.toml", work / f"cards{n}.pdf"
        _write_event(event, name, players, secret)
        _companion(["print", "cards", "--event", str(event), "--out", str(pdf), *chosen,
                    *[a for s in specials for a in ("--special", s)]])
        out.append((code, pdf))
    return out


def _write_event(path: Path, name: str, players: int, secret: str) -> None:
    from companion.core import event_file
    path.write_text(event_file.example(name, players, 7, secret), encoding="utf-8")


def _companion(argv: list[str]) -> None:
    from companion.cli import main
    said, errors = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(errors):
        code = main(argv)
    if code:
        raise DeckError(f"companion {' '.join(argv[:2])} failed: {errors.getvalue().strip() or said.getvalue().strip()}")


# --- rasterising and cutting ---------------------------------------------------------------------
def _cut_deck(pdfs: list[tuple[str, Path]], folder: Path, work: Path) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=folder.name + ".part-", dir=folder.parent))   # one per cutter
    cards, bubbles, offsets = [], {}, {}
    for code, pdf in pdfs:
        for page_number, page in enumerate(_rasterise(pdf, work), 1):
            for image in cut_cards(page, f"{pdf.name} page {page_number}"):
                card = _identify(image, code, f"{pdf.name} page {page_number}")
                if card.kind not in bubbles and L.layout(card.kind).fields:
                    bubbles[card.kind], offsets[card.kind] = find_rings(image, card.kind, card.serial)
                cv2.imwrite(str(partial / card.file), image)
                cards.append(card.__dict__)
    (partial / "index.json").write_text(json.dumps({"cards": cards, "bubbles": bubbles, "offsets": offsets}),
                                        encoding="utf-8")
    if folder.exists() and not (folder / "index.json").exists():
        shutil.rmtree(folder, ignore_errors=True)     # a copy left without its index
    try:
        partial.rename(folder)
    except OSError:                       # another process cut the same deck first: keep its copy
        shutil.rmtree(partial, ignore_errors=True)
        if not (folder / "index.json").exists():
            raise


def _rasterise(pdf: Path, work: Path):
    if not shutil.which("pdftoppm"):
        raise DeckError("pdftoppm is missing: install Debian's poppler-utils (apt-get install poppler-utils)")
    prefix = work / pdf.stem
    done = subprocess.run(["pdftoppm", "-r", f"{DPI:g}", "-gray", str(pdf), str(prefix)], capture_output=True, text=True)
    if done.returncode:
        raise DeckError(f"pdftoppm {pdf.name}: {done.stderr.strip()}")
    for page in sorted(work.glob(f"{pdf.stem}-*.pgm")):
        yield cv2.imread(str(page), cv2.IMREAD_GRAYSCALE)
        page.unlink()


def cut_cards(page: np.ndarray, where: str) -> list[np.ndarray]:
    """Every card on a rasterised page, cut along the lines through the page's cut marks."""
    dark = (page < 128).astype(np.uint8)
    frames = _frames(dark)
    xs = _cut_lines(dark, frames, vertical=True)
    ys = _cut_lines(dark, frames, vertical=False)
    cards = []
    for fx, fy, fw, fh in frames:
        x0, x1 = max((x for x in xs if x <= fx), default=None), min((x for x in xs if x >= fx + fw), default=None)
        y0, y1 = max((y for y in ys if y <= fy), default=None), min((y for y in ys if y >= fy + fh), default=None)
        if None in (x0, x1, y0, y1):
            raise DeckError(f"{where}: a card at ({fx / RES:.0f}, {fy / RES:.0f}) mm has no cut marks on every side")
        width, height = (x1 - x0) / RES, (y1 - y0) / RES
        if abs(width / L.CARD_W - 1) > CUT_TOLERANCE or abs(height / L.CARD_H - 1) > CUT_TOLERANCE:
            raise DeckError(f"{where}: a card cut along its marks is {width:.1f} x {height:.1f} mm; "
                            f"the layout says {L.CARD_W:g} x {L.CARD_H:g} mm")
        cards.append(page[int(round(y0)):int(round(y1)), int(round(x0)):int(round(x1))].copy())
    return cards


def _frames(dark: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Boxes of the cards' printed outlines: the page's large rectangular strokes, top to bottom."""
    contours, _ = cv2.findContours(dark, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    boxes = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if w > 0.8 * L.CARD_W * RES and h > 0.8 * L.CARD_H * RES:
            boxes.append((x, y, w, h))
    return sorted(boxes, key=lambda b: (b[1], b[0]))


def _cut_lines(dark: np.ndarray, frames, vertical: bool) -> list[float]:
    """Positions (px) of the cut lines: thin marks 2.5-6 mm long, outside every card outline."""
    length = int(2.5 * RES)
    kernel = np.ones((length, 1) if vertical else (1, length), np.uint8)
    contours, _ = cv2.findContours(cv2.morphologyEx(dark, cv2.MORPH_OPEN, kernel), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)
    marks = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        long_side, short_side = (h, w) if vertical else (w, h)
        cx, cy = x + w / 2, y + h / 2
        if not (2.5 * RES <= long_side <= 6 * RES and short_side <= 0.8 * RES):
            continue
        if any(fx - RES <= cx <= fx + fw + RES and fy - RES <= cy <= fy + fh + RES for fx, fy, fw, fh in frames):
            continue
        marks.append(cx if vertical else cy)
    lines_at = []
    for m in sorted(marks):              # marks of one cut line (top and bottom) agree to a pixel or two
        if lines_at and m - lines_at[-1][-1] < 0.5 * RES:
            lines_at[-1].append(m)
        else:
            lines_at.append([m])
    return [float(np.mean(group)) for group in lines_at]


def _identify(image: np.ndarray, code: str, where: str) -> PrintedCard:
    """The cut card named by its own QR code."""
    import zxingcpp
    half = cv2.resize(image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)     # 4 px a module: plenty
    found = [r.text for r in zxingcpp.read_barcodes(half) if r.text.startswith(L.CODE_PREFIX + "|")]
    if not found:
        raise DeckError(f"{where}: a cut card's QR code does not decode")
    parts = found[0].split("|")
    kinds = {kind.code: name for name, kind in L.kinds().items()}
    if len(parts) != 7 or parts[1] not in kinds:
        raise DeckError(f"{where}: a cut card's code {found[0][:40]!r} is not a card code")
    _, letter, event, serial, turn, owner, _ = parts
    tag = {"ok": "", "forged": "-forged", "other event": "-other"}[code]
    return PrintedCard(kinds[letter], serial, int(owner), int(turn), event, code, f"{serial}{tag}.png")


def find_rings(image: np.ndarray, kind: str, serial: str = "") -> tuple[dict, float]:
    """Each bubble's printed ring (centre and radius, mm) found in the raster near its layout place,
    and the largest distance between the two."""
    rings, worst = {}, 0.0
    for f in L.layout(kind).fields:
        rings[f.name] = {}
        for b in f.bubbles:
            x, y, r, score = _ring(image, b)
            if score < RING_MATCH:
                raise DeckError(f"printed card {serial}: no printed ring within {RING_SEARCH:g} mm of where the "
                                f"layout puts {f.name} {b.value} ({b.x:g}, {b.y:g}) mm")
            rings[f.name][b.value] = (round(x, 3), round(y, 3), round(r, 3))
            worst = max(worst, float(np.hypot(x - b.x, y - b.y)))
    return rings, round(worst, 3)


def _ring(image: np.ndarray, b: L.Bubble) -> tuple[float, float, float, float]:
    """The best match of a thin printed circle around the layout's bubble: x, y, r (mm), score."""
    ink = 255.0 - image.astype(np.float32)
    half = int((b.r + RING_SEARCH + 1) * RES)
    cx, cy = int(round(b.x * RES)), int(round(b.y * RES))
    window = ink[max(0, cy - half):cy + half, max(0, cx - half):cx + half]
    ox, oy = max(0, cx - half), max(0, cy - half)
    best = (b.x, b.y, b.r, -1.0)
    for scale in np.linspace(0.85, 1.15, 13):
        r = b.r * scale * RES
        size = int(2 * r + 0.6 * RES) | 1
        template = np.zeros((size, size), np.float32)
        cv2.circle(template, (size // 2, size // 2), int(round(r)), 1.0, max(1, int(round(0.3 * RES))), cv2.LINE_AA)
        if template.shape[0] >= window.shape[0] or template.shape[1] >= window.shape[1]:
            continue
        scores = cv2.matchTemplate(window, template, cv2.TM_CCOEFF_NORMED)
        _, score, _, (px, py) = cv2.minMaxLoc(scores)
        if score > best[3]:
            best = ((ox + px + size // 2 + 0.5) / RES, (oy + py + size // 2 + 0.5) / RES, r / RES, float(score))
    return best
