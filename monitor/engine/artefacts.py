"""Files the models are built into on first use: built once per machine, never partial.

Three builders share this: the embedder's int8 ONNX export (`engine.embedder`), the
exact-integer rewrite of either model for a CPU without VNNI (`engine.int8`) and the
embedder's per-row rewrite for batches (`engine.rows`). Each names its file by a hash of
everything that shapes it, so a stale file is never reused.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


def default_cache_dir() -> Path:
    """Where built artefacts live unless told otherwise (the shell reads SKG_CACHE_DIR)."""
    return Path.home() / ".cache" / "skg-monitor"


def built_once(target: Path, build: Callable[[Path], None]) -> Path:
    """`target`, calling `build(target)` first if it does not exist yet.

    Building happens under an exclusive file lock and `build` must land the file with
    os.replace, so concurrent processes (two workers) never see a partial file and build
    it only once."""
    import fcntl

    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with (target.parent / (target.name + ".lock")).open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not target.exists():
                build(target)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return target


def write_atomically(target: Path, make: Callable[[], bytes]) -> None:
    """`make()`'s bytes written to a temporary file beside `target`, then moved onto it: a
    failed `make` or write leaves no file behind (a `build` for `built_once`). The file is
    readable by all (a temporary file is private), so workers run by other users can
    share the cache directory, as they share the model file the embedder builds."""
    import os
    import tempfile

    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=".build-", delete=False) as out:
        try:
            out.write(make())
        except BaseException:
            os.unlink(out.name)
            raise
    os.chmod(out.name, 0o644)
    os.replace(out.name, target)
