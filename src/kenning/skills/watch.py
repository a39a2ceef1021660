"""Knowing that no skill file changed without a ``stat`` per file: Linux inotify on the folders read.

A library of 1,000 skills has about 1,030 paths in its manifest; checking them costs one ``stat``
each (1-6 µs, more in sandboxes), which alone exceeds the 5 ms a warm catalog call may take. With
inotify the kernel queues an event the moment a watched folder or a file in it changes (created,
deleted, renamed, written in place, attributes), so "nothing changed" is one non-blocking ``read``.
Anything unusual (another OS, no inotify, the watch limit reached, a queue overflow) makes
``FolderWatch.start`` return None or ``changed()`` answer True, and the caller checks the manifest.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import sys
from collections.abc import Iterable

# inotify(7)
_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x002, 0x004, 0x008
_IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x040, 0x080, 0x100, 0x200
_IN_DELETE_SELF, _IN_MOVE_SELF = 0x400, 0x800
_MASK = (_IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
         | _IN_DELETE_SELF | _IN_MOVE_SELF)
_IN_NONBLOCK, _IN_CLOEXEC = os.O_NONBLOCK, 0o2000000
_libc: ctypes.CDLL | None = None


def _load_libc() -> ctypes.CDLL | None:
    global _libc
    if _libc is None and sys.platform.startswith("linux"):
        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            _libc.inotify_init1.argtypes = [ctypes.c_int]
            _libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        except (OSError, AttributeError):
            return None
    return _libc


class FolderWatch:
    """Events on a fixed set of folders since the watch started (or since the last ``changed()``)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._dirty = False

    @classmethod
    def start(cls, folders: Iterable[str]) -> FolderWatch | None:
        """A watch on every folder, or None when inotify cannot cover them all."""
        libc = _load_libc()
        if libc is None:
            return None
        fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            return None
        for folder in folders:
            if libc.inotify_add_watch(fd, os.fsencode(folder), _MASK) < 0:
                os.close(fd)  # ENOSPC (the watch limit), a folder gone already, …: check by stat instead
                return None
        return cls(fd)

    def changed(self) -> bool:
        """Whether anything happened to the watched folders; once True, always True."""
        if self._dirty or self._fd < 0:
            return True
        try:
            if os.read(self._fd, 65536):
                self._dirty = True
        except BlockingIOError:
            return False
        except OSError as exc:
            self._dirty = exc.errno != errno.EAGAIN
        return self._dirty

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:
        self.close()
