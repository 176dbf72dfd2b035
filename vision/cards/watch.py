"""Into the game: a card's command to the referee, and the live event's watched scanner folder."""
from __future__ import annotations

import hashlib
import json
import os
import queue
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..worker import ProcessWorker, WorkerDied, WorkerFailed, close_all
from .result import Result
from .scanner import Scanner

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".tif", ".tiff", ".bmp", ".webp")
WATCHED_SUFFIXES = (*IMAGE_SUFFIXES, ".heic", ".heif")     # HEIC/HEIF: picked up to be refused, saying how to send JPEG


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
    """The live event's scanner folder: each new image is scanned, sent to the referee, logged, and moved to done/,
    review/ or rejected/ (a forged, foreign or unreadable card never counts). A file is read once its size and time
    have stopped changing for SETTLE seconds (seen so, or its time says so); one that does not decode (the first half
    of a slow copy) waits while it changes, and is rejected only when it has been seen unchanged for GIVE_UP seconds.
    With `workers` > 1 the files due are scanned side by side in as many processes (a Pi's cores); each is still
    refereed, logged and moved one at a time, in the order they arrived. A file whose scanning process died or failed
    is rejected saying so (its process is started again): a photo that crashes the scanner is not tried for ever."""

    SETTLE = 0.3        # seconds a file's size and time must stay the same before it is read (the scanner may be writing)
    GIVE_UP = 5.0       # seconds a file that does not decode must stay the same before it is rejected (a copy paused)

    def __init__(self, scanner: Scanner, folder: str | Path, submit=None, workers: int = 1):
        self.scanner, self.folder, self.submit = scanner, Path(folder), submit
        if not self.folder.is_dir():
            raise FileNotFoundError(f"{self.folder}: no such folder")
        if scanner.crops is None:
            scanner.crops = self.folder / "crops"
        self.log = self.folder / "scan-log.jsonl"
        self._seen: dict[Path, _Arrival] = {}
        self._free: queue.Queue[ProcessWorker] = queue.Queue()      # scanning processes not busy
        self.workers = [ProcessWorker(_FileScanner, (scanner.event, scanner.secret, scanner.settings, scanner.crops),
                                      f"card scanner {n}") for n in range(1, workers + 1)] if workers > 1 else []
        for worker in self.workers:
            self._free.put(worker)
        self._threads = ThreadPoolExecutor(len(self.workers)) if self.workers else None

    def ready(self) -> None:
        """Wait until every scanning process has started (the first scan otherwise waits for it)."""
        for worker in self.workers:
            worker.call("ready")

    def close(self) -> None:
        if self._threads is not None:
            self._threads.shutdown()
        close_all(self.workers)

    def pending(self) -> list[Path]:
        """The files due a read: unchanged for SETTLE seconds (seen unchanged for GIVE_UP after a failed decode)."""
        now, seen = time.monotonic(), {}
        for path in self.folder.iterdir():
            if not path.is_dir() and path.suffix.lower() in WATCHED_SUFFIXES:     # a FIFO too: rejected, not left
                stamp = _stamp(path)
                if stamp is not None:
                    old = self._seen.get(path)
                    seen[path] = old if old is not None and old.stamp == stamp else _Arrival(stamp, now)
        self._seen = seen
        due = [path for path, arrival in seen.items() if arrival.due(now, self)]
        return sorted(due, key=lambda path: (seen[path].stamp[1], path.name))

    def _file(self, path: Path, loaded: bool, result: Result) -> Result | None:
        """A file scanned: refereed, logged and moved; None while it may still be arriving."""
        if self._arriving(path, failed=not loaded):
            return None
        if self.submit is not None:
            referee(result, self.submit)
        place = {"review": "review", "rejected": "rejected", "refused": "rejected"}.get(result.decision, "done")
        result.image = str(_move(path, self.folder / place))
        self._seen.pop(path, None)
        with self.log.open("a", encoding="utf-8") as log:
            log.write(json.dumps({"at": time.strftime("%Y-%m-%dT%H:%M:%S"), **result.to_json()},
                                 ensure_ascii=False) + "\n")
        return result

    def _arriving(self, path: Path, failed: bool) -> bool:
        """Whether the file changed while it was read (read again once it settles), vanished, or did
        not decode and has not yet been left alone for GIVE_UP seconds."""
        arrival, stamp = self._seen.get(path), _stamp(path)
        if stamp is None:
            return True
        if arrival is None or arrival.stamp != stamp:
            self._seen[path] = _Arrival(stamp, time.monotonic())
            return arrival is not None
        if failed and time.monotonic() - arrival.since < self.GIVE_UP:
            arrival.failed = True
            return True
        return False

    def poll(self) -> list[Result]:
        due = self.pending()
        scans = self._threads.map(self._in_a_worker, due) if self._threads else \
            (self.scanner.load_and_scan(path) for path in due)
        return [result for path, scan in zip(due, scans) if (result := self._file(path, *scan)) is not None]

    def _in_a_worker(self, path: Path) -> tuple[bool, Result]:
        worker = self._free.get()
        try:
            return worker.call("load_and_scan", path)
        except (WorkerDied, WorkerFailed) as error:
            return True, Result(str(path), "rejected", f"the scanner failed on it: {error}")
        finally:
            self._free.put(worker)

    def run(self, on_result, stop=lambda: False, interval: float = 0.2, on_trouble=None) -> None:
        """Poll until stop(); a failing poll (a full disk, a stick pulled) told to on_trouble, tried again after GIVE_UP."""
        trouble = None
        try:
            while not stop():
                try:
                    results, error = self.poll(), None
                except OSError as failed:
                    if on_trouble is None:
                        raise
                    results, error = [], failed
                if on_trouble is not None and str(error or "") != str(trouble or ""):
                    on_trouble(error)
                trouble = error
                for result in results:
                    on_result(result)
                if not results:
                    time.sleep(self.GIVE_UP if error else interval)
        finally:
            self.close()


def workers_for(event) -> int:
    """[cards] workers: the watched folder's scanning processes (default: one a core)."""
    return event.sections.get("cards", {}).get("workers", os.cpu_count() or 1)


class _FileScanner(Scanner):
    """The scanner inside a scanning process of a FolderWatcher."""

    def ready(self) -> bool:
        return True


@dataclass
class _Arrival:
    """A watched file as last seen: (size, mtime in ns), since when (time.monotonic()) it has been
    so, and whether it failed to decode so."""
    stamp: tuple[int, int]
    since: float
    failed: bool = False

    def due(self, now: float, watcher: FolderWatcher) -> bool:
        """Failed: seen unchanged for GIVE_UP (never judged by the file's own time: a share's clock
        may be off). Else unchanged for SETTLE, seen so or by its time (no wait for a settled file)."""
        if self.failed:
            return now - self.since >= watcher.GIVE_UP
        return now - self.since >= watcher.SETTLE or time.time() - self.stamp[1] / 1e9 >= watcher.SETTLE


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


def _move(path: Path, folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    target = folder / path.name
    n = 1
    while target.exists():
        target = folder / f"{path.stem}-{n}{path.suffix}"
        n += 1
    path.replace(target)
    return target
