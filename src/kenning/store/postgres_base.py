"""What the parts of the PostgreSQL store share: the connection a call runs on and the write
transaction (``PostgresStore._read`` / ``_write``). Each part (``postgres_audit``, ``postgres_skills``,
``postgres_passages``, ``postgres_ledgers``, ``postgres_search``) holds the SQL of one concern;
``PostgresStore`` is all of them.

Inside ``transaction()`` every call of the thread that opened it runs on that transaction's
connection (and sees what it wrote); any other call borrows a pooled connection in autocommit, so
each statement is its own short transaction and a read never waits for a writer.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

    from ..gate.edge import EdgeRedactor


class PgBase:
    redactor: EdgeRedactor

    def _read(self) -> AbstractContextManager[psycopg.Connection[Any]]:
        """The open transaction's connection in its thread, else a pooled one in autocommit."""
        raise NotImplementedError

    def _write(self) -> AbstractContextManager[psycopg.Connection[Any]]:
        """The connection inside a write transaction (joining the open one); ``PostgresStore``'s."""
        raise NotImplementedError

    def _index_written(self) -> None:
        """A full-text row or vector was written in the open transaction (``PostgresStore``'s)."""
        raise NotImplementedError

    def _rows(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Any]:
        """Every row of one read (inside the open transaction, if any: it sees what that wrote)."""
        with self._read() as conn:
            return conn.execute(sql, params).fetchall()

    def _dicts(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Every row of one read, as dicts keyed by column name."""
        from psycopg.rows import dict_row

        with self._read() as conn:
            return conn.cursor(row_factory=dict_row).execute(sql, params).fetchall()


def ascii_lower(expression: str) -> str:
    """SQL for ``expression`` with its ASCII capitals lowered: SQLite's ``lower``, so that both backends
    find the same rows (PostgreSQL's ``lower`` folds every script)."""
    return f"translate({expression}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"


def holds(column: str) -> str:
    """SQL: ``column`` holds the text of the next parameter, ignoring ASCII case (SQLite's
    ``instr(lower(column), lower(?))``); a NULL holds nothing."""
    haystack = ascii_lower("coalesce(" + column + ", '')")
    return f"strpos({haystack}, {ascii_lower('%s')}) > 0"
