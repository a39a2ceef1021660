"""Helpers for tests that prove a failed call changed nothing in the database."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path


def fingerprint(db: Path) -> str:
    """A digest of every row of every table (the full-text index's shadow tables excepted)."""
    conn = sqlite3.connect(db)
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'items_fts_%' ORDER BY name")]
    digest = hashlib.sha256()
    for table in tables:
        for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1"):  # noqa: S608 - names from the schema
            digest.update(repr(row).encode())
    conn.close()
    return digest.hexdigest()
