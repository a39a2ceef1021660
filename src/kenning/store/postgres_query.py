"""An ``ItemQuery`` as one PostgreSQL statement over the items table (as ``sqlite_query`` for SQLite).

Every value a caller gives travels as a parameter; the statement's text comes only from the fixed
pieces below and the column names ``ItemQuery`` checked. A list of values is one array parameter
(``= ANY(%s)``). Strings sort by code point (``COLLATE "C"``) and ``holding`` folds ASCII letters
only, as SQLite does, so both backends return the same rows in the same order.
"""

from __future__ import annotations

from typing import Any

from .postgres_base import PgBase, holds
from .query import TEXT_COLUMNS, ItemQuery

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
}
# (field, condition) for the fields that compare one column with one value
_COMPARISONS = (
    ("live_at", "(expires_at IS NULL OR expires_at > %s)"),
    ("expired_at", "expires_at <= %s"),
    ("outcome", "outcome = %s"),
    ("entity_kind", "entity_kind = %s"),
    ("context_holds", "strpos(context_key, %s) > 0"),
    ("min_confidence", "confidence >= %s"),
    ("created_since", "created_at >= %s"),
    ("created_until", "created_at <= %s"),
    ("idle_before", "coalesce(last_accessed, created_at) < %s"),
    ("max_access", "access_count <= %s"),
    ("importance_below", "importance < %s"),
    ("min_uses", "access_count + reinforced >= %s"),
)
_FLAGS = (("superseded", "superseded_by"), ("supersedes", "supersedes"))
# tags is a JSON array in text; ``?`` finds a string among its elements (SQLite: json_each)
_TAG = "tags::jsonb ? %s"
_ARRAYS = {"rowid": "bigint[]", "id": "text[]", "scope": "text[]", "kind": "text[]", "source": "text[]"}


def select_sql(q: ItemQuery) -> tuple[str, list[Any]] | None:
    """The statement and its parameters; None when the query can match no row (an empty list)."""
    where: list[str] = []
    params: list[Any] = []
    for column, values in (("rowid", q.rowids), ("id", q.ids), ("scope", q.scopes), ("kind", q.kinds)):
        if values is not None:
            if not values:
                return None
            where.append(_one_of(column, values, params))
    for field, column in _FLAGS:
        if (flag := getattr(q, field)) is not None:
            where.append(f"{column} IS {'NOT ' if flag else ''}NULL")
    if q.pinned is not None:
        where.append("pinned = %s")
        params.append(int(q.pinned))
    for field, condition in _COMPARISONS:
        if (value := getattr(q, field)) is not None:
            where.append(condition)
            params.append(value)
    for tag in q.tags:
        where.append(_TAG)
        params.append(tag)
    for part in (_holding(q, params), _sources(q, params)):
        if part == "":
            return None
        if part is not None:
            where.append(part)
    picked = ["*"] if q.columns is None else list(q.columns)
    sql = f"SELECT {', '.join(['rowid', *picked])} FROM items"
    sql += f" WHERE {' AND '.join(where)}" if where else ""
    sql += f" ORDER BY {_ORDER_BY[q.order]}"
    if q.limit is not None:
        sql += " LIMIT %s"
        params.append(q.limit)
    return sql, params


def _one_of(column: str, values: tuple[Any, ...], params: list[Any]) -> str:
    if len(values) == 1:
        params.append(values[0])
        return f"{column} = %s"
    params.append(list(values))
    return f"{column} = ANY(%s::{_ARRAYS[column]})"


def _holding(q: ItemQuery, params: list[Any]) -> str | None:
    """One of the texts in one of the text columns, ignoring ASCII case; "" for none."""
    if q.holding is None:
        return None
    parts = []
    for column in TEXT_COLUMNS:
        for needle in q.holding:
            parts.append(holds(column))
            params.append(needle)
    return f"({' OR '.join(parts)})" if parts else ""


def _sources(q: ItemQuery, params: list[Any]) -> str | None:
    """Exact sources and prefixes, any of them; "" when the list is empty (``starts_with``, not
    LIKE: a ``%`` or ``_`` in a source is itself)."""
    if q.sources is None:
        return None
    exact, prefixes = q.source_patterns()
    parts = []
    if exact:
        parts.append(_one_of("source", tuple(exact), params))
    for prefix in prefixes:
        parts.append("starts_with(source, %s)")
        params.append(prefix)
    return f"({' OR '.join(parts)})" if parts else ""


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
