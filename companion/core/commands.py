"""Commands in the rehearsal-script format ({"do": ...}) and their shape checks, for any game.

A game describes its commands once, in a Schema (its dataclasses, enumerations, optional keys);
the schema parses script lines into those dataclasses, raising Malformed with what is wrong, and
turns them back into the dicts the journal keeps. Whether a well-formed command is allowed by the
rules is for the game's decide() to say. The corrections every game has (undo, void, hold, rule)
are defined here once.
"""
from __future__ import annotations

import json
import math
import unicodedata
from dataclasses import dataclass, field, fields
from typing import Callable, get_type_hints


class Malformed(ValueError):
    pass


# ---- the corrections every game shares -----------------------------------------------------

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
    findings: list[dict] = field(default_factory=list)   # all it saw in doubt: [{"code": ..., "message": ...}]


@dataclass(frozen=True)
class Rule:
    """The operator's ruling on a held card: the command as ruled, or invalid with a reason."""
    serial: str
    card: dict | None = None
    invalid: str | None = None


CORRECTIONS = {"undo": Undo, "void": Void, "hold": Hold, "rule": Rule}
CORRECTION_OPTIONAL = {("Hold", "crop"): "", ("Hold", "scores"): {}, ("Hold", "findings"): [], ("Rule", "card"): None,
                       ("Rule", "invalid"): None}

# Bounds on any value in a command, so no input can exhaust memory, the stack or the journal's encoder.
MAX_DEPTH = 6            # the deepest command, hold > card > marks, nests 3 levels
MAX_TEXT = 1000          # characters in one string (names, serials, reasons, crop paths)
MAX_NUMBER = 2 ** 53     # larger whole numbers do not survive a JSON reader that uses doubles
MAX_FINDINGS = 200       # a held card's findings (a card of a few dozen bubbles gives a handful)


class Schema:
    """One game's commands. commands: {name: dataclass} (the corrections are added);
    enums: {(class name, key): allowed values}; optional: {(class name, key): default};
    unset_left_out: optional keys left out of the journaled dict while None/False, so commands
    journaled before the key existed read the same; cards: the commands a scanned card becomes;
    checks: {class: check(command values dict)} run after the shape checks (raise Malformed);
    nullable: {(class name, key)} whose value may be null (None) in a command."""

    def __init__(self, commands: dict, cards: tuple = (), enums: dict | None = None,
                 optional: dict | None = None, unset_left_out: set | None = None,
                 checks: dict[type, Callable[[dict], None]] | None = None, nullable: set | None = None):
        self.commands = {**commands, **CORRECTIONS}
        self.names = {cls: name for name, cls in self.commands.items()}
        self.cards, self.enums = cards, enums or {}
        self.optional = {**CORRECTION_OPTIONAL, **(optional or {})}
        self.unset_left_out, self.checks = unset_left_out or set(), checks or {}
        self.nullable = nullable or set()
        self.hints = {cls: get_type_hints(cls) for cls in self.commands.values()}   # once: it compiles each annotation

    def name_of(self, command) -> str:
        return self.names[type(command)]

    def to_dict(self, command) -> dict:
        kind = type(command).__name__
        return {"do": self.name_of(command),
                **{f.name: getattr(command, f.name) for f in fields(command)
                   if not ((kind, f.name) in self.unset_left_out and getattr(command, f.name) in (None, False))}}

    def parse(self, data, unread_ok: bool = False) -> object:
        """A command from one decoded script line; raises Malformed saying what is wrong. unread_ok:
        a held card's fields the scanner could not read may be missing or null (None)."""
        if not isinstance(data, dict):
            raise Malformed(f"a command is a JSON object with a \"do\" key, not {shown(data)}")
        _check_plain(data)
        name = data.get("do")
        if not isinstance(name, str) or name not in self.commands:
            raise Malformed(f"unknown command {shown(name)}; known: {', '.join(self.commands)}")
        cls = self.commands[name]
        hints = self.hints[cls]
        extra = set(data) - set(hints) - {"do"}
        if extra:
            raise Malformed(f"{name}: unknown key {shown(sorted(extra)[0])}; expected {', '.join(hints) or 'no other keys'}")
        values = {}
        for key, kind in hints.items():
            if unread_ok and key != "serial" and data.get(key) is None:
                values[key] = self.optional.get((cls.__name__, key))
                continue
            if key not in data:
                if (cls.__name__, key) in self.optional:
                    values[key] = self.optional[cls.__name__, key]
                    continue
                raise Malformed(f"{name}: missing key {key!r}")
            if data[key] is None and (cls.__name__, key) in self.nullable:
                values[key] = None
                continue
            values[key] = _checked(name, key, data[key], kind, self.enums.get((cls.__name__, key)))
        if cls in self.checks:
            self.checks[cls](values)
        if cls is Hold:
            self.card_of(values["card"], "hold", unread_ok=True)
            _check_scores(values["scores"])
            _check_findings(values["findings"])
        if cls is Rule and (values["card"] is None) == (values["invalid"] is None):
            raise Malformed("rule: give either card (the command as ruled) or invalid (a reason)")
        if cls is Rule and values["card"] is not None:
            self.card_of(values["card"], "rule", values["serial"])
        return cls(**values)

    def card_of(self, data: dict, where: str, serial: str | None = None, unread_ok: bool = False):
        """The card command inside hold/rule: a card kind, with its serial (a held card: with what was read)."""
        try:
            card = self.parse(data, unread_ok)
        except Malformed as error:
            raise Malformed(f"{where}: card: {error}") from None
        if type(card) not in self.cards:
            raise Malformed(f"{where}: card must be one of {', '.join(self.names[k] for k in self.cards)}")
        if not card.serial:
            raise Malformed(f"{where}: card needs its serial")
        if serial is not None and card.serial != serial:
            raise Malformed(f"{where}: card serial {shown(card.serial)} is not {shown(serial)}")
        return card


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
    fault = text_fault(text)
    if fault:
        raise Malformed(f"the text {shown(text)} {fault}")


def text_fault(text: str) -> str | None:
    """What keeps a text (a name, a reason) out of a command, or None: its length, a lone surrogate, or a control
    character (a newline, a terminal's escape: a screen would obey it, and no text needs one)."""
    if len(text) > MAX_TEXT:
        return f"is too long: {len(text):,} characters (at most {MAX_TEXT:,})"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode (a lone surrogate)"
    control = None if text.isprintable() else next((ch for ch in text if unicodedata.category(ch) == "Cc"), None)
    return None if control is None else f"holds the control character {control!r}"


def _check_scores(scores: dict) -> None:
    for name, by_value in scores.items():
        if not (isinstance(by_value, dict) and all(is_a(v, int) or is_a(v, float) for v in by_value.values())):
            raise Malformed(f"hold: scores: {shown(name)} must map each bubble to a number, not {shown(by_value)}")


def _check_findings(findings: list[dict]) -> None:
    if len(findings) > MAX_FINDINGS:
        raise Malformed(f"hold: findings: {len(findings):,} of them, at most {MAX_FINDINGS}")
    for finding in findings:
        if set(finding) != {"code", "message"} or not all(isinstance(v, str) for v in finding.values()):
            raise Malformed(f"hold: findings: each is {{\"code\": a string, \"message\": a string}}, not {shown(finding)}")


def _checked(command: str, key: str, value, kind, allowed):
    if getattr(kind, "__args__", None) and type(None) in kind.__args__:   # X | None
        kind = kind.__args__[0]
    item_kind = kind.__args__[0] if getattr(kind, "__origin__", None) is list else None
    base = getattr(kind, "__origin__", kind)
    if not is_a(value, base) or (item_kind and not all(is_a(v, item_kind) for v in value)):
        raise Malformed(f"{command}: {key} must be {describe(kind)}, not {shown(value)}")
    for v in value if isinstance(value, list) else [value]:
        if allowed and v not in allowed:
            raise Malformed(f"{command}: {key} value {shown(v)} is not one of {', '.join(map(str, allowed))}")
    return value


def is_a(value, kind) -> bool:
    if kind is int:
        return type(value) is int          # bool is not a number here
    return isinstance(value, kind)


def describe(kind) -> str:
    return {int: "a whole number", str: "a string", dict: "an object", bool: "true or false",
            list[int]: "a list of whole numbers", list[str]: "a list of strings",
            list[dict]: "a list of objects"}.get(kind, str(kind))


def check_players(where: str, players: list[dict], keys: dict[str, type]) -> None:
    """Each player object has exactly `keys`, of their kinds."""
    for i, player in enumerate(players, 1):
        for key, kind in keys.items():
            if key not in player:
                raise Malformed(f"{where}: player {i} has no {key!r}")
            if not is_a(player[key], kind):
                raise Malformed(f"{where}: player {i} {key} must be {describe(kind)}")
        extra = set(player) - set(keys)
        if extra:
            raise Malformed(f"{where}: player {i} has unknown key {shown(sorted(extra)[0])}")
