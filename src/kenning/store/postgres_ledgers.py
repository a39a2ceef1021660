"""The PostgreSQL store's ledgers beside the items: pairs of facts that may conflict and the messages
each scope has consolidated (as ``sqlite_ledgers``). Both hold ids and hashes, never texts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .contract import ConflictRow
from .postgres_base import PgBase

_CONFLICT_COLUMNS = "a, b, scope, rule, cosine, found_at, settled"


class LedgerRows(PgBase):
    # -- possible conflicts ----------------------------------------------------------------------

    def add_conflict(self, *, a: str, b: str, scope: str, rule: str, cosine: float | None, found_at: float,
                     found_by: str) -> bool:
        with self._write() as conn:
            return conn.execute(
                "INSERT INTO fact_conflicts (a, b, scope, rule, cosine, found_at, found_by) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (a, b, scope, rule, cosine, found_at, found_by)).rowcount > 0

    def open_conflicts(self, scope: str | None) -> list[ConflictRow]:
        where, params = (" AND scope = %s", [scope]) if scope is not None else ("", [])
        return [_conflict(r) for r in self._rows(
            f"SELECT {_CONFLICT_COLUMNS} FROM fact_conflicts WHERE settled IS NULL{where} "
            'ORDER BY found_at, a COLLATE "C", b COLLATE "C"', params)]

    def conflict_between(self, first: str, second: str) -> ConflictRow | None:
        rows = self._rows(f"SELECT {_CONFLICT_COLUMNS} FROM fact_conflicts "
                          "WHERE (a = %s AND b = %s) OR (a = %s AND b = %s)", (first, second, second, first))
        return _conflict(rows[0]) if rows else None

    def settle_conflict(self, a: str, b: str, *, settled: str, at: float, by: str) -> None:
        with self._write() as conn:
            conn.execute("UPDATE fact_conflicts SET settled = %s, settled_at = %s, settled_by = %s "
                         "WHERE a = %s AND b = %s", (settled, at, by, a, b))

    # -- consolidated messages -------------------------------------------------------------------

    def consolidated_keys(self, scope: str, keys: Sequence[str]) -> set[str]:
        return {str(r[0]) for r in self._rows(
            "SELECT message_key FROM consolidated_messages WHERE scope = %s AND message_key = ANY(%s::text[])",
            (scope, sorted(set(keys))))}

    def add_consolidated(self, scope: str, keys: Iterable[str], at: float) -> None:
        rows = [(scope, key, at) for key in keys]
        if not rows:
            return
        with self._write() as conn:
            conn.cursor().executemany("INSERT INTO consolidated_messages (scope, message_key, at) "
                                      "VALUES (%s, %s, %s) ON CONFLICT DO NOTHING", rows)


def _conflict(r: Any) -> ConflictRow:
    return ConflictRow(a=r[0], b=r[1], scope=r[2], rule=r[3], cosine=None if r[4] is None else float(r[4]),
                       found_at=float(r[5]), settled=r[6])
