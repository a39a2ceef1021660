"""How SQLite writes an ``ItemQuery`` (``query_sql`` builds the statement).

A list of values (rowids, ids, …) is one JSON parameter read by ``json_each``, so a list of any
length needs one variable (SQLite allows 32,766), and it was as fast as one ``?`` per value (2,000
rowids among 100k items: 5.6 ms against 8.5 ms).
"""

from __future__ import annotations

import json
from typing import Any

from .query import ItemQuery
from .query_sql import Dialect
from .query_sql import count_sql as _count_sql
from .query_sql import select_sql as _select_sql

_ORDER_BY = {
    "rowid": "rowid",
    "id": "id, rowid",
    "name": "name, rowid",
    "created_at": "created_at, rowid",
    "newest": "created_at DESC, rowid DESC",
    "lessons": "CASE outcome WHEN 'negative' THEN 0 WHEN 'neutral' THEN 1 ELSE 2 END, applied_count DESC, "
               "updated_at DESC, rowid",
    "most_used": "access_count + reinforced DESC, id, rowid",
    "importance": "importance DESC, rowid DESC",
    "accessed": "last_accessed DESC NULLS LAST, rowid DESC",
}


def _one_of(column: str, values: tuple[Any, ...], params: list[Any]) -> str:
    if len(values) == 1:  # the plain comparison: the planner uses an index on it for sure
        params.append(values[0])
        return f"{column} = ?"
    params.append(json.dumps(list(values), ensure_ascii=False))
    return f"{column} IN (SELECT value FROM json_each(?))"


SQLITE = Dialect(
    mark="?",
    order_by=_ORDER_BY,
    one_of=_one_of,
    contains=lambda column: f"instr({column}, ?) > 0",
    holds=lambda column: f"instr(lower(coalesce({column}, '')), lower(?)) > 0",  # lower folds ASCII only
    starts=lambda column: f"instr({column}, ?) = 1",
    tag="EXISTS (SELECT 1 FROM json_each(items.tags) WHERE value = ?)",
    no_limit="-1",
    # unary plus: SQLite no longer matches items_current_content (WHERE superseded_by IS NULL) and
    # scans the table, instead of the index and then each row in the index's order (8 times as slow
    # at 50k items when the query is not by scope)
    unindexed="+",
)


def select_sql(q: ItemQuery) -> tuple[str, list[Any]] | None:
    """The statement and its parameters; None when the query can match no row."""
    return _select_sql(q, SQLITE)


def count_sql(q: ItemQuery) -> tuple[str, list[Any]] | None:
    """The count statement and its parameters; None when the query can match no row."""
    return _count_sql(q, SQLITE)
