"""How many thresholds the card scanner holds, counted the same way on any version of vision/cards/:

    named    each number given a name: a module's or a class's constant (a dataclass field's default),
             a tuple's numbers one each; in tuning.py each entry() of the table
    unnamed  each number written into an ordering comparison (`x < 0.3`, `a > 2 * b + 0.1`) inside a
             function, but 0 and 1 (a count, a share's ends) and numbers given to a call or an index
             there (kernel sizes, a percentile's rank: parameters, not the bound)

`python tests/vision/thresholds.py [DIR]` prints the counts and the lines of vision/cards/*.py (DIR: a
checkout, the repository by default; `git worktree add /tmp/old main` gives an older one to compare).
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def count(package: Path) -> dict:
    named = unnamed = lines = 0
    for path in sorted(package.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines += len(text.splitlines())
        tree = ast.parse(text)
        if path.name == "tuning.py":
            named += sum(isinstance(node, ast.Call) and getattr(node.func, "id", "") == "entry"
                         for node in ast.walk(tree))
        else:
            named += sum(_numbers(node.value) for node in _constants(tree))
        unnamed += sum(_bounds(node) for node in ast.walk(tree) if isinstance(node, ast.Compare)
                       and all(isinstance(op, ORDERING) for op in node.ops) and _in_function(node, tree))
    return {"named": named, "unnamed": unnamed, "thresholds": named + unnamed, "lines": lines}


def _constants(tree: ast.Module):
    """Assignments at a module's or a class's top level (constants, dataclass defaults)."""
    bodies = [tree.body] + [node.body for node in tree.body if isinstance(node, ast.ClassDef)]
    for body in bodies:
        for node in body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                yield node


def _numbers(node: ast.AST) -> int:
    return sum(isinstance(n, ast.Constant) and type(n.value) in (int, float) and abs(n.value) not in (0, 1)
               for n in ast.walk(node))


def _bounds(node: ast.AST) -> int:
    """_numbers of a comparison, but not inside a call's arguments or an index."""
    if isinstance(node, ast.Call):
        return _bounds(node.func)
    if isinstance(node, ast.Subscript):
        return _bounds(node.value)
    if isinstance(node, ast.Constant):
        return _numbers(node)
    return sum(_bounds(child) for child in ast.iter_child_nodes(node))


def _in_function(target: ast.AST, tree: ast.Module) -> bool:
    return any(target in set(ast.walk(f)) for f in ast.walk(tree)
               if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT
    print(" ".join(f"{k} {v}" for k, v in count(root / "vision" / "cards").items()))
