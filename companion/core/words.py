"""The words the screens show, out of the code: one gettext catalogue per language, read through
Python's gettext, made of the shared words (companion/locale/ja.po, en.po) and each game's own,
in its package (companion/<game>/locale/ja.po, en.po). The event file's [display]
language chooses how a screen speaks: "ja+en" (both, Japanese first, as the printed cards do),
"ja" or "en".

The .po sources are compiled to .mo in memory when first used (msgfmt's logic, below), so a
catalogue can never be stale and nothing needs building. A msgid may hold {placeholders}:
_("{n} votes", n=3) fills them in each language; a placeholder filled with word("msgid") is said
in the language of each part: _("Period {n}: {phase}", n=1, phase=word("Dice vote")).
"""
from __future__ import annotations

import ast
import gettext
import io
import struct
from functools import cache
from pathlib import Path

LANGUAGES = ("ja+en", "ja", "en")
DEFAULT = "ja+en"
LOCALE = Path(__file__).resolve().parent.parent / "locale"
BOTH = " · "            # between the Japanese and the English, as on the cards and phone pages

_chosen = DEFAULT


def choose(language: str) -> None:
    """How every screen of this process speaks from now on."""
    global _chosen
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(map(repr, LANGUAGES))}, not {language!r}")
    _chosen = language


def chosen() -> str:
    return _chosen


def N_(msgid: str) -> str:
    """msgid as it is: marks a word kept in a table (a pane's title, a column) that a screen says
    through _() when it shows it (gettext's convention)."""
    return msgid


def _(msgid: str, **fill) -> str:
    """msgid in the chosen language: "ja+en" gives the Japanese, then the English."""
    return say(msgid, _chosen, **fill)


def stacked(msgid: str, **fill) -> str:
    """As _(), the Japanese above the English: for a long line on a screen with rows to spare."""
    return say(msgid, _chosen, **fill).replace(BOTH, "\n")


def languages() -> list[str]:
    """The chosen languages one by one ("ja+en": ja, then en), for a line said in each."""
    return _chosen.split("+")


def in_each(render) -> str:
    """render(language) for each chosen language, joined as _() joins them: for a list of words."""
    return BOTH.join(dict.fromkeys(render(language) for language in languages()))


class word(str):
    """A msgid as a placeholder's value: said in the language of the sentence it fills."""


def say(msgid: str, language: str, **fill) -> str:
    parts = [said(msgid, part, fill) if fill else catalogue(part).gettext(msgid)     # the page fills its own
             for part in language.split("+")]
    return BOTH.join(dict.fromkeys(parts))       # a word the same in both (a letter, "DOBON!") once


def said(msgid: str, language: str, fill: dict) -> str:
    """msgid in one language, its placeholders filled (a word() in that language too)."""
    return catalogue(language).gettext(msgid).format(
        **{key: say(value, language) if isinstance(value, word) else value for key, value in fill.items()})


def both(msgid: str, **fill) -> str:
    """msgid in Japanese and English whatever the screens speak: for paper."""
    return say(msgid, "ja+en", **fill)


def every_word(language: str | None = None) -> dict[str, str]:
    """Every msgid and how it reads in `language` (the chosen one by default): what the page gets."""
    return {msgid: say(msgid, language or _chosen) for msgid in entries("en")}


@cache
def catalogue(language: str) -> gettext.GNUTranslations:
    return gettext.GNUTranslations(io.BytesIO(compile_po(entries(language))))


@cache
def entries(language: str) -> dict[str, str]:
    """msgid -> msgstr of the shared locale/<language>.po and every game's (the header entry left out)."""
    return {msgid: msgstr for path in po_files(language)
            for msgid, msgstr in parse_po(path.read_text("utf-8"), str(path)).items() if msgid}


def po_files(language: str) -> list[Path]:
    """The shared catalogue of a language, then each game's: a locale/ in a package beside core/."""
    import companion
    return [LOCALE / f"{language}.po",
            *sorted(path for folder in companion.__path__ for path in Path(folder).glob(f"*/locale/{language}.po"))]


def parse_po(text: str, name: str = ".po") -> dict[str, str]:
    """The entries of a .po file's text: msgid and msgstr, each one or more quoted strings; name:
    the file, as an error says it."""
    found, key, current = {}, None, {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _space, rest = line.partition(" ")
        if word in ("msgid", "msgstr"):
            if word == "msgid" and "msgid" in current:
                found[current["msgid"]] = current.get("msgstr", "")
                current = {}
            key, line = word, rest
        if key is None or not line.startswith('"'):
            raise ValueError(f"{name} line {number}: cannot read {line!r}")
        current[key] = current.get(key, "") + ast.literal_eval(line)
    if "msgid" in current:
        found[current["msgid"]] = current.get("msgstr", "")
    return found


def compile_po(messages: dict[str, str]) -> bytes:
    """A .mo file of the messages (Python's Tools/i18n/msgfmt.py): a header, two tables of
    (length, offset), then the strings."""
    messages = {"": "Content-Type: text/plain; charset=UTF-8\n", **messages}
    keys = sorted(messages)
    ids = b"".join(key.encode() + b"\0" for key in keys)
    strs = b"".join(messages[key].encode() + b"\0" for key in keys)
    start = 7 * 4 + 16 * len(keys)
    offsets, at_id, at_str = [], 0, 0
    for key in keys:
        offsets.append((len(key.encode()), start + at_id, len(messages[key].encode()), start + len(ids) + at_str))
        at_id += len(key.encode()) + 1
        at_str += len(messages[key].encode()) + 1
    header = struct.pack("Iiiiiii", 0x950412DE, 0, len(keys), 7 * 4, 7 * 4 + 8 * len(keys), 0, 0)
    id_table = b"".join(struct.pack("ii", n, at) for n, at, _n, _at in offsets)
    str_table = b"".join(struct.pack("ii", n, at) for _n, _at, n, at in offsets)
    return header + id_table + str_table + ids + strs
