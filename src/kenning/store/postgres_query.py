"""How PostgreSQL writes an ``ItemQuery`` (``query_sql`` builds the statement), and ``select``.

A list of values is one array parameter (``= ANY(%s)``). Strings sort by code point (``COLLATE
"C"``) and ``holding`` folds ASCII letters only, as SQLite does, so both backends return the same
rows in the same order.
"""

from __future__ import annotations

from typing import Any

from .postgres_base import PgBase, holds
from .query import ItemQuery
from .query_sql import Dialect
from .query_sql import count_sql as _count_sql
from .query_sql import select_sql as _select_sql

_C = ' COLLATE "C"'
_ORDER_BY = {
    "rowid": "rowid",
    "id": f"id{_C}, rowid",
    "name": f"name{_C} NULLS FIRST, rowid",  # SQLite puts NULLs first
    "created_at": "created_at, rowid",
    "newest": "created_at DESC, rowid DESC",
    "lessons": "CASE outcome WHEN 'negative' THEN 0 WHEN 'neutral' THEN 1 ELSE 2 END, applied_count DESC, "
               "updated_at DESC, rowid",
    "most_used": f"access_count + reinforced DESC, id{_C}, rowid",
    "importance": "importance DESC, rowid DESC",
    "accessed": "last_accessed DESC NULLS LAST, rowid DESC",
}
_ARRAYS = {"rowid": "bigint[]", "id": "text[]", "scope": "text[]", "kind": "text[]", "source": "text[]",
           "category": "text[]"}


def _one_of(column: str, values: tuple[Any, ...], params: list[Any]) -> str:
    if len(values) == 1:
        params.append(values[0])
        return f"{column} = %s"
    params.append(list(values))
    return f"{column} = ANY(%s::{_ARRAYS[column]})"


POSTGRES = Dialect(
    mark="%s",
    order_by=_ORDER_BY,
    one_of=_one_of,
    contains=lambda column: f"strpos({column}, %s) > 0",
    holds=holds,
    starts=lambda column: f"starts_with({column}, %s)",
    tag="tags::jsonb ? %s",  # tags is a JSON array in text; ``?`` finds a string among its elements
    no_limit="ALL",
    unindexed="",
)


def select_sql(q: ItemQuery) -> tuple[str, list[Any]] | None:
    """The statement and its parameters; None when the query can match no row."""
    return _select_sql(q, POSTGRES)


def count_sql(q: ItemQuery) -> tuple[str, list[Any]] | None:
    """The count statement and its parameters; None when the query can match no row."""
    return _count_sql(q, POSTGRES)


class QueryRows(PgBase):
    def flush_touches(self) -> None:
        raise NotImplementedError

    def _shown(self, row: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _pending_touches(self) -> bool:
        raise NotImplementedError

    def select(self, query: ItemQuery) -> list[dict[str, Any]]:
        """The items ``query`` matches, in its order."""
        statement = select_sql(query)
        if statement is None:
            return []
        sql, params = statement
        if query.reads_access_counts and self._pending_touches():
            self.flush_touches()  # the database itself must hold them to select or sort by them
        return [self._shown(row) for row in self._dicts(sql, params)]

    def count(self, query: ItemQuery) -> int:
        """How many items ``query`` matches (its order, limit and offset aside)."""
        statement = count_sql(query)
        if statement is None:
            return 0
        sql, params = statement
        if query.reads_access_counts and self._pending_touches():
            self.flush_touches()
        return int(self._rows(sql, params)[0][0])
