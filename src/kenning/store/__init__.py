"""Storage: where items, their full-text rows, vectors and the audit log live.

``open_store`` is the one place that picks an implementation; today that is SQLite (one file in
the data directory). A PostgreSQL + pgvector store will plug in here behind the same methods.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .sqlite import SQLiteStore

if TYPE_CHECKING:
    from ..gate.edge import EdgeRedactor

Store = SQLiteStore


def open_store(path: Path, embedder_name: str, dim: int, *, allow_embedder_change: bool = False,
               snapshot: Path | None = None, redactor: EdgeRedactor | None = None) -> Store:
    """The store at ``path``; ``snapshot`` is where a file copy of its vector cache may be kept;
    ``redactor`` masks every string written (default: secrets and personal data)."""
    return SQLiteStore(path, embedder_name, dim, allow_embedder_change=allow_embedder_change, snapshot=snapshot,
                       redactor=redactor)


__all__ = ["Store", "SQLiteStore", "open_store"]
