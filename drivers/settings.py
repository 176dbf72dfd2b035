"""Driver settings from an event-file section: one dataclass a section, its fields the keys."""
from __future__ import annotations

from dataclasses import fields
from typing import Callable

from companion.core import event_file


def from_section(cls, section: dict, name: str, error: type[Exception], **convert: Callable):
    """`cls(**section)`, each value passed through convert[key] if given; refuses a key `cls` does not
    have, or a value of the wrong type or out of its range (event_file.SECTIONS), with `error` naming
    it and the section (the event file checks them on load too, but drivers are also built from
    plain dicts)."""
    known = {f.name for f in fields(cls)}
    for key, value in section.items():
        if key not in known:
            raise error(f"[{name}] unknown key {key!r}")
        problem = event_file.fault(name, key, value)
        if problem:
            raise error(problem)
    return cls(**{key: convert.get(key, _same)(value) for key, value in section.items()})


def _same(value):
    return value
