"""Run-wide: the order tests start in, and a run that skipped tests says so in one line before
pytest's own tally, with how many and why (each reason names what to install to run them)."""
from __future__ import annotations

from collections import Counter


# The screens' and nights' drills (over half the run's time, much of it waiting on a clock) start
# first; the many quick tests come last and fill in round them, so no worker ends the run alone.
FIRST = ("tui", "vision", "drivers", "companion")


def start_rank(item) -> int:
    folder = item.path.parent.name
    return FIRST.index(folder) if folder in FIRST else len(FIRST)


def pytest_collection_modifyitems(items) -> None:
    items.sort(key=start_rank)       # stable: a file's tests stay in order


def skip_reason(report) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def skipped_line(reports) -> str | None:
    """'7 tests skipped: 5 chromium is not installed (apt-get install chromium); 2 ...', or None."""
    if not reports:
        return None
    reasons = Counter(map(skip_reason, reports))
    tests = "test" if len(reports) == 1 else "tests"
    return f"{len(reports)} {tests} skipped: " + "; ".join(f"{n} {reason}" for reason, n in reasons.most_common())


def pytest_terminal_summary(terminalreporter) -> None:
    line = skipped_line(terminalreporter.stats.get("skipped", []))
    if line:
        terminalreporter.write_line(line)
