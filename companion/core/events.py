"""The events every game shares (the corrections), and a game's table of event kinds.

Events are the facts the journal keeps: dataclasses with JSON-friendly fields only, so a replay
sees exactly what the live game saw. The journal stores each as (kind, data), kind being the
class name and data its fields plus "version", the version of its kind (absent: 1, as every
event was written before kinds had versions).

A kind's fields change by a new version, never in place, as in the `eventsourcing` library: the
class says `class_version = 2` and carries `upcast_v1_to_v2(data) -> data` (then v2_to_v3...).
Events.decode applies them in order to what was stored, so a journal's rows are never rewritten
(their hashes and seals stay valid) and the rules only ever see the current shape. A version
newer than the code knows is refused (EventTooNew), never guessed at.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field, fields

VERSION = "version"     # the key of an event's version in its stored data


@dataclass
class CardVoided:
    serial: str


@dataclass
class CardHeld:
    serial: str
    card: dict               # the command as best read
    reason: str
    crop: str
    scores: dict = field(default_factory=dict)   # the scanner's bubble scores (older journals: none)
    findings: list = field(default_factory=list)  # all the scanner saw in doubt: code and message (older: none)


@dataclass
class CardRuled:
    serial: str
    ruling: str              # "counted as read", "changed to ...", or "invalid: ..."
    crop: str


@dataclass
class Undone:
    batch: int               # the command taken back (a correction, never an edit)


CORRECTIONS = (CardVoided, CardHeld, CardRuled, Undone)


class EventTooNew(ValueError):
    """A stored event of a version past the one this code knows for its kind (a newer companion wrote it)."""

    def __init__(self, kind: str, version: int, known: int):
        super().__init__(f"{kind} version {version} (this companion reads {kind} up to version {known})")
        self.kind, self.version, self.known = kind, version, known


def version_of(cls: type) -> int:
    return getattr(cls, "class_version", 1)


def stored_version(data: dict) -> object:
    """The version an event's stored data says it has (absent: 1); not checked."""
    return data.get(VERSION, 1) if isinstance(data, dict) else 1


class Events:
    """One game's event kinds (the corrections included): encode for the journal (with each kind's
    version), decode from it (upcasting older versions to the current one)."""

    def __init__(self, *kinds: type):
        self.kinds = {cls.__name__: cls for cls in (*kinds, *CORRECTIONS)}
        self.versions = {name: version_of(cls) for name, cls in self.kinds.items()}
        self.upcasters = {name: [_upcaster(cls, v) for v in range(1, version_of(cls))]
                          for name, cls in self.kinds.items()}
        for cls in self.kinds.values():
            if any(f.name == VERSION for f in fields(cls)):
                raise TypeError(f"{cls.__name__}: a field may not be named {VERSION!r} (the stored version's key)")

    @staticmethod
    def encode(event) -> tuple[str, dict]:
        return type(event).__name__, {**asdict(event), VERSION: version_of(type(event))}

    def decode(self, kind: str, data: dict):
        """The event stored as (kind, data), brought up to its kind's current version; raises
        EventTooNew for a newer version, ValueError or TypeError for data that is no such event."""
        if kind not in self.kinds:
            raise ValueError(f"unknown event kind {kind!r}")
        version = stored_version(data)
        if type(version) is not int or version < 1:
            raise ValueError(f"{kind} has the version {version!r}, not a whole number from 1")
        if version > self.versions[kind]:
            raise EventTooNew(kind, version, self.versions[kind])
        data = {key: value for key, value in data.items() if key != VERSION}
        for upcast in self.upcasters[kind][version - 1:]:
            data = upcast(data)
        return self.kinds[kind](**data)

    def versions_read(self, found: Counter) -> str:
        """What `journal verify` says of the versions found, {(kind, stored version): count}."""
        if not found:
            return "no events"
        by_version = Counter()
        for (_, version), count in found.items():
            by_version[version] += count
        counts = ", ".join(f"v{version} ×{count}" for version, count in sorted(by_version.items()))
        upcast = [f"{kind} v{version} ×{count} to v{self.versions[kind]}"
                  for (kind, version), count in sorted(found.items()) if version < self.versions[kind]]
        return f"event versions {counts}; " + (f"upcast on read: {', '.join(upcast)}" if upcast else
                                                "every event at its kind's current version")


def _upcaster(cls: type, version: int):
    name = f"upcast_v{version}_to_v{version + 1}"
    if not callable(getattr(cls, name, None)):
        raise TypeError(f"{cls.__name__} is version {version_of(cls)} and has no {name}")
    return getattr(cls, name)
