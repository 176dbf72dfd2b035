"""The night's report (companion.core.report.Report) as an A4 PDF or one self-contained HTML page.

The printed cards' family: IPAex Gothic embedded, black ink and the cards' print grey, headings in
Japanese and English joined by " · " as on the cards. People's text (names, the event, reasons,
crop paths) is data: escaped in the page, never read as markup by ReportLab's paragraphs.
"""
from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Image, KeepTogether, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from companion.core.report import PUBLIC, STAFF, Chart, Picture, Report, Words
from companion.core.review import crop_file

from . import charts
from .layouts import PRINT_GREY
from .printing import FONT, register_font

MARGIN = 18 * mm
HEADER_Y = 11 * mm                 # the running header's baseline, from the top (text 5 mm inside at least)
PAGE_W = A4[0] - 2 * MARGIN       # between the margins: the running header's rule
FRAME_W = PAGE_W - 12             # inside the frame's 6 pt padding on each side: tables and charts
PAD = 3                           # a table cell's padding, each side
GREY = colors.Color(PRINT_GREY, PRINT_GREY, PRINT_GREY)
RULE = colors.Color(0.8, 0.8, 0.8)
CROP_H = 45 * mm


def words(w: Words) -> str:
    return f"{w.ja} · {w.en}"


def cell(value) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def kind(report: Report) -> Words:
    return STAFF if report.staff else PUBLIC


def _readable(path: Path) -> bytes | None:
    try:
        data = path.read_bytes()
        ImageReader(io.BytesIO(data)).getSize()
        return data
    except Exception:        # a missing, unreadable or non-image file: the report says so instead
        return None


# ---- PDF

def _styles() -> dict[str, ParagraphStyle]:
    base = ParagraphStyle("base", fontName=FONT, fontSize=8, leading=10.5, wordWrap="CJK")
    return {"base": base,
            "number": ParagraphStyle("number", base, alignment=TA_RIGHT),
            "head": ParagraphStyle("head", base, fontSize=7, leading=8.5, textColor=GREY),
            "title": ParagraphStyle("title", base, fontSize=22, leading=28),
            "sub": ParagraphStyle("sub", base, fontSize=11, leading=15),
            "h2": ParagraphStyle("h2", base, fontSize=14, leading=19, spaceBefore=10, spaceAfter=4),
            "h3": ParagraphStyle("h3", base, fontSize=10, leading=13, spaceBefore=6, spaceAfter=3),
            "note": ParagraphStyle("note", base, fontSize=7, leading=9, textColor=GREY, spaceBefore=2)}


def _p(text: str, style: ParagraphStyle, room: float | None = None) -> Paragraph:
    """People's text as a paragraph, escaped; with room, broken into lines that fit it (ReportLab's
    own CJK wrapping lets a line of mixed Latin and Japanese run a character past its cell)."""
    lines = _broken(text, room, style.fontSize) if room else [text]
    return Paragraph("<br/>".join(escape(line) for line in lines), style)


def _broken(text: str, room: float, size: float) -> list[str]:
    """Greedy lines no wider than room: at the last space when there is one, else between characters."""
    lines, line = [], ""
    for char in text:
        if line and stringWidth(line + char, FONT, size) > room:
            cut = line.rfind(" ")
            head, line = (line[:cut], line[cut + 1:]) if cut > 0 else (line, "")
            lines.append(head)
        line += char
    return [*lines, line]


def write_pdf(report: Report, out: str | Path, journal: str | Path) -> int:
    """The report as an A4 PDF; returns its number of pages. journal: its path (crops are beside it)."""
    register_font()
    styles = _styles()
    header = f"{words(report.game)} · {report.event} · {words(kind(report))}"
    doc = SimpleDocTemplate(str(out), pagesize=A4, leftMargin=MARGIN, rightMargin=MARGIN, topMargin=MARGIN,
                            bottomMargin=MARGIN, title=f"{report.game.en}: {report.event}",
                            creator="companion report", author="companion", initialFontName=FONT)
    story = [_p(words(report.game), styles["title"]), _p(report.event, styles["sub"]),
             _p(f"夜の記録 · The night's report ({words(kind(report))})", styles["sub"]), Spacer(0, 4 * mm)]
    for section in report.sections:
        blocks = [_pdf_block(block, styles, journal) for block in section.blocks]     # each a list of flowables
        blocks[0].insert(0, _p(words(section.title), styles["h2"]))
        story += [KeepTogether(parts) for parts in blocks]
    pages = []

    def decorate(canvas, document):
        pages.append(document.page)
        canvas.saveState()
        canvas.setFillColor(GREY)
        number = f"{document.page}"
        canvas.setFont(FONT, 7)
        canvas.drawRightString(A4[0] - MARGIN, A4[1] - HEADER_Y, number)
        _fitted_string(canvas, header, MARGIN, A4[1] - HEADER_Y, PAGE_W - stringWidth(number, FONT, 7) - 4 * mm)
        canvas.setStrokeColor(RULE)
        canvas.setLineWidth(0.4)
        canvas.line(MARGIN, A4[1] - HEADER_Y - 2.5 * mm, A4[0] - MARGIN, A4[1] - HEADER_Y - 2.5 * mm)
        canvas.restoreState()
    doc.build(story, onFirstPage=decorate, onLaterPages=decorate)
    return len(pages)


def _fitted_string(canvas, text: str, x: float, y: float, room: float, size: float = 7, smallest: float = 5) -> None:
    """One line in its room: smaller down to `smallest`, then cut with an ellipsis."""
    width = stringWidth(text, FONT, size)
    if width > room:
        size = max(smallest, size * room / width)
        while text and stringWidth(text + "…", FONT, size) > room:
            text = text[:-1]
        text += "…"
    canvas.setFont(FONT, size)
    canvas.drawString(x, y, text)


def _pdf_block(block, styles: dict, journal: str | Path) -> list:
    if isinstance(block, Chart):
        data = charts.png(block)
        width, height = ImageReader(io.BytesIO(data)).getSize()
        image = Image(io.BytesIO(data), width=FRAME_W, height=FRAME_W * height / width)
        return [_p(words(block.title), styles["h3"]), image]
    if isinstance(block, Picture):
        data = _readable(crop_file(block.path, journal))
        if data is None:
            return [_p(f"{block.caption} — 切り抜きなし · crop not found: {block.path}", styles["note"])]
        width, height = ImageReader(io.BytesIO(data)).getSize()
        scale = min(CROP_H / height, FRAME_W / width)
        return [Image(io.BytesIO(data), width=width * scale, height=height * scale, hAlign="LEFT"),
                _p(block.caption, styles["note"])]
    return _pdf_table(block, styles)


def _pdf_table(table, styles: dict) -> list:
    numeric = [all(isinstance(row[i], int) for row in table.rows) and table.rows for i in range(len(table.columns))]
    head = [Paragraph(f"{escape(c.ja)}<br/>{escape(c.en)}", styles["head"]) for c in table.columns]
    widths = _widths(table)
    body = [[_p(cell(v), styles["number" if numeric[i] else "base"], widths[i] - 2 * PAD) for i, v in enumerate(row)]
            for row in table.rows]
    grid = Table([head, *body], colWidths=widths, repeatRows=1, hAlign="LEFT")
    grid.setStyle(TableStyle([
        ("FONTNAME", (0, 0), (-1, -1), FONT), ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LINEBELOW", (0, 0), (-1, 0), 0.8, colors.black),
        ("LINEBELOW", (0, 1), (-1, -1), 0.3, RULE),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
        ("LEFTPADDING", (0, 0), (-1, -1), PAD), ("RIGHTPADDING", (0, 0), (-1, -1), PAD)]))
    parts = [_p(words(table.title), styles["h3"]), grid]
    if not table.rows:
        parts.append(_p("なし · none", styles["note"]))
    if table.note:
        parts.append(_p(table.note, styles["note"]))
    return parts        # kept together; a table longer than a page still breaks, its header row repeated


def _widths(table) -> list[float]:
    """Each column as wide as its widest cell wants; when they overflow the frame, the widest are
    narrowed to one cap, so short columns (numbers, serials) keep their width."""
    wants = [max(stringWidth(t, FONT, 8) for t in (column.ja, column.en, *(cell(row[i]) for row in table.rows)))
             + 2 * PAD + 1 for i, column in enumerate(table.columns)]
    cap = max(wants)
    while sum(min(w, cap) for w in wants) > FRAME_W:
        narrow = sum(w for w in wants if w < cap)
        cap = (FRAME_W - narrow) / sum(1 for w in wants if w >= cap) if narrow < FRAME_W else cap * 0.9
    return [min(w, cap) for w in wants]


# ---- HTML

CSS = """
body { font-family: "IPAexGothic", "IPAexゴシック", "Noto Sans CJK JP", "Hiragino Sans", sans-serif;
       color: #000; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; line-height: 1.45; }
header { border-bottom: 1px solid #ccc; margin-bottom: 1rem; }
h1 { font-size: 2rem; margin: 0; font-weight: normal; }
.event { font-size: 1.2rem; margin: .2rem 0; overflow-wrap: anywhere; }
.kind, .note, th, figcaption { color: #8c8c8c; }
h2 { font-weight: normal; border-bottom: 2px solid #000; margin-top: 2rem; }
h3 { font-weight: normal; font-size: 1rem; margin: 1.2rem 0 .3rem; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th { font-weight: normal; font-size: .75rem; text-align: left; border-bottom: 1.5px solid #000; padding: .2rem .4rem; }
td { border-bottom: 1px solid #ddd; padding: .2rem .4rem; vertical-align: top; overflow-wrap: anywhere; }
td.n { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.note { font-size: .75rem; overflow-wrap: anywhere; }
figure { margin: .5rem 0; } figure svg { width: 100%; height: auto; }
img.crop { max-height: 12rem; border: 1px solid #ccc; }
"""


def _h(text) -> str:
    return html.escape(str(text), quote=True)


def write_html(report: Report, out: str | Path, journal: str | Path) -> None:
    title = f"{words(report.game)} · {report.event}"
    parts = [f'<!doctype html>\n<html lang="ja"><head><meta charset="utf-8">'
             f'<meta name="viewport" content="width=device-width, initial-scale=1">'
             f"<title>{_h(title)}</title><style>{CSS}</style></head><body>",
             f'<header><h1>{_h(words(report.game))}</h1><p class="event">{_h(report.event)}</p>'
             f'<p class="kind">夜の記録 · The night\'s report ({_h(words(kind(report)))})</p></header>']
    for section in report.sections:
        parts.append(f"<section><h2>{_h(words(section.title))}</h2>")
        parts += [_html_block(block, journal) for block in section.blocks]
        parts.append("</section>")
    parts.append("</body></html>\n")
    Path(out).write_text("".join(parts), encoding="utf-8")


def _html_block(block, journal: str | Path) -> str:
    if isinstance(block, Chart):
        return f"<h3>{_h(words(block.title))}</h3><figure>{charts.svg(block)}</figure>"
    if isinstance(block, Picture):
        data = _readable(crop_file(block.path, journal))
        if data is None:
            return f'<p class="note">{_h(block.caption)} — 切り抜きなし · crop not found: {_h(block.path)}</p>'
        source = "data:image/png;base64," + base64.b64encode(data).decode() if data[:4] == b"\x89PNG" else \
            "data:image/jpeg;base64," + base64.b64encode(data).decode()
        return f'<figure><img class="crop" src="{source}" alt="{_h(block.caption)}"><figcaption>{_h(block.caption)}</figcaption></figure>'
    head = "".join(f"<th>{_h(c.ja)}<br>{_h(c.en)}</th>" for c in block.columns)
    rows = "".join("<tr>" + "".join(f'<td class="n">{_h(cell(v))}</td>' if isinstance(v, int) else f"<td>{_h(v)}</td>"
                                     for v in row) + "</tr>" for row in block.rows)
    empty = '<p class="note">なし · none</p>' if not block.rows else ""
    note = f'<p class="note">{_h(block.note)}</p>' if block.note else ""
    return f"<h3>{_h(words(block.title))}</h3><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>{empty}{note}"
