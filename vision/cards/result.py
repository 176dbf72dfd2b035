"""What a scan says: the decision with its reason (the decision table's row that fired: code and message),
every finding seen, the fields read, the scores and the command."""
from __future__ import annotations

from dataclasses import dataclass, field

from companion.core.columns import literal


@dataclass
class Result:
    image: str
    decision: str                       # counted | invalid | review | rejected | ignored
    reason: str | None = None          # the reason's message (English), as the console and review queue show it
    kind: str | None = None
    serial: str | None = None
    owner: int | None = None
    turn: int | None = None
    fields: dict = field(default_factory=dict)      # field -> values read as marked
    scores: dict = field(default_factory=dict)      # field -> value -> score
    command: dict | None = None                     # what goes to the referee, if anything
    crop: str | None = None
    ms: float = 0.0
    method: str | None = None                       # markers | outline
    reason_code: str | None = None                  # the code of the decision table's row that fired, if one
    findings: list = field(default_factory=list)    # every finding seen (code, field, value, message)

    def explain(self, reason) -> None:
        """Record the finding that decided (vision.cards.reasons.Finding, or None): its code and English message."""
        self.reason = reason and reason.message()
        self.reason_code = reason and reason.code.value

    def to_json(self) -> dict:
        """As logged and printed: the photo's name (anyone's) and the reason, which may name it, shown literally."""
        out = {k: v for k, v in self.__dict__.items() if v not in (None, {}, []) or k in ("decision", "fields")}
        return {**out, **{k: literal(out[k]) for k in ("image", "reason") if k in out}}


class Rejection(Exception):
    """The image is not a readable card of this event: reason names why."""
