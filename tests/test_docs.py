"""The repository's documents stand on their own: every rule id the code and tests cite is written
in docs/rules/, every docs/rules page named exists, and no tracked file points outside the
repository (a folder beside it, an issue number)."""
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules"
PAGES = {"bingo": "plunder-bingo.md", "voters": "voters.md", "bluff": "auction-bluff.md", "jail": "jailbreak.md"}
GAME_OF_PREFIX = {"R": "bingo", "V": "voters", "AB": "bluff", "J": "jail"}     # D… is each game's own
# A rule id as cited: R6, D19, AB2 — not a card serial in quotes ("R1", "V01-0") or inside a word.
CITED = re.compile(r"(?<![\w\"'<-])(AB|R|D|V|J)(\d{1,2})(?![\w\"'-])")
CITING = ("companion", "drivers", "tui", "vision", "tests")
# Where nothing may point: a folder beside the checkout, the machine's paths, the issue tracker.
OUTSIDE = re.compile(r"\.\./shared|\bshared/(rules|seeds)/|/work/|\bissues? #?\d+\b|/issues/\d+", re.IGNORECASE)


def _tracked() -> list[Path]:
    try:
        names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: no list of tracked files")
    return [ROOT / name for name in names.splitlines() if (ROOT / name).is_file()]


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None                                  # a picture or other binary file


def _game(path: Path) -> str:
    """The game whose D… ids a file cites: the one its path names, else Plunder Bingo."""
    return next((game for game in ("voters", "bluff", "jail") if game in path.relative_to(ROOT).as_posix()), "bingo")


def _ids(text: str) -> set[str]:
    return {prefix + number for prefix, number in CITED.findall(text)}


def test_every_rule_id_the_code_and_tests_cite_is_written_in_docs_rules():
    written = {game: _ids((RULES / page).read_text(encoding="utf-8")) for game, page in PAGES.items()}
    missing = []
    for path in (ROOT / folder for folder in CITING):
        for source in sorted(path.rglob("*.py")):
            for line_no, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
                for rule in _ids(line):
                    game = GAME_OF_PREFIX.get(re.match(r"[A-Z]+", rule).group(), _game(source))
                    if rule not in written[game]:
                        missing.append(f"{source.relative_to(ROOT)}:{line_no}: {rule} is not in docs/rules/{PAGES[game]}")
    assert not missing, "\n".join(missing)


def test_the_pinned_decisions_are_written_in_their_games_pages():
    assert {"D22", "D23", "R2"} <= _ids((RULES / PAGES["bingo"]).read_text(encoding="utf-8"))
    assert {"D7", "D8"} <= _ids((RULES / PAGES["bluff"]).read_text(encoding="utf-8"))


def test_no_tracked_file_points_outside_the_repository_or_at_an_issue():
    found = []
    for path in _tracked():
        text = _text(path) if path != Path(__file__).resolve() else None
        for line_no, line in enumerate((text or "").splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{line_no}: {OUTSIDE.search(line).group()!r}")
    assert not found, "\n".join(found)


def test_every_docs_rules_page_a_file_names_exists():
    named = {match for path in _tracked() for match in re.findall(r"docs/rules/[\w.-]+\.md", _text(path) or "")}
    assert named, "the README names the rules pages"
    assert not [name for name in named if not (ROOT / name).is_file()]
