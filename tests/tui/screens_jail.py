"""The jail card game's worked example round (examples/jail-round.jsonl), written through a
Session with a fixed clock so that every screen of it is the same on every run."""
from __future__ import annotations

import json
from pathlib import Path

from companion.core.journal import Journal
from companion.core.session import Session

from screens_game import Clock

ROUND = Path(__file__).resolve().parents[2] / "examples" / "jail-round.jsonl"


def commands() -> list[dict]:
    return [json.loads(line) for line in ROUND.read_text().splitlines() if line.startswith("{")]


def table(path, upto: int | None = None) -> tuple[Session, Clock]:
    """A journal at `path` with the example's first `upto` commands (all: the round scored)."""
    clock = Clock()
    session = Session(Journal(path), clock=clock)
    for command in commands()[:upto]:
        session.submit(command)
    return session, clock
