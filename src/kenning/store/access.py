"""Recall's access counts, kept in memory until the store writes them.

A recall counts an access on every item it returns (``last_accessed``, ``access_count``: the
recency prior, promotion to hot memory, forgetting). Writing them at once cost about 2 ms a recall
at 100k facts, made every recall wait behind any other process's write transaction, and told every
other connection that the database had changed (so they dropped their caches). So they are written
behind: with the store's next write transaction, on close, when the program exits, or at the
latest ``DELAY`` seconds after the first unwritten one. Until then the store shows them in the rows
it reads; other processes see them once written.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

DELAY = 5.0  # seconds
COLUMNS = ("last_accessed", "access_count")
UPDATE = ("UPDATE items SET last_accessed = max(coalesce(last_accessed, 0), ?), "
          "access_count = access_count + ? WHERE rowid = ?")

Counts = dict[int, tuple[float, int]]  # rowid -> (last access, accesses)


class PendingAccesses:
    def __init__(self, write: Callable[[], None]) -> None:
        self._write = write  # called from a timer thread; the store takes its own lock
        self._counts: Counts = {}
        self._timer: threading.Timer | None = None

    def __bool__(self) -> bool:
        return bool(self._counts)

    def add(self, rowids: Iterable[int], now: float) -> None:
        for rowid in rowids:
            self._count(rowid, now, 1)
        self.schedule()

    def take(self) -> list[tuple[float, int, int]]:
        """The pending counts as ``UPDATE`` parameters; they are no longer pending."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        rows = [(last, count, rowid) for rowid, (last, count) in self._counts.items()]
        self._counts = {}
        return rows

    def give_back(self, rows: list[tuple[float, int, int]]) -> None:
        """Counts whose write was rolled back: pending again, with any counted since."""
        for last, count, rowid in rows:
            self._count(rowid, last, count)
        self.schedule()

    def schedule(self) -> None:
        """Have the pending counts written ``DELAY`` seconds from now (unless a write is due already)."""
        if self._counts and self._timer is None:
            self._timer = threading.Timer(DELAY, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def _fire(self) -> None:
        self._timer = None
        self._write()

    def _count(self, rowid: int, last: float, count: int) -> None:
        was_last, was_count = self._counts.get(rowid, (last, 0))
        self._counts[rowid] = (max(was_last, last), was_count + count)

    def shown_in(self, row: dict[str, Any]) -> dict[str, Any]:
        """``row`` (an item read with its rowid) with its unwritten counts added."""
        pending = self._counts.get(row.get("rowid", -1))
        if pending is not None:
            if "last_accessed" in row:
                row["last_accessed"] = max(row["last_accessed"] or 0, pending[0])
            if "access_count" in row:
                row["access_count"] += pending[1]
        return row
