"""Files that several processes write: an exclusive lock per file, and atomic replacement.

``locked(path)`` holds an advisory lock on ``path`` + ".lock" (``fcntl.flock`` on POSIX,
``msvcrt.locking`` on Windows) for the duration of a read-modify-write, so two processes never
interleave their changes; ``atomic_write`` replaces a file through a temporary file, fsync and
rename, so a reader sees the old content or the new one, never half of it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from .errors import StoreError

MAX_FILE_BYTES = 64 << 20  # the default bound of ``read_or_none``: a note or hot file is far smaller
_thread_locks: dict[str, threading.RLock] = {}
_guard = threading.Lock()


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the lock of ``path`` (across processes and threads) while the block runs."""
    key = str(Path(os.path.abspath(path)))
    with _guard:
        thread_lock = _thread_locks.setdefault(key, threading.RLock())
    with thread_lock:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(key + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            _lock(fd)
            try:
                yield
            finally:
                _unlock(fd)
        finally:
            os.close(fd)


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock(fd: int) -> None:
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
                return
            except OSError:
                continue

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def read_or_none(path: Path, limit: int = MAX_FILE_BYTES) -> bytes | None:
    """The file's bytes, or None when it does not exist; a file over ``limit`` bytes is refused by
    its size, before a byte is read, and any other failure is a StoreError too."""
    try:
        with path.open("rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            data = fh.read(limit + 1) if size <= limit else b""
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise StoreError(f"{path} is a folder where kenning expects a file; move it away") from None
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    if size > limit or len(data) > limit:  # (or it grew while being read)
        raise StoreError(f"{path} is {max(size, len(data)):,} bytes; kenning reads at most {limit:,} there. Move "
                         "the file away or shorten it")
    return data


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``path``: temporary file in the same folder, fsync, rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o777
        except OSError:
            mode = 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


def fsync_dir(folder: Path) -> None:
    # makes a rename itself durable; not possible on every platform (Windows), hence best effort
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
