"""Files that several processes write: an exclusive lock per file, and atomic replacement.

``locked(path)`` holds an advisory lock on ``path`` + ".lock" (``fcntl.flock`` on POSIX,
``msvcrt.locking`` on Windows) for the duration of a read-modify-write, so two processes never
interleave their changes; ``atomic_write`` replaces a file through a temporary file, fsync and
rename, so a reader sees the old content or the new one, never half of it.

A temporary file is named ``.<name>.<host>-<pid>.<random>.tmp``: a writer killed before its rename
leaves it behind, and ``abandoned`` tells such a file by its writer (this host, and that process is
gone) or, when the writer cannot be known (another host, an older name), by its age
(``ABANDONED_AFTER_S``: a younger one may belong to a live writer). ``remove_abandoned_temporaries``
clears a folder of them; ``Kenning.open`` does so for the data directory.

Modes: what kenning writes holds memories, so a file it makes is ``PRIVATE_FILE`` (0600) unless its
caller gives a mode (a skill's files, meant to be shared, are 0644), whatever the umask; a file it
replaces keeps its mode. A folder made for a file is no more open than the folder it is made in
(``make_dirs``): inside the data directory, which ``private_dir`` makes 0700, every folder is
private; in a project, folders are as the umask has them.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import socket
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from .errors import InvalidInput, KenningError, StoreError

log = logging.getLogger("kenning")
PRIVATE_FILE = 0o600  # a file kenning makes: only its owner may read it (it holds memories)
PRIVATE_DIR = 0o700  # the data directory and a database's folder: only its owner may list or enter it
MAX_FILE_BYTES = 64 << 20  # the default bound of ``read_or_none``: a note or hot file is far smaller
ABANDONED_AFTER_S = 3600  # a temporary file this old, whose writer is unknown, was left by a killed process
_TEMPORARY = re.compile(r"\..+?\.(?:(?P<host>[0-9a-f]{6})-(?P<pid>\d+)\.)?[^./]+\.tmp")
_thread_locks: dict[str, threading.RLock] = {}
_guard = threading.Lock()


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the lock of ``path`` (across processes and threads) while the block runs."""
    key = str(Path(os.path.abspath(path)))
    with _guard:
        thread_lock = _thread_locks.setdefault(key, threading.RLock())
    with thread_lock:
        make_dirs(path.parent)
        fd = os.open(key + ".lock", os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
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


def read_or_none(path: Path, limit: int = MAX_FILE_BYTES, *, what: str | None = None,
                 error: type[KenningError] = StoreError) -> bytes | None:
    """The file's bytes, or None when it does not exist. A file over ``limit`` bytes is refused by
    its size, before a byte is read (and never more than ``limit`` are read, should it grow), and any
    other failure too: ``error`` naming ``what`` (default: the path)."""
    name = what or str(path)
    try:
        with path.open("rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            data = fh.read(limit + 1) if size <= limit else b""
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise error(f"{name} is a folder where a file is expected; move it away") from None
    except OSError as exc:
        raise error(f"cannot read {name}: {exc.strerror or exc}") from None
    if size > limit or len(data) > limit:  # (or it grew while being read)
        raise error(f"{name} is {max(size, len(data)):,} bytes; the limit is {limit:,} ({size_text(limit)}), so it was "
                    "not read. Move the file away or shorten it")
    return data


def read_limited(path: Path, limit: int, *, what: str | None = None,
                 error: type[KenningError] = InvalidInput) -> bytes:
    """``read_or_none`` for a file that must exist (one a person named): a missing one is ``error``."""
    data = read_or_none(path, limit, what=what, error=error)
    if data is None:
        raise error(f"cannot read {what or path}: there is no such file")
    return data


def size_text(n: int) -> str:
    """A byte count for people: '1 MiB', '512 KiB'."""
    return f"{n / (1 << 20):g} MiB" if n >= 1 << 20 else f"{n / 1024:g} KiB"


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``path``: temporary file in the same folder, fsync, rename. Without ``mode``
    the file keeps its mode, and a new one is ``PRIVATE_FILE``."""
    make_dirs(path.parent)
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o777
        except OSError:
            mode = PRIVATE_FILE
    fd, tmp = tempfile.mkstemp(prefix=temporary_prefix(path), suffix=".tmp", dir=path.parent)
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


def make_dirs(folder: Path) -> None:
    """``folder`` and its missing parents, each made no more open than the folder it is made in (and
    then the umask): made inside the private data directory, a folder is private too."""
    missing: list[str] = []
    level = os.path.abspath(folder)
    while not os.path.isdir(level):
        missing.append(level)
        parent = os.path.dirname(level)
        if parent == level:
            break
        level = parent
    if not missing:
        return
    mode = (stat.S_IMODE(os.stat(level).st_mode) & 0o777) | 0o700  # its owner must be able to use it
    _make(missing, mode)


def private_dir(folder: Path, *, tighten: bool = False) -> None:
    """``folder``, made ``PRIVATE_DIR`` with any missing parent when it does not exist: the data
    directory, or the folder of a database. With ``tighten``, an existing one of this user's that
    others may read or enter loses those rights (logged): its files may be older than their 0600."""
    missing: list[str] = []
    level = os.path.abspath(folder)
    while not os.path.isdir(level) and os.path.dirname(level) != level:
        missing.append(level)
        level = os.path.dirname(level)
    if missing:
        _make(missing, PRIVATE_DIR)
    elif tighten:
        _tighten(Path(level))


def _make(missing: list[str], mode: int) -> None:
    """Make ``missing`` (deepest first) with ``mode``; one another process made meanwhile is fine."""
    for level in reversed(missing):
        try:
            os.mkdir(level, mode)
        except FileExistsError:
            if not os.path.isdir(level):
                raise


def _tighten(folder: Path) -> None:
    if sys.platform == "win32":  # pragma: no cover - no POSIX modes: a profile folder is the user's own
        return
    try:
        st = folder.stat()
        loose = stat.S_IMODE(st.st_mode) & 0o077
        if not loose or st.st_uid != os.geteuid():
            return  # private already, or another user's folder: theirs to change
        folder.chmod(stat.S_IMODE(st.st_mode) & ~0o077)
    except OSError as exc:
        log.warning("kenning: %s can be read by other users of this machine, and it could not be made private "
                    "(%s); run: chmod 700 %s", folder, exc.strerror or exc, folder)
        return
    log.warning("kenning: made %s private (it was %04o: other users of this machine could read it)", folder,
                stat.S_IMODE(st.st_mode))


def temporary_prefix(path: Path) -> str:
    """The start of the name of a temporary file written before ``path`` is replaced: it names
    this host and process, so that a killed writer's leftover is known for one at once."""
    return f".{path.name}.{_HOST}-{os.getpid()}."


def is_temporary(name: str) -> bool:
    """Whether ``name`` is one of ``atomic_write``'s temporary files."""
    return _TEMPORARY.fullmatch(name) is not None


def abandoned(path: Path, now: float | None = None) -> bool:
    """Whether a temporary file (or a folder left mid-removal) belongs to no live writer: its writer's
    process is gone (when the name says which, on this host), else it is older than ``ABANDONED_AFTER_S``."""
    m = _TEMPORARY.fullmatch(path.name)
    if m is not None and m["host"] == _HOST and m["pid"] is not None:
        return not _alive(int(m["pid"]))
    try:
        age = (time.time() if now is None else now) - path.lstat().st_mtime
    except OSError:
        return False
    return age > ABANDONED_AFTER_S


def remove_abandoned_temporaries(folder: Path, now: float | None = None) -> int:
    """Remove the temporary files killed writers left in ``folder`` (not below it); how many."""
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        if is_temporary(entry.name) and entry.is_file(follow_symlinks=False) and abandoned(Path(entry.path), now):
            with contextlib.suppress(OSError):  # another process removed it first
                os.unlink(entry.path)
                removed += 1
    return removed


def sweep(root: Path, *, skip: tuple[Path, ...] = (), max_folders: int = 10_000) -> int:
    """``remove_abandoned_temporaries`` in ``root`` and the folders below it (links not followed,
    ``skip`` and hidden folders left out, at most ``max_folders`` looked at); how many were removed."""
    removed, seen = 0, 0
    left_out = {os.path.abspath(p) for p in skip}
    for folder, dirs, _ in os.walk(os.path.abspath(root)):
        dirs[:] = [d for d in dirs if not d.startswith(".") and os.path.join(folder, d) not in left_out
                   and not os.path.islink(os.path.join(folder, d))]
        removed += remove_abandoned_temporaries(Path(folder))
        seen += 1
        if seen >= max_folders:
            break
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # another user's process, or a platform that cannot tell: assume it is alive
    return True


_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]


def fsync_dir(folder: Path) -> None:
    # makes a rename itself durable; not possible on every platform (Windows), hence best effort
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
