"""Print cards to an A4 PDF with ReportLab: six cards a page, cut marks, the font embedded.

The IPAex Gothic TrueType font is embedded (ReportLab's built-in CID fonts are not, and a
viewer without them draws digits and X/Y/Z as empty boxes: fatal on a ballot card).
"""
from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

from . import layouts as L
from .render import fitted, font_path, qr_geometry, qr_modules, marker_bits

FONT = "IPAexGothic"
PAGE_W, PAGE_H = 210.0, 297.0
COLS, ROWS, GAP = 2, 3, 6.0
LEFT = (PAGE_W - COLS * L.CARD_W - (COLS - 1) * GAP) / 2
TOP = (PAGE_H - ROWS * L.CARD_H - (ROWS - 1) * GAP) / 2
CUT_MARK, CUT_CLEAR = 3.5, 1.5     # mark length; gap between a mark and the card
PRINTER_EDGE = 5.0                 # mm a printer may leave blank at each edge: no text there
# The page's title sits in the strip between that edge and the top row of cards, left of the middle cut mark.
TITLE_X, TITLE_SIZE = 20.0, 1.9
TITLE_BASELINE = TOP - 0.5


def card_origin(slot: int) -> tuple[float, float]:
    """Top-left corner (mm from the page's top-left) of a slot, 0..5 row by row."""
    col, row = slot % COLS, slot // COLS
    return LEFT + col * (L.CARD_W + GAP), TOP + row * (L.CARD_H + GAP)


def register_font() -> None:
    if FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(FONT, str(font_path())))


def print_cards(cards: list[L.Card], secret: str, out: str | Path, title: str = "") -> int:
    """Write the cards (6 a page, in order) to a PDF; returns the number of pages."""
    register_font()
    pdf = canvas.Canvas(str(out), pagesize=A4, pageCompression=1, initialFontName=FONT, initialFontSize=7)
    pdf.setTitle(title or "Printed cards")
    pdf.setCreator("companion print cards")
    per_page = COLS * ROWS
    pages = [cards[i:i + per_page] for i in range(0, len(cards), per_page)] or [[]]
    for number, page in enumerate(pages, 1):
        _cut_marks(pdf)
        draw_text(pdf, L.Text(TITLE_X, TITLE_BASELINE, TITLE_SIZE, f"{title}  {number}/{len(pages)}", grey=0.4,
                          room=LEFT + L.CARD_W - CUT_CLEAR - TITLE_X), lambda x, y: (x * mm, (PAGE_H - y) * mm))
        for slot, card in enumerate(page):
            _card(pdf, card, secret, *card_origin(slot))
        pdf.showPage()
    pdf.save()
    return len(pages)


def _cut_marks(pdf: canvas.Canvas) -> None:
    """Marks in the page margin at every cut line: a guillotine cut through each frees the cards."""
    pdf.setStrokeGray(0)
    pdf.setLineWidth(0.25)
    xs = sorted({x for slot in range(COLS) for x in (card_origin(slot)[0], card_origin(slot)[0] + L.CARD_W)})
    ys = sorted({y for slot in range(0, COLS * ROWS, COLS) for y in (card_origin(slot)[1], card_origin(slot)[1] + L.CARD_H)})
    for x in xs:
        for y0, y1 in ((TOP - CUT_CLEAR - CUT_MARK, TOP - CUT_CLEAR), (PAGE_H - TOP + CUT_CLEAR, PAGE_H - TOP + CUT_CLEAR + CUT_MARK)):
            pdf.line(x * mm, (PAGE_H - y0) * mm, x * mm, (PAGE_H - y1) * mm)
    for y in ys:
        for x0, x1 in ((LEFT - CUT_CLEAR - CUT_MARK, LEFT - CUT_CLEAR), (PAGE_W - LEFT + CUT_CLEAR, PAGE_W - LEFT + CUT_CLEAR + CUT_MARK)):
            pdf.line(x0 * mm, (PAGE_H - y) * mm, x1 * mm, (PAGE_H - y) * mm)


def _card(pdf: canvas.Canvas, card: L.Card, secret: str, left: float, top: float) -> None:
    def at(x: float, y: float) -> tuple[float, float]:     # card mm (y down) -> PDF points (y up)
        return (left + x) * mm, (PAGE_H - top - y) * mm

    for item in L.items(card):
        if isinstance(item, L.Rect):
            pdf.setStrokeGray(item.grey)
            pdf.setLineWidth(item.line * mm)
            x, y = at(item.x, item.y + item.h)
            pdf.rect(x, y, item.w * mm, item.h * mm, stroke=1, fill=0)
        elif isinstance(item, L.Circle):
            pdf.setStrokeGray(item.grey)
            pdf.setLineWidth(item.line * mm)
            pdf.circle(*at(item.x, item.y), item.r * mm, stroke=1, fill=0)
        elif isinstance(item, L.Text):
            draw_text(pdf, item, at)
        elif isinstance(item, L.Marker):
            _cells(pdf, marker_bits(item.id), item.x, item.y, item.size / 6, at)
        elif isinstance(item, L.QR):
            modules = qr_modules(L.payload(card, secret))
            x, y, module = qr_geometry(len(modules), item)
            _cells(pdf, modules, x, y, module, at)


def draw_text(pdf: canvas.Canvas, item: L.Text, at) -> None:
    """A text item, smaller when it would be wider than its room; `at` maps its mm to PDF points."""
    item = fitted(item)
    pdf.setFillGray(item.grey)
    pdf.setFont(FONT, item.size * mm)
    draw = {"start": pdf.drawString, "middle": pdf.drawCentredString, "end": pdf.drawRightString}[item.anchor]
    draw(*at(item.x, item.y), item.text)


def _cells(pdf: canvas.Canvas, bits, x: float, y: float, cell: float, at) -> None:
    """Black cells as one path, each run of a row as one rectangle (no hairline gaps between cells)."""
    pdf.setFillGray(0)
    path = pdf.beginPath()
    for row in range(bits.shape[0]):
        col = 0
        while col < bits.shape[1]:
            if bits[row, col]:
                end = col
                while end + 1 < bits.shape[1] and bits[row, end + 1]:
                    end += 1
                px, py = at(x + col * cell, y + (row + 1) * cell)
                path.rect(px, py, (end - col + 1) * cell * mm, cell * mm)
                col = end + 1
            else:
                col += 1
    pdf.drawPath(path, stroke=0, fill=1)
