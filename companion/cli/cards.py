"""Paper cards: print, scan (once or a watched folder), show a layout, make a corpus, bench.

OpenCV, ReportLab and the vision package are imported inside each command (law 1)."""
from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

from . import CommandError

SPECIALS = ("inout", "change", "exclusion")


def register(sub, groups) -> None:
    p = groups["print"].add_parser("cards", help="every player's cards as an A4 PDF (Plunder Bingo: vote, robbery, "
                                                 "bingo, specials; Voters: number cards)")
    p.add_argument("--event", required=True, help="event.toml (its id and secret sign every card)")
    p.add_argument("--out", required=True, help="the PDF to write")
    p.add_argument("--players", help="only these player numbers, e.g. 1,3 (default: all)")
    p.add_argument("--special", action="append", default=[], metavar="KIND=PLAYER[xN]",
                   help="special cards on demand: inout, change or exclusion, e.g. change=3 or inout=2x4")
    p.add_argument("--first", type=int, default=1, help="number of the first special card (keep serials unique "
                                                        "across print runs: continue where the last run stopped)")
    p.add_argument("--only-special", action="store_true", help="print only the --special cards")
    p.add_argument("--games", type=int, metavar="N", help="a Voters event: each player's number cards for games 1..N")
    p.add_argument("--periods", type=int, metavar="N", help="an Auction Bluff event: each player's dice-vote and "
                                                            "declaration cards for periods 1..N")
    p.add_argument("--gem", help="an Auction Bluff event: dice-vote cards for this gem's dice (default: each "
                                 "player's own; after a transfer, print the received gem's too)")
    p.set_defaults(run=print_cards)

    p = groups["print"].add_parser("sheets", help="an Auction Bluff event: each player's sheet (A4, one page a "
                                                  "player) with the QR code of their private phone page")
    p.add_argument("--event", required=True, help="event.toml (its id and secret sign every page's pass)")
    p.add_argument("--out", required=True, help="the PDF to write")
    p.add_argument("--url", required=True, help="the display server as the players' phones reach it "
                                                "(`companion display --serve --event`), e.g. http://192.168.1.20:8080")
    p.add_argument("--players", help="only these player numbers, e.g. 1,3 (default: all)")
    p.add_argument("--revoke", action="store_true", help="first revoke these players' pages (their old codes "
                                                         "answer 403 from now on), then print their new ones")
    p.set_defaults(run=print_sheets)

    p = sub.add_parser("scan", help="read card images: decision, fields, scores (and into the game with --journal)")
    p.add_argument("images", nargs="*", metavar="IMAGE")
    p.add_argument("--event", default="event.toml", help="event.toml (default: ./event.toml)")
    p.add_argument("--journal", help="send each card to this game journal (the watch mode default: the event's)")
    p.add_argument("--json", action="store_true", help="one JSON object per card")
    p.add_argument("--crops", help="folder for review crops (watch mode: DIR/crops)")
    p.add_argument("--watch", metavar="DIR", help="scan every image that appears in DIR until stopped (Ctrl-C)")
    p.set_defaults(run=scan)

    p = sub.add_parser("layout", help="a card kind's layout: size, markers, code, each bubble's value, centre, radius (mm)")
    p.add_argument("kind", help="vote, robbery, inout, change, exclusion, bingo, number, bluff_dice or bluff_declare")
    p.add_argument("--json", action="store_true", help="as JSON (the form tools read)")
    p.set_defaults(run=layout)

    p = groups["corpus"].add_parser("cards", help="photos and scans of printed cards (from `print cards`' PDF), "
                                                  "marked as players mark them, with ground truth JSON")
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--tier", choices=("clean", "hard"), required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(run=corpus)

    p = groups["bench"].add_parser("cards", help="accuracy per marking style and tier, review rate and speed of the "
                                                 "card scanner on printed cards")
    p.add_argument("--n", type=int, default=3000, help="cards in all, half per tier (default 3000)")
    p.add_argument("--seed", type=int, default=1, help="1 (default) is the tuning seed; report figures from seed 89 (1-6, 8 and 9 were looked at while fixing; 7, 11, 41, 53, 71 and 83 reported before)")
    p.add_argument("--watch-n", type=int, default=200, help="cards run through the watched-folder mode")
    p.add_argument("--cache", help="where the rasterised printed cards and the generated ones are kept between runs "
                                   "(default ~/.cache/companion)")
    p.add_argument("--workers", type=int, help="processes making the cards (default: every core); scanning uses one")
    p.add_argument("--corpus", choices=("marked", "shadows"), default="marked",
                   help="marked (default): every marking style; shadows: the classes of trouble (hand, phone and "
                        "fold shadows, light gradients, a scribble's loop, a light circle beside a fill, a blank card "
                        "in shade), tuned on seeds 1-9, reported from 101 and 103")
    p.add_argument("--cpu-quota", help="scan the watched folder held to this share of one core a process: a number "
                   "(0.3 = 30%%), or pi4 / pi5 (as `bench balls`)")
    p.add_argument("--cores", type=int, default=1, help="with --cpu-quota: cores of that speed (default 1)")
    p.add_argument("--watch-workers", type=int, help="the watched folder's scanning processes ([cards] workers; "
                   "default: --cores with --cpu-quota, else every core)")
    p.set_defaults(run=bench)


# --- print -----------------------------------------------------------------------------------------
def _event(path: str):
    from ..core import event_file
    try:
        return event_file.load(path)
    except event_file.EventFileError as error:
        raise CommandError(str(error), 2)


def _specials(texts: list[str], players: set[int]) -> list[tuple[str, int, int]]:
    out = []
    for text in texts:
        match = re.fullmatch(r"(\w+)=(\d+)(?:x(\d+))?", text)
        if not match or match.group(1) not in SPECIALS:
            raise CommandError(f"--special {text!r}: write KIND=PLAYER or KIND=PLAYERxCOUNT, KIND one of "
                               f"{', '.join(SPECIALS)}", 2)
        kind, player, count = match.group(1), int(match.group(2)), int(match.group(3) or 1)
        if player not in players:
            raise CommandError(f"--special {text!r}: there is no player {player}", 2)
        out.append((kind, player, count))
    return out


def print_cards(args) -> int:
    from ..core import games
    from vision.printing import print_cards as write_pdf
    from vision.render import FontMissing
    event = _event(args.event)
    everyone = {p["no"]: p for p in event.players}
    chosen = _chosen(args.players, everyone)
    title = games.rules(event.game).title
    if event.game not in PRINTERS:
        raise CommandError(f"{args.event}: a {title} event has no cards to print", 2)
    if args.games is not None and event.game != "voters":
        raise CommandError(f"--games is for a Voters event's number cards; this is a {title} event", 2)
    if (args.periods is not None or args.gem is not None) and event.game != "bluff":
        raise CommandError(f"--periods and --gem are for an Auction Bluff event's cards; this is a {title} event", 2)
    cards, extra = PRINTERS[event.game](args, event, everyone, chosen)
    if not cards:
        raise CommandError("nothing to print: name --special cards or drop --only-special", 2)
    try:
        pages = write_pdf(cards, event.secret, args.out, f"{event.name} ({event.id})")
    except FontMissing as error:
        raise CommandError(str(error), 3)
    except OSError as error:
        raise CommandError(f"{args.out}: cannot write ({error.strerror})")
    print(f"wrote {args.out}: {len(cards)} cards on {pages} pages for player{'s' if len(chosen) > 1 else ''} "
          f"{', '.join(map(str, chosen))}{extra}")
    return 0


def _chosen(players: str | None, everyone: dict) -> list[int]:
    """The player numbers --players names (default: every player), each checked."""
    if not players:
        return sorted(everyone)
    try:
        chosen = sorted({int(n) for n in players.split(",")})
    except ValueError:
        raise CommandError(f"--players {players!r}: give player numbers like 1,3", 2)
    missing = [n for n in chosen if n not in everyone]
    if missing:
        raise CommandError(f"--players: there is no player {missing[0]}", 2)
    return chosen


def _bingo_cards(args, event, everyone: dict, chosen: list[int]):
    """Plunder Bingo's cards: (cards, what the summary adds)."""
    from vision import layouts as L
    if max(everyone, default=0) > L.MAX_PLAYERS:
        raise CommandError(f"{args.event}: robbery cards carry player numbers 1-{L.MAX_PLAYERS}; "
                           f"this event has player {max(everyone)}", 2)
    cards = []
    for no in [] if args.only_special else chosen:
        p = everyone[no]
        cards.append(L.Card("bingo", event.id, L.serial("bingo", no, 0), no, 0, p["name"], tuple(p["card"])))
        cards += [L.Card("vote", event.id, L.serial("vote", no, t), no, t, p["name"]) for t in range(1, event.rules.turns + 1)]
        cards += [L.Card("robbery", event.id, L.serial("robbery", no, k), no, 0, p["name"]) for k in range(1, 9)]
    number = args.first
    for kind, no, count in _specials(args.special, set(everyone)):
        for _ in range(count):
            cards.append(L.Card(kind, event.id, L.serial(kind, no, number), no, 0, everyone[no]["name"]))
            number += 1
    return cards, f"; next special card number: {number}" if args.special else ""


MAX_GAMES = 99          # a number card's serial prints the game no. in two digits


def _number_cards(args, event, everyone: dict, chosen: list[int]):
    """Voters' number cards (V1): one per chosen player for each game 1..--games, the game no. as its turn."""
    from vision import layouts as L
    if args.special or args.only_special:
        raise CommandError("--special cards are Plunder Bingo's; a Voters event prints number cards (--games N)", 2)
    if args.games is None or not 1 <= args.games <= MAX_GAMES:
        raise CommandError(f"a Voters event: give --games N, 1-{MAX_GAMES} (each player's number cards for games 1..N)"
                           if args.games is None else f"--games {args.games}: give 1-{MAX_GAMES}", 2)
    return [L.Card("number", event.id, L.serial("number", no, game), no, game, everyone[no]["name"])
            for no in chosen for game in range(1, args.games + 1)], ""


MAX_PERIODS = 99        # a bluff card's serial prints the period in two digits


def _bluff_cards(args, event, everyone: dict, chosen: list[int]):
    """Auction Bluff's cards (AB7): per chosen player and period 1..--periods, a dice-vote card for
    their own gem's dice (or --gem's) and a declaration card; the period is the card's turn."""
    from vision import layouts as L
    if args.special or args.only_special:
        raise CommandError("--special cards are Plunder Bingo's; an Auction Bluff event prints --periods N", 2)
    if args.periods is None or not 1 <= args.periods <= MAX_PERIODS:
        raise CommandError(f"an Auction Bluff event: give --periods N, 1-{MAX_PERIODS} (each player's cards for "
                           f"periods 1..N)" if args.periods is None else f"--periods {args.periods}: give "
                                                                         f"1-{MAX_PERIODS}", 2)
    gems = {p["gem"] for p in everyone.values()}
    if args.gem is not None and args.gem not in gems:
        raise CommandError(f"--gem {args.gem!r}: this event's gems are {', '.join(sorted(gems))}", 2)
    cards = []
    for no in chosen:
        gem, name = args.gem or everyone[no]["gem"], everyone[no]["name"]
        for period in range(1, args.periods + 1):
            cards.append(L.Card("bluff_dice", event.id, L.serial("bluff_dice", no, period, gem), no, period, name))
            if args.gem is None:
                cards.append(L.Card("bluff_declare", event.id, L.serial("bluff_declare", no, period), no, period, name))
    return cards, ""


PRINTERS = {"bingo": _bingo_cards, "voters": _number_cards, "bluff": _bluff_cards}   # game -> (cards, summary's extra)


# --- an Auction Bluff event's phone sheets -------------------------------------------------------------
def print_sheets(args) -> int:
    from tui.web import phone
    event = _event(args.event)
    if event.game != "bluff":
        raise CommandError(f"{args.event}: phone sheets are for an Auction Bluff event, not this one's game "
                           f"{event.game!r}", 2)
    if not re.fullmatch(r"https?://[^/\s]+/?", args.url):
        raise CommandError(f"--url {args.url!r}: give the server's address, like http://192.168.1.20:8080", 2)
    everyone = {p["no"]: p for p in event.players}
    chosen = _chosen(args.players, everyone)
    try:
        revoked = phone.revoke(event.journal, chosen) if args.revoke else {}
        urls = {no: phone.page_url(args.url, event.id, event.secret, no, event.journal) for no in chosen}
    except phone.PassesError as error:
        raise CommandError(str(error))
    except OSError as error:
        raise CommandError(f"{phone.passes_path(event.journal)}: cannot write ({error.strerror})")
    _write_sheets(event, [everyone[no] for no in chosen], urls, args.out)
    done = f"; revoked the old pages of player{'s' if len(revoked) > 1 else ''} " \
           f"{', '.join(f'{no} (now pass {n})' for no, n in revoked.items())}" if revoked else ""
    print(f"wrote {args.out}: {len(chosen)} sheet{'s' if len(chosen) > 1 else ''} for player"
          f"{'s' if len(chosen) > 1 else ''} {', '.join(map(str, chosen))}{done}")
    return 0


SHEET_QR_MM = 70.0
SHEET_MARGIN = 15.0     # mm each side: a long name or address prints smaller, never into the printer's edge


def _write_sheets(event, players: list[dict], urls: dict[int, str], out: str) -> None:
    """One A4 page a player: who they are, their gem, the deadlines and their page's QR code and address."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.units import mm
    from reportlab.pdfgen import canvas
    from vision import printing
    from vision.layouts import Text
    from vision.render import FontMissing, qr_modules
    try:
        printing.register_font()
    except FontMissing as error:
        raise CommandError(str(error), 3)
    pdf = canvas.Canvas(str(out), pagesize=A4, pageCompression=1, initialFontName=printing.FONT)
    pdf.setTitle(f"{event.name} ({event.id}): phone sheets")
    pdf.setCreator("companion print sheets")
    rules, width, height = event.rules, printing.PAGE_W, printing.PAGE_H
    at = lambda x, y: (x * mm, (height - y) * mm)              # noqa: E731  (mm from the top-left -> points)

    def line(y: float, size: float, text: str) -> None:          # y: mm from the top, centred
        printing.draw_text(pdf, Text(width / 2, y, size, text, "middle", room=width - 2 * SHEET_MARGIN), at)
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
    try:
        pdf.save()
    except OSError as error:
        raise CommandError(f"{out}: cannot write ({error.strerror})")


# --- scan --------------------------------------------------------------------------------------------
def _submitter(journal_path):
    """submit(command) -> (status, reason) on the game journal."""
    from ..core.commands import Malformed
    from ..core.journal import Journal, JournalError
    from ..core.session import Session
    if not Path(journal_path).exists():
        raise CommandError(f"{journal_path}: no such journal (companion start --event ... makes one)")
    try:
        session = Session(Journal(journal_path, existing=True))
    except JournalError as error:
        raise CommandError(str(error))

    def submit(command: dict):
        try:
            outcome = session.submit(command)
        except Malformed as error:
            return "rejected", str(error)
        return outcome.status, outcome.reason
    return submit


def _line(result) -> str:
    what = f"{result.kind} {result.serial}" if result.serial else "?"
    fields = " ".join(f"{k}={','.join(v) or '-'}" for k, v in result.fields.items())
    reason = f" ({result.reason})" if result.reason else ""
    crop = f" crop {result.crop}" if result.crop else ""
    return f"{result.image}: {result.decision}{reason}: {what} {fields}{crop} [{result.ms:.0f} ms]".replace("  ", " ")


def scan(args) -> int:
    import cv2
    from vision.cards import FolderWatcher, Scanner, referee, workers_for
    cv2.setNumThreads(1)
    event = _event(args.event)
    settings = _settings(event)
    scanner = Scanner(event.id, event.secret, settings, args.crops)
    journal = args.journal or (event.journal if args.watch else None)
    submit = _submitter(journal) if journal else None
    show = (lambda r: print(json.dumps(r.to_json(), ensure_ascii=False))) if args.json else (lambda r: print(_line(r)))
    if args.watch:
        if args.images:
            raise CommandError("give either IMAGE... or --watch DIR, not both", 2)
        try:
            watcher = FolderWatcher(scanner, args.watch, submit, workers_for(event))
        except FileNotFoundError as error:
            raise CommandError(str(error), 2)
        print(f"watching {args.watch} (journal {journal}); Ctrl-C stops", file=sys.stderr)

        def report(result):
            show(result)
            sys.stdout.flush()
            if result.decision in ("rejected", "refused", "duplicate"):
                print(f"STAFF: {Path(result.image).name}: {result.decision}: {result.reason}", file=sys.stderr)
        watcher.run(report)
        return 0
    if not args.images:
        raise CommandError("give IMAGE... to scan, or --watch DIR", 2)
    worst = 0
    for image in args.images:
        result = scanner.scan_file(image)
        if submit:
            referee(result, submit)
        show(result)
        worst = max(worst, {"counted": 0, "ignored": 0, "invalid": 0, "review": 1, "duplicate": 1}.get(result.decision, 2))
    return worst


def _settings(event):
    from vision.cards import TuningError, settings_for
    try:
        return settings_for(event)
    except TuningError as error:
        raise CommandError(str(error), 2)


# --- layout, corpus -----------------------------------------------------------------------------------
def layout(args) -> int:
    from vision import layouts as L
    try:
        chosen = L.layout(args.kind)
    except KeyError as error:
        raise CommandError(error.args[0], 2)
    data = chosen.to_json()
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    print(f"{chosen.title}: {data['size']['width']} x {data['size']['height']} mm")
    for f in data["fields"]:
        print(f"  {f['name']} ({f['label']}): " + ", ".join(f"{b['value']}@({b['x']},{b['y']}) r{b['r']}" for b in f["bubbles"]))
    return 0


def corpus(args) -> int:
    from vision.sim import card_deck, cards as corpus_cards
    if args.n < 1:
        raise CommandError("--n must be at least 1", 2)

    def progress(done, total):
        if done % 50 == 0 or done == total:
            print(f"  {done}/{total}", file=sys.stderr)
    try:
        paths = corpus_cards.write(args.out, args.n, args.tier, args.seed, progress)
    except card_deck.DeckError as error:
        raise CommandError(str(error))
    except OSError as error:
        raise CommandError(f"{args.out}: cannot write ({error.strerror})")
    print(f"wrote {len(paths)} {args.tier} images with ground truth JSON beside each to {args.out} "
          f"(event id {card_deck.event_id()!r}, secret {card_deck.SECRET!r})")
    return 0


# --- bench ----------------------------------------------------------------------------------------------
def bench(args) -> int:
    import cv2
    from vision.sim import card_bench, card_deck
    cv2.setNumThreads(1)
    if args.n < 2:
        raise CommandError("--n must be at least 2 (half per tier)", 2)
    say = lambda text: print(text, file=sys.stderr, flush=True)     # noqa: E731
    quota = _quota(args)
    watch_workers = args.watch_workers or (args.cores if quota else os.cpu_count() or 1)
    if watch_workers < 1:
        raise CommandError(f"--watch-workers {args.watch_workers}: at least 1", 2)
    try:
        return card_bench.bench(args.n, args.seed, args.watch_n, say, Path(args.cache) if args.cache else None,
                                args.workers, args.corpus, watch_workers, quota)
    except card_deck.DeckError as error:
        raise CommandError(str(error))
    except OSError as error:
        raise CommandError(f"corpus cache: {error}")
    finally:
        if quota:
            quota.close()


def _quota(args):
    """--cpu-quota and --cores as cgroup quotas (drivers.ball_bench.CpuQuota), or None."""
    from drivers import ball_bench

    from .balls import quota_share
    share = quota_share(args)
    if share is None:
        return None
    try:
        return ball_bench.CpuQuota(share, args.cores)
    except ball_bench.QuotaUnavailable as error:
        raise CommandError(str(error))
