"""ARCHITECTURE.md law 1: the domain never imports hardware, vision or UI code."""
import ast
import subprocess
import sys
from pathlib import Path

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
