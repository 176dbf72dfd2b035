"""Run-wide reporting: a run that skipped tests says so in one line before pytest's own tally,
with how many and why (each reason names what to install to run them)."""
from __future__ import annotations

from collections import Counter


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
