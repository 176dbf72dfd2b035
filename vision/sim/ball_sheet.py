"""The ball stickers as printed: the sheets `companion print balls` writes (ball_labels.write_pdf),
rasterised by poppler's pdftoppm and cut along each sticker's printed cut circle. The renderer
wraps these, not the reader's idea of a label, so an error in the printer's geometry or
orientation shows up on the bench instead of cancelling out (law 8).

Rasters are cached (vision.cache), keyed by what the PDF's bytes follow from (writing the PDF just
to hash it took seconds in every process).
"""
from __future__ import annotations

import math
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from .. import ball_labels as labels
from .. import cache

PX_PER_MM = 16.0          # the stickers' raster (406 dpi)
SHEET_PX_PER_MM = 8.0     # whole pages, for a sheet lying in the camera's view
SHEET_PAGES = 2           # pages kept at that size


class SheetError(RuntimeError):
    pass


def printed_pdf(design: labels.Design, inverted: bool = False, forged: dict[int, str] | None = None) -> bytes:
    """The sticker sheets' PDF bytes, as `companion print balls` writes them. `forged`: ball ->
    another QR text printed in its place (the bench's not-a-label stickers)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "balls.pdf"
        labels.write_pdf(path, design, labels.BALLS, inverted, forged or {})
        return path.read_bytes()


def rasterise(pdf: bytes, px_per_mm: float) -> list[np.ndarray]:
    """Each page of `pdf` in grey (255 white) at px_per_mm, by pdftoppm."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "in.pdf"
        source.write_bytes(pdf)
        try:
            subprocess.run(["pdftoppm", "-r", f"{px_per_mm * 25.4:.2f}", "-gray", str(source),
                            str(Path(folder) / "page")], check=True, capture_output=True)
        except FileNotFoundError:
            raise SheetError("pdftoppm (poppler-utils) is not installed: the test world needs it to "
                             "rasterise the printed labels") from None
        except subprocess.CalledProcessError as error:
            raise SheetError(f"pdftoppm failed: {error.stderr.decode(errors='replace').strip()}") from None
        pages = sorted(Path(folder).glob("page*.pgm"), key=lambda p: int(p.stem.rpartition("-")[2]))
        return [cv2.imread(str(p), cv2.IMREAD_GRAYSCALE) for p in pages]


def cut(page: np.ndarray, place: labels.Place, design: labels.Design, px_per_mm: float) -> np.ndarray:
    """The sticker at `place`, square (side: the sticker's diameter), centred on its printed cut
    circle as found in the raster, not where the layout says it should be."""
    r = design.sticker / 2 * px_per_mm
    x, y = place.x * px_per_mm - 0.5, place.y * px_per_mm - 0.5
    for _ in range(2):
        x, y, found_r = _cut_circle(page, x, y, r)
    if abs(found_r - r) > 0.03 * r:
        raise SheetError(f"ball {place.ball} sticker {place.copy + 1}: its cut circle is {found_r / px_per_mm:.2f} mm "
                         f"in radius on the sheet, the design says {r / px_per_mm:.2f} mm")
    side = int(round(design.sticker * px_per_mm))
    return cv2.getRectSubPix(page, (side, side), (x, y))


def _cut_circle(page: np.ndarray, x: float, y: float, r: float) -> tuple[float, float, float]:
    """The circle through the grey (cut line, paper edge) pixels just outside the print."""
    x0, y0 = int(x - 1.15 * r), int(y - 1.15 * r)
    window = page[max(y0, 0):int(y + 1.15 * r), max(x0, 0):int(x + 1.15 * r)].astype(np.float32)
    ys, xs = np.nonzero((window > 40) & (window < 215))
    xs, ys = xs + max(x0, 0), ys + max(y0, 0)
    d = np.hypot(xs - x, ys - y)
    ring = (d > 0.96 * r) & (d < 1.1 * r)
    if ring.sum() < 50:
        raise SheetError(f"no printed cut circle near ({x:.0f}, {y:.0f}) px on the sheet")
    xs, ys = xs[ring].astype(float), ys[ring].astype(float)
    # algebraic circle fit: x^2 + y^2 = 2 a x + 2 b y + c
    a, b, c = np.linalg.lstsq(np.stack([2 * xs, 2 * ys, np.ones_like(xs)], -1), xs * xs + ys * ys, rcond=None)[0]
    return float(a), float(b), math.sqrt(c + a * a + b * b)


def _source_key(design: labels.Design, inverted: bool, forged: tuple[tuple[int, str], ...]) -> str:
    """What the printed PDF and its raster follow from: the writer's and this module's code, ReportLab's
    and poppler's versions, the design and the stickers asked for."""
    return cache.key([labels.__file__, __file__], labels.encoder_version(), _pdftoppm_version(), design, inverted,
                     forged, PX_PER_MM)


def _pdftoppm_version() -> str:
    try:
        return subprocess.run(["pdftoppm", "-v"], capture_output=True, text=True).stderr.strip()
    except FileNotFoundError:
        return "none"


@lru_cache(maxsize=8)
def printed(design: labels.Design, inverted: bool = False, forged: tuple[tuple[int, str], ...] = ()) -> dict:
    """{"stickers": {ball: grey sticker}, "pages": [grey pages at SHEET_PX_PER_MM]} from the PDF."""
    path = cache.folder() / f"ball-stickers-{_source_key(design, inverted, forged)}.npz"
    if path.exists():
        with np.load(path) as data:
            return {"stickers": {b: data[f"ball{b}"] for b in labels.BALLS},
                    "pages": [data[f"page{i}"] for i in range(SHEET_PAGES) if f"page{i}" in data]}
    pages = rasterise(printed_pdf(design, inverted, dict(forged)), PX_PER_MM)
    places = [p for p in labels.sheet_places(design) if p.copy == 0]
    stickers = {p.ball: cut(pages[p.page], p, design, PX_PER_MM) for p in places}
    small = [cv2.resize(page, None, fx=SHEET_PX_PER_MM / PX_PER_MM, fy=SHEET_PX_PER_MM / PX_PER_MM,
                        interpolation=cv2.INTER_AREA) for page in pages[:SHEET_PAGES]]
    path.parent.mkdir(parents=True, exist_ok=True)
    cache.write_whole(path, lambda out: np.savez_compressed(out, **{f"ball{b}": s for b, s in stickers.items()},
                                                            **{f"page{i}": p for i, p in enumerate(small)}))
    return {"stickers": stickers, "pages": small}


def sticker(ball: int, design: labels.Design = labels.Design(), inverted: bool = False) -> np.ndarray:
    """Ball `ball`'s sticker as printed (grey, 255 white), PX_PER_MM, side = the sticker's diameter."""
    return printed(design, inverted)["stickers"][ball]


def sticker_at(ball: int, px_per_mm: float, inverted: bool = False, design: labels.Design = labels.Design()
               ) -> np.ndarray:
    """The printed sticker at another scale (a flat label as the reader unrolls it)."""
    image = sticker(ball, design, inverted)
    side = int(round(image.shape[0] * px_per_mm / PX_PER_MM))
    return cv2.resize(image, (side, side), interpolation=cv2.INTER_AREA)
