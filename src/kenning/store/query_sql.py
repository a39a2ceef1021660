"""An ``ItemQuery`` as one statement over the items table, for any backend's SQL dialect.

Every value a caller gives travels as a parameter; the statement's text comes only from the fixed
pieces here and in a backend's ``Dialect`` (``sqlite_query``, ``postgres_query``), and from the
column names ``ItemQuery`` checked. The two backends differ in how they mark a parameter, pass a
list, find text in text, read a JSON array of tags and sort strings; what a query means is written
once, here, so both return the same rows in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .query import TEXT_COLUMNS, ItemQuery

# (field, condition) for the fields that compare one column with one value; {p} is the parameter
# and {contains} the backend's "column holds the text of the parameter"
_COMPARISONS = (
    ("live_at", "(expires_at IS NULL OR expires_at > {p})"),
    ("expired_at", "expires_at <= {p}"),
    ("outcome", "outcome = {p}"),
    ("entity_kind", "entity_kind = {p}"),
    ("context_holds", "{contains}"),
    ("min_confidence", "confidence >= {p}"),
    ("created_since", "created_at >= {p}"),
    ("created_until", "created_at <= {p}"),
    ("idle_before", "coalesce(last_accessed, created_at) < {p}"),
    ("max_access", "access_count <= {p}"),
    ("importance_below", "importance < {p}"),
    ("min_uses", "access_count + reinforced >= {p}"),
)
_FLAGS = (("superseded", "superseded_by"), ("supersedes", "supersedes"))


@dataclass(frozen=True)
class Dialect:
    """What one backend writes differently."""

    mark: str  # a parameter: "?" or "%s"
    order_by: Mapping[str, str]  # ItemQuery.order -> ORDER BY text
    one_of: Callable[[str, tuple[Any, ...], list[Any]], str]  # column IN values (adds the parameters)
    contains: Callable[[str], str]  # column holds the text of the next parameter
    holds: Callable[[str], str]  # the same, ignoring ASCII case, a NULL holding nothing
    starts: Callable[[str], str]  # column starts with the text of the next parameter
    tag: str  # the item's JSON array of tags holds the next parameter
    no_limit: str  # a LIMIT that keeps every row (an OFFSET needs a LIMIT in SQLite)
    unindexed: str  # before "superseded_by IS NULL" of a query of every scope: keeps a partial index out of it


def select_sql(q: ItemQuery, d: Dialect) -> tuple[str, list[Any]] | None:
    """The statement and its parameters; None when the query can match no row (an empty list)."""
    found = _where(q, d)
    if found is None:
        return None
    where, params = found
    picked = ", ".join(["rowid", *(["*"] if q.columns is None else q.columns)])
    order = f" ORDER BY {d.order_by[q.order]}"
    page = ""
    if q.limit is not None or q.offset is not None:
        page += f" LIMIT {d.no_limit if q.limit is None else d.mark}"
        params += [] if q.limit is None else [q.limit]
    if q.offset is not None:
        page += f" OFFSET {d.mark}"
        params.append(q.offset)
        # a page: sort the rowids only, then read the page's rows (sorting whole rows to keep 50 of
        # them cost 2-4 times as much at 50k items)
        return f"SELECT {picked} FROM items WHERE rowid IN (SELECT rowid FROM items{where}{order}{page}){order}", params
    return f"SELECT {picked} FROM items{where}{order}{page}", params


def count_sql(q: ItemQuery, d: Dialect) -> tuple[str, list[Any]] | None:
    """How many rows the query matches, whatever its order, limit and offset; None for none."""
    found = _where(q, d)
    if found is None:
        return None
    where, params = found
    return f"SELECT count(*) FROM items{where}", params


def _where(q: ItemQuery, d: Dialect) -> tuple[str, list[Any]] | None:
    """The WHERE clause ("" for every row) and its parameters; None when no row can match."""
    where: list[str] = []
    params: list[Any] = []
    members = (("rowid", q.rowids), ("id", q.ids), ("scope", q.scopes), ("kind", q.kinds), ("category", q.categories))
    for column, values in members:
        if values is not None:
            if not values:
                return None
            where.append(d.one_of(column, values, params))
    for field, column in _FLAGS:
        if (flag := getattr(q, field)) is not None:
            unindexed = d.unindexed if field == "superseded" and not flag and q.scopes is None else ""
            where.append(f"{unindexed}{column} IS {'NOT ' if flag else ''}NULL")
    if q.pinned is not None:
        where.append(f"pinned = {d.mark}")
        params.append(int(q.pinned))
    for field, condition in _COMPARISONS:
        if (value := getattr(q, field)) is not None:
            where.append(condition.format(p=d.mark, contains=d.contains("context_key")))
            params.append(value)
    for tag in q.tags:
        where.append(d.tag)
        params.append(tag)
    for part in (_holding(q, d, params), _sources(q, d, params)):
        if part == "":
            return None
        if part is not None:
            where.append(part)
    return (f" WHERE {' AND '.join(where)}" if where else ""), params


def _holding(q: ItemQuery, d: Dialect, params: list[Any]) -> str | None:
    """One of the texts in one of the text columns, ignoring ASCII case; "" for none."""
    if q.holding is None:
        return None
    parts = []
    for column in TEXT_COLUMNS:
        for needle in q.holding:
            parts.append(d.holds(column))
            params.append(needle)
    return f"({' OR '.join(parts)})" if parts else ""


def _sources(q: ItemQuery, d: Dialect, params: list[Any]) -> str | None:
    """Exact sources and prefixes, any of them; "" when the list is empty (never LIKE: a ``%`` or
    ``_`` in a source is itself)."""
    if q.sources is None:
        return None
    exact, prefixes = q.source_patterns()
    parts = []
    if exact:
        parts.append(d.one_of("source", tuple(exact), params))
    for prefix in prefixes:
        parts.append(d.starts("source"))
        params.append(prefix)
    return f"({' OR '.join(parts)})" if parts else ""
