"""Game commands: init, start, do, status, replay, journal show/export."""
from __future__ import annotations

import json
import secrets
import sqlite3
import sys
from collections import Counter
from pathlib import Path

from . import CommandError
from .. import views
from ..core import event_file
from ..core import commands as c
from ..core import games, words
from ..core.events import stored_version
from ..core.journal import Journal, JournalBusy, JournalError
from ..core.door import door_path, through_door
from ..core.session import GROUP, Game, Session, rules_of, salvage, split_id

BUSY = 3        # exit code: another writer holds the journal; retry later
SIMULATED_HARDWARE = """
# Simulated hardware (companion init --simulated): the console starts each simulator itself.
[camera]
source = "sim"          # rendered balls; it shows the ball the cage drew (calibrate: the ball it asks for)

[serial]
url = "sim"             # the simulated cage on a pseudo-terminal; it draws the turn's balls one by one

[panel]
pin_factory = "mock"    # gpiozero's MockFactory: no GPIO needed
"""


def register(sub, groups) -> None:
    dealing = " or ".join(game.title for game in games.GAMES.values() if game.event and game.event.seeded)
    p = sub.add_parser("init", help=f"write a commented example event.toml ({dealing}: with dealt cards)")
    p.add_argument("--out", default="event.toml")
    p.add_argument("--game", choices=tuple(games.GAMES), default=games.DEFAULT, help=f"the game (default: {games.DEFAULT})")
    p.add_argument("--name", default="Night 1", help="event name")
    p.add_argument("--players", type=int, help=f"how many (default: {default_players()})")
    p.add_argument("--seed", type=int, help="seed for dealing cards and letters (default: random, written in the file)")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.add_argument("--simulated", action="store_true",
                   help="simulated hardware: the camera, the cage (on a pseudo-terminal) and the panel, started by the console")
    p.set_defaults(run=init)

    p = sub.add_parser("start", help="open a new game journal from an event file")
    p.add_argument("--event", required=True, help="event.toml")
    p.add_argument("--journal", help="journal file (default: the one named in the event file)")
    p.set_defaults(run=start)

    p = sub.add_parser("do", help="apply commands (script-format JSON) to a game journal: all of them or none")
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

    journal = sub.add_parser("journal", help="read, verify, back up or salvage a game journal").add_subparsers(
        dest="what", metavar="WHAT", required=True)
    p = journal.add_parser("show", help="every command and event, oldest first")
    p.add_argument("journal")
    p.set_defaults(run=journal_show)
    p = journal.add_parser("export", help="JSON lines: events, or with --public what the audience saw")
    p.add_argument("journal")
    p.add_argument("--public", action="store_true", help="public views only: no secrets")
    p.set_defaults(run=journal_export)
    p = journal.add_parser("verify", help="check the hash chain, the seals (with --event), the id index and "
                                          "SQLite's integrity; names the first bad batch")
    p.add_argument("journal", nargs="?", help="the journal (default: the event file's)")
    p.add_argument("--event", help="event.toml: its secret checks the seals (without it: integrity only)")
    p.set_defaults(run=journal_verify)
    p = journal.add_parser("backup", help="a consistent copy while the game runs (atomic: temporary file, renamed)")
    p.add_argument("journal")
    p.add_argument("dest")
    p.set_defaults(run=journal_backup)
    p = journal.add_parser("salvage", help="copy the good prefix of a damaged (or older) journal into a new, sealed one")
    p.add_argument("journal")
    p.add_argument("--out", required=True, help="the new journal file (must not exist)")
    p.add_argument("--event", help="event.toml: its secret seals the copy (default: the event file the journal names)")
    p.set_defaults(run=journal_salvage)


def _journal_args(p) -> None:
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--journal", help="journal file")
    where.add_argument("--event", help="event.toml (its journal)")


def _view_args(p) -> None:
    p.add_argument("--json", action="store_true", help="print the state as JSON")
    p.add_argument("--public", action="store_true", help="the audience's view instead of the staff's")


def load_event(path: str) -> event_file.EventFile:
    """The event file; the screens this command opens speak its [display] language."""
    try:
        event = event_file.load(path)
    except event_file.EventFileError as error:
        raise CommandError(str(error), 2)
    words.choose(event.language)
    return event


def open_journal(path, readonly: bool = False, existing: bool = False,
                 event: event_file.EventFile | None = None) -> Journal:
    try:
        return Journal(path, readonly=readonly, existing=existing, event=event)
    except JournalBusy as error:
        raise CommandError(str(error), BUSY)
    except JournalError as error:
        raise CommandError(str(error))


def session_for(args, readonly: bool = False) -> Session:
    event = load_event(args.event) if args.event else None
    path = args.journal or event.journal
    if not Path(path).exists():
        raise CommandError(f"{path}: no such journal (companion start --event ... makes one)")
    session = Session(open_journal(path, readonly, existing=True, event=event), backup=event and event.backup)
    older = None if readonly else session.journal.older(session.rules.name)
    if older:
        print(f"companion: note: {older}", file=sys.stderr)
    return session


def print_view(state, args, log: list | None = None) -> None:
    game = games.of_state(state)
    if args.json and log is not None and not args.public:
        print(json.dumps(game.replay_json(state, log), ensure_ascii=False))
        return
    view = views.public(state) if args.public else views.staff(state)
    if args.json:
        print(json.dumps(view, ensure_ascii=False))
        return
    for entry in [] if args.public else log or []:
        if entry["status"] != "ok":
            print(f"line {entry['line']}: {entry['status']}: {entry['reason']}")
    print(game.public_text(view) if args.public else game.staff_text(view))


def default_players() -> str:
    """Each game's default number of players (EventRules.players), as `init --players` says it: the
    most games' number, then each other game's title and its own."""
    counts = {game.title: game.event.players for game in games.GAMES.values() if game.event}
    usual = max(set(counts.values()), key=list(counts.values()).count)
    return "; ".join([str(usual), *(f"{title} {n}" for title, n in counts.items() if n != usual)])


def init(args) -> int:
    out = Path(args.out)
    if out.exists() and not args.force:
        raise CommandError(f"{out} exists; use --force to overwrite it")
    seed = args.seed if args.seed is not None else secrets.randbelow(10**6)
    args.players = args.players or games.rules(args.game).event.players
    try:
        text = event_file.example(args.name, args.players, seed, secrets.token_hex(16), args.game)
        text += SIMULATED_HARDWARE if args.simulated else ""
    except event_file.EventFileError as error:
        raise CommandError(str(error), 2)
    event_file.write_atomic(out, text)
    dealt = f", cards dealt with seed {seed}" if games.rules(args.game).event.seeded else ""
    print(f"wrote {out}: {args.players} players{dealt}; edit names, then: companion start --event {out}")
    return 0


def start(args) -> int:
    event = load_event(args.event)
    path = Path(args.journal) if args.journal else event.journal
    journal = open_journal(path, event=event)          # sealed with the event's secret
    if journal.count():
        raise CommandError(f"{path} already holds a game ({journal.count()} commands); choose another file")
    try:
        outcome = Session(journal, backup=event.backup).submit(event.setup_command())
    except JournalError as error:
        raise CommandError(str(error))
    if outcome.status != "ok":
        raise CommandError(f"{args.event}: {outcome.reason}", 2)
    print(f"{path}: game {event.name!r} set up with {len(event.players)} players")
    warn(outcome)
    return 0


def do(args) -> int:
    """All the commands or none, the same whether this process writes the journal or an open
    console does (they go through its door): each is checked first, then all are sent as one group."""
    try:
        session = session_for(args)
    except CommandError as error:
        path = args.journal or load_event(args.event).journal
        if error.code == BUSY and door_path(path).exists():
            return do_through_door(path, args.commands, error)
        raise
    group = {GROUP: checked(args.commands, session.rules)}
    try:
        outcome = session.submit(group)
    except c.Malformed as error:        # checked above: only a setup's own game could differ
        raise CommandError(str(error), 2)
    except JournalError as error:
        raise CommandError(str(error))
    return print_outcomes(outcome)


def do_through_door(path, texts: list[str], busy: CommandError) -> int:
    """The journal's writer is an open console: its session applies the group, in its order."""
    try:        # only the setup's game: the console verified the whole chain when it opened the journal
        rules = rules_of(Journal(path, readonly=True, check=False))
    except JournalError as error:
        raise CommandError(str(error)) from None
    group = {GROUP: checked(texts, rules)}
    try:
        [outcome] = through_door(path, [group])
    except (FileNotFoundError, ConnectionRefusedError):
        raise busy from None            # no console listens there after all: nothing was sent
    except (OSError, ValueError, KeyError) as error:
        raise CommandError(f"{path}: the console stopped answering ({error}); check with companion status "
                           "whether the commands were applied") from None
    return print_outcomes(outcome)


def checked(texts: list[str], rules: games.GameRules) -> list[dict]:
    """The commands as dicts, each parsed by the game's rules before any is applied (exit 2)."""
    commands = []
    for text in texts:
        try:
            command = c.loads(text)
            data = split_id(command)[1]
            (games.of_setup(data) if isinstance(data, dict) and data.get("do") == "setup" else rules).schema.parse(data)
        except c.Malformed as error:
            none = f"; none of the {len(texts)} commands applied" if len(texts) > 1 else ""
            raise CommandError(f"{c.shown(text, 60)}: {error}{none}", 2)
        commands.append(command)
    return commands


def print_outcomes(outcome) -> int:
    """One line per command applied, or the one line of the rejection; returns 1 for a rejection."""
    for each in outcome.each or [outcome]:
        print_outcome(each)
    warn(outcome)
    return int(outcome.status == "rejected")


def print_outcome(outcome) -> None:
    print(outcome.status + (f": {outcome.reason}" if outcome.reason else "")
          + (f" (already applied as command {outcome.batch}; not applied again)" if outcome.already else ""))
    warn(outcome)


def warn(outcome) -> None:
    if outcome.warning:
        print(f"companion: warning: {outcome.warning}", file=sys.stderr)


def status(args) -> int:
    print_view(session_for(args, readonly=True).state, args)
    return 0


def read_script(path: Path) -> tuple[games.GameRules, list[tuple[int, object, str | None]]]:
    """The game its setup names, and every line parsed before anything runs, so a malformed
    script changes nothing."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"{path}: cannot read ({error})", 2)
    script, game = [], None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            command_id, data = split_id(c.loads(line))
            game = game or (games.of_setup(data) if data.get("do") == "setup" else games.rules())
            command = game.schema.parse(data)
        except c.Malformed as error:
            raise CommandError(f"{path}:{number}: {error}", 2)
        if not script and data.get("do") != "setup":
            raise CommandError(f"{path}:{number}: the first command must be setup", 2)
        script.append((number, command, command_id))
    if not script:
        raise CommandError(f"{path}: no commands", 2)
    return game, script


def replay(args) -> int:
    path = Path(args.script)
    game, script = read_script(path)
    journal = open_journal(args.journal) if args.journal else Journal()
    if journal.count():
        raise CommandError(f"{args.journal} already holds a game ({journal.count()} commands); choose a new file")
    session = Session(journal, rules=game)
    log, code = [], 0
    for number, command, command_id in script:
        try:
            outcome = session.submit(command, command_id)
        except JournalError as error:
            raise CommandError(f"{path}:{number}: {error}")
        reason = f"already applied as command {outcome.batch}" if outcome.already else outcome.reason
        log.append({"line": number, "status": outcome.status, "reason": reason})
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
        tag = f" id={json.dumps(batch.id, ensure_ascii=False)}" if batch.id else ""
        print(f"#{batch.number} {batch.at}{tag} {batch.status}{note}: {json.dumps(batch.command, ensure_ascii=False)}")
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


def journal_verify(args) -> int:
    event = load_event(args.event) if args.event else None
    path = args.journal or (event and event.journal)
    if not path:
        raise CommandError("give the journal file (or --event event.toml)", 2)
    journal = open_journal(path, readonly=True, event=event)
    game, versions = Game(), Counter()
    try:
        count = journal.verify(thorough=True)
        for batch in game.follow(journal):                  # and every batch replays
            versions.update((kind, stored_version(data)) for _, kind, data in batch.events)
    except JournalError as error:
        raise CommandError(str(error))
    if event and not journal.authentic:
        raise CommandError(f"{path}: {count} batches intact but not proven authentic: {journal.proof()}")
    print(f"{path}: OK, {count} batches, hash chain, id index and SQLite integrity verified, replays; "
          f"{journal.proof()}; {game.rules.events.versions_read(versions)}; {journal.holds(game.rules.name)}")
    return 0


def journal_backup(args) -> int:
    journal = open_journal(args.journal, readonly=True)
    dest = Path(args.dest)
    if dest.is_dir():
        dest = dest / Path(args.journal).name
    if dest.resolve() == Path(args.journal).resolve():
        raise CommandError(f"{dest}: that is the journal itself; give another file", 2)
    try:
        journal.backup(dest)
        copy = Journal(dest, readonly=True)
    except (OSError, sqlite3.Error) as error:
        raise CommandError(f"{dest}: backup failed ({getattr(error, 'strerror', None) or error})")
    except JournalError as error:
        raise CommandError(f"{dest}: the copy does not verify ({error})")
    print(f"{dest}: backup of {args.journal}, {copy.count()} batches, hash chain verified")
    return 0


def journal_salvage(args) -> int:
    try:
        kept, problem = salvage(args.journal, args.out, load_event(args.event) if args.event else None)
    except JournalError as error:
        raise CommandError(str(error))
    except OSError as error:
        raise CommandError(f"{args.out}: cannot write ({error.strerror or error})")
    sealed = "sealed with the event's secret" if open_journal(args.out, readonly=True).sealed else \
        "not sealed (give --event event.toml to seal the copy)"
    if problem:
        print(f"{args.out}: kept batches 1-{kept} of {args.journal}, {sealed}; stopped: {problem}")
    else:
        print(f"{args.out}: all {kept} batches of {args.journal} copied and verified, {sealed}")
    return 0
