"""Storage: where items, their full-text rows, vectors, the audit log, skill versions and usage live.

``Store`` (``contract``) is what every backend promises; ``open_store`` is the one place that picks
an implementation, from a path or URL (``url.locate``): SQLite (one file, by default in the data
directory) or PostgreSQL with pgvector (``postgresql://…``, a server shared by many hosts).
Nothing heavy is imported until a store is opened.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from .contract import Store
from .query import ItemQuery
from .url import StoreLocation, locate, open_postgres

if TYPE_CHECKING:
    from ..gate.edge import EdgeRedactor
    from .sqlite import SQLiteStore


def open_store(location: str | os.PathLike[str] | StoreLocation, embedder_name: str, dim: int, *,
               setting: str = "the database location", allow_embedder_change: bool = False,
               snapshot: Path | None = None, redactor: EdgeRedactor | None = None, vectors: str = "memory",
               row_security: bool = False) -> Store:
    """The store at ``location`` (a file path, ``sqlite:///abs/path.db``, or a located
    ``StoreLocation``); ``setting`` names where it was configured, for errors; ``snapshot`` is where a
    file copy of its vector cache may be kept; ``redactor`` masks every string written (default:
    secrets and personal data); ``vectors``: "memory" (the process searches every vector) or
    "server" (a PostgreSQL server searches them, ``postgres_hnsw``); ``row_security`` demands a
    PostgreSQL database whose server keeps each role to its scopes (``postgres_security``)."""
    where = location if isinstance(location, StoreLocation) else locate(location, setting=setting)
    if where.backend == "postgresql":
        return open_postgres(where, embedder_name, dim, allow_embedder_change=allow_embedder_change,
                             snapshot=snapshot, redactor=redactor, vectors=vectors, row_security=row_security)
    if row_security:
        raise ConfigError(f"row security ([store] row_security / KENNING_ROW_SECURITY) needs a PostgreSQL database, "
                          f"but {where.setting} names the SQLite file {where.shown}, which one person's account "
                          "holds whole; point the database URL at postgresql://…, or turn row_security off")
    if vectors != "memory":
        raise ConfigError(f"vectors = {vectors!r} ([store] vectors or KENNING_STORE_VECTORS) has a PostgreSQL server "
                          f"search the vectors, but {where.setting} names the SQLite file {where.shown}; set "
                          "vectors = \"memory\" or use a postgresql:// database")
    assert where.path is not None  # a SQLite location always has its file
    from .sqlite import SQLiteStore  # numpy and the vector cache only once a store is opened

    return SQLiteStore(where.path, embedder_name, dim, allow_embedder_change=allow_embedder_change,
                       snapshot=snapshot, redactor=redactor)


def __getattr__(name: str) -> Any:
    if name == "SQLiteStore":
        from .sqlite import SQLiteStore

        return SQLiteStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ItemQuery", "Store", "SQLiteStore", "StoreLocation", "locate", "open_store"]
