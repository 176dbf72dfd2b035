"""Auction Bluff's cards (AB7): per chosen player and period 1..--periods, a dice-vote card for
their own gem's dice (or --gem's) and a declaration card; the period is the card's turn. And each
player's sheet with the QR code of their private phone page (`companion print sheets`)."""
from __future__ import annotations

from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfgen import canvas

from .. import layouts as L, printing
from ..render import qr_modules
from . import Printer, PrintError

MAX_PERIODS = 99        # a bluff card's serial prints the period in two digits


def cards(args, event, everyone: dict, chosen: list[int]):
    if args.periods is None or not 1 <= args.periods <= MAX_PERIODS:
        raise PrintError(f"an Auction Bluff event: give --periods N, 1-{MAX_PERIODS} (each player's cards for "
                         f"periods 1..N)" if args.periods is None else f"--periods {args.periods}: give "
                                                                       f"1-{MAX_PERIODS}")
    gems = {p["gem"] for p in everyone.values()}
    if args.gem is not None and args.gem not in gems:
        raise PrintError(f"--gem {args.gem!r}: this event's gems are {', '.join(sorted(gems))}")
    cards = []
    for no in chosen:
        gem, name = args.gem or everyone[no]["gem"], everyone[no]["name"]
        for period in range(1, args.periods + 1):
            cards.append(L.Card("bluff_dice", event.id, L.serial("bluff_dice", no, period, gem), no, period, name))
            if args.gem is None:
                cards.append(L.Card("bluff_declare", event.id, L.serial("bluff_declare", no, period), no, period, name))
    return cards, ""


SHEET_QR_MM = 70.0
SHEET_MARGIN = 15.0     # mm each side: a long name or address prints smaller, never into the printer's edge


def sheets(event, players: list[dict], urls: dict[int, str], out: str) -> None:
    """One A4 page a player: who they are, their gem, the deadlines and their page's QR code and
    address. Raises FontMissing, or OSError when the PDF cannot be written."""
    printing.register_font()
    pdf = canvas.Canvas(str(out), pagesize=A4, pageCompression=1, initialFontName=printing.FONT)
    pdf.setTitle(f"{event.name} ({event.id}): phone sheets")
    pdf.setCreator("companion print sheets")
    rules, width, height = event.rules, printing.PAGE_W, printing.PAGE_H
    at = lambda x, y: (x * mm, (height - y) * mm)              # noqa: E731  (mm from the top-left -> points)

    def line(y: float, size: float, text: str) -> None:          # y: mm from the top, centred
        printing.draw_text(pdf, L.Text(width / 2, y, size, text, "middle", room=width - 2 * SHEET_MARGIN), at)
    for p in players:
        line(30, 7, "オークションブラフ · Auction Bluff")
        line(40, 4.5, event.name)
        line(58, 8, f"プレイヤー {p['no']} · {p['name']}")
        line(70, 6, f"宝石 · Gem: {p['gem']}")
        line(84, 4.5, f"ダイス投票 〜{rules.dice_until} · Dice vote until {rules.dice_until}")
        line(92, 4.5, f"宣言 〜{rules.declare_until} · Declarations until {rules.declare_until}")
        modules = qr_modules(urls[p["no"]])
        cell = SHEET_QR_MM / len(modules)
        top = 102.0
        printing._cells(pdf, modules, (width - SHEET_QR_MM) / 2, top, cell, at)
        line(top + SHEET_QR_MM + 10, 3.2, urls[p["no"]])
        line(top + SHEET_QR_MM + 22, 4.2, "このコードはあなた専用のページです。だれにも見せないでください。")
        line(top + SHEET_QR_MM + 29, 3.6, "This code opens your private page: show it to nobody.")
        line(top + SHEET_QR_MM + 36, 3.6, "失くしたら主催者へ（古いコードは無効にできます） · Lost it? The dealer revokes it.")
        pdf.showPage()
    pdf.save()


PRINTER = Printer(cards, sheets=sheets)
