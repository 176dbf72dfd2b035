"""Commands in the rehearsal-script format ({"do": ...}) and their shape checks.

A command that is not of the right shape raises Malformed with what is wrong; whether
a well-formed command is allowed by the rules is for decide() to say.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields
from typing import get_type_hints

from .rules import LINES, OPTIONS, PRICES


class Malformed(ValueError):
    pass


@dataclass(frozen=True)
class Setup:
    event: str
    players: list[dict]
    rules: dict
    reveal_accounts: bool = False   # the finished public view may tie names to account letters (R13)


@dataclass(frozen=True)
class BeginTurn: pass


@dataclass(frozen=True)
class Draw:
    balls: list[int]


@dataclass(frozen=True)
class DrawBall:
    ball: int


@dataclass(frozen=True)
class Vote:
    serial: str
    turn: int
    marks: list[str]
    owner: int | None = None    # optional: must agree with the owner the printed serial names


@dataclass(frozen=True)
class Buy:
    player: int
    item: str


@dataclass(frozen=True)
class InOut:
    player: int
    dir: str
    ball: int
    serial: str = ""


@dataclass(frozen=True)
class Change:
    player: int
    cell: int
    number: int
    serial: str = ""


@dataclass(frozen=True)
class Exclude:
    player: int
    ball: int
    serial: str = ""


@dataclass(frozen=True)
class CloseVoting: pass


@dataclass(frozen=True)
class OrderLines:
    player: int
    lines: list[str]


@dataclass(frozen=True)
class Rob:
    serial: str
    robber: int
    victim: int
    ordinal: int
    owner: int | None = None    # optional: must agree with the owner the printed serial names


@dataclass(frozen=True)
class EndTurn: pass


@dataclass(frozen=True)
class BeginFinal: pass


@dataclass(frozen=True)
class EndFinal: pass


@dataclass(frozen=True)
class Cash:
    player: int
    amount: int


@dataclass(frozen=True)
class Finish: pass


@dataclass(frozen=True)
class Undo: pass


@dataclass(frozen=True)
class Void:
    serial: str


@dataclass(frozen=True)
class Hold:
    """A card the scanner could not read with confidence: it waits for the operator (D2)."""
    card: dict          # the card's command as best read
    reason: str
    crop: str = ""
    scores: dict = field(default_factory=dict)   # the scanner's bubble scores: {field: {value: score}}


@dataclass(frozen=True)
class Rule:
    """The operator's ruling on a held card: the command as ruled, or invalid with a reason."""
    serial: str
    card: dict | None = None
    invalid: str | None = None


COMMANDS = {
    "setup": Setup, "begin_turn": BeginTurn, "draw": Draw, "draw_ball": DrawBall, "vote": Vote, "buy": Buy,
    "inout": InOut, "change": Change, "exclude": Exclude, "close_voting": CloseVoting,
    "order_lines": OrderLines, "rob": Rob, "end_turn": EndTurn, "begin_final": BeginFinal,
    "end_final": EndFinal, "cash": Cash, "finish": Finish, "undo": Undo, "void": Void,
    "hold": Hold, "rule": Rule,
}
CARDS = (Vote, Rob, InOut, Change, Exclude)   # commands that come from a scanned card
NAMES = {cls: name for name, cls in COMMANDS.items()}
ENUMS = {("Vote", "marks"): OPTIONS, ("Buy", "item"): tuple(PRICES), ("InOut", "dir"): ("in", "out"),
         ("OrderLines", "lines"): tuple(LINES)}
OPTIONAL = {("Setup", "rules"): {}, ("Setup", "reveal_accounts"): False, ("Vote", "owner"): None, ("Rob", "owner"): None,
            ("InOut", "serial"): "", ("Change", "serial"): "",
            ("Exclude", "serial"): "", ("Hold", "crop"): "", ("Hold", "scores"): {}, ("Rule", "card"): None, ("Rule", "invalid"): None}
PLAYER_KEYS = {"no": int, "name": str, "account": str, "card": list}
# Optional keys left out of a command's dict while unset, so commands journaled without them read the same.
UNSET_LEFT_OUT = {("Vote", "owner"), ("Rob", "owner"), ("Setup", "reveal_accounts")}

# Bounds on any value in a command, so no input can exhaust memory, the stack or the journal's encoder.
MAX_DEPTH = 6            # the deepest command, hold > card > marks, nests 3 levels
MAX_TEXT = 1000          # characters in one string (names, serials, reasons, crop paths)
MAX_NUMBER = 2 ** 53     # larger whole numbers do not survive a JSON reader that uses doubles


def name_of(command) -> str:
    return NAMES[type(command)]


def to_dict(command) -> dict:
    kind = type(command).__name__
    return {"do": name_of(command), **{f.name: getattr(command, f.name) for f in fields(command)
                                       if not ((kind, f.name) in UNSET_LEFT_OUT and getattr(command, f.name) in (None, False))}}


def loads(text: str) -> dict:
    """One script line or `do` argument as a JSON object (not yet a command); raises Malformed."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise Malformed(f"not JSON ({error.msg} at column {error.colno})") from None
    except RecursionError:
        raise Malformed(f"not a command: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError:                   # Python reads no number of more than 4,300 digits
        raise Malformed("not a command: a number with too many digits") from None
    if not isinstance(data, dict):
        raise Malformed(f"a command is a JSON object with a \"do\" key, not {shown(data)}")
    return data


def shown(value, width: int = 40) -> str:
    """A value for an error message: its repr on one line, cut short."""
    text = repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def parse(data, unread_ok: bool = False) -> object:
    """A command from one decoded script line; raises Malformed saying what is wrong. unread_ok:
    a held card's fields the scanner could not read may be missing or null (None)."""
    if not isinstance(data, dict):
        raise Malformed(f"a command is a JSON object with a \"do\" key, not {shown(data)}")
    _check_plain(data)
    name = data.get("do")
    if not isinstance(name, str) or name not in COMMANDS:
        raise Malformed(f"unknown command {shown(name)}; known: {', '.join(COMMANDS)}")
    cls = COMMANDS[name]
    hints = get_type_hints(cls)
    extra = set(data) - set(hints) - {"do"}
    if extra:
        raise Malformed(f"{name}: unknown key {shown(sorted(extra)[0])}; expected {', '.join(hints) or 'no other keys'}")
    values = {}
    for key, kind in hints.items():
        if unread_ok and key != "serial" and data.get(key) is None:
            values[key] = OPTIONAL.get((cls.__name__, key))
            continue
        if key not in data:
            if (cls.__name__, key) in OPTIONAL:
                values[key] = OPTIONAL[cls.__name__, key]
                continue
            raise Malformed(f"{name}: missing key {key!r}")
        values[key] = _checked(name, key, data[key], kind, ENUMS.get((cls.__name__, key)))
    if cls is Setup:
        _check_players(values["players"])
    if cls is Hold:
        _card_of(values["card"], "hold", unread_ok=True)
        _check_scores(values["scores"])
    if cls is Rule and (values["card"] is None) == (values["invalid"] is None):
        raise Malformed("rule: give either card (the command as ruled) or invalid (a reason)")
    if cls is Rule and values["card"] is not None:
        _card_of(values["card"], "rule", values["serial"])
    return cls(**values)


def _check_plain(data: dict) -> None:
    """Plain JSON values within the bounds above: finite numbers, valid Unicode, shallow nesting."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                raise Malformed(f"not a command: nested deeper than {MAX_DEPTH} levels")
            items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
            stack += [(item, depth + 1) for item in items]
        elif isinstance(value, str):
            _check_text(value)
        elif isinstance(value, bool) or value is None:
            pass
        elif isinstance(value, int):
            if abs(value) > MAX_NUMBER:
                raise Malformed(f"the number {shown(value, 24)} is out of range (at most 2**53)")
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise Malformed(f"{value} is not a number a command may hold")
        else:
            raise Malformed(f"{shown(value)} is not a JSON value")


def _check_text(text: str) -> None:
    if len(text) > MAX_TEXT:
        raise Malformed(f"a text of {len(text):,} characters is too long (at most {MAX_TEXT:,}): {shown(text)}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise Malformed(f"the text {shown(text)} is not valid Unicode (a lone surrogate)") from None


def _check_scores(scores: dict) -> None:
    for name, by_value in scores.items():
        if not (isinstance(by_value, dict) and all(_is(v, int) or _is(v, float) for v in by_value.values())):
            raise Malformed(f"hold: scores: {shown(name)} must map each bubble to a number, not {shown(by_value)}")


def _card_of(data: dict, where: str, serial: str | None = None, unread_ok: bool = False):
    """The card command inside hold/rule: a card kind, with its serial (a held card: with what was read)."""
    try:
        card = parse(data, unread_ok)
    except Malformed as error:
        raise Malformed(f"{where}: card: {error}") from None
    if type(card) not in CARDS:
        raise Malformed(f"{where}: card must be one of {', '.join(NAMES[k] for k in CARDS)}")
    if not card.serial:
        raise Malformed(f"{where}: card needs its serial")
    if serial is not None and card.serial != serial:
        raise Malformed(f"{where}: card serial {shown(card.serial)} is not {shown(serial)}")
    return card


def _checked(command: str, key: str, value, kind, allowed):
    if getattr(kind, "__args__", None) and type(None) in kind.__args__:   # X | None
        kind = kind.__args__[0]
    item_kind = kind.__args__[0] if getattr(kind, "__origin__", None) is list else None
    base = getattr(kind, "__origin__", kind)
    if not _is(value, base) or (item_kind and not all(_is(v, item_kind) for v in value)):
        raise Malformed(f"{command}: {key} must be {_describe(kind)}, not {shown(value)}")
    for v in value if isinstance(value, list) else [value]:
        if allowed and v not in allowed:
            raise Malformed(f"{command}: {key} value {shown(v)} is not one of {', '.join(allowed)}")
    return value


def _is(value, kind) -> bool:
    if kind is int:
        return type(value) is int          # bool is not a number here
    return isinstance(value, kind)


def _describe(kind) -> str:
    return {int: "a whole number", str: "a string", dict: "an object", bool: "true or false",
            list[int]: "a list of whole numbers", list[str]: "a list of strings",
            list[dict]: "a list of objects"}.get(kind, str(kind))


def _check_players(players: list[dict]) -> None:
    for i, player in enumerate(players, 1):
        for key, kind in PLAYER_KEYS.items():
            if key not in player:
                raise Malformed(f"setup: player {i} has no {key!r}")
            if not _is(player[key], kind):
                raise Malformed(f"setup: player {i} {key} must be {_describe(kind)}")
        extra = set(player) - set(PLAYER_KEYS)
        if extra:
            raise Malformed(f"setup: player {i} has unknown key {shown(sorted(extra)[0])}")
