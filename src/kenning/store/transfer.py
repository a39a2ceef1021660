"""Copy a whole store into another, any backend to any backend, exactly and idempotently.

Each table is read in key order, a page at a time (``Store.transfer_page``), and every row reduced
to a digest of its canonical JSON. A first pass compares the source's digests with the target's:
a row the target holds under the same key with the same digest is skipped, one with other content
(or a source row whose unique values the target holds under another key) is a conflict, and the
copy stops before it writes anything. The second pass writes the missing rows in batches, each in
one transaction (``Store.import_rows``), an item together with its full-text row, vector and
entity names, so a crash leaves whole batches and a rerun completes the copy. The last pass checks
each table's row count and checksum (SHA-256 over the rows' digests in key order) on both sides.

Only the embedder's name and dimension are carried from ``meta``: the rest of it (``store_id``,
the vector change counters) belongs to each store. Derived rows are not tables here: PostgreSQL's
``terms`` are made again from the copied body, and its ``vector_changes`` log stays local.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import Conflict, EmbedderMismatch, InvalidInput, StoreError
from .contract import Store
from .query import ITEM_COLUMNS
from .url import StoreLocation

BATCH = 500  # rows (items, with their companions) per transaction
CONFLICTS_SHOWN = 5


@dataclass(frozen=True)
class Table:
    """What a store table holds for a copy: its key, its columns, the unique values beside the key,
    and (``of_items``) the column naming the item a row belongs to, for rows copied with their item."""

    name: str
    key: tuple[str, ...]
    columns: tuple[str, ...]
    unique: tuple[tuple[str, ...], ...] = ()
    of_items: str | None = None


# in an order where every row a row refers to is copied before it
TABLES: tuple[Table, ...] = (
    Table("items", ("rowid",), ("rowid", *ITEM_COLUMNS), unique=(("id",), ("scope", "kind", "content_key", "current"))),
    Table("items_fts", ("rowid",), ("rowid", "body"), of_items="rowid"),
    Table("vectors", ("item_rowid",), ("item_rowid", "vec", "lang"), of_items="item_rowid"),
    Table("entity_names", ("scope", "name_key"), ("scope", "name_key", "item_rowid"), of_items="item_rowid"),
    Table("audit", ("seq",), ("seq", "at", "action", "item_id", "kind", "scope", "actor", "reason", "before",
                              "after")),
    Table("skill_blobs", ("sha256",), ("sha256", "content")),
    Table("skill_versions", ("id",), ("id", "name", "source", "root", "rel_path", "number", "action", "checksum",
                                      "version_field", "at", "actor", "reason", "deleted"),
          unique=(("root", "rel_path", "number"),)),
    Table("skill_version_files", ("version_id", "path"), ("version_id", "path", "sha256", "size")),
    Table("skill_usage", ("id",), ("id", "at", "name", "event", "outcome", "detail", "actor", "root", "rel_path")),
    Table("skill_pins", ("root", "rel_path"), ("root", "rel_path", "name", "source", "at", "actor", "reason")),
    Table("passage_vectors", ("embedder", "sha256"), ("embedder", "sha256", "vector", "used_at")),
    Table("consolidated_messages", ("scope", "message_key"), ("scope", "message_key", "at")),
    Table("fact_conflicts", ("a", "b"), ("a", "b", "scope", "rule", "cosine", "found_at", "found_by", "settled",
                                         "settled_at", "settled_by")),
)
BY_NAME = {table.name: table for table in TABLES}
COMPANIONS = tuple(t for t in TABLES if t.of_items)

Key = tuple[Any, ...]
Progress = Callable[[str, int, int], None]  # (table, rows written so far, rows to write)


@dataclass
class TableReport:
    table: str
    source_rows: int = 0
    copied: int = 0
    skipped: int = 0
    target_rows: int = 0
    source_sha256: str = ""
    target_sha256: str = ""

    @property
    def verified(self) -> bool:
        return self.source_rows == self.target_rows and self.source_sha256 == self.target_sha256

    def to_dict(self) -> dict[str, Any]:
        return {"table": self.table, "source_rows": self.source_rows, "copied": self.copied, "skipped": self.skipped,
                "target_rows": self.target_rows, "source_sha256": self.source_sha256,
                "target_sha256": self.target_sha256, "verified": self.verified}


@dataclass
class Report:
    tables: list[TableReport] = field(default_factory=list)
    embedder: str = ""
    dim: int = 0

    @property
    def copied(self) -> int:
        return sum(t.copied for t in self.tables)

    @property
    def verified(self) -> bool:
        return all(t.verified for t in self.tables)

    def to_dict(self) -> dict[str, Any]:
        return {"embedder": self.embedder, "dim": self.dim, "copied": self.copied, "verified": self.verified,
                "tables": [t.to_dict() for t in self.tables]}


@dataclass
class _Side:
    """One store's rows of one table, reduced to digests (and the unique values beside the key)."""

    digests: dict[Key, str] = field(default_factory=dict)
    unique: dict[tuple[Any, ...], Key] = field(default_factory=dict)


def migrate(source: StoreLocation, target: StoreLocation, embedder_name: str, dim: int, *,
            progress: Progress | None = None, batch: int = BATCH) -> Report:
    """Open both stores and ``transfer`` from ``source`` to ``target`` (created when new). The
    embedder is used only to open a source that records none; both keep the source's."""
    from . import open_store

    if same_place(source, target):
        raise InvalidInput(f"--to and --from both name {target.shown}; give another database to copy into")
    if source.path is not None and not source.path.is_file():
        raise InvalidInput(f"{source.setting}: there is no database at {source.shown}; give the store to copy from "
                           "(`kenning path` shows the one in use)")
    src = open_store(source, embedder_name, dim, allow_embedder_change=True)
    try:
        meta = src.meta()
        dst = open_store(target, meta.get("embedder") or embedder_name, int(meta.get("dim") or dim),
                         allow_embedder_change=True)
        try:
            return transfer(src, dst, source_name=source.shown, target_name=target.shown, progress=progress,
                            batch=batch)
        finally:
            dst.close()
    finally:
        src.close()


def same_place(first: StoreLocation, second: StoreLocation) -> bool:
    """Whether two locations name one database (a file by its path, a server database by host, port,
    database and user)."""
    if first.backend != second.backend:
        return False
    if first.path is not None or second.path is not None:
        return first.path == second.path
    return _server_database(first.url or "") == _server_database(second.url or "")


def _server_database(url: str) -> tuple[str, ...]:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return (parts.hostname or "", str(parts.port or 5432), parts.path.strip("/"), parts.username or "", parts.query)


def transfer(source: Store, target: Store, *, source_name: str, target_name: str, progress: Progress | None = None,
             batch: int = BATCH) -> Report:
    """Copy every row of ``source`` missing from ``target``, then verify both hold the same rows.
    ``source_name`` / ``target_name`` name the stores in errors (URLs with their passwords masked)."""
    embedder, dim = _check_compatible(source, target, source_name, target_name)
    sources = {t.name: _scan(source, t, batch) for t in TABLES}
    targets = {t.name: _scan(target, t, batch) for t in TABLES}
    _refuse_conflicts(sources, targets, target_name)
    report = Report(embedder=embedder, dim=dim)
    if target.meta().get("embedder") != embedder or target.meta().get("dim") != str(dim):
        target.set_embedder(embedder, dim)
    copied = _copy(source, target, {n: set(s.digests) - set(targets[n].digests) for n, s in sources.items()},
                   progress, batch)
    for table in TABLES:
        held = _scan(target, table, batch)
        src = sources[table.name]
        report.tables.append(TableReport(
            table.name, len(src.digests), copied.get(table.name, 0),
            sum(1 for k in src.digests if k in targets[table.name].digests), len(held.digests),
            _checksum(src.digests), _checksum(held.digests)))
    return report


def _check_compatible(source: Store, target: Store, source_name: str, target_name: str) -> tuple[str, int]:
    if source.schema_version != target.schema_version:
        raise StoreError(f"{source_name} has schema version {source.schema_version} and {target_name} "
                         f"{target.schema_version}; open both with this kenning first (each upgrades when opened), "
                         "then migrate again")
    meta, held = source.meta(), target.meta()
    embedder, dim = meta.get("embedder", ""), int(meta.get("dim") or 0)
    if not embedder:
        raise StoreError(f"{source_name} records no embedder, so it holds no kenning store; check --from")
    if (held.get("embedder"), held.get("dim")) != (embedder, str(dim)) and _holds_vectors(target):
        raise EmbedderMismatch(
            f"{target_name} holds vectors of embedder {held.get('embedder')} ({held.get('dim')} dims), but "
            f"{source_name}'s are of {embedder} ({dim} dims); migrate into an empty database, or run "
            f"`kenning reindex` on one of them with the other's embedder first")
    return embedder, dim


def _holds_vectors(store: Store) -> bool:
    return any(store.transfer_page(name, None, 1) for name in ("vectors", "passage_vectors"))


def _pages(store: Store, table: Table, batch: int) -> Iterator[list[dict[str, Any]]]:
    after: Key | None = None
    while True:
        rows = store.transfer_page(table.name, after, batch)
        if not rows:
            return
        yield rows
        after = key_of(table, rows[-1])


def _scan(store: Store, table: Table, batch: int) -> _Side:
    side = _Side()
    for rows in _pages(store, table, batch):
        for row in rows:
            key = key_of(table, row)
            side.digests[key] = digest(table, row)
            for columns in table.unique:
                value = _unique_value(columns, row)
                if value is not None:
                    side.unique[value] = key
    return side


def _unique_value(columns: tuple[str, ...], row: dict[str, Any]) -> tuple[Any, ...] | None:
    """The row's values of one unique constraint; None where it does not apply (``current``: only
    unsuperseded items must differ in content)."""
    if columns[-1] == "current":
        if row.get("superseded_by") is not None:
            return None
        columns = columns[:-1]
    return (columns, *(row[c] for c in columns))


def _refuse_conflicts(sources: dict[str, _Side], targets: dict[str, _Side], target_name: str) -> None:
    found: list[str] = []
    for table in TABLES:
        src, dst = sources[table.name], targets[table.name]
        for key, row_digest in src.digests.items():
            if key in dst.digests and dst.digests[key] != row_digest:
                found.append(f"{table.name} {_shown_key(table, key)}")
        for unique, key in src.unique.items():
            other = dst.unique.get(unique)
            if other is not None and other != key:
                found.append(f"{table.name} {_shown_key(table, key)} (the target holds its "
                             f"{'/'.join(unique[0])} under {_shown_key(table, other)})")
    if found:
        more = f" and {len(found) - CONFLICTS_SHOWN} more" if len(found) > CONFLICTS_SHOWN else ""
        raise Conflict(f"{target_name} already holds other content under the keys of {len(found)} row"
                       f"{'' if len(found) == 1 else 's'}: {'; '.join(found[:CONFLICTS_SHOWN])}{more}; nothing was "
                       "written. It is another store, not an older copy of this one: migrate into an empty database")


def _shown_key(table: Table, key: Key) -> str:
    return ", ".join(f"{c}={v!r}" for c, v in zip(table.key, key))


def _copy(source: Store, target: Store, missing: dict[str, set[Key]], progress: Progress | None,
          batch: int) -> dict[str, int]:
    copied: dict[str, int] = {}
    totals = {name: len(keys) for name, keys in missing.items()}

    def note(table: str, count: int) -> None:
        copied[table] = copied.get(table, 0) + count
        if progress is not None:
            progress(table, copied[table], totals[table])

    for table in TABLES:
        note(table.name, 0)
        if not missing[table.name]:  # nothing left, or companions all written with their items
            continue
        for rows in _pages(source, table, batch):
            rows = [r for r in rows if key_of(table, r) in missing[table.name]]
            if table.name == "items":
                _copy_items(source, target, rows, missing, note)
            elif rows:
                with target.transaction():
                    target.import_rows(table.name, rows)
                note(table.name, len(rows))
            missing[table.name] -= {key_of(table, r) for r in rows}
    return copied


def _copy_items(source: Store, target: Store, items: list[dict[str, Any]], missing: dict[str, set[Key]],
                note: Callable[[str, int], None]) -> None:
    """Items with their full-text rows, vectors and entity names, in one transaction."""
    if not items:
        return
    rowids = [int(r["rowid"]) for r in items]
    parts = []
    for table in COMPANIONS:
        rows = [r for r in source.transfer_rows_of_items(table.name, rowids)
                if key_of(table, r) in missing[table.name]]
        parts.append((table, rows))
    with target.transaction():
        target.import_rows("items", items)
        for table, rows in parts:
            if rows:
                target.import_rows(table.name, rows)
    note("items", len(items))
    for table, rows in parts:
        missing[table.name] -= {key_of(table, r) for r in rows}
        note(table.name, len(rows))


def key_of(table: Table, row: dict[str, Any]) -> Key:
    return tuple(row[c] for c in table.key)


def digest(table: Table, row: dict[str, Any]) -> str:
    """SHA-256 of the row's canonical JSON: its columns in order, numbers as SQLite and PostgreSQL
    both give them back (an integral REAL equals the INTEGER), bytes as hex."""
    values = [_canonical(row.get(c)) for c in table.columns]
    text = json.dumps(values, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _canonical(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return {"bytes": bytes(value).hex()}
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _checksum(digests: dict[Key, str]) -> str:
    total = hashlib.sha256()
    for key in sorted(digests):
        total.update(digests[key].encode("ascii"))
    return total.hexdigest()


def check_table(name: str) -> Table:
    """The table a backend's transfer method was asked for (only these names reach its SQL)."""
    table = BY_NAME.get(name)
    if table is None:
        raise StoreError(f"no table {name!r} is copied between stores; the tables are {', '.join(BY_NAME)}")
    return table
