"""Files the models are built into on first use: built once per machine, never partial.

Four builders share this: the embedder's int8 ONNX export (`engine.embedder`), the
exact-integer rewrite of either model for a CPU without VNNI (`engine.int8`), the
embedder's per-row rewrite for batches (`engine.rows`) and the graphs onnxruntime
optimised (`engine.sessions`). Each names its file by a hash of everything that shapes
it, so a stale file is never reused.
"""

from __future__ import annotations

import hashlib
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


def tree_digest(root: Path, cache_dir: Path, seed: bytes = b"") -> str:
    """sha256 of `seed`, then every file under `root`: its name and its contents.

    Reading 90 MB of packaged weights to name the embedder's file cost 70-80 ms of every
    start, so the digest is remembered in `cache_dir`, under a hash of the seed and of the
    files' paths, sizes, modification and change times and inodes (a reinstall makes new
    files, whatever times it copies): a file that changes is hashed again; one that does
    not is read once per installation."""
    files = sorted(p for p in root.rglob("*") if p.is_file())
    seen = hashlib.sha256(seed + str(root.resolve()).encode() + b"\0")
    for file in files:
        stat = file.stat()
        seen.update(f"{file.relative_to(root)}\0{stat.st_size}\0{stat.st_mtime_ns}\0"
                    f"{stat.st_ctime_ns}\0{stat.st_ino}\0".encode())
    remembered = cache_dir / "digests" / f"{seen.hexdigest()[:32]}.sha256"
    try:
        return remembered.read_text(encoding="ascii").strip()
    except OSError:
        pass
    digest = hashlib.sha256(seed)
    for file in files:
        digest.update(str(file.relative_to(root)).encode() + b"\0")
        with file.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    content = digest.hexdigest()
    try:
        remembered.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(remembered, lambda: content.encode("ascii"))
    except OSError:  # a read-only cache: hashed again next time, nothing else lost
        pass
    return content
