"""Game commands: init, start, do, status, replay, journal show/export."""
from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path

from . import CommandError
from .. import event_file, views
from ..bingo import commands as c
from ..journal import Journal, JournalError
from ..report import public_text, staff_text
from ..session import Game, Session


def register(sub, groups) -> None:
    p = sub.add_parser("init", help="write a commented example event.toml with dealt bingo cards")
    p.add_argument("--out", default="event.toml")
    p.add_argument("--name", default="Night 1", help="event name")
    p.add_argument("--players", type=int, default=6)
    p.add_argument("--seed", type=int, help="seed for dealing cards and letters (default: random, written in the file)")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.set_defaults(run=init)

    p = sub.add_parser("start", help="open a new game journal from an event file")
    p.add_argument("--event", required=True, help="event.toml")
    p.add_argument("--journal", help="journal file (default: the one named in the event file)")
    p.set_defaults(run=start)

    p = sub.add_parser("do", help="apply commands (script-format JSON) to a game journal")
    _journal_args(p)
    p.add_argument("commands", nargs="+", metavar="JSON", help='e.g. \'{"do":"draw","balls":[17,4,22]}\'')
    p.set_defaults(run=do)

    p = sub.add_parser("status", help="show a game journal's current state")
    _journal_args(p)
    _view_args(p)
    p.set_defaults(run=status)

    p = sub.add_parser("replay", help="run a rehearsal script (JSON lines)")
    p.add_argument("script")
    _view_args(p)
    p.add_argument("--journal", help="also write the game into this new journal file")
    p.add_argument("--strict", action="store_true", help="stop with exit 1 at the first rejected command")
    p.set_defaults(run=replay)

    journal = sub.add_parser("journal", help="read a game journal").add_subparsers(dest="what", metavar="WHAT", required=True)
    p = journal.add_parser("show", help="every command and event, oldest first")
    p.add_argument("journal")
    p.set_defaults(run=journal_show)
    p = journal.add_parser("export", help="JSON lines: events, or with --public what the audience saw")
    p.add_argument("journal")
    p.add_argument("--public", action="store_true", help="public views only: no secrets")
    p.set_defaults(run=journal_export)


def _journal_args(p) -> None:
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--journal", help="journal file")
    where.add_argument("--event", help="event.toml (its journal)")


def _view_args(p) -> None:
    p.add_argument("--json", action="store_true", help="print the state as JSON")
    p.add_argument("--public", action="store_true", help="the audience's view instead of the staff's")


def load_event(path: str) -> event_file.EventFile:
    try:
        return event_file.load(path)
    except event_file.EventFileError as error:
        raise CommandError(str(error), 2)


def open_journal(path, readonly: bool = False) -> Journal:
    try:
        return Journal(path, readonly=readonly)
    except JournalError as error:
        raise CommandError(str(error))


def session_for(args, readonly: bool = False) -> Session:
    path = args.journal or load_event(args.event).journal
    if not Path(path).exists():
        raise CommandError(f"{path}: no such journal (companion start --event ... makes one)")
    return Session(open_journal(path, readonly))


def print_view(state, args, log: list | None = None) -> None:
    view = views.public(state) if args.public else views.staff(state)
    if args.json:
        if log is not None and not args.public:
            view["log"] = log
        print(json.dumps(view, ensure_ascii=False))
        return
    for entry in [] if args.public else log or []:
        if entry["status"] != "ok":
            print(f"line {entry['line']}: {entry['status']}: {entry['reason']}")
    print(public_text(view) if args.public else staff_text(view))


def init(args) -> int:
    out = Path(args.out)
    if out.exists() and not args.force:
        raise CommandError(f"{out} exists; use --force to overwrite it")
    seed = args.seed if args.seed is not None else secrets.randbelow(10**6)
    try:
        text = event_file.example(args.name, args.players, seed, secrets.token_hex(16))
    except event_file.EventFileError as error:
        raise CommandError(str(error), 2)
    event_file.write_atomic(out, text)
    print(f"wrote {out}: {args.players} players, cards dealt with seed {seed}; edit names, then: companion start --event {out}")
    return 0


def start(args) -> int:
    event = load_event(args.event)
    path = Path(args.journal) if args.journal else event.journal
    journal = open_journal(path)
    if journal.count():
        raise CommandError(f"{path} already holds a game ({journal.count()} commands); choose another file")
    outcome = Session(journal).submit(event.setup_command())
    if outcome.status != "ok":
        raise CommandError(f"{args.event}: {outcome.reason}", 2)
    print(f"{path}: game {event.name!r} set up with {len(event.players)} players")
    return 0


def do(args) -> int:
    session = session_for(args)
    worst = 0
    for text in args.commands:
        try:
            outcome = session.submit(json.loads(text))
        except (json.JSONDecodeError, c.Malformed) as error:
            raise CommandError(f"{text}: {error}", 2)
        print(outcome.status + (f": {outcome.reason}" if outcome.reason else ""))
        worst = max(worst, outcome.status == "rejected")
    return worst


def status(args) -> int:
    print_view(session_for(args, readonly=True).state, args)
    return 0


def read_script(path: Path) -> list[tuple[int, object]]:
    """Every line parsed before anything runs, so a malformed script changes nothing."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"{path}: cannot read ({error})", 2)
    script = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            command = c.parse(json.loads(line))
        except json.JSONDecodeError as error:
            raise CommandError(f"{path}:{number}: not JSON ({error.msg} at column {error.colno})", 2)
        except c.Malformed as error:
            raise CommandError(f"{path}:{number}: {error}", 2)
        if not script and not isinstance(command, c.Setup):
            raise CommandError(f"{path}:{number}: the first command must be setup", 2)
        script.append((number, command))
    if not script:
        raise CommandError(f"{path}: no commands", 2)
    return script


def replay(args) -> int:
    path = Path(args.script)
    script = read_script(path)
    journal = open_journal(args.journal) if args.journal else Journal()
    if journal.count():
        raise CommandError(f"{args.journal} already holds a game ({journal.count()} commands); choose a new file")
    session = Session(journal)
    log, code = [], 0
    for number, command in script:
        outcome = session.submit(command)
        log.append({"line": number, "status": outcome.status, "reason": outcome.reason})
        if outcome.status == "rejected" and args.strict:
            print(f"{path}:{number}: rejected: {outcome.reason}", file=sys.stderr)
            code = 1
            break
    print_view(session.state, args, log)
    return code


def journal_show(args) -> int:
    journal = open_journal(args.journal, readonly=True)
    for batch in journal.batches():
        note = f" ({batch.reason})" if batch.reason else ""
        print(f"#{batch.number} {batch.at} {batch.status}{note}: {json.dumps(batch.command, ensure_ascii=False)}")
        for seq, kind, data in batch.events:
            print(f"    {seq:>5} {kind} {json.dumps(data, ensure_ascii=False)}")
    return 0


def journal_export(args) -> int:
    journal = open_journal(args.journal, readonly=True)
    if not args.public:
        for batch in journal.batches():
            for seq, kind, data in batch.events:
                print(json.dumps({"seq": seq, "batch": batch.number, "at": batch.at, "kind": kind, "data": data},
                                 ensure_ascii=False))
        return 0
    game, last = Game(), None
    for batch in game.follow(journal):     # one line each time what the audience sees changes
        view = views.public(game.state)
        if view != last:
            print(json.dumps({"batch": batch.number, "at": batch.at, "view": view}, ensure_ascii=False))
            last = view
    return 0
