"""ARCHITECTURE.md laws 1 and 10: the domain never imports hardware, vision or UI code; no game imports another."""
import ast
import importlib
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {"textual", "cv2", "serial", "gpiozero", "drivers", "vision", "tui", "numpy", "reportlab"}


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_companion_imports_nothing_outside_the_domain():
    offenders = {}
    for path in (ROOT / "companion").rglob("*.py"):
        if "cli" in path.relative_to(ROOT / "companion").parts:
            continue          # the composition root; it imports lazily (next test)
        bad = imported_modules(path) & FORBIDDEN
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert not offenders


def test_cli_modules_import_heavy_libraries_only_inside_commands():
    for path in (ROOT / "companion" / "cli").glob("*.py"):
        top_level = set()
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Import):
                top_level |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                top_level.add(node.module.split(".")[0])
        assert not top_level & FORBIDDEN, f"{path.name} imports {top_level & FORBIDDEN} at the top"


def test_replay_loads_no_opencv_textual_or_serial():
    code = ("import sys, contextlib, io\n"
            "from companion.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main(['replay', {str(ROOT / 'examples' / 'demo-game.jsonl')!r}])\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in %r))" % (FORBIDDEN,))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def absolute_imports(path: Path) -> set[str]:
    """Every module a file imports, relative imports resolved ("from ..bingo import x" in
    companion/voters/a.py is companion.bingo and companion.bingo.x)."""
    package = list(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names |= {module} | {f"{module}.{alias.name}" for alias in node.names}
    return names


def bingo_imports(paths) -> dict[str, list[str]]:
    found = {}
    for path in paths:
        bingo = sorted(n for n in absolute_imports(path) if n == "companion.bingo" or n.startswith("companion.bingo."))
        if bingo:
            found[str(path.relative_to(ROOT))] = bingo
    return found


def test_absolute_imports_resolves_relative_imports():
    assert "companion.bingo.event" in absolute_imports(ROOT / "companion" / "bingo" / "__init__.py")
    assert "companion.core.review" in absolute_imports(ROOT / "companion" / "voters" / "decide.py")
    assert "companion.core.games" in absolute_imports(ROOT / "companion" / "core" / "event_file.py")


def test_the_shared_core_imports_no_plunder_bingo_module():
    assert not bingo_imports((ROOT / "companion" / "core").rglob("*.py"))


def test_companions_top_modules_import_no_plunder_bingo_module():
    assert not bingo_imports((ROOT / "companion").glob("*.py"))


def test_voters_imports_no_plunder_bingo_module():
    paths = list((ROOT / "companion" / "voters").rglob("*.py"))
    assert len(paths) >= 8 and not bingo_imports(paths)


def other_game_imports(game: str) -> dict[str, list[str]]:
    """The modules of another game (bingo, voters, ...) a game's package imports."""
    others = [f"companion.{name}" for name in games_listed() if name != game]
    found = {}
    for path in (ROOT / "companion" / game).rglob("*.py"):
        bad = sorted(n for n in absolute_imports(path) if any(n == o or n.startswith(o + ".") for o in others))
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    return found


def games_listed() -> list[str]:
    from companion.core.games import GAMES
    return list(GAMES)


def test_bluff_imports_no_other_game():
    assert len(list((ROOT / "companion" / "bluff").rglob("*.py"))) >= 8
    assert not other_game_imports("bluff")


def test_jail_imports_no_other_game():
    assert len(list((ROOT / "companion" / "jail").rglob("*.py"))) >= 9
    assert not other_game_imports("jail")


MARKUP_READERS = {"textual.widgets": {"Static", "Label", "OptionList", "DataTable"}, "rich.table": {"Table"}}


def test_screens_take_their_text_widgets_from_tui_plain():
    """Law 9: Textual and Rich read a str as markup; tui/plain.py's widgets read it as text. A
    screen that took one of these from Textual or Rich would show a player's "[/bold]" as markup."""
    offenders = []
    for path in (ROOT / "tui").rglob("*.py"):
        if path.name == "plain.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module in MARKUP_READERS:
                taken = {alias.name for alias in node.names} & MARKUP_READERS[node.module]
                offenders += [f"{path.relative_to(ROOT)}: {name} from {node.module}" for name in sorted(taken)]
    assert not offenders


def game_modules(game) -> list[str]:
    """Where a game declares itself: its rules, the packages of its screens, its printer, its card
    layouts and its phone pages."""
    screens = [name.rpartition(".")[0] for name in (game.screens.console, game.screens.display)] if game.screens else []
    named = {f"companion.{game.name}", *screens, *(name.partition(":")[0] for name in
                                                   (game.printer, game.layouts, game.phones) if name)}
    return sorted(name for name in named if not any(name.startswith(f"{other}.") for other in named))


def independence_contracts() -> dict[str, dict]:
    """Law 10, one import-linter contract a game, built from the registry: a game's modules import
    no other game's, indirect chains included."""
    from companion.core.games import GAMES
    modules = {name: game_modules(game) for name, game in GAMES.items()}
    return {f"{name}-alone": {"name": f"{game.title} imports no other game", "type": "forbidden",
                              "source_modules": modules[name],
                              "forbidden_modules": [m for other in GAMES if other != name for m in modules[other]]}
            for name, game in GAMES.items()}


def importlinter_ini(contracts: dict[str, dict]) -> str:
    """pyproject.toml's [tool.importlinter] (the layers) and these contracts, in import-linter's INI form."""
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    written = {contract.get("id", f"pyproject-{n}"): contract for n, contract in enumerate(settings["contracts"])}
    sections = {"importlinter": {"root_packages": settings["root_packages"]},
                **{f"importlinter:contract:{key}": contract for key, contract in {**written, **contracts}.items()}}

    def value(v) -> str:
        return "".join(f"\n    {item}" for item in v) if isinstance(v, list) else str(v)
    return "\n".join(f"[{section}]\n" + "".join(f"{key} = {value(v)}\n" for key, v in options.items())
                     for section, options in sections.items())


def test_each_game_s_independence_contract_comes_from_the_registry(monkeypatch):
    """A fifth game is covered by law 10's contracts with no shared file edited."""
    from dataclasses import replace

    from companion.core import games
    monkeypatch.setitem(games.discover(), "chess", replace(games.rules("jail"), name="chess", title="Chess",
                                                          screens=None, printer="vision.printers.chess:PRINTER"))
    contracts = independence_contracts()
    assert contracts["chess-alone"] == {
        "name": "Chess imports no other game", "type": "forbidden",
        "source_modules": ["companion.chess", "vision.printers.chess"],
        "forbidden_modules": [*game_modules(games.rules("bingo")), *game_modules(games.rules("voters")),
                              *game_modules(games.rules("bluff")), *game_modules(games.rules("jail"))]}
    assert {"companion.chess", "vision.printers.chess"} <= set(contracts["bingo-alone"]["forbidden_modules"])
    assert game_modules(games.rules("bluff")) == ["companion.bluff", "tui.bluff", "vision.layouts.bluff",
                                                  "vision.printers.bluff"]
    assert "forbidden_modules = \n    companion.bingo\n" in importlinter_ini(contracts)


def test_the_import_contracts_hold(tmp_path):
    """Laws 1 and 10 as import-linter contracts: the layers (pyproject.toml, [tool.importlinter])
    and no game importing another (independence_contracts), indirect chains included. A broken
    contract fails with lint-imports' own report: which import, on which line, through which chain."""
    config = tmp_path / "importlinter.ini"
    config.write_text(importlinter_ini(independence_contracts()), encoding="utf-8")
    result = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()",
                             "--no-cache", "--no-logo", str(config)], cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        pytest.fail(result.stdout + result.stderr, pytrace=False)


ARCHITECTURE = ROOT / "docs" / "architecture.md"
PACKAGES = ("companion", "vision", "drivers", "tui")


def missing_names(text: str) -> list[str]:
    """What a document names in backticks that is not there: a path (`tui/<game>/` where at least
    one game has it), a file name anywhere in the repository (`journal.py`) or a module and its
    attribute (`companion.core.games.GAMES`)."""
    from companion.core.games import GAMES
    missing = []
    for name in re.findall(r"`([^`\s]+)`", text):
        if "/" in name:
            there = any((ROOT / name.replace("<game>", game)).exists() for game in GAMES)
        elif re.fullmatch(r"[\w-]+\.(py|md|toml|js|css|html)", name):
            there = (ROOT / name).exists() or any(any((ROOT / folder).rglob(name)) for folder in PACKAGES)
        elif re.fullmatch(r"(%s)(\.\w+)+" % "|".join(PACKAGES), name):
            there = resolves(name)
        else:
            continue
        if not there:
            missing.append(name)
    return missing


def resolves(dotted: str) -> bool:
    """A module, or an attribute of the longest module its name begins with."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attribute in parts[cut:]:
                found = getattr(found, attribute)
        except AttributeError:
            return False
        return True
    return False


def test_the_architecture_document_names_only_what_exists():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert len(re.findall(r"`[^`\s]*/[^`\s]*`", text)) > 30
    assert missing_names(text) == []


def test_missing_names_finds_each_kind():
    text = "`vision/nowhere.py` `tui/<game>/phone.py` `tui/<game>/nothing.py` `gone.py` `journal.py` " \
           "`companion.core.games.GAMES` `companion.core.games.LIST` `companion.nowhere` `page.js`' `companion replay`"
    assert missing_names(text) == ["vision/nowhere.py", "tui/<game>/nothing.py", "gone.py",
                                   "companion.core.games.LIST", "companion.nowhere"]


# The ball reader (the cage, its camera and labels) is hardware any game with balls may use (its
# Screens.balls); Plunder Bingo is the one that does today. Its shared modules name no game, nor do
# the other drivers, the composition root (its help and choices come from the registry, the journal
# drills from GameRules.drills) or the audience page's shared files (each game's part is its GameRules.page).
SHARED_PAGE = ["index.html", "page.js", "page.css", "words.js"]
NAMING_NO_GAME = ["tui/calibrate.py", "vision/ball_labels.py", "vision/balls/*.py", "drivers/*.py",
                  "companion/cli/*.py", "vision/printing.py", *(f"tui/web/{name}" for name in SHARED_PAGE)]


def games_named(text: str) -> list[str]:
    """The games a text names: by name as a word (bingo, bluff: not "plunder-cage") or by title."""
    from companion.core.games import GAMES
    return sorted({game.name for game in GAMES.values()
                   if re.search(rf"\b{game.name}\b", text, re.I) or game.title in text or game.title_ja in text})


def test_games_named_finds_names_and_titles():
    assert games_named("Plunder Bingo's cage; 強奪ビンゴ; the jail; voters") == ["bingo", "jail", "voters"]
    assert games_named("/tmp/plunder-cage, the ball reader, bluffing") == []


def test_the_shared_page_forms_and_journal_drills_hold_no_game_s_part():
    """No game's markup (its ids), drawing or styles in the shared page: index.html has no element
    but the notice, page.css no rule for an id a game's markup holds; bench.py sends no command;
    the shared forms parse no game's field (a game's own kind is its Field.parse)."""
    web = ROOT / "tui" / "web"
    index = (web / "index.html").read_text(encoding="utf-8")
    assert re.findall(r'\bid="([\w-]+)"', index) == ["notice"]
    games_ids = {found for markup in web.glob("*.html") if markup.name != "index.html"
                 for found in re.findall(r'\bid="([\w-]+)"', markup.read_text(encoding="utf-8"))}
    assert {"game", "final", "voters"} <= games_ids
    styled = set(re.findall(r"#([\w-]+)", (web / "page.css").read_text(encoding="utf-8")))
    assert styled & games_ids == set()
    assert '"do":' not in (ROOT / "companion" / "cli" / "bench.py").read_text(encoding="utf-8")
    assert "tally" not in (ROOT / "tui" / "forms.py").read_text(encoding="utf-8")     # Plunder Bingo's votes typed in


def test_the_ball_reader_the_drivers_and_the_composition_root_name_no_game():
    paths = [path for pattern in NAMING_NO_GAME for path in ROOT.glob(pattern)]
    assert len(paths) > 25
    named = {str(path.relative_to(ROOT)): games_named(path.read_text(encoding="utf-8")) for path in paths}
    assert {where: found for where, found in named.items() if found} == {}
