"""pgvector values in and out, and the vector cache filled from PostgreSQL.

Recall scores vectors in the same in-memory ``VectorCache`` on both backends (a numpy matrix with
a sign-bit prefilter and exact rescoring), so both rank alike to the last digit; only its reads
are PostgreSQL's here. The cache appends rows after the highest rowid it holds: that is sound
because every writer holds the store's write lock (``postgres_schema.WRITE_LOCK``) before an item
gets its rowid, so rowids become visible in the order they were handed out. A vector deleted or
rewritten in place is logged (``vector_changes``, in commit order for the same reason): where
SQLite's cache rebuilds itself, this one drops or re-reads just those rows, so that one host's
entity update or deletion does not make every other host read 150 MB again (at 100k facts).

Vectors travel in pgvector's binary form (a 16-bit dimension, 16 unused bits, big-endian float32s)
and come back as the little-endian float32 bytes the cache and SQLite use.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

import numpy as np
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format

from .vectors import LANGUAGES, VectorCache, locate

if TYPE_CHECKING:
    import psycopg

CATCH_UP_SHARE = 0.1  # beyond this share of the cache's rows changed, reloading it whole is as cheap


class PgVector:
    """A vector to write into a ``vector`` column (its float32 values)."""

    __slots__ = ("values",)

    def __init__(self, values: np.ndarray) -> None:
        self.values = np.asarray(values, dtype=np.float32).reshape(-1)


class _VectorLoader(Loader):
    format = Format.BINARY

    def load(self, data: Any) -> bytes:
        return np.frombuffer(data, dtype=">f4", offset=4).astype("<f4").tobytes()


def register_vector(conn: psycopg.Connection[Any]) -> None:
    """Teach ``conn`` pgvector's binary form (the type's oid differs between databases)."""
    row = conn.execute("SELECT 'vector'::regtype::oid").fetchone()
    assert row is not None
    oid = int(row[0])

    class VectorDumper(Dumper):
        format = Format.BINARY

        def dump(self, obj: PgVector) -> bytes:
            values = obj.values
            return struct.pack(">HH", len(values), 0) + values.astype(">f4").tobytes()

    VectorDumper.oid = oid
    conn.adapters.register_dumper(PgVector, VectorDumper)
    conn.adapters.register_loader(oid, _VectorLoader)


class PgVectorCache(VectorCache):
    def _load(self, conn: Any, after: int) -> list[tuple[int, bytes, str, str, str]]:
        rows: list[tuple[int, bytes, str, str, str]] = conn.execute(
            "SELECT v.item_rowid, v.vec, i.scope, i.kind, v.lang FROM vectors v JOIN items i ON i.rowid = v.item_rowid "
            "WHERE v.item_rowid > %s ORDER BY v.item_rowid", (after,), binary=True).fetchall()
        return rows

    def _state(self, conn: Any) -> tuple[str, str]:
        meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('vector_rewrites', 'store_id')").fetchall())
        return meta["vector_rewrites"], meta["store_id"]

    def _stored(self, conn: Any, rowid: int) -> bytes | None:
        row = conn.execute("SELECT vec FROM vectors WHERE item_rowid = %s", (rowid,), binary=True).fetchone()
        return None if row is None else bytes(row[0])

    def _caught_up(self, conn: Any, rewrites: str) -> bool:
        """Drop the deleted rows and re-read the rewritten ones logged since the cache last looked;
        False (reload whole) when the log no longer reaches back that far or holds too many."""
        if self.rewrites is None or not len(self):
            return False
        (kept_from,) = conn.execute("SELECT value FROM meta WHERE key = 'vector_changes_from'").fetchone()
        if int(self.rewrites) < int(kept_from):
            return False
        changed = conn.execute(
            "SELECT c.item_rowid, v.vec, v.lang FROM (SELECT DISTINCT item_rowid FROM vector_changes "
            "WHERE seq > %s AND seq <= %s AND item_rowid <= %s) c LEFT JOIN vectors v ON v.item_rowid = c.item_rowid "
            "ORDER BY c.item_rowid", (int(self.rewrites), int(rewrites), self.max_rowid), binary=True).fetchall()
        if len(changed) > max(100, CATCH_UP_SHARE * len(self)):
            return False
        self._rewrite([(int(r), vec, lang) for r, vec, lang in changed if vec is not None])
        self._drop(np.array([r for r, vec, _ in changed if vec is None], dtype=np.int64))
        self.rewrites = rewrites
        return True

    # the two edits below reach into the buffers of ``VectorCache``: no other backend needs them

    def _rewrite(self, rows: list[tuple[int, bytes, str]]) -> None:
        """New vectors (and languages) for rows the cache holds, with their sign bits."""
        if not rows:
            return
        pos, held = locate(self.rowids, np.array([r for r, _, _ in rows], dtype=np.int64))
        for (_, vec, lang), at, ok in zip(rows, pos, held):
            if not ok:
                continue
            self._matrix[at] = np.frombuffer(vec, dtype=np.float32)
            self._langs[at] = LANGUAGES.index(lang) if lang in LANGUAGES else 0
            if at < self._bit_rows:
                self._bits[:, at] = self._signs(self._matrix[at : at + 1])[0]

    def _drop(self, rowids: np.ndarray) -> None:
        """Remove rows from the cache, keeping the rest in rowid order."""
        if not len(rowids):
            return
        pos, held = locate(self.rowids, rowids)
        keep = np.ones(self._size, dtype=bool)
        keep[pos[held]] = False
        size = int(keep.sum())
        for name in ("_rowids", "_matrix", "_scopes", "_kinds", "_langs"):
            buffer = getattr(self, name)
            buffer[:size] = buffer[: self._size][keep]
        with_bits = keep[: self._bit_rows]
        self._bits[:, : int(with_bits.sum())] = self._bits[:, : self._bit_rows][:, with_bits]
        self._bit_rows = int(with_bits.sum())
        self._size = size
        self._scope_rows.clear()
