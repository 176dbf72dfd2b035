"""The game protocol: what the shared core (session, journal, CLI, screens) needs of a game.

A game is a package under companion/ whose __init__ defines GAME, a GameRules: GAMES finds them
all (no list of games is kept anywhere), so a new game is a new package. Its rules are pure:
decide(state, command) -> events or Rejected(reason), fold(events, state) -> state. The journal's
first batch is the game's setup command; its "game" key names the game (no key: Plunder Bingo, so
every journal and script written before there were other games reads as it always did).
"""
from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, reduce
from typing import Callable

import companion

from .cards import CardRules
from .commands import Malformed, Schema, shown
from .events import Events
from .words import BOTH

DEFAULT = "bingo"


@dataclass(frozen=True)
class Rejected:
    reason: str


class Refuse(Exception):
    """Raised inside a game's decide handlers; refusing() turns it into Rejected(reason)."""


def need(condition: bool, reason: str) -> None:
    if not condition:
        raise Refuse(reason)


def refusing(handlers: dict[type, Callable]) -> Callable[[object, object], list | Rejected]:
    """A game's decide(state, command) from its handlers, one per command class."""
    def decide(state, command) -> list | Rejected:
        try:
            return handlers[type(command)](state, command)
        except Refuse as refusal:
            return Rejected(str(refusal))
    return decide


def folding(apply: dict[type, Callable[[object, object], None]], initial: type) -> Callable[[list, object], object]:
    """A game's fold(events, state) from its appliers, one per event class, each changing a copy
    (state.copy()) in place; the state before the setup is initial()."""
    def evolve(state, event):
        new = state.copy()
        apply[type(event)](new, event)
        return new

    def fold(events, state=None):
        return reduce(evolve, events, state or initial())
    return fold


@dataclass(frozen=True)
class EventRules:
    """A game's part of the event file (companion/core/event_file.py, which stays game-neutral)."""
    sections: dict[str, dict[str, tuple]]       # its keys, beside the shared ones: section -> key -> (type, allowed)
    required: dict[str, tuple[str, ...]]        # section -> keys it must have, beside the shared ones
    settings: Callable[[dict, object], object]  # (the file as read, its locator) -> the game's rules, or None;
                                                # raises EventFileError (locator.error names the line)
    setup: Callable[[object], dict]             # the EventFile's setup command
    example: Callable[[str, int, int, str], str]   # (name, players, seed, secret) -> a commented event file
    seeded: bool = False                        # the example deals something with its seed
    players: int = 6                            # how many players `companion init` writes by default


def load(name: str):
    """What a "module:name" names (a game's screens, its printer): the core names them and never
    imports them itself; the composition root loads them."""
    module, _, attribute = name.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class Screens:
    """A game's screens, each named "module:Class"."""
    console: str
    display: str
    balls: bool = False                         # the ball reader and the cage link feed its console
    night: str | None = None                    # the module of its demo night on simulated hardware
                                                # (`companion demo`: Night, DemoError, display_url, run_on_screen)

    def load(self, which: str) -> type:
        """The class of the "console" or the "display"."""
        return load(getattr(self, which))


@dataclass(frozen=True)
class PrintOption:
    """An option of `companion print cards` only this game's cards take."""
    flag: str                                   # "--games"
    help: str
    elsewhere: str                              # said to another game's event given it
    default: object = None                      # what it is when not given
    argparse: dict = field(default_factory=dict)   # argparse's other keywords: type, metavar, action

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class Bench:
    """A measurement only this game has: `companion bench NAME` (the shared benches take --game)."""
    name: str                                   # "voters": `companion bench voters`
    help: str
    run: Callable[..., int]                     # run(args, companion) -> exit code, where companion(argv)
                                                # runs a companion command in this process; raises Malformed
    options: dict[str, dict] = field(default_factory=dict)   # its flags: "--games" -> argparse's keywords


@dataclass(frozen=True)
class Drills:
    """Its commands `companion bench journal --drills` sends with real `companion do` processes."""
    races: tuple[tuple[tuple[dict, ...], tuple[dict, dict]], ...]   # (sent first, a pair two writers send at
                                                # once, of which at most one may apply unless both are undo)
    prepared: tuple[dict, ...]                  # sent first, before a command that is killed and retried
    killed: tuple[dict, ...]                    # drill i sends killed[i % len] with an id, SIGKILLs it, retries


@dataclass(frozen=True)
class GameRules:
    name: str                                   # the setup's and the event file's `game`
    title: str                                  # shown to people: "Plunder Bingo"
    schema: Schema                              # its commands (the corrections included)
    events: Events                              # its event kinds (the corrections included)
    state: type                                 # State(): the game before its setup
    decide: Callable[[object, object], list | Rejected]
    fold: Callable[[list, object], object]      # fold(events, state) -> the new state
    invalid: Callable[[object], str | None]     # the reason an event makes its command `invalid`, or None
    staff: Callable[[object], dict]             # the secretariat's view, secrets included
    public: Callable[[object], dict]            # the audience's view: no secret in it at all
    staff_text: Callable[[dict], str]           # the views as plain text, for the terminal
    public_text: Callable[[dict], str]
    checkpoints: tuple = ()                     # events after which [event] backup is copied
    layouts: str | None = None                  # "module:CARDS" declaring its printed card kinds, the one
                                                # list of them (vision/layouts/<game>.py)
    replay: Callable[[object, list], dict] | None = None   # `replay --json` (staff) if not staff + log
    event: EventRules | None = None             # its part of the event file (event.toml)
    night: "NightReport | None" = None          # its part of `companion report` (companion/core/report.py)
    screens: Screens | None = None              # its staff console and audience display
    card_rules: CardRules | None = None         # what its printed cards say once read (companion/core/cards.py)
    printer: str | None = None                  # "module:Printer" of `companion print cards` (vision/printers)
    print_options: tuple[PrintOption, ...] = ()  # the options of `companion print cards` only its cards take
    page: tuple[str, ...] = ()                  # its styles, scripts and markup on the audience web page (in tui/web)
    phones: str | None = None                   # the module of its players' private phone pages (Phone, revoke, ...)
    order: int = 100                            # its place in every list of games (choices, messages)
    title_ja: str = ""                          # its title in Japanese: "強奪ビンゴ"
    demo: Callable[..., list[dict]] | None = None   # demo(players, seed, turns): a seeded, plausible whole
                                                # night as its commands (the benches' and rehearsals' script)
    benches: tuple[Bench, ...] = ()             # the measurements only it has (`companion bench NAME`)
    drills: Drills | None = None                # its racing-writer and SIGKILL drills (`bench journal --drills`)

    def heading(self, language: str) -> str:
        """Its title in each of a screen's languages (companion.core.words): "強奪ビンゴ · Plunder Bingo"."""
        said = {"ja": self.title_ja or self.title, "en": self.title[:1].upper() + self.title[1:]}
        return BOTH.join(said[part] for part in language.split("+"))

    def replay_json(self, state, log: list) -> dict:
        return self.replay(state, log) if self.replay else {**self.staff(state), "log": log}


@cache
def discover() -> dict[str, GameRules]:
    """name -> GameRules of every subpackage of companion that defines GAME, in their order."""
    found = []
    for package in pkgutil.iter_modules(companion.__path__, "companion."):
        game = getattr(importlib.import_module(package.name), "GAME", None) if package.ispkg else None
        if isinstance(game, GameRules):
            found.append(game)
    return {game.name: game for game in sorted(found, key=lambda game: (game.order, game.name))}


class Registry(Mapping):
    """The games found (discover()), looked up when first asked: name -> GameRules."""

    def __getitem__(self, name: str) -> GameRules:
        return discover()[name]

    def __iter__(self):
        return iter(discover())

    def __len__(self) -> int:
        return len(discover())


GAMES = Registry()


def rules(name: str = DEFAULT) -> GameRules:
    if name not in GAMES:
        raise Malformed(f"unknown game {shown(name)}; games: {', '.join(GAMES)}")
    return GAMES[name]


def demo(name: str = DEFAULT) -> Callable[..., list[dict]]:
    """The game's demo night (GameRules.demo); raises Malformed for a game without one."""
    game = rules(name)
    if game.demo is None:
        having = [other.name for other in GAMES.values() if other.demo]
        raise Malformed(f"{game.title} has no demo night; games with one: {', '.join(having)}")
    return game.demo


def drills(name: str = DEFAULT) -> Drills:
    """The game's journal drills (GameRules.drills); raises Malformed for a game without them."""
    game = rules(name)
    if game.drills is None:
        having = [other.name for other in GAMES.values() if other.drills]
        raise Malformed(f"{game.title} has no journal drills; games with them: {', '.join(having)}")
    return game.drills


def of_setup(command: dict) -> GameRules:
    """The game a setup command (a script's or journal's first line) is for; raises Malformed."""
    return rules(command.get("game", DEFAULT) if isinstance(command, dict) else DEFAULT)


def of_state(state) -> GameRules:
    for game in GAMES.values():
        if isinstance(state, game.state):
            return game
    raise TypeError(f"{type(state).__name__} is no game's state")
