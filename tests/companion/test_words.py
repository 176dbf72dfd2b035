"""The screens' words: one gettext catalogue per language, every shown word translated, and the
event file's [display] language choosing "ja+en", "ja" or "en"."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from companion.core import words
from companion.core.columns import display_width

ROOT = Path(__file__).resolve().parents[2]
# The screens whose words are in the catalogue so far (tui/bluff, tui/jail and the consoles: not yet).
SCREENS_PY = ["tui/display.py", "tui/widgets.py", "tui/voters/display.py", "tui/voters/words.py"]
SCREENS_JS = ["tui/web/page.js"]
PAGE_HTML = "tui/web/index.html"


def python_msgids(path: Path) -> set[str]:
    """The literal msgids of every _(), stacked() and say() call in a Python file."""
    tree = ast.parse(path.read_text("utf-8"))
    return {msgid for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("_", "stacked", "say") and node.args
            for msgid in literals(node.args[0])}


def literals(node: ast.AST) -> set[str]:
    """The strings an argument can be: a literal, or either literal of `a if test else b`."""
    if isinstance(node, ast.IfExp):
        return literals(node.body) | literals(node.orelse)
    return {node.value} if isinstance(node, ast.Constant) and isinstance(node.value, str) else set()


def js_msgids(text: str) -> set[str]:
    """t("...") calls, and the words of the phase tables and PLACES (looked up through t())."""
    found = set(re.findall(r'\bt\("((?:[^"\\]|\\.)*)"', text))
    places = re.search(r"const PLACES = \[(.*?)\];", text, re.S).group(1)
    for phases in re.findall(r"const \w*PHASES = \{(.*?)\};", text, re.S):
        found |= set(re.findall(r':\s*"([^"]*)"', phases))
    found |= {row[2] for row in re.findall(r'\["(\w+)", "([^"]*)", "([^"]*)"\]', places)}
    return found


def shown_msgids() -> set[str]:
    from tui import display, widgets
    from tui.voters import words as voters
    found = set(display.PHASES.values()) | set(voters.PHASES.values()) | set(widgets.PLACES)
    for name in SCREENS_PY:
        found |= python_msgids(ROOT / name)
    for name in SCREENS_JS:
        found |= js_msgids((ROOT / name).read_text("utf-8"))
    found |= set(re.findall(r'data-words="([^"]*)"', (ROOT / PAGE_HTML).read_text("utf-8")))
    return found


def test_every_shown_word_has_a_translation_in_each_catalogue():
    shown = shown_msgids()
    assert len(shown) > 30                              # the extraction found the screens' words
    for language in ("ja", "en"):
        catalogue = words.entries(language)
        missing = sorted(msgid for msgid in shown if not catalogue.get(msgid))
        assert not missing, f"{language}.po has no translation for {missing}"


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
    with pytest.raises(ValueError, match="line 2: cannot read"):
        words.parse_po('msgid "a"\nmsgstr a\n')


def test_the_event_file_chooses_the_language(tmp_path, capsys):
    from companion import event_file
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
