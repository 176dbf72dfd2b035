"""Driver settings from an event-file section: one dataclass a section, its fields the keys."""
from __future__ import annotations

from dataclasses import fields


def from_section(cls, section: dict, name: str, error: type[Exception]):
    """`cls(**section)`, refusing a key `cls` does not have with `error` naming it and the section
    (the event file checks keys too, but drivers are also built from plain dicts)."""
    known = {f.name for f in fields(cls)}
    for key in section:
        if key not in known:
            raise error(f"[{name}] unknown key {key!r}")
    return cls(**section)
