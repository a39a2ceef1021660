"""The PostgreSQL store: one database shared by many agents on many hosts, pgvector for vectors.

The same contract as the SQLite store (``kenning.store.contract``), over psycopg 3 and a small
connection pool. ``transaction()`` takes one connection for the thread that opens it; nested calls
join it, and an exception in the outermost one rolls all of it back. Every write transaction first
takes one advisory lock of the database (``postgres_schema.WRITE_LOCK``), so writers queue as they
do on SQLite's write lock, on any host: what a transaction compared (is this fact stored already?
how often was it reinforced?) is what it changes, and rowids become visible in the order they were
given out. Reads outside a transaction run in autocommit on a pooled connection and never wait for
a writer. The store's parts (``postgres_search``, ``postgres_audit``, ``postgres_skills``,
``postgres_passages``, ``postgres_ledgers``, ``postgres_query``) hold the SQL of one concern each;
the schema and its migrations are in ``postgres_schema``.

Every string written to an item, its full-text row, an entity name or the audit log passes
``redactor`` first, and the store segments an item's text itself after masking, as SQLite's does.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import threading
import weakref
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from ..errors import EmbedderMismatch, Forbidden, StoreError
from ..text import content_key, language, normalize, segment
from .access import PendingAccesses
from .postgres_audit import AuditRows
from .postgres_hnsw import ServerVectors, ensure_index, indexed_dims
from .postgres_ledgers import LedgerRows
from .postgres_passages import PassageRows
from .postgres_query import QueryRows
from .postgres_schema import WRITE_LOCK, check_tables, migrate
from .postgres_security import LAST_VECTOR, MATCHING, SecuredVectorCache, check_open, owns_tables, role_of
from .postgres_search import SearchRows, Transaction
from .postgres_skills import SkillRows
from .postgres_transfer import TransferRows
from .postgres_vectors import PgVectorCache, register_vector
from .query import ITEM_COLUMNS
from .url import masked

if TYPE_CHECKING:
    from ..gate.edge import EdgeRedactor

POOL_MIN, POOL_MAX = 1, 4  # connections per store (a process); a server allows ~100 in all by default
POOL_TIMEOUT = 60.0  # seconds a call waits for a free connection
CONNECT_TIMEOUT = 10  # seconds, unless the URL says (connect_timeout=...)
VACUUM_LOCK_TIMEOUT = 10  # seconds
_DERIVED_KEYS = (("content_key", "content", content_key), ("context_key", "context", normalize))
_ACCESS_UPDATE = ("UPDATE items SET last_accessed = greatest(coalesce(last_accessed, 0), %s), "
                  "access_count = access_count + %s WHERE rowid = %s")
# the tables a purge leaves deleted or blanked text in, which VACUUM FULL rewrites without it
_TEXT_TABLES = "items, items_fts, vectors, entity_names, audit, skill_usage, skill_versions, skill_blobs"


class PostgresStore(SearchRows, QueryRows, AuditRows, SkillRows, PassageRows, LedgerRows, TransferRows):
    """Items, their full-text rows and vectors, entity names, the audit log and the skill, passage and
    ledger rows in one PostgreSQL database (with the ``vector`` extension)."""

    def __init__(self, url: str, embedder_name: str, dim: int, *, allow_embedder_change: bool = False,
                 snapshot: Path | None = None, redactor: EdgeRedactor | None = None, setting: str = "the database URL",
                 pool_min: int = POOL_MIN, pool_max: int = POOL_MAX, vectors: str = "memory",
                 row_security: bool = False) -> None:
        if redactor is None:
            from ..gate.edge import EdgeRedactor  # here, not at the top: the gate package imports the store

            redactor = EdgeRedactor()
        self.url = url
        self.shown = masked(url)
        self.dim = dim
        self.redactor = redactor
        self._local = threading.local()
        self._cache_lock = threading.RLock()
        self._terms_lock = threading.Lock()
        # "server": searches ask the server (pgvector's HNSW index), the cache stays empty
        self.server_vectors = ServerVectors(dim, self._read) if vectors == "server" else None
        self._doc_freq: dict[str, int] = {}
        self._seen: dict[str, str | None] = {}
        self._touch_lock = threading.RLock()
        self._accesses = PendingAccesses(self._write_accesses_later)
        self._closed = False
        self.secured = False  # row-level security on in the database (``postgres_security``): found at open
        self.role = ""
        self.schema_version = self._prepare(setting, row_security)
        # a secured cache holds only its role's rows: no snapshot file, which another role's process may have written
        self.vectors = SecuredVectorCache(dim) if self.secured else PgVectorCache(dim, snapshot)
        if self.secured:
            self._matching, self._last_vector = MATCHING, LAST_VECTOR
        self._pool = ConnectionPool(url, min_size=pool_min, max_size=max(pool_min, pool_max), open=False,
                                    kwargs={"autocommit": True, **self._defaults()}, configure=register_vector,
                                    timeout=POOL_TIMEOUT, name=f"kenning {self.shown}")
        # no check on checkout: a round trip each (5 ms a recall); a connection found broken is
        # dropped by the pool when it comes back, so a server restart fails one call per connection
        try:
            self._pool.open(wait=True, timeout=POOL_TIMEOUT)
            self._check_embedder(embedder_name, dim, allow_embedder_change)
            if self.server_vectors is not None:
                with self._write() as conn:
                    ensure_index(conn, dim, self.shown)
        except BaseException:
            self._pool.close()
            raise
        _UNWRITTEN.add(self)  # a program that exits without closing the store still writes its counts

    def _prepare(self, setting: str, row_security: bool) -> int:
        """Connect once to migrate the schema and check it (and its row security: demanded by
        ``row_security``, enforced by the server whenever it is on); the schema version."""
        try:
            conn = psycopg.connect(self.url, autocommit=True, **self._defaults())
        except psycopg.Error as exc:
            reason = " ".join(str(exc).split())  # libpq's message spans lines
            raise StoreError(f"{setting} asks for the PostgreSQL database {self.shown}, which cannot be reached: "
                             f"{reason}; check the URL (host, port, user, password, database) and that the server "
                             "runs and accepts this client") from exc
        with conn:
            self.role = role_of(conn)
            try:
                version = migrate(conn, self.shown)
            except psycopg.errors.InsufficientPrivilege as exc:  # a role with no grant on a secured database
                raise StoreError(f"role {self.role!r} may not read kenning's tables in {self.shown} ({exc}); if the "
                                 "database keeps each role to its scopes, ask its owner to run "
                                 f"`kenning access grant {self.role} SCOPE`") from exc
            check_tables(conn, self.shown)
            self.secured = check_open(conn, self.shown, demanded=row_security, setting=setting)
        return version

    def _defaults(self) -> dict[str, Any]:
        """Connection settings the URL may leave out: a server that does not answer is given up on
        after ``CONNECT_TIMEOUT`` seconds instead of never."""
        try:
            given = psycopg.conninfo.conninfo_to_dict(self.url)
        except psycopg.Error:
            return {}  # a malformed URL: connecting says what is wrong with it
        return {} if "connect_timeout" in given else {"connect_timeout": CONNECT_TIMEOUT}

    # -- lifecycle and transactions -----------------------------------------------------------

    def close(self) -> None:
        with self._touch_lock:
            if self._closed:
                return
            try:
                self.flush_touches()
            finally:
                self._closed = True
                self._pool.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction; nested calls join the outer one."""
        with self._write():
            yield

    def _tx(self) -> Transaction | None:
        return getattr(self._local, "tx", None)

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        if self._closed:
            raise StoreError(f"the store of {self.shown} is closed; open it again")
        try:
            with self._pool.connection() as conn:
                yield conn
        except PoolTimeout as exc:
            raise StoreError(f"no connection to {self.shown} came free within {POOL_TIMEOUT:.0f} s ({exc}); "
                             "the server may be down or overloaded") from exc

    @contextmanager
    def _read(self) -> Iterator[psycopg.Connection[Any]]:
        tx = self._tx()
        if tx is not None:
            yield tx.conn
            return
        with self._connection() as conn:
            yield conn

    @contextmanager
    def _write(self) -> Iterator[psycopg.Connection[Any]]:
        """``transaction`` with the connection, for the store's own statements."""
        tx = self._tx()
        if tx is not None:
            tx.depth += 1
            try:
                yield tx.conn
            finally:
                tx.depth -= 1
            return
        with self._connection() as conn:
            tx = self._local.tx = Transaction(conn)
            self._local.scope = None
            with self._touch_lock:
                accesses = self._accesses.take()  # every write transaction carries them
            try:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                    if accesses:
                        conn.cursor().executemany(_ACCESS_UPDATE, accesses)
                    try:
                        yield conn
                    except psycopg.errors.InsufficientPrivilege as exc:
                        raise self._refused(str(exc)) from exc
            except BaseException:
                with self._touch_lock:
                    self._accesses.give_back(accesses)
                if tx.holds_cache:  # it took in rows that are now gone
                    self.vectors.reset()
                if self.server_vectors is not None:  # its null samples may hold such rows
                    self.server_vectors.reset()
                raise
            finally:
                self._local.tx = None
                if tx.holds_cache:
                    self._cache_lock.release()

    def _writes_scope(self, scope: str | None) -> None:
        """The scope the next rows of this thread's transaction belong to, named if the server refuses them."""
        self._local.scope = scope

    def _refused(self, reason: str, scope: str | None = None) -> Forbidden:
        """What the server refused (SQLSTATE 42501: a row its row-level security keeps out, or a
        missing privilege) becomes: the role, the scope and the fix."""
        scope = scope or getattr(self._local, "scope", None)
        fix = f"`kenning access grant {self.role} {scope or 'SCOPE'}`"
        if "row-level security" not in reason:
            reason = " ".join(reason.split())
            return Forbidden(f"role {self.role!r} lacks a privilege in {self.shown} ({reason}): ask its owner to "
                             f"run {fix}")
        what = f"scope {scope!r}" if scope else "this row"
        if not self.secured:  # this store opened before the owner turned row security on
            return Forbidden(f"{self.shown} turned row security on after this process opened it, and refused a row "
                             f"of {what}: open the store again (and, if role {self.role!r} may not write it, ask its "
                             f"owner to run {fix})")
        return Forbidden(f"role {self.role!r} may not write {what} in {self.shown}: ask its owner to run {fix}")

    def _check_changed(self, conn: psycopg.Connection[Any], rowcount: int, rowid: int) -> None:
        """On a secured database an item the role may read but not write is left unchanged by the
        server, without an error: say so instead of going on as if it had changed."""
        if self.secured and rowcount == 0:
            found = conn.execute("SELECT scope FROM items WHERE rowid = %s", (rowid,)).fetchone()
            if found is not None:
                raise self._refused("row-level security", str(found[0]))

    def _index_written(self) -> None:
        tx = self._tx()
        assert tx is not None, "full-text rows and vectors are written inside a transaction"
        tx.index_written = True

    def _owns_tables(self) -> bool:
        with self._connection() as conn:
            return owns_tables(conn)

    def _check_embedder(self, name: str, dim: int, allow_change: bool) -> None:
        meta = self.meta()
        if not meta.get("embedder"):
            if self.secured and not self._owns_tables():
                raise StoreError(f"{self.shown} records no embedder yet, and only its owner writes that: ask the "
                                 "owner to open it once (`kenning access enable` does), then open it again")
            self.set_embedder(name, dim)
            return
        if (meta["embedder"], int(meta["dim"])) != (name, dim) and not allow_change:
            raise EmbedderMismatch(
                f"{self.shown} was indexed with embedder {meta['embedder']} ({meta['dim']} dims), "
                f"but {name} ({dim} dims) is configured; run `kenning reindex` to re-embed everything "
                "with the configured embedder, or configure the original one again"
            )

    def set_embedder(self, name: str, dim: int) -> None:
        if self.secured and not self._owns_tables():
            raise StoreError(f"only the owner of {self.shown} may change the embedder it records, not role "
                             f"{self.role!r}: a reindex re-embeds every role's rows; run `kenning reindex` as the owner")
        with self._write() as conn:
            conn.cursor().executemany(
                "INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [("embedder", name), ("dim", str(dim))])
            if self.server_vectors is not None or any(d != dim for d in indexed_dims(conn)):
                ensure_index(conn, dim, self.shown, replace=True)  # the index of the new dimension

    def meta(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self._rows("SELECT key, value FROM meta")}

    # -- items ------------------------------------------------------------------------------

    def insert_item(self, row: dict[str, Any], text: str, vec: np.ndarray) -> int:
        """Insert an item with its vector and ``text`` for the full-text index; returns its rowid."""
        cols = [c for c in ITEM_COLUMNS if c in row]
        row = self._masked(row)
        vector = self._vector(vec)
        body = self._body(text)
        params = [*map(_sql, (row[c] for c in cols)), body, self._terms(body), vector,
                  language(str(row.get("content") or text))]
        with self._write() as conn:
            self._index_written()
            self._writes_scope(str(row.get("scope")))
            if self.secured:  # the policies of the full-text row and vector look for the item row
                return self._insert_secured(conn, cols, params)
            (rowid,) = conn.execute(  # one round trip for the three rows
                f"WITH item AS (INSERT INTO items ({', '.join(cols)}) VALUES ({', '.join(['%s'] * len(cols))}) "
                "RETURNING rowid), "
                "fts AS (INSERT INTO items_fts (rowid, body, terms) SELECT rowid, %s, array_to_tsvector(%s::text[]) "
                "FROM item) "
                "INSERT INTO vectors (item_rowid, vec, lang) SELECT rowid, %s, %s FROM item RETURNING item_rowid",
                params).fetchone() or (0,)
        return int(rowid)

    def _insert_secured(self, conn: psycopg.Connection[Any], cols: list[str], params: list[Any]) -> int:
        """``insert_item`` in two statements: the statements of one WITH do not see each other's rows,
        and the policies of ``items_fts`` and ``vectors`` look for the item they belong to."""
        (rowid,) = conn.execute(f"INSERT INTO items ({', '.join(cols)}) VALUES ({', '.join(['%s'] * len(cols))}) "
                                "RETURNING rowid", params[: len(cols)]).fetchone() or (0,)
        conn.execute("WITH fts AS (INSERT INTO items_fts (rowid, body, terms) "
                     "VALUES (%s, %s, array_to_tsvector(%s::text[]))) "
                     "INSERT INTO vectors (item_rowid, vec, lang) VALUES (%s, %s, %s)",
                     (rowid, *params[len(cols): len(cols) + 2], rowid, *params[len(cols) + 2:]))
        return int(rowid)

    def update_item(self, rowid: int, changes: dict[str, Any]) -> None:
        if not changes:
            return
        unknown = [c for c in changes if c not in ITEM_COLUMNS]
        if unknown:
            raise StoreError(f"items have no column {', '.join(unknown)}; the columns are {', '.join(ITEM_COLUMNS)}")
        sets = ", ".join(f"{c} = %s" for c in changes)
        changes = self._masked(changes)
        with self._write() as conn:
            done = conn.execute(f"UPDATE items SET {sets} WHERE rowid = %s", [*map(_sql, changes.values()), rowid])
            self._check_changed(conn, done.rowcount, rowid)

    def replace_index(self, rowid: int, text: str, vec: np.ndarray) -> None:
        """New full-text row and vector for an item whose text changed (e.g. an entity upsert)."""
        vector = self._vector(vec)
        with self._write() as conn:
            self._index_written()
            body = self._body(text)
            conn.execute("INSERT INTO items_fts (rowid, body, terms) VALUES (%s, %s, array_to_tsvector(%s::text[])) "
                         "ON CONFLICT (rowid) DO UPDATE SET body = excluded.body, terms = excluded.terms",
                         (rowid, body, self._terms(body)))
            found = conn.execute("SELECT content FROM items WHERE rowid = %s", (rowid,)).fetchone()
            lang = language(str(found[0])) if found else "en"
            conn.execute("UPDATE vectors SET vec = %s, lang = %s WHERE item_rowid = %s", (vector, lang, rowid))

    def delete_item(self, rowid: int) -> None:
        with self._write() as conn:
            self._index_written()
            conn.execute("DELETE FROM items_fts WHERE rowid = %s", (rowid,))
            conn.execute("DELETE FROM vectors WHERE item_rowid = %s", (rowid,))
            conn.execute("DELETE FROM entity_names WHERE item_rowid = %s", (rowid,))
            self._check_changed(conn, conn.execute("DELETE FROM items WHERE rowid = %s", (rowid,)).rowcount, rowid)

    def get(self, item_id: str) -> dict[str, Any] | None:
        return self._item("SELECT * FROM items WHERE id = %s", (item_id,))

    def get_rowid(self, rowid: int) -> dict[str, Any] | None:
        return self._item("SELECT * FROM items WHERE rowid = %s", (rowid,))

    def find_current(self, scope: str, kind: str, content_key: str) -> dict[str, Any] | None:
        # md5(...) as the unique index has it, so that the index answers
        return self._item(
            "SELECT * FROM items WHERE scope = %s AND kind = %s AND md5(content_key) = md5(%s) AND content_key = %s "
            "AND superseded_by IS NULL", (scope, kind, content_key, content_key))

    def current_keys(self, scope: str, kind: str, content_keys: Sequence[str]) -> set[str]:
        keys = list(dict.fromkeys(content_keys))
        if not keys:
            return set()
        # md5(...) as the unique index has it, so that the index answers
        rows = self._rows("SELECT content_key FROM items WHERE scope = %s AND kind = %s AND superseded_by IS NULL "
                          "AND md5(content_key) = ANY(%s::text[]) AND content_key = ANY(%s::text[])",
                          (scope, kind, [hashlib.md5(k.encode()).hexdigest() for k in keys], keys))
        return {str(k) for (k,) in rows}

    def _item(self, sql: str, params: tuple[Any, ...]) -> dict[str, Any] | None:
        with self._read() as conn:
            row = conn.cursor(row_factory=dict_row).execute(sql, params).fetchone()
        return self._shown(row) if row else None

    def _shown(self, row: dict[str, Any]) -> dict[str, Any]:
        with self._touch_lock:
            return self._accesses.shown_in(row)

    def _pending_touches(self) -> bool:
        with self._touch_lock:
            return bool(self._accesses)

    def touch(self, rowids: Iterable[int], now: float) -> None:
        """Count an access on each item (recall calls this for what it returns); written behind,
        see ``store.access``."""
        with self._touch_lock:
            if not self._closed:
                self._accesses.add(rowids, now)

    def flush_touches(self) -> None:
        """Write the pending access counts now."""
        if self._pending_touches():
            with self.transaction():
                pass  # a write transaction begins by writing them

    def _write_accesses_later(self) -> None:
        """The pending counts' timer (another thread)."""
        if self._closed:
            return
        try:
            self.flush_touches()
        except (psycopg.OperationalError, StoreError):  # the server is away: still pending, try later
            with self._touch_lock:
                self._accesses.schedule()

    def counts(self, scope: str | None) -> list[tuple[str, str, int, int, int]]:
        """(scope, kind, total, current, pinned) per scope and kind."""
        where, params = ("WHERE scope = %s", [scope]) if scope else ("", [])
        rows = self._rows(
            "SELECT scope, kind, count(*), count(*) FILTER (WHERE superseded_by IS NULL), sum(pinned) FROM items "
            f'{where} GROUP BY scope, kind ORDER BY scope COLLATE "C", kind COLLATE "C"', params)
        return [(str(r[0]), str(r[1]), int(r[2]), int(r[3] or 0), int(r[4] or 0)) for r in rows]

    # -- entity names -------------------------------------------------------------------------

    def entity_rowid(self, scope: str, name_key: str) -> int | None:
        rows = self._rows("SELECT item_rowid FROM entity_names WHERE scope = %s AND name_key = %s", (scope, name_key))
        return int(rows[0][0]) if rows else None

    def entity_names(self, scope: str) -> list[tuple[str, int]]:
        return [(str(r[0]), int(r[1])) for r in self._rows(
            "SELECT name_key, item_rowid FROM entity_names WHERE scope = %s", (scope,))]

    def add_entity_names(self, scope: str, rowid: int, keys: Iterable[str]) -> None:
        rows = [(scope, self.redactor.text(k), rowid) for k in keys]
        if not rows:
            return
        with self._write() as conn:
            self._writes_scope(scope)
            conn.cursor().executemany("INSERT INTO entity_names (scope, name_key, item_rowid) VALUES (%s, %s, %s) "
                                      "ON CONFLICT DO NOTHING", rows)

    def drop_entity_names(self, rowid: int) -> None:
        with self._write() as conn:
            conn.execute("DELETE FROM entity_names WHERE item_rowid = %s", (rowid,))

    # -- writing helpers ----------------------------------------------------------------------

    def _masked(self, row: dict[str, Any]) -> dict[str, Any]:
        """The row with every string in it masked (``redactor``); a lookup key whose text had to be
        masked is derived again from the masked text (as ``SQLiteStore._masked``)."""
        out = {column: self.redactor.value(value, what=column) for column, value in row.items()}
        for key, text, derive in _DERIVED_KEYS:
            if row.get("kind") == "entity" and key == "content_key":
                text = "name"
            if key in row and text in row and out[text] != row[text]:
                out[key] = derive(out[text])
        return out

    def _body(self, text: str) -> str:
        return segment(self.redactor.text(text))

    # -- maintenance ---------------------------------------------------------------------------

    def vacuum(self) -> str | None:
        """Make deleted and blanked text leave the tables' files: VACUUM FULL rewrites each table
        with its live rows only (it locks each table meanwhile). The server's write-ahead log and
        its backups keep what they hold until they are recycled. Only the tables' owner may: for
        another role nothing is rewritten, and the note returned says who should run it."""
        if self._tx() is not None:
            raise StoreError("vacuum cannot run inside a transaction; call it after the transaction ends")
        with self._connection() as conn:
            if not owns_tables(conn, tuple(t.strip() for t in _TEXT_TABLES.split(","))):
                return (f"the purged text is gone from every row, but stays in the table files of {self.shown} until "
                        f"their owner rewrites them: ask the owner to run `kenning access vacuum` (role "
                        f"{self.role!r} may not)")
            # readers queue behind a waiting VACUUM FULL: it waits for open writers this long only
            conn.execute(f"SET lock_timeout = '{VACUUM_LOCK_TIMEOUT}s'")
            try:
                conn.execute(f"VACUUM FULL {_TEXT_TABLES}")
            except psycopg.errors.LockNotAvailable as exc:
                raise StoreError(f"{self.shown} is busy: VACUUM FULL waited {VACUUM_LOCK_TIMEOUT} s for writers "
                                 "to finish; what was purged is gone from every row, but may stay in the table "
                                 "files until a later vacuum; run it again when the store is quieter") from exc
            finally:
                conn.execute("RESET lock_timeout")
        return None


_UNWRITTEN: weakref.WeakSet[PostgresStore] = weakref.WeakSet()


@atexit.register
def _write_pending_counts() -> None:
    for store in list(_UNWRITTEN):
        if not store._closed:
            try:
                store.flush_touches()
            except (psycopg.Error, StoreError):
                pass  # the server is gone at exit: the counts are lost, nothing else


def _sql(value: Any) -> Any:
    if isinstance(value, list | tuple | dict):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return int(value)
    return value
