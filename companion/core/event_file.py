"""The event file (event.toml): typed, versioned; an unknown key or bad value names its line.

Each section's keys and types live in SECTIONS: the one place to add a shared setting. [event]
game chooses the game ("bingo" when left out); the game adds its own keys (its EventRules: Plunder
Bingo's [rules] and players' accounts and cards), checks them and makes the setup command.
Writes are atomic (a temporary file renamed over the old one).
"""
from __future__ import annotations

import math
import os
import pwd
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from . import games, words
from .commands import text_fault
from .files import write_atomic  # noqa: F401 (the event file's writer, as its callers know it)

VERSION = 1


class Between(NamedTuple):
    """A number's allowed range, both ends included (NaN and infinity are in none)."""
    low: float
    high: float

    def __contains__(self, value) -> bool:
        return self.low <= value <= self.high

    def __str__(self) -> str:
        return f"{_number(self.low)} to {_number(self.high)}"


class Numbers(NamedTuple):
    """A list of numbers of one type (int or float), each in its own range: [x, y, w, h], say."""
    kind: type
    ranges: tuple[Between, ...]

    def __contains__(self, value) -> bool:
        return len(value) == len(self.ranges) and all(_is(self.kind, number) and number in allowed
                                                      for number, allowed in zip(value, self.ranges))

    def __str__(self) -> str:
        return f"{len(self.ranges)} {self.kind.__name__}s: {', '.join(map(str, self.ranges))}"


def _is(kind: type, value) -> bool:
    """value is of the type (an int does for a float; a bool is no number)."""
    return type(value) is kind or (kind is float and type(value) is int)


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


# section -> key -> (type, allowed values, a Between for every number, Numbers for a list of them, or
# None); "players" is an array of tables. A game adds its own keys (games.EventRules.sections), its
# numbers with their Between too. The drivers check what spans keys (an exposure within a frame).
SECTIONS: dict[str, dict[str, tuple]] = {
    "": {"version": (int, (VERSION,))},
    # backup: a copy of the journal made (atomically) after setup, each turn's start and the finish
    "event": {"name": (str, None), "id": (str, None), "secret": (str, None), "journal": (str, None),
              "backup": (str, None), "game": (str, games.GAMES)},
    "players": {"no": (int, Between(1, 99)), "name": (str, None)},   # cards print the number in two digits
    # the card scanner's thresholds: their ranges and order are checked by vision/cards/tuning.py Settings
    "cards": {"marginal": (float, None), "definite": (float, None), "heavy": (float, None),
              "stray": (float, None), "sharp": (float, None), "glare": (float, None),
              "trace": (float, None), "blank_trace": (float, None), "ring_dark": (float, None),
              "label_dark": (float, None), "faint_mark": (float, None), "open_paper": (float, None),
              "open_room": (float, None), "coherent": (float, None), "span": (float, None),
              "flat": (float, None), "quiet": (float, None), "circled": (float, None), "partial": (float, None),
              "faint": (float, None), "noisy": (float, None), "closer_floor": (float, None),
              "closer_trace": (float, None), "time_limit_ms": (float, None),
              "workers": (int, Between(1, 64))},      # the watched folder's scanning processes (default: every core)
    # The cage link (drivers/serial_link.py): a pyserial URL; "raw" for a plain barcode scanner.
    "serial": {"url": (str, None), "baud": (int, Between(50, 4_000_000)), "mode": (str, ("framed", "raw")),
               "raw_pattern": (str, None), "raw_repeat_seconds": (float, Between(0, 3600))},
    # The staff panel on the Pi's GPIO (drivers/panel.py, hardware/WIRING.md): BCM pin numbers, -1 = not fitted.
    "panel": {"pin_factory": (str, ("", "mock", "lgpio", "rpigpio", "pigpio", "native")),
              **{pin: (int, Between(-1, 27)) for pin in ("beam", "draw", "close", "undo", "buzzer", "motor",
                                                         "led_ok", "led_fault")},
              "motor_seconds": (float, Between(0, 60)), "motor_active_high": (bool, None),
              "bounce_ms": (int, Between(0, 1000)), "undo_hold_seconds": (float, Between(0, 10)),
              "warn_seconds": (int, Between(0, 3600))},
    # The ball camera (drivers/camera.py, drivers/ball_reader.py): source is a device index ("0"), a
    # path, a file glob, a video file, "pi" (Picamera2), "auto" or "sim"; roi = [x, y, w, h] in pixels;
    # fall_deg: the direction balls cross the image (a chute), for deblurring along it; exposure_us
    # and gain: a fixed exposure (microseconds) and analogue gain instead of automatic exposure.
    "camera": {"source": (str, None), "width": (int, Between(16, 10_000)), "height": (int, Between(16, 10_000)),
               "fps": (int, Between(1, 240)), "fov": (float, Between(10, 170)),
               "roi": (list, Numbers(int, (Between(0, 10_000),) * 2 + (Between(16, 10_000),) * 2)),   # x, y, w, h
               "decoder": (str, ("zxing", "pyzbar", "opencv")), "window_ms": (int, Between(1, 60_000)),
               "agree": (int, Between(1, 100)), "gone_ms": (int, Between(1, 60_000)),
               "ball_diameter": (float, Between(10, 200)),
               "ball_distance": (list, Numbers(float, (Between(5, 5000),) * 2)),   # mm: nearest, farthest
               "workers": (int, Between(1, 64)), "fall_deg": (float, Between(-180, 360)),
               "exposure_us": (int, Between(10, 1_000_000)), "gain": (float, Between(1, 16))},
    # The audience page server (tui/web/mqtt.py) also publishes the public view to this broker:
    # mqtt = "mqtt://HOST:PORT", topic plunder/<event id>/public, retained, QoS 1.
    "publish": {"mqtt": (str, None)},
    # The words of every screen (companion/core/words.py): Japanese and English, or one of them.
    "display": {"language": (str, words.LANGUAGES)},
}
REQUIRED = {"event": ("name", "secret"), "players": ("no", "name")}


class EventFileError(ValueError):
    pass


@dataclass
class EventFile:
    path: Path
    name: str
    id: str
    secret: str
    journal: Path
    rules: object                                  # the game's rules from the file (Plunder Bingo's Rules), or None
    players: list[dict]
    sections: dict = field(default_factory=dict)   # every section as read, for the drivers' settings
    backup: Path | None = None                     # [event] backup, beside the event file if relative
    game: str = games.DEFAULT                      # [event] game
    language: str = words.DEFAULT                  # [display] language

    def setup_command(self) -> dict:
        return games.rules(self.game).event.setup(self)

    def where(self, section: str, key: str) -> str:
        """"file:line" of a key in the file as it is now (the file alone if the key is not found): for a
        setting's error found after loading (the card scanner's ranges)."""
        try:
            number = _Locator(self.path, self.path.read_text(encoding="utf-8")).line_of(section, key)
        except OSError:
            number = None
        return f"{self.path}:{number}" if number else str(self.path)


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "event"


def _not_yours(path: Path) -> str:
    """The event file is another user's (copied with sudo cp, say): whose, and how to hand it over."""
    me = _user_name(os.geteuid())
    try:
        info = path.stat()
    except OSError:
        return f"{path}: cannot read: {me} may not open its folder"
    return (f"{path}: cannot read: it is {_user_name(info.st_uid)}'s (mode {info.st_mode & 0o777:04o}) and this "
            f"runs as {me}; give it to {me}: sudo chown {me}: {path.absolute()}")


def _user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"user {uid}"


def journal_name(name: str, game: str) -> str:
    """The journal an event's file names: night-1.db for the default game's "Night 1", and the
    game's name in another game's (night-1-bluff.db), so events of two games set up in one
    folder never share a journal."""
    return f"{slug(name)}.db" if game == games.DEFAULT else f"{slug(name)}-{game}.db"


def load(path: str | Path) -> EventFile:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except PermissionError:
        raise EventFileError(_not_yours(path)) from None
    except OSError as error:
        raise EventFileError(f"{path}: cannot read ({error.strerror})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise EventFileError(f"{path}: {error}") from None
    where = _Locator(path, text)
    game = _game_of(data)
    sections, required = _keys(game.event)
    _check(data, where, sections, required)
    event, players = data["event"], data["players"]
    rules = game.event.settings(data, where)
    journal = Path(event.get("journal") or journal_name(event.get("id") or event["name"], game.name))
    backup = Path(event["backup"]) if event.get("backup") else None
    return EventFile(path, event["name"], event.get("id") or slug(event["name"]), event["secret"],
                     beside(path, journal), rules, [{k: p[k] for k in sections["players"]} for p in players],
                     data, backup and beside(path, backup), game.name,
                     data.get("display", {}).get("language", words.DEFAULT))


def _game_of(data: dict) -> games.GameRules:
    """The game [event] names; a name that is no game's is reported by the checks, on its line."""
    event = data.get("event")
    name = event.get("game", games.DEFAULT) if isinstance(event, dict) else games.DEFAULT
    return games.rules(name if isinstance(name, str) and name in games.GAMES else games.DEFAULT)


def _keys(event: games.EventRules) -> tuple[dict, dict]:
    """The sections and required keys of an event file for this game: the shared ones and its own."""
    sections = {name: dict(keys) for name, keys in SECTIONS.items()}
    for name, keys in event.sections.items():
        sections.setdefault(name, {}).update(keys)
    required = {name: REQUIRED.get(name, ()) + event.required.get(name, ()) for name in {*REQUIRED, *event.required}}
    return sections, required


def beside(event_path: Path, named: Path) -> Path:
    """A file named in the event file: relative names are beside the event file."""
    return named if named.is_absolute() else event_path.parent / named


def _check(data: dict, where: "_Locator", sections: dict, required: dict) -> None:
    for key, value in data.items():
        if key in sections[""]:
            _check_value(sections[""][key], "", key, value, where)
        elif key in sections:
            _check_tables(key, value, where, sections[key], required.get(key, ()))
        else:
            raise where.error("", key, f"unknown section or key {key!r}")
    for key in ("version", "event", "players"):
        if key not in data:
            raise EventFileError(f"{where.path}: missing {key!r}")


def _check_tables(section: str, value, where: "_Locator", keys: dict, required: tuple) -> None:
    many = section == "players"
    if not isinstance(value, list if many else dict):
        raise where.error("", section, f"{section} must be {'[[players]] tables' if many else 'a table'}")
    for i, table in enumerate(value if many else [value]):
        for name, item in table.items():
            if name not in keys:
                raise where.error(section, name, f"unknown key {name!r} in [{section}]", i)
            _check_value(keys[name], section, name, item, where, i)
        for name in required:
            if name not in table:
                label = f"player #{i + 1}" if many else f"[{section}]"
                raise EventFileError(f"{where.path}: {label} needs {name!r}")


def _check_value(rule: tuple, section: str, key: str, value, where: "_Locator", index: int = 0) -> None:
    problem = _fault(rule, f"[{section}] {key}" if section else key, value)
    if problem:
        raise where.error(section, key, problem, index)


def fault(section: str, key: str, value) -> str | None:
    """What is wrong with a shared section's setting (its type, choices or range), or None: for the
    drivers' settings, also made from plain dicts."""
    rule = SECTIONS.get(section, {}).get(key)
    return _fault(rule, f"[{section}] {key}", value) if rule else None


def _fault(rule: tuple, name: str, value) -> str | None:
    kind, allowed = rule    # (type, allowed values, a Between, Numbers or None)
    if not _is(kind, value):
        return f"{name} must be {kind.__name__}, not {value!r}"
    if isinstance(allowed, (Between, Numbers)):
        return None if value in allowed else f"{name} must be {allowed}, not {value!r}"
    if kind is str and (text := text_fault(value)):      # a name shown on the console's and the projector's screens
        return f"{name}: the text {value!r} {text}"
    if kind is float and not math.isfinite(value):     # a number ranged elsewhere ([cards]: the scanner's table)
        return f"{name} must be a finite number, not {value!r}"
    if allowed and value not in allowed:
        return f"{name} must be one of {', '.join(map(repr, allowed))}, not {value!r}"
    return None


class _Locator:
    """Finds the line of a key in the TOML text, for error messages."""

    def __init__(self, path: Path, text: str):
        self.path, self.lines = path, text.splitlines()

    def line_of(self, section: str, key: str, index: int = 0) -> int | None:
        current, seen = "", -1
        for number, line in enumerate(self.lines, 1):
            header = re.match(r"\s*\[\[?\s*([^\]]+?)\s*\]\]?", line)
            if header:
                current = header.group(1)
                seen += current == section
                if not section and current == key:
                    return number
                continue
            if current == section and (section != "players" or seen == index) \
                    and re.match(rf"\s*{re.escape(key)}\s*=", line):
                return number
        return None

    def error(self, section: str, key: str, message: str, index: int = 0) -> EventFileError:
        number = self.line_of(section, key, index)
        return EventFileError(f"{self.path}:{number}: {message}" if number else f"{self.path}: {message}")


def example(name: str, players: int, seed: int, secret: str, game: str = games.DEFAULT) -> str:
    """A commented event file for the game (Plunder Bingo: seeded cards and account letters, D6)."""
    return games.rules(game).event.example(name, players, seed, secret)
