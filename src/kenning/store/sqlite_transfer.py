"""The SQLite store's side of a copy between stores (``kenning.store.transfer``): rows of one table
a page at a time in key order, and rows written back exactly as they were read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .sqlite_base import SQLiteBase, chunks, marks
from .transfer import check_table


class TransferRows(SQLiteBase):
    def _index_changed(self) -> None:
        raise NotImplementedError  # ``SQLiteStore``'s

    def transfer_page(self, table: str, after: Sequence[Any] | None, limit: int) -> list[dict[str, Any]]:
        spec = check_table(table)
        key = ", ".join(spec.key)
        where = f"WHERE ({key}) > ({marks(len(spec.key))})" if after is not None else ""
        return self._dict_rows(f"SELECT {', '.join(spec.columns)} FROM {spec.name} {where} ORDER BY {key} LIMIT ?",
                               [*(after or ()), limit])

    def transfer_rows_of_items(self, table: str, rowids: Sequence[int]) -> list[dict[str, Any]]:
        spec = check_table(table)
        assert spec.of_items is not None, f"{table} rows belong to no item"
        out: list[dict[str, Any]] = []
        for part in chunks(list(rowids)):
            out += self._dict_rows(f"SELECT {', '.join(spec.columns)} FROM {spec.name} WHERE {spec.of_items} "
                                   f"IN ({marks(len(part))}) ORDER BY {', '.join(spec.key)}", part)
        return out

    def import_rows(self, table: str, rows: Sequence[dict[str, Any]]) -> None:
        # no redactor here: every string was masked when the source store wrote it, and a copy that
        # masked again (or derived keys again) would not be the same store
        spec = check_table(table)
        if not rows:
            return
        sql = f"INSERT INTO {spec.name} ({', '.join(spec.columns)}) VALUES ({marks(len(spec.columns))})"
        with self._write() as conn:
            # AUTOINCREMENT's counter (sqlite_sequence) follows an explicit rowid above it by itself
            conn.executemany(sql, [[row[c] for c in spec.columns] for row in rows])
            if spec.name in ("items_fts", "vectors"):
                self._index_changed()

    def _dict_rows(self, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        with self._lock:
            cur = self._conn.execute(sql, list(params))
            names = [d[0] for d in cur.description]
            return [dict(zip(names, row)) for row in cur.fetchall()]
