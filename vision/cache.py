"""What the companion can make again but keeps to save time: in $XDG_CACHE_HOME/companion (else
~/.cache/companion), each file named by a hash of what it is made from, so a change to that code
or its inputs makes a new one rather than reading a stale one."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from companion.core.files import write_whole


def folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "companion"


def key(files, *values) -> str:
    """A hash of `files`' bytes (the code a cached thing is made by) and `values`' reprs."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(Path(path).read_bytes())
    digest.update(repr(values).encode())
    return digest.hexdigest()[:20]


def mapped(name: str, made_by: str, shape: tuple, make, sound=lambda array: True) -> np.ndarray:
    """The array in folder()/name-made_by.npy, mapped read-only (every process mapping it shares one
    copy in memory), made by make() and written first when it is missing, not of `shape` or not
    sound(array) (damaged); then the name's files made by other code (name-*.npy) are removed. Where it
    cannot be written (a full or read-only disk) make()'s array is returned as it is."""
    path = folder() / f"{name}-{made_by}.npy"
    try:
        kept = np.load(path, mmap_mode="r").view(np.ndarray)
        if kept.shape == shape and sound(kept):
            return kept
    except (OSError, ValueError):         # not made yet, or cut short
        pass
    array = make()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, lambda out: np.save(out, array))
        for stale in set(path.parent.glob(f"{name}-*.npy")) - {path}:
            stale.unlink(missing_ok=True)
        return np.load(path, mmap_mode="r").view(np.ndarray)
    except OSError:
        return array
