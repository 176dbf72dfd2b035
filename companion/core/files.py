"""Files written whole or not at all: the event file, the cage's marks, held cards' crops, and the caches."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_whole(path: str | Path, save) -> None:
    """save(file) into `path` whole or not at all: written beside it (binary), on the disk (a power cut leaves
    the old file or the new), then renamed over it (processes making the same file at once: either)."""
    path = Path(path)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as out:
            save(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """data (text in UTF-8) into path, written whole (write_whole)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    write_whole(path, lambda out: out.write(raw))
