"""Paper cards: print, scan (once or a watched folder), show a layout, make a corpus, bench.

OpenCV, ReportLab and the vision package are imported inside each command (law 1)."""
from __future__ import annotations

import importlib
import json
import os
import re
import sys
import time
from pathlib import Path

from ..core.columns import literal
from . import CommandError

def register(sub, groups) -> None:
    from ..core import games
    p = groups["print"].add_parser("cards", help="every player's cards as an A4 PDF (the event's game's cards; "
                                                 "the options after --players are each one game's)")
    p.add_argument("--event", required=True, help="event.toml (its id and secret sign every card)")
    p.add_argument("--out", required=True, help="the PDF to write")
    p.add_argument("--players", help="only these player numbers, e.g. 1,3 (default: all)")
    for option in (option for game in games.GAMES.values() for option in game.print_options):
        p.add_argument(option.flag, help=option.help, default=option.default, **option.argparse)
    p.set_defaults(run=print_cards)

    phoned = " or ".join(game.title for game in games.GAMES.values() if game.phones)
    p = groups["print"].add_parser("sheets", help=f"a game with phone pages ({phoned}): each player's sheet (A4, "
                                                  "one page a player) with the QR code of their private phone page")
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
    p.add_argument("kind", help="a card kind, e.g. vote (an unknown one: the error lists every game's)")
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
    p.add_argument("--seed", type=int, default=1, help="1 (default) is the tuning seed; report figures from seed 89 "
                   "(1-6, 8, 9 and 12-19 were looked at while fixing; 7, 11, 41, 53, 71, 83, 97, 131 and 139 reported "
                   "before)")
    p.add_argument("--watch-n", type=int, default=200, help="cards run through the watched-folder mode")
    p.add_argument("--cache", help="where the rasterised printed cards and the generated ones are kept between runs "
                                   "(default ~/.cache/companion)")
    p.add_argument("--workers", type=int, help="processes making the cards (default: every core); scanning uses one")
    p.add_argument("--corpus", choices=("marked", "shadows"), default="marked",
                   help="marked (default): every marking style; shadows: the classes of trouble (hand, phone and "
                        "fold shadows, light gradients, a scribble's loop, a light circle beside a fill, a blank card "
                        "in shade), tuned on seeds 1-9, reported from 1031 (101, 103, 211, 307, 401, 503, 617, 719, "
                        "827 and 929 spent)")
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


def print_cards(args) -> int:
    from ..core import games
    from vision.printers import PrintError
    from vision.printing import print_cards as write_pdf
    from vision.render import FontMissing
    event = _event(args.event)
    everyone = {p["no"]: p for p in event.players}
    chosen = _chosen(args.players, everyone)
    game = games.rules(event.game)
    if game.printer is None:
        raise CommandError(f"{args.event}: a {game.title} event has no cards to print", 2)
    _refuse_other_games_options(args, game)
    try:
        cards, extra = games.load(game.printer).cards(args, event, everyone, chosen)
    except PrintError as error:
        raise CommandError(str(error), 2)
    try:
        pages = write_pdf(cards, event.secret, args.out, f"{event.name} ({event.id})")
    except FontMissing as error:
        raise CommandError(str(error), 3)
    except OSError as error:
        raise CommandError(f"{args.out}: cannot write ({error.strerror})")
    print(f"wrote {args.out}: {len(cards)} cards on {pages} pages for player{'s' if len(chosen) > 1 else ''} "
          f"{', '.join(map(str, chosen))}{extra}")
    return 0


def _refuse_other_games_options(args, game) -> None:
    """An option only another game's cards take (its PrintOption) is an error, not ignored."""
    from ..core import games
    for other in games.GAMES.values():
        for option in other.print_options if other is not game else ():
            if getattr(args, option.dest) != option.default:
                raise CommandError(f"{option.elsewhere}; this is a {game.title} event", 2)


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


# --- the sheets of a game whose players have phone pages (GameRules.phones) -----------------------------
def print_sheets(args) -> int:
    from ..core import games
    from vision.render import FontMissing
    event = _event(args.event)
    game = games.rules(event.game)
    if not game.phones:
        having = ", ".join(other.title for other in games.GAMES.values() if other.phones)
        raise CommandError(f"{args.event}: phone sheets are for a game whose players have phone pages ({having}), "
                           f"not this one's game {event.game!r}", 2)
    phone = importlib.import_module(game.phones)
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
    try:
        games.load(game.printer).sheets(event, [everyone[no] for no in chosen], urls, args.out)
    except FontMissing as error:
        raise CommandError(str(error), 3)
    except OSError as error:
        raise CommandError(f"{args.out}: cannot write ({error.strerror})")
    done = f"; revoked the old pages of player{'s' if len(revoked) > 1 else ''} " \
           f"{', '.join(f'{no} (now pass {n})' for no, n in revoked.items())}" if revoked else ""
    print(f"wrote {args.out}: {len(chosen)} sheet{'s' if len(chosen) > 1 else ''} for player"
          f"{'s' if len(chosen) > 1 else ''} {', '.join(map(str, chosen))}{done}")
    return 0


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
    line = f"{result.image}: {result.decision}{reason}: {what} {fields}{crop} [{result.ms:.0f} ms]".replace("  ", " ")
    return literal(line)        # the photo's name is anyone's: no newline or terminal escape printed as it is


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
                print(literal(f"STAFF: {Path(result.image).name}: {result.decision}: {result.reason}"), file=sys.stderr)

        def trouble(error):     # the folder failing (a full disk, its stick pulled): said, tried again
            print(literal(f"STAFF: {args.watch}: {error}; trying again" if error else f"STAFF: {args.watch} works again"),
                  file=sys.stderr)
        watcher.run(report, on_trouble=trouble)
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
