"""Vectors searched by the PostgreSQL server (``[store] vectors = "server"``): no matrix in the process.

A search of one scope (and kinds) asks the server every time, so another host's commit is seen by
the next search. A scope under ``EXACT_BELOW`` vectors is scanned whole and every row of it scored
exactly, so it ranks as the in-memory cache (and SQLite) rank. A larger one takes its candidates
from pgvector's HNSW index (cosine), ``hnsw.ef_search`` at least the number wanted, and an iterative
scan so that the scope filter, applied in SQL through ``items`` (where row-level security applies
too), does not starve the result; the candidates are then scored exactly. Exactly means the
float32 dot product of the stored vectors with the query, as numpy's: the server computes it
(``<#>``), so 16 bytes a row travel instead of 1.6 kB. What unrelated rows score (kenning.retrieval.mixed) is
read off an even sample of about ``NULL_SAMPLE`` rows of the scope, the rows the cache would take,
kept per scope with their vectors and drawn again when a sampled vector is deleted or rewritten
(``vector_changes``) or the scope grew by ``SAMPLE_GROWTH``.

The ``vec`` column has no dimension (it is the embedder's), so the index is on the expression
``vec::vector(dim)`` of the rows of that dimension (a partial index: a vector of another dimension,
as during a reindex, is left out instead of failing the write), named after the dimension;
queries repeat that expression and predicate to use it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..blas import product
from ..errors import StoreError
from . import vectors as cache
from .vectors import LANGUAGES, Scored

INDEX_PREFIX = "vectors_hnsw_"
MAX_DIM = 2000  # pgvector indexes a ``vector`` of at most this many dimensions
MIN_PGVECTOR = (0, 8)  # iterative index scans (hnsw.iterative_scan) came with pgvector 0.8.0
MAX_EF_SEARCH = 1000  # pgvector's ceiling for hnsw.ef_search
CANDIDATES = 500  # rows the index is asked for, at least (10 x limit beyond)
SAMPLE_GROWTH = 0.1  # share of new rows in a scope after which its null sample is drawn again
BUILD_MEMORY = "512MB"  # maintenance_work_mem while the index builds: the graph of 100k rows fits in it
_SAMPLES = 64  # scopes whose null sample is kept


def index_name(dim: int) -> str:
    return f"{INDEX_PREFIX}{dim}"


def ensure_index(conn: Any, dim: int, shown: str, *, replace: bool = False) -> None:
    """Create the HNSW index of ``dim`` on ``conn`` (inside a transaction holding the write lock) if
    it is missing; ``replace``: also drop the indexes of other dimensions (the embedder changed)."""
    if dim > MAX_DIM:
        raise StoreError(f"[store] vectors = \"server\" needs pgvector's HNSW index, which takes at most {MAX_DIM} "
                         f"dimensions; the embedder of {shown} has {dim}; use vectors = \"memory\"")
    import psycopg

    (version,) = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    if not supports_iterative_scans(str(version)):
        raise StoreError(f"[store] vectors = \"server\" needs pgvector {'.'.join(map(str, MIN_PGVECTOR))} or later "
                         f"(iterative index scans); {shown} has pgvector {version}: upgrade it on the server, then "
                         "run ALTER EXTENSION vector UPDATE; in the database, or use vectors = \"memory\"")
    name = index_name(dim)
    present = [str(r[0]) for r in conn.execute(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'vectors' "
        "AND indexname LIKE %s", (INDEX_PREFIX.replace("_", r"\_") + "%",)).fetchall()]
    try:
        if replace:
            for other in present:
                if other != name:
                    conn.execute(f'DROP INDEX IF EXISTS "{other}"')
        if name not in present:
            conn.execute(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'")
            conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON vectors USING hnsw ((vec::vector({dim})) "
                         f"vector_cosine_ops) WHERE vector_dims(vec) = {dim}")
    except psycopg.errors.InsufficientPrivilege as exc:
        raise StoreError(f"the role of {shown} may not index the vectors table ({exc}); ask the database's owner "
                         f"to run: CREATE INDEX {name} ON vectors USING hnsw ((vec::vector({dim})) vector_cosine_ops) "
                         f"WHERE vector_dims(vec) = {dim}; or use [store] vectors = \"memory\"") from exc


def supports_iterative_scans(version: str) -> bool:
    """Whether pgvector ``version`` (as ``pg_extension`` gives it, e.g. "0.8.1") has iterative scans."""
    parts = [int(p) for p in version.split(".")[:2] if p.isdigit()]
    return tuple(parts) >= MIN_PGVECTOR


def indexed_dims(conn: Any) -> list[int]:
    """The dimensions the vectors table has an HNSW index of kenning's for."""
    rows = conn.execute("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
                        "AND tablename = 'vectors' AND indexname LIKE %s",
                        (INDEX_PREFIX.replace("_", r"\_") + "%",)).fetchall()
    return sorted(int(str(r[0])[len(INDEX_PREFIX):]) for r in rows if str(r[0])[len(INDEX_PREFIX):].isdigit())


@dataclass
class _Sample:
    """An even sample of one scope: the rows, their vectors and languages, and what it was drawn from."""

    rowids: np.ndarray
    matrix: np.ndarray
    langs: np.ndarray
    size: int  # rows of the scope when drawn
    max_rowid: int  # the highest rowid of the store then
    rewrites: int  # meta.vector_rewrites then


class ServerVectors:
    """The interface of ``VectorCache`` that searches use, answered by the server."""

    def __init__(self, dim: int, read: Callable[[], AbstractContextManager[Any]]) -> None:
        self.dim = dim
        self._read = read  # a connection: the write transaction's, else a pooled one in autocommit
        self._lock = threading.Lock()
        self._samples: dict[tuple[str, tuple[str, ...] | None], _Sample] = {}
        self._count: tuple[str, int] | None = None  # (state, vectors in the store)
        self.index_searches = 0  # searches whose candidates came from the index (the rest scanned their scope)
        self.exact_searches = 0

    # -- what retrieval calls -------------------------------------------------------------------

    def __len__(self) -> int:
        """Vectors in the store (all scopes), counted again only when a vector was added or removed."""
        with self._read() as conn:
            state = _state(conn)
            with self._lock:
                if self._count is not None and self._count[0] == state:
                    return self._count[1]
            (count,) = conn.execute("SELECT count(*) FROM vectors").fetchone()
        with self._lock:
            self._count = (state, int(count))
        return int(count)

    def search(self, query: np.ndarray, scope: str, kinds: Iterable[str] | None, limit: int) -> list[tuple[int, float]]:
        """The ``limit`` best (rowid, cosine) pairs in one scope, best first: the server keeps the
        best of a small scope itself (the duplicate check of every write asks for 16)."""
        kinds = None if kinds is None else tuple(sorted(set(kinds)))
        q = self._query(query)
        with self._read() as conn:
            where, params = self._where(scope, kinds)
            if self._small(conn, where, params):
                self.exact_searches += 1
                best = f"{self._scan(where)} ORDER BY cos DESC NULLS LAST, v.item_rowid LIMIT %s"
                packed = conn.execute(_PACKED.format(rows=best), (list(LANGUAGES), q, *params, limit),
                                      binary=True).fetchone()
            else:
                packed = self._from_index(conn, q, where, params, limit)
        return _scored(packed).best(limit)

    def scored(self, query: np.ndarray, scope: str, kinds: Iterable[str] | None, limit: int) -> Scored:
        """The rows of the scope a search for the ``limit`` best looks at, with exact cosines: all of
        them below ``EXACT_BELOW``, the index's candidates above (and an even sample)."""
        kinds = None if kinds is None else tuple(sorted(set(kinds)))
        q = self._query(query)
        with self._read() as conn:
            where, params = self._where(scope, kinds)
            if self._small(conn, where, params):
                self.exact_searches += 1
                return _scored(conn.execute(_PACKED.format(rows=self._scan(where)), (list(LANGUAGES), q, *params),
                                            binary=True).fetchone())
            packed = self._from_index(conn, q, where, params, limit)
            sample = self._sample(conn, scope, kinds)
        return _scored(packed, (product(sample.matrix, np.asarray(query, dtype=np.float32)), sample.langs))

    def _small(self, conn: Any, where: str, params: tuple[Any, ...]) -> bool:
        """Whether the scope holds fewer than ``EXACT_BELOW`` rows (counted no further)."""
        (size,) = conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM items i WHERE {where} LIMIT %s) s",
                               (*params, cache.EXACT_BELOW)).fetchone()
        return int(size) < cache.EXACT_BELOW

    def _scan(self, where: str) -> str:
        """Every row of the scope with its exact cosine (the query vector its first parameter); NULL
        for a vector of another dimension (a reindex underway), which ``_PACKED`` leaves out. Not a
        WHERE test: the planner cannot estimate it and then joins row by row (3x slower at 10k)."""
        return (f"SELECT v.item_rowid, v.lang, CASE WHEN vector_dims(v.vec) = {self.dim} THEN -(v.vec <#> %s) END "
                f"AS cos FROM vectors v JOIN items i ON i.rowid = v.item_rowid WHERE {where}")

    def _from_index(self, conn: Any, q: Any, where: str, params: tuple[Any, ...], limit: int) -> Any:
        """The index's candidates for the ``limit`` best, packed (``_PACKED``)."""
        self.index_searches += 1
        wanted = max(min(MAX_EF_SEARCH, max(CANDIDATES, 10 * limit)), limit)
        with conn.transaction():
            _tune(conn, wanted)
            return conn.execute(_PACKED.format(rows=self._candidates(where)), (list(LANGUAGES), q, *params, q, wanted),
                                binary=True).fetchone()

    def rows_of(self, rowids: Iterable[int]) -> tuple[np.ndarray, np.ndarray]:
        """The given items that have a vector (in the order given), and their vectors."""
        wanted = np.fromiter(rowids, dtype=np.int64)
        if not len(wanted):
            return wanted, np.empty((0, self.dim), dtype=np.float32)
        with self._read() as conn:
            rows = conn.execute(f"SELECT item_rowid, vec FROM vectors WHERE item_rowid = ANY(%s) "
                                f"AND vector_dims(vec) = {self.dim}", (wanted.tolist(),), binary=True).fetchall()
        found = {int(r): bytes(v) for r, v in rows}
        ids = np.array([r for r in wanted.tolist() if r in found], dtype=np.int64)
        if not len(ids):
            return ids, np.empty((0, self.dim), dtype=np.float32)
        matrix = np.frombuffer(b"".join(found[r] for r in ids.tolist()), dtype=np.float32)
        return ids, matrix.reshape(len(ids), self.dim)

    def held_in_scope(self, rowids: np.ndarray, scope: str, kinds: Iterable[str] | None
                      ) -> tuple[np.ndarray, np.ndarray]:
        """For each of the (ascending) rowids: whether it has a vector, and whether it is of
        ``scope`` (and ``kinds``)."""
        held, ok = np.zeros(len(rowids), dtype=bool), np.zeros(len(rowids), dtype=bool)
        if not len(rowids):
            return held, ok
        kinds = None if kinds is None else tuple(kinds)
        where, params = self._where(scope, kinds)
        with self._read() as conn:
            rows = conn.execute(f"SELECT v.item_rowid, {where} FROM vectors v JOIN items i ON i.rowid = v.item_rowid "
                                "WHERE v.item_rowid = ANY(%s)", (*params, np.asarray(rowids).tolist())).fetchall()
        if rows:
            found = np.array([int(r) for r, _ in rows], dtype=np.int64)
            pos = np.searchsorted(rowids, found)
            held[pos] = True
            ok[pos] = [bool(b) for _, b in rows]
        return held, ok

    def cosines(self, query: np.ndarray, rowids: Iterable[int]) -> dict[int, float]:
        """Cosine of the query with each given item (items without a vector are left out)."""
        ids, vecs = self.rows_of(rowids)
        return {int(r): float(c) for r, c in zip(ids, product(vecs, np.asarray(query, dtype=np.float32)))}

    def reset(self) -> None:
        """Forget the null samples and the count (a write transaction that drew them rolled back)."""
        with self._lock:
            self._samples.clear()
            self._count = None

    # -- SQL ----------------------------------------------------------------------------------------

    def plan(self, query: np.ndarray, scope: str, kinds: Iterable[str] | None, limit: int) -> str:
        """EXPLAIN of the candidate query of a large scope (to check it uses the index)."""
        where, params = self._where(scope, None if kinds is None else tuple(kinds))
        q = self._query(query)
        with self._read() as conn, conn.transaction():
            _tune(conn, limit)
            rows = conn.execute("EXPLAIN " + self._candidates(where), (q, *params, q, limit)).fetchall()
        return "\n".join(str(r[0]) for r in rows)

    def _candidates(self, where: str) -> str:
        # the ORDER BY and the dimension test repeat the index's expression and predicate
        return ("SELECT v.item_rowid, v.lang, -(v.vec <#> %s) AS cos FROM vectors v "
                "JOIN items i ON i.rowid = v.item_rowid "
                f"WHERE vector_dims(v.vec) = {self.dim} AND {where} "
                f"ORDER BY v.vec::vector({self.dim}) <=> %s::vector({self.dim}) LIMIT %s")

    @staticmethod
    def _where(scope: str, kinds: tuple[str, ...] | None) -> tuple[str, tuple[Any, ...]]:
        """The filter of one scope (and kinds) on ``items i``, and its parameters."""
        if kinds is None:
            return "i.scope = %s", (scope,)
        return "(i.scope = %s AND i.kind = ANY(%s))", (scope, list(kinds))

    def _query(self, query: np.ndarray) -> Any:
        from .postgres_vectors import PgVector

        q = PgVector(query)
        if q.values.shape[0] != self.dim:
            raise StoreError(f"query vector has {q.values.shape[0]} dimensions, the store expects {self.dim}")
        return q

    # -- the null sample ------------------------------------------------------------------------

    def _sample(self, conn: Any, scope: str, kinds: tuple[str, ...] | None) -> _Sample:
        """The scope's even sample, drawn again when it no longer stands for the scope."""
        key = (scope, kinds)
        where, params = self._where(scope, kinds)
        with self._lock:
            held = self._samples.get(key)
        rewrites, kept_from = (int(v) for v in conn.execute(
            "SELECT (SELECT value FROM meta WHERE key = 'vector_rewrites'), "
            "(SELECT value FROM meta WHERE key = 'vector_changes_from')").fetchone())
        if held is not None and self._still_even(conn, held, where, params, rewrites, kept_from):
            return held
        drawn = self._draw(conn, where, params, rewrites)
        with self._lock:
            if len(self._samples) >= _SAMPLES:
                self._samples.clear()
            self._samples[key] = drawn
        return drawn

    def _still_even(self, conn: Any, held: _Sample, where: str, params: tuple[Any, ...], rewrites: int,
                    kept_from: int) -> bool:
        if rewrites != held.rewrites:
            if held.rewrites < kept_from:
                return False  # the log of changes no longer reaches back to the draw
            changed = conn.execute("SELECT 1 FROM vector_changes WHERE seq > %s AND item_rowid = ANY(%s) LIMIT 1",
                                   (held.rewrites, held.rowids.tolist())).fetchone()
            if changed is not None:
                return False
            held.rewrites = rewrites
        (grown,) = conn.execute(f"SELECT count(*) FROM items i WHERE i.rowid > %s AND {where}",
                                (held.max_rowid, *params)).fetchone()
        return int(grown) <= SAMPLE_GROWTH * max(held.size, 1)

    def _draw(self, conn: Any, where: str, params: tuple[Any, ...], rewrites: int) -> _Sample:
        # every step-th row of the scope in rowid order, as the cache samples it; the vectors are
        # read for the chosen rows only
        rows = conn.execute(
            f"WITH s AS (SELECT v.item_rowid, row_number() OVER (ORDER BY v.item_rowid) - 1 AS n, count(*) OVER () AS "
            f"total FROM vectors v JOIN items i ON i.rowid = v.item_rowid WHERE {where}) "
            f"SELECT v.item_rowid, v.vec, v.lang, s.total, (SELECT max(item_rowid) FROM vectors) FROM s "
            f"JOIN vectors v ON v.item_rowid = s.item_rowid "
            f"WHERE s.n %% greatest(1, s.total / {cache.NULL_SAMPLE}) = 0 "
            f"AND vector_dims(v.vec) = {self.dim} ORDER BY v.item_rowid", params, binary=True).fetchall()
        if not rows:
            return _Sample(np.empty(0, dtype=np.int64), np.empty((0, self.dim), dtype=np.float32),
                           np.empty(0, dtype=np.int8), 0, 0, rewrites)
        matrix = np.frombuffer(b"".join(bytes(r[1]) for r in rows), dtype=np.float32).reshape(len(rows), self.dim)
        return _Sample(np.array([int(r[0]) for r in rows], dtype=np.int64), matrix,
                       np.array([_lang(r[2]) for r in rows], dtype=np.int8), int(rows[0][3]), int(rows[0][4]), rewrites)


def _tune(conn: Any, wanted: int) -> None:
    """The index search settings for this transaction: as many candidates as wanted (up to
    pgvector's ceiling), an iterative scan that goes on past rows of other scopes, and no sort: the
    planner, misled by a scope filter it cannot estimate or by tables not yet analysed, would
    otherwise score the whole scope and sort it (exact, but what the index is there to avoid)."""
    conn.execute("SELECT set_config('hnsw.ef_search', %s, true), set_config('hnsw.iterative_scan', 'relaxed_order', "
                 "true), set_config('enable_sort', 'off', true)", (str(max(40, min(MAX_EF_SEARCH, wanted))),))


def _state(conn: Any) -> str:
    """Changes whenever a vector is added, removed or rewritten (by any host)."""
    row = conn.execute("SELECT (SELECT value FROM meta WHERE key = 'vector_rewrites'), "
                       "(SELECT max(item_rowid) FROM vectors)").fetchone()
    return f"{row[0]}:{row[1]}"


def _lang(code: Any) -> int:
    return LANGUAGES.index(code) if code in LANGUAGES else 0


# (rowid, lang, cos) rows packed into three byte strings, in the same (any) order: parsing 20k rows
# one by one took longer than the server took to score them; numpy puts them in rowid order
_PACKED = ("SELECT string_agg(int8send(c.item_rowid), ''), string_agg(float4send(c.cos::float4), ''), "
           "string_agg(int2send((coalesce(array_position(%s::text[], c.lang), 1) - 1)::int2), '') "
           "FROM ({rows}) c WHERE c.cos IS NOT NULL")


def _scored(packed: Any, sample: tuple[np.ndarray, np.ndarray] | None = None) -> Scored:
    """``Scored`` of the rows ``_PACKED`` packed (none: three NULLs)."""
    rowids, cosines, langs = (bytes(b) if b is not None else b"" for b in packed)
    ids = np.frombuffer(rowids, dtype=">i8").astype(np.int64)
    order = np.argsort(ids, kind="stable")
    return Scored(ids[order], np.frombuffer(cosines, dtype=">f4").astype(np.float32)[order],
                  np.frombuffer(langs, dtype=">i2").astype(np.int8)[order], sample)
