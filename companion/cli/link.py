"""Cage link and staff panel commands: sim cage, bench link, link watch, panel test.

pyserial and gpiozero are imported inside the commands only (ARCHITECTURE.md, law 1).
"""
from __future__ import annotations

import time

from . import CommandError
from ..core import event_file


def register(sub, groups) -> None:
    p = groups["sim"].add_parser("cage", help="a virtual cage on a pseudo-terminal or socket://, with faults")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--link", default="/tmp/plunder-cage",
                       help="pty mode: the stable name the host opens (default /tmp/plunder-cage)")
    where.add_argument("--socket", metavar="[HOST:]PORT", help="listen on TCP instead (default host 127.0.0.1)")
    machine = p.add_mutually_exclusive_group()
    machine.add_argument("--journal", help="draw only balls this game's machine holds (followed live)")
    machine.add_argument("--event", help="event.toml: its journal, as --journal")
    p.add_argument("--every", type=float, default=5.0, help="seconds between draws (default 5)")
    p.add_argument("--draws", type=int, default=0, help="stop after this many draws (default: run until Ctrl-C)")
    _fault_args(p, corrupt=0.0, drop=0.0, duplicate=0.0, garbage=0, unplug_every=0, reboot_every=0)
    p.set_defaults(run=sim_cage)

    p = groups["bench"].add_parser("link", help="draws through the simulated cage with faults: lost, doubled, "
                                                "reconnect time, latency")
    p.add_argument("--draws", type=int, default=10_000)
    p.add_argument("--socket", action="store_true", help="over socket://127.0.0.1 instead of a pseudo-terminal")
    _fault_args(p, corrupt=0.01, drop=0.01, duplicate=0.01, garbage=64, unplug_every=500, reboot_every=1000)
    p.set_defaults(run=bench_link)

    link = sub.add_parser("link", help="the cage link on its own").add_subparsers(dest="what", metavar="WHAT", required=True)
    p = link.add_parser("watch", help="print ball reads and link health from the [serial] port")
    p.add_argument("--event", required=True, help="event.toml with a [serial] section (its journal gives alerts)")
    p.add_argument("--url", help="override [serial] url")
    p.add_argument("--seconds", type=float, default=0, help="stop after this long (default: until Ctrl-C)")
    p.set_defaults(run=link_watch)

    panel = sub.add_parser("panel", help="the staff panel on the GPIO pins").add_subparsers(dest="what", metavar="WHAT", required=True)
    p = panel.add_parser("test", help="light the LEDs, beep, spin the motor, then print buttons and beam breaks")
    p.add_argument("--event", required=True, help="event.toml with a [panel] section")
    p.add_argument("--seconds", type=float, default=0, help="stop after this long (default: until Ctrl-C)")
    p.add_argument("--no-motor", action="store_true", help="do not spin the cage")
    p.set_defaults(run=panel_test)


def _fault_args(p, **defaults) -> None:
    f = p.add_argument_group("faults")
    f.add_argument("--corrupt", type=float, default=defaults["corrupt"], metavar="RATE",
                   help=f"chance each byte on the wire is garbled (default {defaults['corrupt']})")
    f.add_argument("--drop", type=float, default=defaults["drop"], metavar="RATE",
                   help=f"chance a line is lost (default {defaults['drop']})")
    f.add_argument("--duplicate", type=float, default=defaults["duplicate"], metavar="RATE",
                   help=f"chance the cage sends a line twice (default {defaults['duplicate']})")
    f.add_argument("--garbage", type=int, default=defaults["garbage"], metavar="BYTES",
                   help=f"random bytes the cage spews at each reboot (default {defaults['garbage']})")
    f.add_argument("--unplug-every", type=int, default=defaults["unplug_every"], metavar="N",
                   help=f"pull the cable every N draws (default {defaults['unplug_every'] or 'never'})")
    f.add_argument("--unplug-seconds", type=float, default=0.5, help="how long it stays out (default 0.5)")
    f.add_argument("--reboot-every", type=int, default=defaults["reboot_every"], metavar="N",
                   help=f"reboot the cage every N draws (default {defaults['reboot_every'] or 'never'})")
    f.add_argument("--baud", type=int, default=115200, help="wire speed the cage paces its bytes to (default 115200)")
    f.add_argument("--seed", type=int, help="random seed (faults and draws)")


def _faults(args):
    from drivers.cage_sim import Faults
    for name in ("corrupt", "drop", "duplicate"):
        if not 0 <= getattr(args, name) <= 1:
            raise CommandError(f"--{name} is a rate between 0 and 1, not {getattr(args, name)}", 2)
    for name in ("garbage", "unplug_every", "reboot_every", "baud"):
        if getattr(args, name) < 0:
            raise CommandError(f"--{name.replace('_', '-')} must not be negative", 2)
    if args.baud == 0:
        raise CommandError("--baud must be positive", 2)
    return Faults(args.corrupt, args.drop, args.duplicate, args.garbage)


def _describe(args) -> str:
    parts = [f"{args.corrupt:.1%} of bytes garbled", f"{args.drop:.1%} of lines dropped",
             f"{args.duplicate:.1%} of lines sent twice", f"{args.garbage} garbage bytes at each boot"]
    if args.unplug_every:
        parts.append(f"unplugged every {args.unplug_every} draws for {args.unplug_seconds} s")
    if args.reboot_every:
        parts.append(f"rebooted every {args.reboot_every} draws")
    return ", ".join(parts)


def _load_event(path: str) -> event_file.EventFile:
    try:
        return event_file.load(path)
    except event_file.EventFileError as error:
        raise CommandError(str(error), 2)


def journal_machine(path):
    """The machine's contents of the game in a journal, following it as the game goes on."""
    from pathlib import Path

    from ..core.journal import Journal, JournalError
    from ..core.session import Game
    if not Path(path).exists():
        raise CommandError(f"{path}: no such journal", 2)
    try:
        journal = Journal(path, readonly=True)
    except JournalError as error:
        raise CommandError(str(error), 2)
    game, last = Game(), [0]

    def contents() -> dict:
        for batch in game.follow(journal, after=last[0]):
            last[0] = batch.number
        return dict(game.state.place)
    return contents


def _socket_port(spec: str):
    from drivers.cage_sim import SocketPort
    host, _, port = spec.rpartition(":")
    if not port.isdigit() or int(port) > 65535:
        raise CommandError(f"--socket {spec!r}: give [HOST:]PORT, e.g. 127.0.0.1:7777", 2)
    return SocketPort(host or "127.0.0.1", int(port))


def sim_cage(args) -> int:
    from drivers.cage_sim import PtyPort, SimCage
    faults = _faults(args)
    if args.every <= 0:
        raise CommandError("--every must be positive", 2)
    path = args.journal or (_load_event(args.event).journal if args.event else None)
    machine = journal_machine(path) if path else None
    port = _socket_port(args.socket) if args.socket else PtyPort(args.link)
    try:
        sim = SimCage(port, machine, faults, args.seed, args.baud).start()
    except OSError as error:
        raise CommandError(f"cannot start the simulated cage: {error}")
    try:
        where = f"on {port.path}" if args.socket is None else "listening"
        print(f"simulated cage {where}; set [serial] url = \"{sim.url}\"", flush=True)
        print(f"faults: {_describe(args)}; machine: {path or 'all 27 balls, refilled when empty'}", flush=True)
        _draw_loop(sim, args)
        if sim.flash.saved:
            print(f"waiting for the host to take {len(sim.flash.saved)} ball(s) still held", flush=True)
            deadline = time.monotonic() + 10
            while sim.flash.saved and time.monotonic() < deadline:
                time.sleep(0.05)
            if sim.flash.saved:
                print(f"gave up: no host took {len(sim.flash.saved)} ball(s)", flush=True)
    finally:
        sim.stop()
    return 0


def _draw_loop(sim, args) -> None:
    n, empty = 0, False
    while not args.draws or n < args.draws:
        time.sleep(args.every)
        drawn = sim.draw()
        if drawn is None:
            if not empty:
                print("the machine is empty: waiting for balls to come back", flush=True)
            empty = True
            continue
        n, empty = n + 1, False
        ball, boot, seq = drawn
        print(f"draw {n}: ball {ball} (boot {boot}, seq {seq})", flush=True)
        if args.unplug_every and n % args.unplug_every == 0:
            sim.unplug(args.unplug_seconds)
            print(f"  unplugged for {args.unplug_seconds} s", flush=True)
        if args.reboot_every and n % args.reboot_every == 0:
            sim.reboot()
            print(f"  rebooted: boot {sim.boot}", flush=True)


def bench_link(args) -> int:
    from drivers.link_bench import Scenario, report, run
    faults = _faults(args)
    if args.draws < 1:
        raise CommandError("--draws must be at least 1", 2)
    scenario = Scenario(args.draws, faults, args.unplug_every or args.draws + 1, args.unplug_seconds,
                        args.reboot_every or args.draws + 1, args.baud, "socket" if args.socket else "pty",
                        1 if args.seed is None else args.seed)
    print(f"cage link bench: {args.draws} draws (one ball each) over {scenario.transport} at {args.baud} baud; "
          f"{_describe(args)}", flush=True)
    result = run(scenario, progress=lambda line: print(line, flush=True))
    print("\n".join(report(result)))
    return 0 if result.passed else 1


def link_watch(args) -> int:
    from drivers.serial_link import LinkError, SerialLink
    event = _load_event(args.event)
    section = dict(event.sections.get("serial", {}))
    if args.url:
        section["url"] = args.url
    machine = journal_machine(event.journal) if event.journal.exists() else None

    def show(read) -> None:
        alert = f"  ALERT: {read.alert}" if read.alert else ""
        print(f"ball {read.ball} from {read.source} (boot {read.boot_id}, seq {read.seq}){alert}", flush=True)
    def alert(text) -> None:
        print(f"ALERT: cage link: {text}", flush=True)
    try:
        link = SerialLink.from_config(section, show, machine=machine, on_alert=alert)
    except LinkError as error:
        raise CommandError(f"{args.event}: {error}", 2)
    with link:
        deadline = time.monotonic() + args.seconds if args.seconds else None
        while deadline is None or time.monotonic() < deadline:
            time.sleep(min(5.0, args.seconds or 5.0))
            print(_health_line(link.health()), flush=True)
    return 0


def _health_line(h) -> str:
    age = "never" if h.heartbeat_age is None else f"{h.heartbeat_age:.1f} s ago"
    state = "ok" if h.ok else ("connected, not healthy" if h.connected else "not connected")
    return (f"link {state}: heard {age}, firmware {h.firmware or '?'}, reader {h.reader}; frames {h.frames}, "
            f"CRC errors {h.crc_errors}, retransmits {h.retransmits}, duplicates {h.duplicates}, "
            f"reconnects {h.reconnects}, reboots {h.reboots}, malformed {h.malformed}, gaps {h.gaps}"
            + (f"; last error: {h.last_error}" if h.last_error else ""))


def panel_test(args) -> int:
    from drivers.panel import Panel, PanelError
    section = _load_event(args.event).sections.get("panel", {})
    try:
        panel = Panel.from_config(section, on_button=lambda name: print(f"button: {name}", flush=True),
                                  on_beam=lambda count: print(f"beam broken: ball {count}", flush=True))
    except PanelError as error:
        raise CommandError(f"{args.event}: {error}", 2)
    with panel:
        print("LEDs: ok on, fault off", flush=True)
        panel.show_link(True)
        time.sleep(1)
        print("LEDs: ok off, fault blinking; buzzer: 30-second warning", flush=True)
        panel.show_link(False)
        panel.warn()
        if not args.no_motor:
            print(f"motor: spinning {panel.config.motor_seconds} s", flush=True)
            panel.spin()
        print("press the buttons, break the beam (Ctrl-C to stop)", flush=True)
        deadline = time.monotonic() + args.seconds if args.seconds else None
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.1)
    return 0
