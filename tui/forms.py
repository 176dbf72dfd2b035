"""Typing a command in: one small form per command, and a yes/no question.

A form only turns text into numbers and lists; whether the command has the right shape
is for the game's schema to say (the one of the console's session), and whether it is
allowed, for the rules. Forms are keyed by command name: the shared ones here, each game's in its
own package (tui/<game>/forms.py or its console), beside them in its form's TABLE.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input

from companion.core.commands import Malformed

from .plain import Label


@dataclass(frozen=True)
class Field:
    key: str
    label: str
    kind: str = "str"        # str | int | int_or_none (blank: null) | ints | marks | words
    optional: bool = False
    parse: Callable[[str], object] | None = None    # a game's own kind: the text to its value (raises FormError)


PLAYER = Field("player", "Player no.", "int")
SERIAL = Field("serial", "Card serial (as printed)")
CARD_SERIAL = Field("serial", "Card serial (blank: typed without a card)", optional=True)

# command -> (title, fields): the forms every game's console shares; a game's own are in its
# tui/<game>/ (its CommandForm's TABLE, its console's FORM)
FORMS: dict[str, tuple[str, list[Field]]] = {
    "void": ("Void a card by its serial (a held one too)", [SERIAL]),
}


class FormError(ValueError):
    pass


def convert(field: Field, text: str):
    text = text.strip()
    if field.parse:
        return field.parse(text)
    if field.kind == "int_or_none" and not text:
        return None
    try:
        if field.kind in ("int", "int_or_none"):
            return int(text.replace(",", "").replace("_", ""))
        if field.kind == "ints":
            return [int(part) for part in text.replace(",", " ").split()]
    except ValueError:
        raise FormError(f"{field.label}: whole numbers please, not {text!r}") from None
    if field.kind == "marks":
        return [letter for letter in text.upper() if not letter.isspace()]
    if field.kind == "words":
        return text.replace(",", " ").split()
    return text


def as_text(value) -> str:
    if isinstance(value, list):
        return ("" if all(isinstance(v, str) and len(v) == 1 for v in value) else " ").join(map(str, value))
    return "" if value is None else str(value)


class CommandForm(ModalScreen[dict | None]):
    """Fields for one command; Enter moves on and submits from the last field, Esc cancels."""

    # Enter is taken before the field sees it: the next field gets focus before the next key is
    # dispatched, so a fast typist's (or a scanner's) "12<Enter>in<Enter>" fills both fields
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("enter", "next", show=False, priority=True)]
    TABLE = FORMS                          # a game whose command names are another's: its own table

    def __init__(self, command: str, values: dict | None = None, extra: dict | None = None):
        super().__init__(classes="form")
        self.command = command
        self.title_text, self.fields = self.TABLE[command]
        self.values = values or {}
        self.extra = extra or {}           # keys sent as they are (e.g. rule's serial)
        self._sending = False

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.title_text, id="title")
            for field in self.fields:
                yield Label(field.label + (" (optional)" if field.optional else ""), classes="field-label")
                yield Input(as_text(self.values.get(field.key)), id=f"field-{field.key}")
            yield Label("", id="error")
            yield Label("Enter: next / send   Esc: cancel", classes="hint")

    def action_next(self) -> None:
        inputs = list(self.query(Input))
        at = inputs.index(self.focused) if self.focused in inputs else len(inputs) - 1
        if at + 1 < len(inputs):
            self.set_focus(inputs[at + 1])
        elif not self._sending:              # a second Enter while the first is on its way
            self._sending = True
            self._when_typed(inputs, self._send)

    def _when_typed(self, inputs: list[Input], then) -> None:
        """Run `then` once every field has taken the keys already sent to it (each field takes
        its keys in its own time)."""
        if inputs:
            inputs[0].call_later(self._when_typed, inputs[1:], then)
        else:
            then()

    def _send(self) -> None:
        try:
            self.dismiss(self.command_dict())
        except (FormError, Malformed) as error:
            self._sending = False
            self.query_one("#error", Label).update(str(error))

    def command_dict(self) -> dict:
        data = dict(self.extra)
        for field in self.fields:
            text = self.query_one(f"#field-{field.key}", Input).value
            if field.optional and not text.strip():
                continue
            data[field.key] = convert(field, text)
        schema = self.app.session.rules.schema
        command = {"do": self.command, **data} if self.command in schema.commands else data
        if "do" in command:
            schema.parse(command)       # the shape, checked where the game defines its commands
        return command

    def action_cancel(self) -> None:
        self.dismiss(None)


class Confirm(ModalScreen[bool]):
    """A yes/no question: y or Enter for yes, n or Esc for no."""

    BINDINGS = [Binding("y,enter", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]

    def __init__(self, question: str):
        super().__init__(classes="form")
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.question, id="title")
            yield Label("y / Enter: yes    n / Esc: no", classes="hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
