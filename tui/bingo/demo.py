"""The demo night: a whole Plunder Bingo event on simulated hardware, through the night's own code.

Only the hardware is simulated. The cage (drivers.cage_sim) talks over a pseudo-terminal to the cage
link the console uses (tui.sources.LinkSource); each ball it drops passes the simulated camera over
its exit, read by the console's ball reader (tui.sources.ReaderSource: the real decoder and
acceptance on rendered frames). Without the camera's decoder installed the cage's own reader reports
the ball over the link instead (draw_ball ids "cage:BOOT:SEQ", acknowledged once journaled).
Simulated players (tui.bingo.players) drop photos of their printed cards into a scan folder that
the console's card scanner watches (tui.sources.ScannerSource); a simulated operator types what the
staff would: begin and close, buys at the desk, rulings on held cards, cash counts. The referee is
the session (companion.core.session) on the event's one journal.

Each step looks at the journal's state first, so a demo killed at any moment and started again on
its folder carries on where the journal stopped; the operator's commands carry ids (a command
journaled before is not applied twice). Lines are printed from the journal as it grows, so a
resumed demo prints the same lines as one that ran straight through.
"""
from __future__ import annotations

import contextlib
import functools
import io
import os
import time
from pathlib import Path
from typing import Callable

from companion.core import event_file
from companion.bingo import events as e
from companion.bingo.rules import beats_secretariat
from companion.core.journal import Journal
from companion.core.session import Game, Session
from . import players as dp

PLAYERS = 6
TURNS = 15
WAIT_S = 30.0               # longest wait for the cage's ball or the scanner's cards


class DemoError(RuntimeError):
    """The demo cannot go on: one line saying what and where."""


class TookOver(Exception):
    """The staff played during a pause: the step under way was planned for a state that is gone,
    so it starts again from the one they left."""


def prepare(folder: Path, seed: int, turns: int = TURNS) -> Path:
    """The demo event in its folder: event.toml (dealt cards, a secret from the seed), the printed
    cards (cards.pdf, with the special cards the players will buy) and the journal, set up. Kept
    as they are when the folder holds them already (a resumed demo)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scan").mkdir(exist_ok=True)
    kept = folder / "demo-seed"
    if kept.exists() and kept.read_text().strip() != str(seed):
        raise DemoError(f"{folder} holds the demo of seed {kept.read_text().strip()}: give that --seed, or another folder")
    path = folder / "event.toml"
    if not path.exists():
        kept.write_text(f"{seed}\n")
        text = event_file.example("Demo night", PLAYERS, seed, dp.demo_secret(seed))
        event_file.write_atomic(path, text.replace("turns = 15", f"turns = {turns}"))
    event = event_file.load(path)
    pdf = folder / "cards.pdf"
    if not pdf.exists():
        _print_cards(path, pdf, dp.specials_plan(seed, len(event.players), event.rules.turns))
    return path


def _print_cards(event: Path, pdf: Path, plan: list) -> None:
    from reportlab import rl_config
    from companion.cli import main
    rl_config.invariant = 1         # no date or random id in the PDF: the same seed prints the same file
    said = io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
        code = main(["print", "cards", "--event", str(event), "--out", str(pdf), *dp.print_arguments(plan)])
    if code:
        raise DemoError(f"companion print cards: {said.getvalue().strip()}")


class Night:
    """One demo event run headless: step() until the game is finished."""

    def __init__(self, folder: Path, seed: int, say: Callable[[str], None] = print, cache: Path | None = None,
                 turns: int = TURNS, pace: float = 0.0, camera: bool = True):
        """pace: seconds the simulated operator waits before each command (to watch it, or to stop it
        mid-turn in a fault drill). camera: False leaves the balls to the cage's own reader."""
        self.folder, self.seed, self.say, self.pace, self.camera = Path(folder), seed, say, pace, camera
        self.event = event_file.load(prepare(self.folder, seed, turns))
        self.players = dp.Players(seed, dp.specials_plan(seed, len(self.event.players), self.event.rules.turns))
        from vision.sim.card_deck import DeckError
        try:
            self.photographer = dp.Photographer.of_pdf(self.folder / "cards.pdf", cache)
        except DeckError as error:
            raise DemoError(str(error)) from None
        self.session = Session(Journal(self.event.journal, event=self.event))   # sealed with its secret
        self.submit = self.session.submit     # on screen: through the console's queue (its one session thread)
        self.printed, self.told = Game(), 0   # the lines printed so far: the journal folded to batch `told`
        self.alerts: list[str] = []
        self.sources: dict = {}
        self.cage = None
        self.dropped: int | None = None       # the ball the cage let out, in front of the camera
        self.paused = False
        self.stopping = False                 # the console is closing: the players leave the table
        if not self.session.journal.count():
            self._operator(self.event.setup_command(), "setup")

    # -- the hardware, as the console wires it --
    def hardware(self) -> dict:
        """The simulated cage on a pseudo-terminal, the camera over its exit, and the console's sources for
        them and the scan folder."""
        from drivers.cage_sim import PtyPort, SimCage
        from tui.sources import LinkSource, ReaderSource, ScannerSource, in_view
        places = lambda: dict(self.session.state.place)      # noqa: E731
        # a restarted demo's cage boots anew (a new boot id, so its ids are not taken for the last run's)
        boot_seed = f"{self.seed}:{self.session.journal.count()}"
        # behind a stable name, as the udev rule's /dev/plunder-cage: unplugged and plugged back in, the link finds it again
        self.cage = SimCage(PtyPort(str(self.folder / "cage.tty")), machine=places, seed=boot_seed).start()
        self.sources = {"link": LinkSource({"url": self.cage.url}, places, self.event.journal),
                        "scanner": ScannerSource(self.folder / "scan", self.event)}
        if self.camera:
            camera = self.sources["reader"] = ReaderSource({"source": "sim:chute"}, places)
            camera.shows = lambda: in_view(self.dropped, places)
        return self.sources

    def _camera_reads(self) -> bool:
        reader = self.sources.get("reader")
        return reader is not None and reader.reader is not None

    def start(self) -> None:
        """Headless: the sources send straight to the session (the console's queue does it on screen)."""
        for source in self.hardware().values():
            source.start(self.send, self.note)

    def stop(self) -> None:
        for source in self.sources.values():
            source.stop()
        if self.cage is not None:
            self.cage.stop()
        self.session.journal.close()

    def send(self, command: dict, reply=None) -> None:
        """What the console's send does: the command to the session; a refusal said (in the console:
        the hardware pane's alerts)."""
        outcome = self.submit(command)
        if reply is not None:
            reply(outcome)
        elif outcome.status == "rejected":
            self.note(f"{command.get('do')}: {outcome.reason}", "warning")

    def note(self, text: str, level: str = "info") -> None:
        if level != "info":
            self.alerts.append(text)

    @property
    def state(self):
        return self.session.state

    # -- the night --
    def run(self, should_stop: Callable[[], bool] = lambda: False, tell: bool = True) -> None:
        """Step until the game is finished; tell: print the lines (headless: the journal is ours alone)."""
        while True:
            if tell:
                self.tell()
            if self.state.phase == "finished" or should_stop():
                return
            if self.paused:
                time.sleep(0.1)
                continue
            try:
                self.step()
            except TookOver:
                continue

    def step(self) -> None:
        s = self.state
        if s.phase in ("ready", "turn_over") and s.turn < s.rules.turns:
            self._operator({"do": "begin_turn"}, f"begin:{s.turn + 1}")
        elif s.phase == "turn_over":
            self._operator({"do": "begin_final"}, "final")
        elif s.phase == "draw":
            self._draw()
        elif s.phase == "voting":
            self._cards(self.players.robberies(s) + self.players.specials(s) + self.players.votes(s))
            self._rule_held()
            self._operator({"do": "close_voting"}, f"close:{s.turn}")
        elif s.phase == "resolve":
            for no, lines in self.players.order(s).items():
                self._operator({"do": "order_lines", "player": no, "lines": lines}, f"order:{s.turn}:{no}")
            self._rule_held()
            self._operator({"do": "end_turn"}, f"end:{s.turn}")
        elif s.phase == "final":
            self._cards(self.players.robberies(s))
            self._rule_held()
            self._operator({"do": "end_final"}, "end-final")
        elif s.phase == "counting":
            for no, amount in self.players.cash(s).items():
                self._operator({"do": "cash", "player": no, "amount": amount}, f"cash:{no}")
            self._operator({"do": "finish"}, "finish")
        else:
            raise DemoError(f"{self.event.journal}: the game is {s.phase!r}; the demo cannot go on from there")

    def _operator(self, command: dict, key: str):
        """A command the operator types, with an id: typed again after a restart, it is not applied twice."""
        time.sleep(self.pace)
        self._while_paused()          # last, so a pause during the wait holds the command back too
        outcome = self.submit({**command, "id": f"demo:{key}"})
        if outcome.status == "rejected" and command["do"] not in ("buy", "order_lines"):
            raise DemoError(f"the operator's {command['do']} was refused: {outcome.reason}")
        return outcome

    def _draw(self) -> None:
        """The cage gives the turn's balls one by one; the camera (else the cage link) turns each into a draw_ball."""
        for ball in self.players.draws(self.state):
            if ball in self.state.drawn:
                continue
            self._while_paused()
            if self._camera_reads():
                self.dropped, how = ball, "read by the camera"
            else:
                self.cage.read(ball)
                how = "over the cage link"
            self._wait(lambda: ball in self.state.drawn, f"ball {ball} from the simulated cage, {how}")

    def _cards(self, drops: list[dp.Drop]) -> None:
        """The players drop their cards in the ballot box: photos in the scan folder, scanned in order."""
        self._wait(lambda: not self._pending(), "the scan folder to empty")     # a resumed demo's leftovers
        s = self.state
        fresh = [d for d in drops if d.serial not in s.serials and d.serial not in s.held]
        base = time.time() - 10
        scan = self.folder / "scan"
        for n, drop in enumerate(fresh):
            self._while_paused()
            if drop.buy and self._operator({"do": "buy", "player": drop.owner, "item": drop.buy},
                                           f"buy:{drop.serial}").status != "ok":
                continue                      # not enough L$ in the account: no card
            data, suffix = self.photographer.photo(drop, self.seed)
            name = f"t{s.turn:02d}-{n:02d}-{drop.serial}"
            part = scan / f".{name}.part"
            part.write_bytes(data)
            os.utime(part, (base + n / 100, base + n / 100))        # settled, in the order dropped
            part.rename(scan / f"{name}{suffix}")
        self._wait(lambda: not self._pending(), f"the card scanner to read {len(fresh)} cards")

    def _planned(self) -> dict[str, dp.Drop]:
        """The cards the players drop in this window, by serial (the same after a restart)."""
        s = self.state
        drops = self.players.robberies(s)
        if s.phase != "final":
            drops += self.players.specials(s) + self.players.votes(s)
        return {d.serial: d for d in drops}

    def _pending(self) -> list[Path]:
        from vision.cards.watch import IMAGE_SUFFIXES
        return [p for p in (self.folder / "scan").iterdir() if p.suffix.lower() in IMAGE_SUFFIXES]

    def _rule_held(self) -> None:
        """The operator looks at each held card and asks its player what they meant."""
        for serial in sorted(self.state.held):
            drop = self._planned().get(serial)
            meant = drop and drop.meant
            ruling = {"card": meant} if meant else {"invalid": "spoilt card"}
            if serial not in self.state.held:           # ruled by the staff meanwhile (on screen)
                continue
            outcome = self._operator({"do": "rule", "serial": serial, **ruling}, f"rule:{serial}")
            if outcome.status == "rejected":
                self._operator({"do": "rule", "serial": serial, "invalid": outcome.reason[:200]},
                               f"rule-invalid:{serial}")

    def _while_paused(self) -> None:
        """Wait out a pause; raises TookOver when the game moved meanwhile (the staff's commands)."""
        paused, left = self.paused, self.state
        while self.paused and not self.stopping:
            time.sleep(0.1)
        if self.stopping:
            raise DemoError("stopped")
        if paused and self.state is not left:
            raise TookOver()

    def _wait(self, done: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + WAIT_S
        while not done():
            if self.stopping:
                raise DemoError("stopped")
            if time.monotonic() > deadline:
                raise DemoError(f"waited {WAIT_S:.0f} s for {what} ({self._problems()})")
            time.sleep(0.005)

    def _problems(self) -> str:
        """The last alerts, and each source's health: what a stalled wait is reported with."""
        health = [f"{name}: {h.state}{': ' if h.detail else ''}{h.detail}"
                  for name, h in ((name, source.health()) for name, source in self.sources.items())]
        return "; ".join(self.alerts[-3:] + health) or "no alert"

    # -- what is printed --
    def tell(self) -> None:
        """One line per turn and the final ranking, from the journal (so a resumed demo tells the same)."""
        for batch in self.printed.follow(self.session.journal, after=self.told):
            self.told = batch.number
            for _, kind, data in batch.events:
                for line in lines_for(self.printed.state, e.decode(kind, data)):
                    self.say(line)


def lines_for(state, event) -> list[str]:
    """What the demo prints for an event just folded into state."""
    if isinstance(event, e.TurnEnded):
        return [turn_line(state, event)]
    if isinstance(event, e.FinalEnded):
        balances = " ".join(f"{letter} {money:,}" for letter, money in state.balances().items())
        return [f"final submission: robberies {len(event.transfers)} | {balances}"]
    if isinstance(event, e.GameFinished):
        return [f"rank {row['rank']}: player {row['player']} {state.players[row['player']].name} "
                f"({state.players[row['player']].account}) final {row['final']:,} = cash {row['cash']:,} "
                f"+ account {row['account']:,} + bonus {row['bonus']:,} - penalty {row['penalty']:,}"
                + (" ★ beat the secretariat" if beats_secretariat(row["final"]) else "")      # R2
                for row in event.results]
    return []


def turn_line(state, ended) -> str:
    """turn 3: X=12 Y=5 Z=20 | votes X3 Y2 Z0, 1 invalid | valid 12 | robberies 2 | A 1,100,000 B ..."""
    tally = state.tally
    drawn = " ".join(f"{letter}={ball}" for letter, ball in tally.options.items()) or "no draw"
    votes = " ".join(f"{letter}{n}" for letter, n in tally.votes.items())
    valid = "void (no quorum)" if tally.void else " ".join(map(str, tally.valid))
    balances = " ".join(f"{letter} {money:,}" for letter, money in state.balances().items())
    return (f"turn {ended.turn:2d}: {drawn} | votes {votes}, {tally.invalid} invalid | valid {valid} | "
            f"robberies {len(ended.transfers)} | {balances}")


# -- on screen ---------------------------------------------------------------------------------------
def display_url(port: int) -> str:
    """Where the demo serves its audience display."""
    return f"http://127.0.0.1:{port}"


def run_on_screen(night: Night, port: int = 8080) -> None:
    """The staff console on screen with the demo's hardware, the audience display served to
    browsers (`companion display --serve`), the simulated players in a thread (P pauses them)."""
    import subprocess
    import sys
    url = display_url(port)
    display = subprocess.Popen([sys.executable, "-m", "companion", "display", "--serve", "--journal",
                                str(night.event.journal), "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        console_class()(night, url).run()
    finally:
        display.terminate()
        display.wait(timeout=5)


@functools.cache
def console_class():
    """DemoConsole (made on first use: Textual is loaded only when the console is)."""
    from dataclasses import dataclass
    from textual import work
    from textual.binding import Binding
    from textual.message import Message
    from textual.widgets import RichLog
    from textual.worker import get_current_worker
    from tui.bingo.console import ConsoleApp

    class DemoConsole(ConsoleApp):
        """The console, with the demo's simulated players at the table; P hands the table to the staff.
        Below the panes, a log of the lines the headless demo prints (one a turn, then the ranking)."""
        BINDINGS = [*ConsoleApp.BINDINGS, Binding("P", "players", "pause/resume demo players")]
        CSS = ("#turns { height: auto; max-height: 6; border: round #5a5a5a; "
               "border-title-color: #ffd400; border-title-style: bold; }")

        @dataclass
        class Told(Message):
            """A line of the demo's, from the session thread."""
            line: str

        def __init__(self, night: Night, url: str = ""):
            super().__init__(night.session, sources=night.hardware())
            self.night, self.url = night, url
            self.told_before: list[str] = []
            night.submit, night.say = self.through_queue, self.told_before.append
            night.tell()                      # a resumed night's lines so far (nothing else reads the journal yet)
            night.session.subscribe(self.tell_events)

        async def on_mount(self) -> None:
            turns = RichLog(id="turns", wrap=True, min_width=20, max_lines=100)
            turns.border_title = "Demo turns"
            if self.url:            # where it stays: the message bar answers the next key
                turns.border_subtitle = f"audience display {self.url}"
            await self.mount(turns, before="#outcome")
            self.call_after_refresh(self.show_told, *self.told_before)     # the log has its width by then
            self.set_timer(0.5, self.run_players)

        def tell_events(self, state, outcome) -> None:
            """The session's listener (its thread): the lines of what a command just did."""
            for event in outcome.events:
                for line in lines_for(state, event):
                    self.post_message(self.Told(line))

        def on_demo_console_told(self, message: Told) -> None:
            self.show_told(message.line)

        def show_told(self, *lines: str) -> None:
            turns = self.query_one("#turns", RichLog)
            for line in lines:     # wrapped to the pane (RichLog would measure against the app's console)
                turns.write(line, width=turns.scrollable_content_region.width or None)

        def through_queue(self, command: dict):
            """A simulated player's or operator's command, queued like a key press; waits for its outcome."""
            import threading
            from companion.core.session import Outcome
            answered, box = threading.Event(), []
            self.send(command, lambda outcome: (box.append(outcome), answered.set()))
            if not answered.wait(WAIT_S):
                return Outcome("rejected", "the console did not answer in time")
            return box[0]

        @work(thread=True, group="demo players", name="demo players")
        def run_players(self) -> None:
            worker = get_current_worker()
            try:
                self.night.run(lambda: worker.is_cancelled or self.night.stopping, tell=False)
            except DemoError as error:
                if not self.night.stopping:
                    self.night.paused = True
                    self.hardware_note(f"demo players stopped: {error}", "error")

        def on_unmount(self) -> None:        # before the console's own on_unmount stops the sources
            self.night.stopping = True

        async def action_quit(self) -> None:
            """The players leave the table first, so no answer of theirs reaches a closed screen."""
            self.night.stopping = True
            players = [w for w in self.workers if w.group == "demo players"]
            if players:       # a finished worker has left self.workers, and wait_for_complete([]) waits for all
                await self.workers.wait_for_complete(players)
            self.exit()

        def action_players(self) -> None:
            self.night.paused = not self.night.paused
            if not self.night.paused and not any(w.group == "demo players" for w in self.workers):
                self.run_players()     # stopped by a refusal: they sit down again at the table as the staff left it
            self.show_outcome("simulated players paused: the table is yours (P resumes them)" if self.night.paused
                              else "simulated players playing (P pauses them)", "info")

    return DemoConsole

