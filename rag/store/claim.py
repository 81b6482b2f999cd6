"""The embedded index belongs to one process: a claim on its folder, taken before anything loads.

Qdrant Edge locks its write-ahead log only once the index is open, which comes after the models have
loaded (seconds to minutes). A command that finds the index taken should say so at once, so every
command that opens the embedded index first takes an exclusive ``flock`` on ``<index>/owner.lock`` and
writes who holds it. The kernel drops the lock when the process ends, however it ends (kill -9 too), so
a stale file never blocks anyone. A Qdrant server needs no claim: it serves many processes at once.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from rag.errors import DataDirError, IndexLockedError

LOCK_NAME = "owner.lock"


def holder(index_dir: Path) -> str:
    """What the holder wrote of itself ("wayfarer serve, pid 123"), or a plain phrase."""
    try:
        text = (index_dir / LOCK_NAME).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        text = ""
    return text or "another process"


@contextlib.contextmanager
def claim_index(index_dir: Path, command: str) -> Iterator[None]:
    """Hold ``index_dir`` for this process until the block ends.

    Raises IndexLockedError naming the holder when another process has it, and DataDirError when the
    folder cannot be made or written (read-only, not a folder, no permission).
    """
    try:
        import fcntl
    except ImportError:  # not POSIX: Qdrant Edge's own lock still refuses a second opener
        yield
        return
    path = index_dir / LOCK_NAME
    try:
        index_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise DataDirError(_unusable(index_dir, exc)) from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise IndexLockedError(
                f"the index at {index_dir} is in use by {holder(index_dir)}; stop it first, or send the "
                "command to the running service with --url"
            ) from exc
        os.ftruncate(fd, 0)
        os.write(fd, f"{command}, pid {os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)  # closing drops the lock


def index_claimed(index_dir: Path) -> bool:
    """Whether another process holds ``index_dir`` now (a probe: it takes nothing)."""
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fd = os.open(index_dir / LOCK_NAME, os.O_RDONLY)
    except OSError:
        return False  # never claimed
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def _unusable(index_dir: Path, exc: OSError) -> str:
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        why = "it is not writable"
    elif exc.errno in (errno.ENOTDIR, errno.EEXIST):
        why = "a file stands where a folder should be"
    elif exc.errno == errno.ENOSPC:
        why = "the disk is full"
    else:
        why = exc.strerror or str(exc)
    return (
        f"cannot use the data directory for the index at {index_dir}: {why}; "
        "pick another with --data-dir (or WAYFARER_SERVER__DATA_DIR)"
    )
