"""The SQLite store's audit log (migration 1): append-only, enforced by triggers; the one change
they let through (migration 6) is a purge blanking an entry's reason, before and after.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from .audit_where import AuditFilter
from .sqlite_base import SQLiteBase, chunks, marks

# a row with nothing left to blank: its reason empty, its before and after absent or hashed already
_BLANK = ("reason = '' AND (before IS NULL OR before LIKE '{\"purged\": %') "
          "AND (after IS NULL OR after LIKE '{\"purged\": %')")


class AuditRows(SQLiteBase):
    def append_audit(self, entry: dict[str, Any]) -> None:
        edge = self.redactor
        with self._write() as conn:
            conn.execute(
                "INSERT INTO audit (at, action, item_id, kind, scope, actor, reason, before, after) "
                "VALUES (:at, :action, :item_id, :kind, :scope, :actor, :reason, :before, :after)",
                {
                    **entry,
                    "actor": edge.text(str(entry.get("actor") or ""), what="the actor"),
                    "reason": edge.text(str(entry.get("reason") or ""), what="the reason"),
                    "before": _json_or_none(edge.value(entry.get("before"), what="the audit entry")),
                    "after": _json_or_none(edge.value(entry.get("after"), what="the audit entry")),
                },
            )

    def audit_rows(self, item_id: str | None, limit: int, where: AuditFilter | None = None) -> list[dict[str, Any]]:
        condition, params = replace(where or AuditFilter(), item_id=item_id or None).where("?")
        with self._lock:
            cur = self._conn.execute(f"SELECT * FROM audit WHERE {condition} ORDER BY seq DESC LIMIT ?", [*params, limit])
            names = [d[0] for d in cur.description]
            return [dict(zip(names, row)) for row in cur.fetchall()]

    def audit_count(self) -> int:
        return int(self._rows("SELECT count(*) FROM audit")[0][0])

    def audit_to_blank(self, item_ids: Sequence[str], needles: Sequence[str],
                       scope: str | None) -> list[dict[str, Any]]:
        found: dict[int, dict[str, Any]] = {}
        conditions: list[tuple[str, list[Any]]] = [(f"item_id IN ({marks(len(chunk))})", chunk)
                                                   for chunk in chunks(item_ids)]
        if scope is not None:
            conditions.append(("scope = ?", [scope]))
        for needle in needles:
            for form in dict.fromkeys((needle, json.dumps(needle, ensure_ascii=False)[1:-1])):
                conditions.append(("instr(lower(reason), lower(?)) OR instr(lower(coalesce(before, '')), lower(?)) "
                                   "OR instr(lower(coalesce(after, '')), lower(?))", [form] * 3))
        with self._lock:
            for where, params in conditions:
                for seq, reason, before, after in self._rows(
                        f"SELECT seq, reason, before, after FROM audit WHERE ({where}) AND NOT ({_BLANK})", params):
                    found[int(seq)] = {"seq": int(seq), "reason": reason, "before": before, "after": after}
        return [found[seq] for seq in sorted(found)]

    def blank_audit(self, rows: Iterable[dict[str, Any]]) -> None:
        def blank(value: str | None) -> str | None:
            if value is None:
                return None
            return json.dumps({"purged": "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()})

        with self._write() as conn:
            conn.executemany("UPDATE audit SET reason = '', before = ?, after = ? WHERE seq = ?",
                             [(blank(r["before"]), blank(r["after"]), r["seq"]) for r in rows])


def _json_or_none(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, default=str)
