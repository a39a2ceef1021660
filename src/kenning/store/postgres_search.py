"""The PostgreSQL store's search side: the full-text rows over kenning's own tokens, and the vectors.

A body arrives segmented (``kenning.text.segment``: lower-cased, stemmed, CJK cut into words) and
is stored with the ``tsvector`` of exactly its space-separated tokens (``array_to_tsvector`` parses
nothing), so a term is found as the very string kenning looks up, in any language, with no
server-side parser; ``postings`` and ``doc_freq`` give what SQLite's FTS5 gives for the same items.
One limit is PostgreSQL's: a lexeme holds at most 2046 bytes, so a longer token is kept in the body
but cannot be looked up.

Both caches are shared by the store's threads and read only committed rows outside a transaction;
the highest vector rowid and ``meta.vector_rewrites`` (kept by triggers, on any host) say when to
look again, at the cost of one round trip. Inside a write transaction, terms
are counted afresh and the vector cache may take in the transaction's own rows; it is then held by
that transaction until it ends (other threads wait for it) and emptied if it rolls back.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import StoreError
from .postgres_base import PgBase
from .postgres_hnsw import ServerVectors
from .postgres_vectors import PgVector, PgVectorCache
from .vectors import VectorIndex

if TYPE_CHECKING:
    import psycopg

DOC_FREQ_CACHE = 100_000  # terms
MAX_LEXEME_BYTES = 2046  # tsvector's limit for one lexeme


@dataclass
class Transaction:
    """The write transaction open in one thread."""

    conn: psycopg.Connection[Any]
    depth: int = 1
    index_written: bool = False  # a full-text row or vector was written in it
    holds_cache: bool = False  # the vector cache took in its rows: held until it ends


class SearchRows(PgBase):
    dim: int
    vectors: PgVectorCache
    server_vectors: ServerVectors | None
    _cache_lock: threading.RLock  # the vector cache's
    _terms_lock: threading.Lock  # the document frequencies'
    _doc_freq: dict[str, int]
    _seen: dict[str, str | None]  # cache name -> index_changes it is up to date with
    # the full-text rows matching t.q, and the highest vector rowid: a secured database answers them
    # through functions of its owner (``postgres_security``: policies would keep the index unused)
    _matching = "items_fts f WHERE f.terms @@ t.q"
    _last_vector = "(SELECT max(item_rowid) FROM vectors)"

    def _tx(self) -> Transaction | None:
        raise NotImplementedError

    def _connection(self) -> Any:
        """A pooled connection in autocommit (``PostgresStore``'s)."""
        raise NotImplementedError

    # -- full text --------------------------------------------------------------------------------

    @staticmethod
    def _terms(body: str) -> list[str]:
        """The distinct tokens of a segmented body that a ``tsvector`` can hold."""
        return list(dict.fromkeys(t for t in body.split(" ") if t and len(t.encode("utf-8")) <= MAX_LEXEME_BYTES))

    def postings(self, terms: Sequence[str]) -> list[np.ndarray]:
        """For each term, the rowids (ascending) of the items of any scope whose body holds it."""
        if not terms:
            return []
        listed = dict(self._rows(
            f"SELECT t.i, (SELECT string_agg(f.rowid::text, ',' ORDER BY f.rowid) FROM {self._matching}) "
            "FROM unnest(%s::tsquery[]) WITH ORDINALITY AS t(q, i)",
            ([_lexeme_query(t) for t in terms],)))
        return [np.array(listed[i].split(","), dtype=np.int64) if listed.get(i) else np.empty(0, dtype=np.int64)
                for i in range(1, len(terms) + 1)]

    def bodies(self, rowids: Sequence[int]) -> dict[int, str]:
        if not len(rowids):
            return {}
        rows = self._rows("SELECT rowid, body FROM items_fts WHERE rowid = ANY(%s::bigint[])",
                          ([int(r) for r in rowids],))
        return {int(r): str(b) for r, b in rows}

    def doc_freq(self, terms: Sequence[str]) -> dict[str, int]:
        """In how many items (of all scopes) each term occurs; terms in none are left out."""
        if not terms:
            return {}
        tx = self._tx()
        if tx is not None:  # the transaction's own rows count, and are not kept
            counts = self._count_terms(tx.conn, terms)
        else:
            with self._connection() as conn, self._terms_lock:
                if self._index_moved(conn, "doc_freq") or len(self._doc_freq) > DOC_FREQ_CACHE:
                    self._doc_freq.clear()
                missing = [t for t in terms if t not in self._doc_freq]
                if missing:
                    self._doc_freq.update(self._count_terms(conn, missing))
                counts = {t: self._doc_freq[t] for t in terms}
        return {t: counts[t] for t in terms if counts[t]}

    def _count_terms(self, conn: psycopg.Connection[Any], terms: Sequence[str]) -> dict[str, int]:
        unique = list(dict.fromkeys(terms))
        rows = dict(conn.execute(
            f"SELECT t.i, (SELECT count(*) FROM {self._matching}) "
            "FROM unnest(%s::tsquery[]) WITH ORDINALITY AS t(q, i)", ([_lexeme_query(t) for t in unique],)).fetchall())
        return {t: int(rows.get(i + 1, 0)) for i, t in enumerate(unique)}

    def _index_moved(self, conn: psycopg.Connection[Any], cache: str) -> bool:
        """Whether full-text rows or vectors changed (on any host) since ``cache`` last looked (call
        outside a transaction, holding that cache's lock). An item's full-text row and vector are written
        together, so a new item raises the highest vector rowid (they become visible in rowid order)
        and a removed or rewritten one bumps ``meta.vector_rewrites``: two indexed reads."""
        row = conn.execute("SELECT (SELECT value FROM meta WHERE key = 'vector_rewrites'), "
                           f"{self._last_vector}").fetchone()
        state = None if row is None else f"{row[0]}:{row[1]}"
        moved = state is None or state != self._seen.get(cache)
        self._seen[cache] = state
        return moved

    def index_pages(self) -> int:
        """Pages of the full-text index (it has no pending list to merge: see the schema)."""
        return int(self._rows("SELECT pg_relation_size('items_fts_terms') / current_setting('block_size')::int")[0][0])

    def optimize_index(self) -> None:
        """Merge the full-text index's pending entries, if an administrator turned its pending list on."""
        with self._write() as conn:
            # only the index's owner may; another role (row security) has nothing to merge unless it was turned on
            conn.execute("SELECT gin_clean_pending_list('items_fts_terms'::regclass) FROM pg_class "
                         "WHERE oid = 'items_fts_terms'::regclass AND pg_has_role(current_user, relowner, 'USAGE')")

    # -- vectors ----------------------------------------------------------------------------------

    def fresh_vectors(self) -> VectorIndex:
        """The vector cache, first brought up to date with every commit (and, inside a write
        transaction, with what it wrote); with ``vectors = "server"``, the server's search
        (``postgres_hnsw``), which holds nothing to bring up to date."""
        if self.server_vectors is not None:
            return self.server_vectors
        tx = self._tx()
        if tx is None:
            with self._connection() as conn, self._cache_lock:
                if self._index_moved(conn, "vectors") or not len(self.vectors):
                    self.vectors.refresh(conn)
            return self.vectors
        self._cache_lock.acquire()
        try:
            self.vectors.refresh(tx.conn, committed=False)
        finally:
            if tx.index_written and not tx.holds_cache:
                tx.holds_cache = True  # released when the transaction ends (``PostgresStore._write``)
                self._seen["vectors"] = None
            else:
                self._cache_lock.release()
        return self.vectors

    def all_bodies(self) -> Iterator[tuple[int, str]]:
        """(rowid, content) of every item, for re-embedding."""
        rows = self._rows("SELECT rowid, content FROM items ORDER BY rowid")
        yield from ((int(r[0]), str(r[1])) for r in rows)

    def rewrite_vectors(self, rowids: Sequence[int], vecs: np.ndarray) -> None:
        with self._write() as conn:
            self._index_written()
            conn.cursor().executemany("UPDATE vectors SET vec = %s WHERE item_rowid = %s",
                                      [(self._vector(v), int(r)) for r, v in zip(rowids, vecs)])

    def _vector(self, vec: np.ndarray) -> PgVector:
        value = PgVector(vec)
        if value.values.shape[0] != self.dim:
            raise StoreError(f"vector has {value.values.shape[0]} dimensions, the store expects {self.dim}")
        return value


def _lexeme_query(term: str) -> str | None:
    """A tsquery of one lexeme, exactly ``term`` (quoted: nothing in it is an operator); None for a
    term no body can hold (empty, or longer than a lexeme may be), which then matches nothing."""
    if not term or len(term.encode("utf-8")) > MAX_LEXEME_BYTES:
        return None
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"
