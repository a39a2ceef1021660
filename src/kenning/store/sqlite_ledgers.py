"""The SQLite store's ledgers beside the items: pairs of facts that may conflict (migration 8) and
the messages each scope has consolidated (migration 5). Both hold ids and hashes, never texts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from .contract import ConflictRow
from .sqlite_base import SQLiteBase

_CONFLICT_COLUMNS = "a, b, scope, rule, cosine, found_at, settled"


class LedgerRows(SQLiteBase):
    # -- possible conflicts ----------------------------------------------------------------------

    def add_conflict(self, *, a: str, b: str, scope: str, rule: str, cosine: float | None, found_at: float,
                     found_by: str) -> bool:
        with self._write() as conn:
            return conn.execute(
                "INSERT OR IGNORE INTO fact_conflicts (a, b, scope, rule, cosine, found_at, found_by) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)", (a, b, scope, rule, cosine, found_at, found_by)).rowcount > 0

    def open_conflicts(self, scope: str | None) -> list[ConflictRow]:
        where, params = (" AND scope = ?", [scope]) if scope is not None else ("", [])
        return [_conflict(r) for r in self._rows(
            f"SELECT {_CONFLICT_COLUMNS} FROM fact_conflicts WHERE settled IS NULL{where} ORDER BY found_at, a, b",
            params)]

    def conflict_between(self, first: str, second: str) -> ConflictRow | None:
        rows = self._rows(f"SELECT {_CONFLICT_COLUMNS} FROM fact_conflicts "
                          "WHERE (a = ? AND b = ?) OR (a = ? AND b = ?)", (first, second, second, first))
        return _conflict(rows[0]) if rows else None

    def settle_conflict(self, a: str, b: str, *, settled: str, at: float, by: str) -> None:
        with self._write() as conn:
            conn.execute("UPDATE fact_conflicts SET settled = ?, settled_at = ?, settled_by = ? WHERE a = ? AND b = ?",
                         (settled, at, by, a, b))

    # -- consolidated messages -------------------------------------------------------------------

    def consolidated_keys(self, scope: str, keys: Sequence[str]) -> set[str]:
        # one JSON parameter: no limit on how many keys are asked about
        return {str(r[0]) for r in self._rows(
            "SELECT message_key FROM consolidated_messages WHERE scope = ? AND message_key IN "
            "(SELECT value FROM json_each(?))", (scope, json.dumps(sorted(set(keys)))))}

    def add_consolidated(self, scope: str, keys: Iterable[str], at: float) -> None:
        with self._write() as conn:
            conn.executemany("INSERT OR IGNORE INTO consolidated_messages (scope, message_key, at) VALUES (?, ?, ?)",
                             [(scope, key, at) for key in keys])


def _conflict(r: Any) -> ConflictRow:
    return ConflictRow(a=r[0], b=r[1], scope=r[2], rule=r[3], cosine=None if r[4] is None else float(r[4]),
                       found_at=float(r[5]), settled=r[6])
