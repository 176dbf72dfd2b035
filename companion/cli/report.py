"""`companion report`: the night's report after the finish, as a PDF or an HTML page, public by
default (built from the public views only) or --staff; `companion bench report` times it."""
from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from . import CommandError, demo_of
from .game import load_event, open_journal
from ..core import games
from ..core.report import NotFinished, night
from ..core.journal import Journal
from ..core.session import rules_of

FORMATS = (".pdf", ".html")


def register(sub, groups) -> None:
    p = sub.add_parser("report", help="the night's report after the finish: a PDF or an HTML page (public unless --staff)")
    p.add_argument("--event", required=True, help="event.toml (its journal and its game)")
    p.add_argument("--out", required=True, help="night.pdf or night.html")
    p.add_argument("--staff", action="store_true",
                   help="add what only staff may see: who owns which letter, every robbery, held cards and rulings")
    p.set_defaults(run=report)

    p = groups["bench"].add_parser("report", help="time `companion report` (PDF and HTML, public and staff) on a demo night")
    p.add_argument("--players", type=int, default=26)
    p.add_argument("--turns", type=int, default=15)
    p.add_argument("--runs", type=int, default=3, help="reports of each kind to time (default 3); the median is reported")
    p.add_argument("--game", default=games.DEFAULT, help=f"whose demo night to report on (default {games.DEFAULT})")
    p.set_defaults(run=bench_report)


def report(args) -> int:
    out = Path(args.out)
    if out.suffix.lower() not in FORMATS:
        raise CommandError(f"--out {args.out}: name a .pdf or .html file", 2)
    event = load_event(args.event)
    if not event.journal.exists():
        raise CommandError(f"{args.event}: its journal {event.journal} does not exist (companion start --event ... makes one)")
    journal = open_journal(event.journal, readonly=True, existing=True)
    game = rules_of(journal)
    if game.name != event.game:
        raise CommandError(f"{args.event}: the event file is for {event.game}, but its journal {event.journal} "
                           f"holds a game of {game.name}", 2)
    pages = write(journal, event.name, out, args.staff)
    what = f"{pages} page{'s' if pages > 1 else ''}" if pages else "one page"
    print(f"{out}: the {'staff' if args.staff else 'public'} report of {event.name!r} ({game.title}), {what}")
    return 0


def write(journal: Journal, event: str, out: Path, staff: bool) -> int:
    """Write the report; returns the PDF's page count (0 for HTML)."""
    from vision.render import FontMissing
    from vision.report import write_html, write_pdf
    try:
        built = night(journal, staff, event)
        if out.suffix.lower() == ".pdf":
            return write_pdf(built, out, journal.path)
        write_html(built, out, journal.path)
        return 0
    except NotFinished as why:
        raise CommandError(f"{journal.path}: no report yet: {why}")
    except FontMissing as error:
        raise CommandError(str(error))
    except OSError as error:
        raise CommandError(f"{out}: cannot write ({error.strerror or error})")


def bench_report(args) -> int:
    from ..core.session import Session
    demo_script = demo_of(args.game)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "night.db"
        session = Session(Journal(path))
        for command in demo_script(args.players, seed=1, turns=args.turns):
            session.submit(command)
        session.journal.close()
        journal = Journal(path, readonly=True)
        for staff in (False, True):
            for suffix in FORMATS:
                wall, cpu = [], []
                for _ in range(args.runs):
                    started, used = time.perf_counter(), time.process_time()
                    write(journal, "Bench night", Path(folder) / f"night{suffix}", staff)
                    wall.append(time.perf_counter() - started)
                    cpu.append(time.process_time() - used)
                print(f"{'staff' if staff else 'public'} report, {suffix[1:].upper()}, {args.turns} turns, "
                      f"{args.players} players: median {statistics.median(wall):.2f} s "
                      f"(CPU {statistics.median(cpu):.2f} s), max {max(wall):.2f} s", flush=True)
    return 0
