"""The PostgreSQL store's side of a copy between stores (``kenning.store.transfer``): rows of one
table a page at a time in key order, and rows written back exactly as they were read, with the
sequences of the serial keys moved above the copied numbers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .postgres_base import PgBase
from .postgres_vectors import PgVector
from .transfer import check_table

# (table, serial column): after a copy the next number handed out must lie above every copied one
_SERIALS = {"items": "rowid", "audit": "seq", "skill_versions": "id", "skill_usage": "id"}


class TransferRows(PgBase):
    @staticmethod
    def _terms(body: str) -> list[str]:
        raise NotImplementedError  # ``SearchRows``'

    def transfer_page(self, table: str, after: Sequence[Any] | None, limit: int) -> list[dict[str, Any]]:
        spec = check_table(table)
        key = ", ".join(spec.key)
        where = f"WHERE ({key}) > ({', '.join(['%s'] * len(spec.key))})" if after is not None else ""
        return self._binary_dicts(f"SELECT {', '.join(spec.columns)} FROM {spec.name} {where} ORDER BY {key} "
                                  "LIMIT %s", [*(after or ()), limit])

    def transfer_rows_of_items(self, table: str, rowids: Sequence[int]) -> list[dict[str, Any]]:
        spec = check_table(table)
        assert spec.of_items is not None, f"{table} rows belong to no item"
        return self._binary_dicts(f"SELECT {', '.join(spec.columns)} FROM {spec.name} WHERE {spec.of_items} = "
                                  f"ANY(%s::bigint[]) ORDER BY {', '.join(spec.key)}", [list(rowids)])

    def import_rows(self, table: str, rows: Sequence[dict[str, Any]]) -> None:
        # no redactor here: every string was masked when the source store wrote it, and a copy that
        # masked again (or derived keys again) would not be the same store
        spec = check_table(table)
        if not rows:
            return
        columns, values = list(spec.columns), ["%s"] * len(spec.columns)
        params = [[row[c] for c in spec.columns] for row in rows]
        if spec.name == "items_fts":  # the lexemes are made from the body, as every write makes them
            columns.append("terms")
            values.append("array_to_tsvector(%s::text[])")
            params = [[*p, self._terms(str(row["body"]))] for p, row in zip(params, rows)]
        if spec.name == "vectors":
            at = spec.columns.index("vec")
            for p in params:
                p[at] = PgVector(np.frombuffer(p[at], dtype="<f4"))
        with self._write() as conn:
            if spec.name in ("items_fts", "vectors"):
                self._index_written()
            conn.cursor().executemany(f"INSERT INTO {spec.name} ({', '.join(columns)}) VALUES ({', '.join(values)})",
                                      params)
            serial = _SERIALS.get(spec.name)
            if serial is not None:
                (sequence,) = conn.execute("SELECT pg_get_serial_sequence(%s, %s)", (spec.name, serial)).fetchone() \
                    or (None,)
                top = max(int(row[serial]) for row in rows)
                conn.execute(f"SELECT setval(%s::regclass, greatest(%s, (SELECT last_value FROM {sequence})))",
                             (sequence, top))

    def _binary_dicts(self, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        """Rows as dicts, read in binary: vectors come back as the float32 bytes SQLite keeps."""
        from psycopg.rows import dict_row

        with self._read() as conn:
            rows: list[dict[str, Any]] = conn.cursor(row_factory=dict_row).execute(sql, params, binary=True).fetchall()
        return [{k: bytes(v) if isinstance(v, memoryview) else v for k, v in row.items()} for row in rows]
