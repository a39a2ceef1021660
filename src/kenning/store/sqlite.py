"""The SQLite store: one file, WAL, FTS5 for words, a numpy matrix for vectors.

Only SQL lives here and in the store's other SQLite parts (``sqlite_audit``, ``sqlite_skills``,
``sqlite_passages``, ``sqlite_ledgers``, composed by ``SQLiteStore``); what a fact or a lesson
*means* lives in ``kenning.memory``. Rows go in and out as plain dicts keyed by column name
(``kenning.store.contract`` says what each method promises). Every change runs inside
``transaction()`` (BEGIN IMMEDIATE, so concurrent writers queue on the busy timeout instead of
failing on a lock upgrade), together with its audit record: a failure midway rolls all of it back.

Every string written to an item, its full-text row, an entity name or the audit log passes
``redactor`` first (``kenning.gate.edge``: the gate's redaction once more, masking only), so a
field a writer forgot to scrub still reaches the disk masked. The store segments an item's text
for the full-text index itself, after masking, so the index never holds what the row does not.
"""

from __future__ import annotations

import atexit
import json
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import fileio
from ..errors import EmbedderMismatch, StoreError
from ..text import content_key, fts_match_expression, language, normalize, segment
from . import access
from .access import PendingAccesses
from .migrations import check_tables, migrate
from .query import ITEM_COLUMNS, ItemQuery
from .sqlite_audit import AuditRows
from .sqlite_base import chunks, marks
from .sqlite_ledgers import LedgerRows
from .sqlite_passages import PassageRows
from .sqlite_query import count_sql, select_sql
from .sqlite_skills import SkillRows
from .sqlite_transfer import TransferRows
from .vectors import VectorCache

if TYPE_CHECKING:
    from ..gate.edge import EdgeRedactor

DOC_FREQ_CACHE = 100_000  # terms
# (key column, the text column it is derived from, how): see ``SQLiteStore._masked``
_DERIVED_KEYS = (("content_key", "content", content_key), ("context_key", "context", normalize))
BUSY_TIMEOUT_MS = 60_000


class SQLiteStore(AuditRows, SkillRows, PassageRows, LedgerRows, TransferRows):
    """Items, their full-text rows and vectors, entity names, the audit log and the skill, passage and
    ledger rows in one SQLite file (``kenning.db``)."""

    def __init__(self, path: Path, embedder_name: str, dim: int, *, allow_embedder_change: bool = False,
                 snapshot: Path | None = None, redactor: EdgeRedactor | None = None) -> None:
        if redactor is None:
            from ..gate.edge import EdgeRedactor  # here, not at the top: the gate package imports the store

            redactor = EdgeRedactor()
        self.path = path
        self.dim = dim
        self.redactor = redactor
        try:
            _create_private(path)
            self._conn = sqlite3.connect(
                str(path), isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False
            )
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open database {path}: {exc}") from exc
        self._lock = threading.RLock()
        self._depth = 0
        self.vectors = VectorCache(dim, snapshot)
        self._seen_version = -1
        self._dirty_vectors = True
        # document frequencies of query terms: read from fts5vocab, which counts a term's whole
        # posting list (1-4 ms a query at 100k facts); kept until the full-text index changes
        self._doc_freq: dict[str, int] = {}
        self._accesses = PendingAccesses(self._write_accesses_later)
        self._closed = False
        _UNWRITTEN.add(self)  # a program that exits without closing the store still writes its counts
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            _use_wal(self._conn)
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self.schema_version = migrate(self._conn, str(path))
            check_tables(self._conn, str(path))
            self._check_embedder(embedder_name, dim, allow_embedder_change)
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise StoreError(f"{path} is not a usable kenning database: {exc}") from exc
        except BaseException:
            self._conn.close()
            raise

    # -- lifecycle ---------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            try:
                self.flush_touches()
            finally:
                self._closed = True
                self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction; nested calls join the outer one."""
        with self._write():
            yield

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """``transaction`` with the connection, for the store's own statements."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            self._conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            accesses = self._accesses.take()  # every write transaction carries them
            try:
                self._conn.executemany(access.UPDATE, accesses)
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                self._accesses.give_back(accesses)
                # the vector cache may have read rows of this transaction (the write gate compares
                # within it), and a rolled-back rowid is handed out again: start the cache afresh
                self.vectors.reset()
                self._dirty_vectors = True
                raise
            else:
                self._conn.execute("COMMIT")
            finally:
                self._depth = 0

    def _check_embedder(self, name: str, dim: int, allow_change: bool) -> None:
        meta = dict(self._conn.execute("SELECT key, value FROM meta").fetchall())
        if not meta.get("embedder"):
            self.set_embedder(name, dim)
            return
        if (meta["embedder"], int(meta["dim"])) != (name, dim) and not allow_change:
            raise EmbedderMismatch(
                f"{self.path} was indexed with embedder {meta['embedder']} ({meta['dim']} dims), "
                f"but {name} ({dim} dims) is configured; run `kenning reindex` to re-embed everything "
                "with the configured embedder, or configure the original one again"
            )

    def set_embedder(self, name: str, dim: int) -> None:
        with self._write() as conn:
            conn.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [("embedder", name), ("dim", str(dim))],
            )

    def meta(self) -> dict[str, str]:
        with self._lock:
            return dict(self._conn.execute("SELECT key, value FROM meta").fetchall())

    # -- items ------------------------------------------------------------------------------

    def insert_item(self, row: dict[str, Any], text: str, vec: np.ndarray) -> int:
        """Insert an item with its vector and ``text`` for the full-text index; returns its rowid."""
        cols = [c for c in ITEM_COLUMNS if c in row]
        row = self._masked(row)
        with self._write() as conn:
            cur = conn.execute(
                f"INSERT INTO items ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                [self._sql(row[c]) for c in cols],
            )
            rowid = int(cur.lastrowid or 0)
            conn.execute("INSERT INTO items_fts (rowid, body) VALUES (?, ?)", (rowid, self._body(text)))
            conn.execute("INSERT INTO vectors (item_rowid, vec, lang) VALUES (?, ?, ?)",
                         (rowid, _blob(vec, self.dim), language(str(row.get("content") or text))))
            self._index_changed()
        return rowid

    def update_item(self, rowid: int, changes: dict[str, Any]) -> None:
        if not changes:
            return
        sets = ", ".join(f"{c} = ?" for c in changes)
        changes = self._masked(changes)
        with self._write() as conn:
            conn.execute(f"UPDATE items SET {sets} WHERE rowid = ?", [*map(self._sql, changes.values()), rowid])

    def replace_index(self, rowid: int, text: str, vec: np.ndarray) -> None:
        """New full-text row and vector for an item whose text changed (e.g. an entity upsert)."""
        with self._write() as conn:
            conn.execute("DELETE FROM items_fts WHERE rowid = ?", (rowid,))
            conn.execute("INSERT INTO items_fts (rowid, body) VALUES (?, ?)", (rowid, self._body(text)))
            conn.execute("UPDATE vectors SET vec = ?, lang = (SELECT kenning_language(content) FROM items WHERE "
                         "rowid = ?) WHERE item_rowid = ?", (_blob(vec, self.dim), rowid, rowid))
            self._index_changed()

    def delete_item(self, rowid: int) -> None:
        with self._write() as conn:
            conn.execute("DELETE FROM items_fts WHERE rowid = ?", (rowid,))
            conn.execute("DELETE FROM vectors WHERE item_rowid = ?", (rowid,))
            conn.execute("DELETE FROM entity_names WHERE item_rowid = ?", (rowid,))
            conn.execute("DELETE FROM items WHERE rowid = ?", (rowid,))
            self._index_changed()

    def get(self, item_id: str) -> dict[str, Any] | None:
        return self._one("SELECT rowid, * FROM items WHERE id = ?", (item_id,))

    def get_rowid(self, rowid: int) -> dict[str, Any] | None:
        return self._one("SELECT rowid, * FROM items WHERE rowid = ?", (rowid,))

    def find_current(self, scope: str, kind: str, content_key: str) -> dict[str, Any] | None:
        return self._one(
            "SELECT rowid, * FROM items WHERE scope = ? AND kind = ? AND content_key = ? AND superseded_by IS NULL",
            (scope, kind, content_key),
        )

    def current_keys(self, scope: str, kind: str, content_keys: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for part in chunks(list(dict.fromkeys(content_keys))):
            found.update(str(k) for (k,) in self._rows(
                f"SELECT content_key FROM items WHERE scope = ? AND kind = ? AND superseded_by IS NULL "
                f"AND content_key IN ({marks(len(part))})", [scope, kind, *part]))
        return found

    def select(self, query: ItemQuery) -> list[dict[str, Any]]:
        """The items ``query`` matches, in its order (the statement is built in ``sqlite_query``)."""
        statement = select_sql(query)
        if statement is None:
            return []
        sql, params = statement
        with self._lock:
            if self._accesses and query.reads_access_counts:
                self.flush_touches()  # the database itself must hold them to select or sort by them
            cur = self._conn.execute(sql, params)
            names = [d[0] for d in cur.description]
            return [self._accesses.shown_in(dict(zip(names, row))) for row in cur.fetchall()]

    def count(self, query: ItemQuery) -> int:
        """How many items ``query`` matches (its order, limit and offset aside)."""
        statement = count_sql(query)
        if statement is None:
            return 0
        sql, params = statement
        with self._lock:
            if self._accesses and query.reads_access_counts:
                self.flush_touches()
            return int(self._conn.execute(sql, params).fetchone()[0])

    def touch(self, rowids: Iterable[int], now: float) -> None:
        """Count an access on each item (recall calls this for what it returns); written behind,
        see ``store.access``."""
        with self._lock:
            if not self._closed:
                self._accesses.add(rowids, now)

    def flush_touches(self) -> None:
        """Write the pending access counts now."""
        with self._lock:
            if self._accesses:
                with self.transaction():
                    pass  # a write transaction begins by writing them

    def _write_accesses_later(self) -> None:
        """The pending counts' timer (another thread)."""
        with self._lock:
            if self._closed:
                return
            try:
                self.flush_touches()
            except sqlite3.OperationalError:  # locked past the busy timeout: still pending, try later
                self._accesses.schedule()

    def _one(self, sql: str, params: Sequence[Any]) -> dict[str, Any] | None:
        with self._lock:
            cur = self._conn.execute(sql, list(params))
            row = cur.fetchone()
            return self._accesses.shown_in(dict(zip([d[0] for d in cur.description], row))) if row else None

    # -- entity names -------------------------------------------------------------------------

    def entity_rowid(self, scope: str, name_key: str) -> int | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT item_rowid FROM entity_names WHERE scope = ? AND name_key = ?", (scope, name_key)
            ).fetchone()
        return int(row[0]) if row else None

    def entity_names(self, scope: str) -> list[tuple[str, int]]:
        """Every (normalised name or alias, item rowid) of the entities of ``scope``."""
        with self._lock:
            return [(str(r[0]), int(r[1])) for r in self._conn.execute(
                "SELECT name_key, item_rowid FROM entity_names WHERE scope = ?", (scope,))]

    def add_entity_names(self, scope: str, rowid: int, keys: Iterable[str]) -> None:
        with self._write() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO entity_names (scope, name_key, item_rowid) VALUES (?, ?, ?)",
                [(scope, self.redactor.text(k), rowid) for k in keys],
            )

    def drop_entity_names(self, rowid: int) -> None:
        with self._write() as conn:
            conn.execute("DELETE FROM entity_names WHERE item_rowid = ?", (rowid,))

    # -- search -------------------------------------------------------------------------------

    def postings(self, terms: Sequence[str]) -> list[np.ndarray]:
        """For each term, the rowids of the indexed documents (of all scopes) that hold it.

        Unranked: FTS5 reads a term's posting list in rowid order, while asking it for the best
        bm25 matches scores and sorts every matching document (the larger part of a full-text
        query on a large store)."""
        out = []
        with self._lock:
            for term in terms:
                # one text per term, parsed by numpy: a Python tuple per row cost 40% more
                (listed,) = self._conn.execute("SELECT group_concat(rowid) FROM items_fts WHERE items_fts MATCH ?",
                                               (fts_match_expression([term]),)).fetchone()
                out.append(np.fromstring(listed, dtype=np.int64, sep=",") if listed else np.empty(0, dtype=np.int64))
        return out

    def bodies(self, rowids: Sequence[int]) -> dict[int, str]:
        """The segmented full-text body of each given item."""
        if not rowids:
            return {}
        with self._lock:
            return {int(r): str(b) for r, b in self._conn.execute(
                f"SELECT rowid, body FROM items_fts WHERE rowid IN ({', '.join('?' * len(rowids))})", list(rowids))}

    def doc_freq(self, terms: Sequence[str]) -> dict[str, int]:
        """In how many indexed documents (of all scopes) each term occurs; terms in none are left out."""
        if not terms:
            return {}
        with self._lock:
            if self._depth:  # inside a write transaction the index may hold uncommitted rows
                counts = self._vocab_counts(terms)
            else:
                self._notice_other_writers()
                if len(self._doc_freq) > DOC_FREQ_CACHE:
                    self._doc_freq.clear()
                missing = [t for t in terms if t not in self._doc_freq]
                if missing:
                    self._doc_freq.update(self._vocab_counts(missing))
                counts = self._doc_freq
            return {t: counts[t] for t in terms if counts[t]}

    def _vocab_counts(self, terms: Sequence[str]) -> dict[str, int]:
        unique = list(dict.fromkeys(terms))
        rows = dict(self._conn.execute(
            f"SELECT term, doc FROM items_vocab WHERE term IN ({', '.join('?' * len(unique))})", unique
        ).fetchall())
        return {t: int(rows.get(t, 0)) for t in unique}

    def fresh_vectors(self) -> VectorCache:
        """The vector cache, first brought up to date with commits from any connection."""
        with self._lock:
            self._notice_other_writers()
            if self._dirty_vectors:
                self.vectors.refresh(self._conn, committed=not self._depth)
                self._dirty_vectors = False
        return self.vectors

    def _notice_other_writers(self) -> None:
        """Mark both caches stale if another connection committed since the last look (``data_version``
        changes only for other connections' commits; our own writers call ``_index_changed``)."""
        version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self._seen_version:
            self._seen_version = version
            self._dirty_vectors = True
            self._doc_freq.clear()

    def index_pages(self) -> int:
        """Rows of the full-text index's storage (segments, their leaves and bookkeeping)."""
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM items_fts_data").fetchone()[0])

    def optimize_index(self) -> None:
        """Merge the full-text index into one segment. Every write transaction adds a small segment
        and FTS5 merges them only in batches, so a store filled fact by fact has many, and a query
        reads each term's postings from all of them (about 10% of a full-text query at 100k facts)."""
        with self._write() as conn:
            conn.execute("INSERT INTO items_fts (items_fts) VALUES ('optimize')")

    def _masked(self, row: dict[str, Any]) -> dict[str, Any]:
        """The row with every string in it masked (``redactor``). A lookup key is a normalised,
        lower-cased copy of a text, where a secret's shape (``AKIA…`` in capitals) is lost: when its
        text had to be masked, the key is derived again from the masked text."""
        out = {column: self.redactor.value(value, what=column) for column, value in row.items()}
        for key, text, derive in _DERIVED_KEYS:
            if row.get("kind") == "entity" and key == "content_key":
                text = "name"
            if key in row and text in row and out[text] != row[text]:
                out[key] = derive(out[text])
        return out

    @staticmethod
    def _sql(value: Any) -> Any:
        if isinstance(value, list | tuple | dict):
            return json.dumps(value, ensure_ascii=False)
        if isinstance(value, bool):
            return int(value)
        return value

    def _body(self, text: str) -> str:
        return segment(self.redactor.text(text))

    def _index_changed(self) -> None:
        """An item's full-text row and vector were written (inside the writer's transaction)."""
        self._dirty_vectors = True
        self._doc_freq.clear()

    def all_bodies(self) -> Iterator[tuple[int, str]]:
        """(rowid, content) of every item, for re-embedding."""
        with self._lock:
            rows = self._conn.execute("SELECT rowid, content FROM items ORDER BY rowid").fetchall()
        yield from ((int(r[0]), str(r[1])) for r in rows)

    def rewrite_vectors(self, rowids: Sequence[int], vecs: np.ndarray) -> None:
        with self._write() as conn:
            conn.executemany(
                "UPDATE vectors SET vec = ? WHERE item_rowid = ?",
                [(_blob(v, self.dim), r) for r, v in zip(rowids, vecs)],
            )
            self._dirty_vectors = True

    # -- maintenance ---------------------------------------------------------------------------

    def vacuum(self) -> None:
        """Make deleted text leave the file: merge the full-text index (dropping deleted entries),
        rebuild the database file, and empty the write-ahead log."""
        self.optimize_index()
        with self._lock:
            self._conn.execute("VACUUM")
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- statistics ------------------------------------------------------------------------------

    def counts(self, scope: str | None) -> list[tuple[str, str, int, int, int]]:
        """(scope, kind, total, current, pinned) per scope and kind."""
        where, params = ("WHERE scope = ?", [scope]) if scope else ("", [])
        with self._lock:
            rows = self._conn.execute(
                "SELECT scope, kind, count(*), sum(superseded_by IS NULL), sum(pinned) FROM items "
                f"{where} GROUP BY scope, kind ORDER BY scope, kind",
                params,
            ).fetchall()
        return [(r[0], r[1], int(r[2]), int(r[3] or 0), int(r[4] or 0)) for r in rows]


def _create_private(path: Path) -> None:
    """Make a missing database file empty (SQLite's new database) and ``PRIVATE_FILE``, in a private
    folder when that is missing too: SQLite would make it 0644, and it gives the -wal and -shm
    files it adds the mode of the database file, so those are private as well."""
    fileio.private_dir(path.parent)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, fileio.PRIVATE_FILE))
    except FileExistsError:
        pass  # an existing database (or one another process just made) keeps its mode


def _use_wal(conn: sqlite3.Connection) -> None:
    """Put the database in WAL mode (it stays so, in the file).

    The switch needs the database to itself for a moment. When several processes open a new store
    at once (an MCP server and a hook starting together), SQLite can answer "database is locked"
    at once instead of waiting, because waiting could deadlock: try again until the busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


_UNWRITTEN: weakref.WeakSet[SQLiteStore] = weakref.WeakSet()


@atexit.register
def _write_pending_counts() -> None:
    for store in list(_UNWRITTEN):
        if not store._closed:
            store.flush_touches()


def _blob(vec: np.ndarray, dim: int) -> bytes:
    arr = np.asarray(vec, dtype=np.float32).reshape(-1)
    if arr.shape[0] != dim:
        raise StoreError(f"vector has {arr.shape[0]} dimensions, the store expects {dim}")
    return arr.tobytes()


def now() -> float:
    return time.time()
