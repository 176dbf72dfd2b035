"""Text tables for the terminal, measured as a terminal draws them: a Japanese name takes two
columns a character, a combining accent none, so columns line up whatever the names are."""
from __future__ import annotations

import unicodedata
from itertools import zip_longest


def display_width(text: str) -> int:
    """The columns a terminal gives text: wide and fullwidth characters two, combining marks and
    format characters (zero-width joiners) none, every other one."""
    return sum(0 if unicodedata.combining(ch) or unicodedata.category(ch) == "Cf"
               else 2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def literal(text: str) -> str:
    """Anyone's text (a file's name, a person's words) as it is, shown safely: a byte that was no UTF-8 (a file
    name's, kept by os.fsdecode) as \\xff, a control character (a newline, a terminal's escape) or a lone
    surrogate as its escape; a terminal, a log or a JSON line takes every character left."""
    return text if text.isprintable() else "".join(map(_escaped, text))


def _escaped(ch: str) -> str:
    if "\udc80" <= ch <= "\udcff":
        return f"\\x{ord(ch) - 0xdc00:02x}"
    return repr(ch)[1:-1] if unicodedata.category(ch) in ("Cc", "Cs") else ch


def clipped(text: str, columns: int) -> str:
    """text on one line, cut with "…" to fit `columns` terminal columns (a Japanese message is two a character)."""
    text = " ".join(text.split())
    if display_width(text) <= columns:
        return text
    while display_width(text) > columns - 1:
        text = text[:-1]
    return text + "…"


def pad(text: str, width: int, right: bool = False) -> str:
    """text filled with spaces to `width` columns (on the left when right-aligned); longer text is kept whole."""
    fill = " " * max(0, width - display_width(text))
    return fill + text if right else text + fill


def table(rows: list[list[str]], right: tuple[int, ...] = (), indent: str = "  ") -> list[str]:
    """Rows of cells as lines, each column as wide as its widest cell; `right`: the columns
    aligned right (numbers). A shorter row leaves its last columns empty; no line ends in spaces."""
    filled = [list(row) for row in zip(*zip_longest(*rows, fillvalue=""))]
    widths = [max(map(display_width, column), default=0) for column in zip(*filled)]
    return [(indent + " ".join(pad(cell, width, n in right) for n, (cell, width) in enumerate(zip(row, widths)))).rstrip()
            for row in filled]
