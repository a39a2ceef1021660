"""What the parts of the SQLite store share: one connection, the lock around it, and the write
transaction (``SQLiteStore._write``). Each part (``sqlite_audit``, ``sqlite_skills``,
``sqlite_passages``, ``sqlite_ledgers``) holds the SQL of one concern; ``SQLiteStore`` is all of them.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..gate.edge import EdgeRedactor

CHUNK = 500  # values bound in one ``IN (...)``: far below SQLite's limit of variables


class SQLiteBase:
    _conn: sqlite3.Connection
    _lock: threading.RLock
    redactor: EdgeRedactor

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        """The connection inside a write transaction (joining the open one); ``SQLiteStore``'s."""
        raise NotImplementedError

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Every row of one read (inside the open transaction, if any: it sees what that wrote)."""
        with self._lock:
            return self._conn.execute(sql, list(params)).fetchall()


def chunks(values: Sequence[Any], size: int = CHUNK) -> Iterator[list[Any]]:
    for start in range(0, len(values), size):
        yield list(values[start:start + size])


def marks(count: int) -> str:
    """``?, ?, ?`` for an ``IN (...)`` of ``count`` values."""
    return ", ".join("?" * count)
