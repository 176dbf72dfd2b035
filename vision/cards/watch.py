"""Into the game: a card's command to the referee, and the live event's watched scanner folder."""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from .result import Result
from .scanner import Scanner

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".tif", ".tiff", ".bmp", ".webp")


def referee(result: Result, submit) -> Result:
    """Hand the card's command to the referee; submit(command) -> (status, reason). The referee
    decides validity (wrong turn, no such right...) and flags a card scanned twice as duplicate."""
    if result.command is None:
        return result
    command_id = photo_id(result)
    status, reason = submit({**result.command, "id": command_id} if command_id else result.command)
    if status == "ok":
        return result
    if reason and reason.startswith("duplicate"):
        result.decision, result.reason = "duplicate", reason
    elif status == "invalid":
        result.decision, result.reason = "invalid", reason
    else:
        result.decision, result.reason = "refused", f"the referee refused it: {reason}"
    return result


def photo_id(result: Result) -> str | None:
    """The command id of a scanned card: its serial and the photo's hash, so the same photo sent
    again (a retry after a crash, a file copied back into the folder) is applied once."""
    try:
        digest = hashlib.sha256(Path(result.image).read_bytes()).hexdigest()[:16]
    except OSError:
        return None
    return f"card:{result.serial}:{digest}"


class FolderWatcher:
    """The live event's scanner folder: each new image is scanned, sent to the referee, logged,
    and moved to done/, review/ or rejected/ (a forged, foreign or unreadable card never counts)."""

    SETTLE = 0.3        # seconds a file must be left alone before it is read (the scanner may be writing)

    def __init__(self, scanner: Scanner, folder: str | Path, submit=None):
        self.scanner, self.folder, self.submit = scanner, Path(folder), submit
        if not self.folder.is_dir():
            raise FileNotFoundError(f"{self.folder}: no such folder")
        if scanner.crops is None:
            scanner.crops = self.folder / "crops"
        self.log = self.folder / "scan-log.jsonl"

    def pending(self) -> list[Path]:
        now = time.time()
        files = []
        for path in self.folder.iterdir():
            if not path.is_dir() and path.suffix.lower() in IMAGE_SUFFIXES:     # a FIFO too: rejected, not left
                try:
                    if now - path.stat().st_mtime >= self.SETTLE:
                        files.append(path)
                except FileNotFoundError:
                    continue
        return sorted(files, key=lambda p: (p.stat().st_mtime, p.name))

    def process(self, path: Path) -> Result:
        result = self.scanner.scan_file(path)
        if self.submit is not None:
            referee(result, self.submit)
        place = {"review": "review", "rejected": "rejected", "refused": "rejected"}.get(result.decision, "done")
        result.image = str(_move(path, self.folder / place))
        with self.log.open("a", encoding="utf-8") as log:
            log.write(json.dumps({"at": time.strftime("%Y-%m-%dT%H:%M:%S"), **result.to_json()},
                                 ensure_ascii=False) + "\n")
        return result

    def poll(self) -> list[Result]:
        return [self.process(path) for path in self.pending()]

    def run(self, on_result, stop=lambda: False, interval: float = 0.2) -> None:
        while not stop():
            results = self.poll()
            for result in results:
                on_result(result)
            if not results:
                time.sleep(interval)


def _move(path: Path, folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    target = folder / path.name
    n = 1
    while target.exists():
        target = folder / f"{path.stem}-{n}{path.suffix}"
        n += 1
    path.replace(target)
    return target
