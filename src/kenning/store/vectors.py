"""An in-memory matrix of every stored vector, kept in step with the database.

Brute force with numpy beats an index at this scale and needs no extension, but reading a
100k x 384 float32 matrix costs 12-17 ms per query, mostly memory bandwidth. Above
``EXACT_BELOW`` vectors the search therefore runs in two stages: Hamming distance between sign
bits of the centred vectors (48 bytes a row, 32x less to read) picks ``RESCORE`` candidates, and
those are scored exactly. Rows carry the item's scope and kind, which never change, so a search
is masked to one scope before it is scored and an item of another scope can never come back.

The cache is refreshed lazily: rows with a higher rowid than the last one seen are appended
(``items.rowid`` is AUTOINCREMENT, never reused); a vector deleted or rewritten in place, by any
connection, bumps a counter that database triggers keep (``meta.vector_rewrites``), and the matrix
is then rebuilt. Counting the rows instead, after every write, read the whole vectors table (80-90 ms
at 100k facts).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..blas import product
from ..errors import StoreError
from . import snapshot

EXACT_BELOW = 20_000  # vectors in the searched scope; below this, every one is scored exactly
NULL_SAMPLE = 1_000  # rows scored beside the prefilter to measure what unrelated rows score (kenning.retrieval.mixed)
RESCORE = 2_000  # candidates from the bit prefilter that get their exact cosine (at least 20 x limit)
CENTRE_FROM = 1_000  # vectors needed before the centre for the sign bits is fixed
GROWTH = 1.25  # the buffers grow by this factor when full (at most a quarter of them unused)
MIN_CAPACITY = 1024  # rows the buffers hold at first
SNAPSHOT_FROM = 20_000  # rows; a smaller cache is read from the database in a fraction of a second
LANGUAGES = ("en", "zh")  # the codes of ``vectors.lang`` (kenning.text.language), by position
SNAPSHOT_STALE = 5_000  # rows read from the database in one refresh that make a new snapshot worth writing


class VectorCache:
    def __init__(self, dim: int, snapshot_path: Path | None = None) -> None:
        self.dim = dim
        self.snapshot_path = snapshot_path
        self._scope_codes: dict[str, int] = {}
        self._kind_codes: dict[str, int] = {}
        self._clear()

    def _clear(self) -> None:
        # rows live in buffers with room to grow: appending one fact to a 100k-row matrix by
        # concatenation copied 150 MB (about 40 ms) and held the matrix twice meanwhile
        self._size = 0
        self._rowids = np.empty(0, dtype=np.int64)
        self._matrix = np.empty((0, self.dim), dtype=np.float32)
        self._scopes = np.empty(0, dtype=np.int32)
        self._kinds = np.empty(0, dtype=np.int8)
        self._langs = np.empty(0, dtype=np.int8)  # LANGUAGES code of each row's text
        self.centre: np.ndarray | None = None
        # sign bits stored word by word: bits[w] holds word w of every row, so the distance is a
        # few passes over contiguous memory (summing across a row's 6 words was 4x slower)
        self._bits = np.empty((self.dim // 64 if self.dim % 64 == 0 else 0, 0), dtype=np.uint64)
        self._bit_rows = 0
        self.max_rowid = 0
        self._scope_rows: dict[tuple[str, tuple[str, ...] | None], np.ndarray] = {}
        self.rewrites: str | None = None  # the database's count of deleted or rewritten vectors

    @property
    def rowids(self) -> np.ndarray:
        return self._rowids[: self._size]

    @property
    def matrix(self) -> np.ndarray:
        return self._matrix[: self._size]

    @property
    def scopes(self) -> np.ndarray:
        return self._scopes[: self._size]

    @property
    def langs(self) -> np.ndarray:
        return self._langs[: self._size]

    @property
    def kinds(self) -> np.ndarray:
        return self._kinds[: self._size]

    @property
    def bits(self) -> np.ndarray:
        return self._bits[:, : self._bit_rows]

    @property
    def rows_with_bits(self) -> int:
        return self._bit_rows

    def _signs(self, vecs: np.ndarray) -> np.ndarray:
        """Sign bits of the centred vectors, one row of 64-bit words per vector."""
        assert self.centre is not None
        return np.packbits(vecs > self.centre, axis=-1).view(np.uint64)

    def _update_bits(self) -> None:
        """Sign bits for rows that have none yet (the centre is fixed once enough rows exist)."""
        if self.dim % 64 or self._size < CENTRE_FROM:
            return
        if self.centre is None:
            self.centre = self.matrix.mean(axis=0)
        if self._bits.shape[1] < len(self._matrix):
            self._bits = _grown(self._bits, len(self._matrix), self._bit_rows, axis=1)
        self._bits[:, self._bit_rows : self._size] = self._signs(self._matrix[self._bit_rows : self._size]).T
        self._bit_rows = self._size

    def __len__(self) -> int:
        return self._size

    def _code(self, table: dict[str, int], key: str) -> int:
        if key not in table:
            table[key] = len(table)
        return table[key]

    def _append(self, rows: list[tuple[int, bytes, str, str, str]]) -> None:
        if not rows:
            return
        width = self.dim * 4
        for rowid, blob, *_ in rows:
            if len(blob) != width:
                raise StoreError(f"the vector of item rowid {rowid} is damaged ({len(blob)} bytes, {width} expected); "
                                 "run `kenning reindex` to embed every item again")
        start, end = self._size, self._size + len(rows)
        if end > len(self._rowids):
            capacity = max(end, int(len(self._rowids) * GROWTH), MIN_CAPACITY)
            self._rowids = _grown(self._rowids, capacity, start)
            self._matrix = _grown(self._matrix, capacity, start)
            self._scopes = _grown(self._scopes, capacity, start)
            self._kinds = _grown(self._kinds, capacity, start)
            self._langs = _grown(self._langs, capacity, start)
        self._rowids[start:end] = [r[0] for r in rows]
        self._matrix[start:end] = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(
            len(rows), self.dim)
        self._scopes[start:end] = [self._code(self._scope_codes, r[2]) for r in rows]
        self._kinds[start:end] = [self._code(self._kind_codes, r[3]) for r in rows]
        self._langs[start:end] = [LANGUAGES.index(r[4]) if r[4] in LANGUAGES else 0 for r in rows]
        self._size = end
        self._scope_rows.clear()
        self.max_rowid = max(self.max_rowid, int(rows[-1][0]))
        self._update_bits()

    # the reads below are the cache's only SQL: a backend that speaks another dialect, or keeps a
    # log of what changed (``postgres_vectors``), overrides them, and everything else stays the same
    def _load(self, conn: Any, after: int) -> list[tuple[int, bytes, str, str, str]]:
        """Every vector row after rowid ``after`` (rowid, float32 bytes, scope, kind, lang), by rowid."""
        return conn.execute(
            "SELECT v.item_rowid, v.vec, i.scope, i.kind, v.lang FROM vectors v JOIN items i ON i.rowid = v.item_rowid "
            "WHERE v.item_rowid > ? ORDER BY v.item_rowid",
            (after,),
        ).fetchall()

    def _state(self, conn: Any) -> tuple[str, str]:
        """(the count of deleted or rewritten vectors, the store's id) as the database holds them."""
        meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('vector_rewrites', 'store_id')"))
        return meta["vector_rewrites"], meta["store_id"]

    def _stored(self, conn: Any, rowid: int) -> bytes | None:
        """The stored vector of one item, as float32 bytes (None when it has none)."""
        row = conn.execute("SELECT vec FROM vectors WHERE item_rowid = ?", (rowid,)).fetchone()
        return None if row is None else bytes(row[0])

    def _caught_up(self, conn: Any, rewrites: str) -> bool:
        """Apply just the deletes and rewrites since the cache last looked, if the database says
        which they were; False when it cannot (SQLite keeps no such log: the cache is rebuilt)."""
        return False

    def refresh(self, conn: Any, *, committed: bool = True) -> None:
        """Bring the cache up to date with the database (cheap when nothing changed): new rows have
        a higher rowid and are appended; a deleted or rewritten vector (by any connection) bumps a
        counter that triggers keep, and the cache is then rebuilt, from the snapshot file when it
        is valid. ``committed`` is False inside a write transaction: no snapshot of rows that may
        still be rolled back is written."""
        rewrites, store_id = self._state(conn)
        if rewrites != self.rewrites and not self._caught_up(conn, rewrites):
            self._clear()
            self.rewrites = rewrites
        if not self._size and self.snapshot_path:
            self._restore(conn, store_id)
        rows = self._load(conn, self.max_rowid)
        self._append(rows)
        if committed and self.snapshot_path and len(rows) >= SNAPSHOT_STALE and self._size >= SNAPSHOT_FROM:
            self._save(store_id)

    def _restore(self, conn: Any, store_id: str) -> None:
        assert self.snapshot_path is not None and self.rewrites is not None
        snap = snapshot.load(self.snapshot_path, store_id, self.rewrites, self.dim)
        if snap is None or not len(snap.rowids):
            return
        if self._stored(conn, int(snap.rowids[-1])) != snap.matrix[-1].tobytes():
            return  # the database is not the one the snapshot was taken of
        self._scope_codes = {name: code for code, name in enumerate(snap.scope_names)}
        self._kind_codes = {name: code for code, name in enumerate(snap.kind_names)}
        self._rowids, self._matrix, self._scopes, self._kinds = snap.rowids, snap.matrix, snap.scopes, snap.kinds
        self._langs = snap.langs
        self._size = len(snap.rowids)
        self._scope_rows.clear()
        self.max_rowid = int(snap.rowids[-1])
        if snap.centre is not None and snap.bits.shape == (self._bits.shape[0], self._size):
            self.centre, self._bits, self._bit_rows = snap.centre, snap.bits, self._size
        self._update_bits()

    def _save(self, store_id: str) -> None:
        assert self.snapshot_path is not None and self.rewrites is not None
        names = sorted(self._scope_codes, key=self._scope_codes.__getitem__)
        kinds = sorted(self._kind_codes, key=self._kind_codes.__getitem__)
        snap = snapshot.Snapshot(self.rowids, self.matrix, self.scopes, self.kinds, self.langs, names, kinds,
                                 self.centre, self.bits)
        try:
            snapshot.save(self.snapshot_path, snap, store_id, self.rewrites)
        except OSError:
            pass  # a read-only or full disk: the next process reads the database, as before

    def reset(self) -> None:
        self._clear()

    def search(
        self, query: np.ndarray, scope: str, kinds: Iterable[str] | None, limit: int
    ) -> list[tuple[int, float]]:
        """The ``limit`` best (rowid, cosine) pairs in one scope, best first."""
        return self.scored(query, scope, kinds, limit).best(limit)

    def scored(self, query: np.ndarray, scope: str, kinds: Iterable[str] | None, limit: int) -> Scored:
        """Every row of the scope that a search for the ``limit`` best looks at, with its exact
        cosine: all of them below ``EXACT_BELOW``, the prefilter's choice above."""
        if scope not in self._scope_codes or not len(self.rowids):
            return Scored(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32), np.empty(0, dtype=np.int8))
        idx = self._rows_in(scope, kinds)
        sample: tuple[np.ndarray, np.ndarray] | None = None
        if len(idx) >= EXACT_BELOW and self.rows_with_bits == len(self.rowids):
            # the prefilter keeps the rows nearest the query; what unrelated rows score is read off
            # an even sample of the scope instead (kenning.retrieval.mixed)
            even = idx[:: max(1, len(idx) // NULL_SAMPLE)]
            sample = product(self.matrix[even], query), self.langs[even]
            idx = self._prefilter(query, idx, max(RESCORE, 20 * limit))
        whole = len(idx) == len(self.rowids)
        scores = product(self.matrix if whole else self.matrix[idx], query)
        return Scored(self.rowids[idx], scores, self.langs if whole else self.langs[idx], sample)

    def _rows_in(self, scope: str, kinds: Iterable[str] | None) -> np.ndarray:
        """Positions of the rows of one scope (and kinds); kept until rows are added or dropped
        (finding them cost 0.3 ms a search at 100k rows)."""
        key = (scope, None if kinds is None else tuple(sorted(set(kinds))))
        rows = self._scope_rows.get(key)
        if rows is None:
            if len(self._scope_rows) >= 64:
                self._scope_rows.clear()
            rows = self._scope_rows[key] = np.flatnonzero(self._belongs(slice(None), scope, kinds))
            rows.setflags(write=False)
        return rows

    def _prefilter(self, query: np.ndarray, idx: np.ndarray, keep: int) -> np.ndarray:
        """The ``keep`` rows among ``idx`` whose sign bits differ least from the query's."""
        if keep >= len(idx):
            return idx
        bits = self.bits if len(idx) == self.rows_with_bits else self.bits[:, idx]
        signs = self._signs(query)
        distance = np.zeros(bits.shape[1], dtype=np.int32)
        for word, sign in zip(bits, signs):
            distance += np.bitwise_count(word ^ sign)
        return np.sort(idx[np.argpartition(distance, keep - 1)[:keep]])

    def rows_of(self, rowids: Iterable[int]) -> tuple[np.ndarray, np.ndarray]:
        """The given items that have a vector, and their vectors."""
        wanted = np.fromiter(rowids, dtype=np.int64)
        if not len(wanted) or not len(self.rowids):
            return np.empty(0, dtype=np.int64), np.empty((0, self.dim), dtype=np.float32)
        pos, found = locate(self.rowids, wanted)
        return wanted[found], self.matrix[pos[found]]

    def _belongs(self, pos: np.ndarray | slice, scope: str, kinds: Iterable[str] | None) -> np.ndarray:
        """Whether the rows at ``pos`` are of ``scope`` (and ``kinds``)."""
        ok = self.scopes[pos] == self._scope_codes.get(scope, -1)
        if kinds is not None:
            ok &= np.isin(self.kinds[pos], [self._kind_codes.get(k, -1) for k in kinds])
        return ok

    def held_in_scope(
        self, rowids: np.ndarray, scope: str, kinds: Iterable[str] | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """For each of the (ascending) rowids: whether the cache holds it, and whether it is of
        ``scope`` (and ``kinds``)."""
        if not len(rowids) or not len(self.rowids):
            return np.zeros(len(rowids), dtype=bool), np.zeros(len(rowids), dtype=bool)
        pos, held = locate(self.rowids, rowids)
        return held, held & self._belongs(pos, scope, kinds)

    def cosines(self, query: np.ndarray, rowids: Iterable[int]) -> dict[int, float]:
        """Cosine of the query with each given item (items without a vector are left out)."""
        ids, vecs = self.rows_of(rowids)
        return {int(r): float(c) for r, c in zip(ids, product(vecs, query))}


@dataclass(frozen=True)
class Scored:
    """Rows a search looked at (rowids ascending) and their exact cosines with the query."""

    rowids: np.ndarray
    cosines: np.ndarray
    langs: np.ndarray  # LANGUAGES code of each row's text
    # (cosines, langs) of an even sample of the scope, when the rows scored are the prefilter's choice
    sample: tuple[np.ndarray, np.ndarray] | None = None

    def null_sample(self) -> tuple[np.ndarray, np.ndarray]:
        """Cosines (and languages) of rows chosen without regard to the query: every row scored, or
        the even sample taken beside the prefilter."""
        return self.sample if self.sample is not None else (self.cosines, self.langs)

    def best(self, limit: int) -> list[tuple[int, float]]:
        """The ``limit`` best (rowid, cosine) pairs, best first."""
        limit = min(limit, len(self.rowids))
        if not limit:
            return []
        top = np.argpartition(-self.cosines, limit - 1)[:limit]
        top = top[np.argsort(-self.cosines[top], kind="stable")]
        return [(int(self.rowids[i]), float(self.cosines[i])) for i in top]

    def lookup(self, rowids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each given rowid: whether it was scored, and its cosine (0 where it was not)."""
        cos = np.zeros(len(rowids), dtype=np.float32)
        if not len(self.rowids):
            return np.zeros(len(rowids), dtype=bool), cos
        pos, found = locate(self.rowids, rowids)
        cos[found] = self.cosines[pos[found]]
        return found, cos


class VectorIndex(Protocol):
    """What searches read of a store's vectors: ``VectorCache`` in the process, or
    ``postgres_hnsw.ServerVectors`` on a PostgreSQL server (``[store] vectors = "server"``)."""

    dim: int

    def __len__(self) -> int: ...

    def search(self, query: np.ndarray, scope: str, kinds: Iterable[str] | None,
               limit: int) -> list[tuple[int, float]]: ...

    def scored(self, query: np.ndarray, scope: str, kinds: Iterable[str] | None, limit: int) -> Scored: ...

    def rows_of(self, rowids: Iterable[int]) -> tuple[np.ndarray, np.ndarray]: ...

    def held_in_scope(self, rowids: np.ndarray, scope: str,
                      kinds: Iterable[str] | None) -> tuple[np.ndarray, np.ndarray]: ...

    def cosines(self, query: np.ndarray, rowids: Iterable[int]) -> dict[int, float]: ...


def locate(rowids: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Position of each wanted rowid in the ascending, non-empty ``rowids``, and whether it is there."""
    pos = np.minimum(np.searchsorted(rowids, wanted), len(rowids) - 1)
    return pos, rowids[pos] == wanted


def _grown(buffer: np.ndarray, capacity: int, used: int, axis: int = 0) -> np.ndarray:
    """A larger buffer (``capacity`` along ``axis``) holding the first ``used`` entries of ``buffer``."""
    shape = list(buffer.shape)
    shape[axis] = capacity
    out = np.empty(shape, dtype=buffer.dtype)
    if axis == 0:
        out[:used] = buffer[:used]
    else:
        out[:, :used] = buffer[:, :used]
    return out
