"""The screens' words: one gettext catalogue per language, every shown word translated, and the
event file's [display] language choosing "ja+en", "ja" or "en"."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from companion.core import games, words
from companion.core.columns import display_width

ROOT = Path(__file__).resolve().parents[2]
# A call of one of these names a msgid (companion/core/words.py; "said": a parameter that is _ or stacked).
MARKS = ("_", "stacked", "say", "both", "word", "N_", "said")


def python_msgids(path: Path) -> set[str]:
    """The literal msgids of every call that marks one (MARKS) in a Python file, and the description
    of every key binding (the key bar says it through _()), but the forms': no key bar shows those."""
    calls = [node for node in ast.walk(ast.parse(path.read_text("utf-8"))) if isinstance(node, ast.Call)]
    found = {msgid for node in calls if getattr(node.func, "id", None) in MARKS and node.args
             for msgid in literals(node.args[0])}
    if path.name != "forms.py":
        found |= {msgid for node in calls if getattr(node.func, "id", None) == "Binding" and len(node.args) > 2
                  for msgid in literals(node.args[2])}
    return found


def literals(node: ast.AST) -> set[str]:
    """The strings an argument can be: a literal, or either literal of `a if test else b`."""
    if isinstance(node, ast.IfExp):
        return literals(node.body) | literals(node.orelse)
    return {node.value} if isinstance(node, ast.Constant) and isinstance(node.value, str) else set()


def js_msgids(text: str) -> set[str]:
    """t("...") and word("...") calls, and the words of the tables looked up through t(): every
    const ...PHASES and ...OUTCOMES = {...}, and PLACES."""
    found = set(re.findall(r'\b(?:t|word)\("((?:[^"\\]|\\.)*)"', text))
    for table in re.findall(r"const \w*(?:PHASES|OUTCOMES) = \{(.*?)\};", text, re.S):
        found |= set(re.findall(r':\s*"([^"]*)"', table))
    places = re.search(r"const PLACES = \[(.*?)\];", text, re.S)
    if places:
        found |= {row[2] for row in re.findall(r'\["(\w+)", "([^"]*)", "([^"]*)"\]', places.group(1))}
    return found


def html_msgids(text: str) -> set[str]:
    return set(re.findall(r'data-words="([^"]*)"', text))


def test_the_phone_pages_words_are_found():
    """The players' phone page (phone.html, phone.js) speaks the catalogue: its words are msgids."""
    page = html_msgids((ROOT / "tui/bluff/phone.html").read_text("utf-8"))
    script = js_msgids((ROOT / "tui/bluff/phone.js").read_text("utf-8"))
    assert {"Send faces", "Your vote", "Declare", "Dice held"} <= page
    assert {"Accepted", "No console is open: ask the dealer", "{gem} die {n}"} <= script


def table_msgids() -> dict[str, set[str]]:
    """The msgids each game's screens keep in tables and look up through _(): phases, outcomes,
    ball places and gems."""
    from companion.bluff.commands import GEMS
    from tui.bingo import console, display, widgets
    from tui.bluff import words as bluff
    from tui.jail import words as jail
    from tui.voters import words as voters
    return {"bingo": {*display.PHASES.values(), *console.PHASES.values(), *widgets.PLACES},
            "voters": set(voters.PHASES.values()), "bluff": {*bluff.PHASES.values(), *bluff.OUTCOMES.values(), *GEMS},
            "jail": set(jail.PHASES.values())}


def whose(path: Path) -> str:
    """The game a screen's file is (tui/<game>/..., tui/web/<game>.js or <game>-words.js), or "shared"."""
    parts = path.relative_to(ROOT / "tui").parts
    if len(parts) > 1 and parts[0] in games.GAMES:
        return parts[0]
    named = re.match(r"[a-z]*", parts[-1]).group() if parts[0] == "web" else ""
    return named if named in games.GAMES else "shared"


def msgids_by_user() -> dict[str, set[str]]:
    """msgid -> who shows it: "shared" or the games whose screens do. Every msgid the screens use:
    the marked calls of every Python file under tui/, the pages' scripts and the data-words of their
    HTML (the audience page's, the phone page's), and the tables."""
    found = [(game, table) for game, table in table_msgids().items()]
    for path in (ROOT / "tui").rglob("*.py"):
        found.append((whose(path), python_msgids(path)))
    for path in (ROOT / "tui").rglob("*.js"):
        if not path.name.endswith(".min.js"):           # a library's, not ours
            found.append((whose(path), js_msgids(path.read_text("utf-8"))))
    for path in (ROOT / "tui").rglob("*.html"):
        found.append((whose(path), html_msgids(path.read_text("utf-8"))))
    users = {}
    for user, msgids in found:
        for msgid in msgids:
            users.setdefault(msgid, set()).add(user)
    return users


def shown_msgids() -> set[str]:
    return set(msgids_by_user())


def catalogue_of(msgid: str, users: dict[str, set[str]]) -> str:
    """Where a word belongs: the one game whose screens alone show it, else the shared catalogue."""
    return next(iter(users[msgid])) if len(users.get(msgid, ())) == 1 else "shared"


def test_each_game_s_words_are_in_its_own_catalogue_and_the_shared_one_holds_the_rest():
    """A game's words live in its package (companion/<game>/locale), so a new game edits no shared
    catalogue; the shared one (companion/locale) holds what shared screens or several games show."""
    users = msgids_by_user()
    for language in ("ja", "en"):
        held = {"shared": set(words.parse_po((words.LOCALE / f"{language}.po").read_text("utf-8"))) - {""}}
        for name in games.GAMES:
            path = ROOT / "companion" / name / "locale" / f"{language}.po"
            held[name] = set(words.parse_po(path.read_text("utf-8"))) if path.exists() else set()
        misplaced = sorted((msgid, where) for where, msgids in held.items() for msgid in msgids
                           if catalogue_of(msgid, users) != where)
        assert not misplaced, f"{language}: (msgid, the catalogue holding it) where another should: {misplaced}"
        assert sum(map(len, held.values())) == len(words.entries(language))      # none in two catalogues
        assert all(held[name] for name in games.GAMES)


def test_every_shown_word_has_a_translation_in_each_catalogue():
    shown = shown_msgids()
    assert len(shown) > 100                              # the extraction found the screens' words
    for language in ("ja", "en"):
        catalogue = words.entries(language)
        missing = sorted(msgid for msgid in shown if not catalogue.get(msgid))
        assert not missing, f"{language}.po has no translation for {missing}"


def test_no_catalogue_entry_is_unused():
    unused = sorted(set(words.entries("en")) - shown_msgids())
    assert not unused, f"companion/locale has entries no screen uses: {unused}"


def test_a_msgstr_never_holds_the_separator_of_both_languages():
    """"ja+en" joins the two with words.BOTH; the page splits them there (t(), stack())."""
    held = [msgid for language in ("ja", "en") for msgid, text in words.entries(language).items()
            if words.BOTH in text]
    assert not held, held


def test_the_catalogues_hold_the_same_words_and_japanese_is_japanese():
    ja, en = words.entries("ja"), words.entries("en")
    assert ja.keys() == en.keys()
    english_only = [msgid for msgid, text in ja.items() if not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", text)]
    assert not english_only, f"ja.po entries with no Japanese: {english_only}"
    for msgid, text in ja.items():                      # the same {placeholders} in each
        assert set(re.findall(r"\{(\w+)\}", text)) == set(re.findall(r"\{(\w+)\}", msgid)), msgid


@pytest.mark.parametrize("language, expected", [
    ("ja", "3票"), ("en", "3 votes"), ("ja+en", "3票 · 3 votes")])
def test_each_language_renders(language, expected):
    assert words.say("{n} votes", language, n=3) == expected
    assert words.every_word(language)["TURN"] == {"ja": "ターン", "en": "TURN", "ja+en": "ターン · TURN"}[language]


def test_choose_sets_the_words_of_every_screen_and_refuses_another_language():
    try:
        words.choose("ja")
        assert words._("Rank") == "順位"
        with pytest.raises(ValueError, match="language must be one of 'ja\\+en', 'ja', 'en', not 'fr'"):
            words.choose("fr")
        assert words.chosen() == "ja"
    finally:
        words.choose(words.DEFAULT)


def test_the_compiled_catalogue_is_what_gettext_reads():
    mo = words.compile_po({"a": "あ", "bb": "いい"})
    import gettext
    import io
    catalogue = gettext.GNUTranslations(io.BytesIO(mo))
    assert (catalogue.gettext("a"), catalogue.gettext("bb"), catalogue.gettext("c")) == ("あ", "いい", "c")


def test_a_broken_po_line_is_one_clear_error():
    with pytest.raises(ValueError, match="^ja.po line 2: cannot read 'a'$"):
        words.parse_po('msgid "a"\nmsgstr a\n', "ja.po")


def test_the_event_file_chooses_the_language(tmp_path, capsys):
    from companion.core import event_file
    from companion.cli import main
    path = tmp_path / "event.toml"
    assert main(["init", "--out", str(path)]) == 0
    assert event_file.load(path).language == "ja+en"          # the default: both
    path.write_text(path.read_text() + '\n[display]\nlanguage = "ja"\n')
    assert event_file.load(path).language == "ja"


def test_japanese_words_are_measured_by_display_width():
    """A Japanese word takes two columns a character on the terminal."""
    assert display_width(words.say("TURN", "ja")) == 6
    assert display_width(words.say("TURN", "ja+en")) == 6 + 3 + 4
