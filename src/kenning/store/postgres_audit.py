"""The PostgreSQL store's audit log: append-only, enforced by a trigger that raises; the one change
it lets through is a purge blanking an entry's reason, before and after (as SQLite's migration 6).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from .audit_where import AuditFilter
from .postgres_base import PgBase, holds

# a row with nothing left to blank: its reason empty, its before and after absent or hashed already
_BLANK = ("reason = '' AND (before IS NULL OR before LIKE '{\"purged\": %%') "
          "AND (after IS NULL OR after LIKE '{\"purged\": %%')")
class AuditRows(PgBase):
    def append_audit(self, entry: dict[str, Any]) -> None:
        edge = self.redactor
        row = {
            **{key: entry.get(key) for key in ("at", "action", "item_id", "kind", "scope")},
            "actor": edge.text(str(entry.get("actor") or ""), what="the actor"),
            "reason": edge.text(str(entry.get("reason") or ""), what="the reason"),
            "before": _json_or_none(edge.value(entry.get("before"), what="the audit entry")),
            "after": _json_or_none(edge.value(entry.get("after"), what="the audit entry")),
        }
        with self._write() as conn:
            conn.execute(
                "INSERT INTO audit (at, action, item_id, kind, scope, actor, reason, before, after) VALUES "
                "(%(at)s, %(action)s, %(item_id)s, %(kind)s, %(scope)s, %(actor)s, %(reason)s, %(before)s, %(after)s)",
                row)

    def audit_rows(self, item_id: str | None, limit: int, where: AuditFilter | None = None) -> list[dict[str, Any]]:
        condition, params = replace(where or AuditFilter(), item_id=item_id or None).where("%s")
        return self._dicts(f"SELECT * FROM audit WHERE {condition} ORDER BY seq DESC LIMIT %s", [*params, limit])

    def audit_count(self) -> int:
        return int(self._rows("SELECT count(*) FROM audit")[0][0])

    def audit_to_blank(self, item_ids: Sequence[str], needles: Sequence[str],
                       scope: str | None) -> list[dict[str, Any]]:
        conditions: list[str] = []
        params: list[Any] = []
        if item_ids:
            conditions.append("item_id = ANY(%s::text[])")
            params.append(list(item_ids))
        if scope is not None:
            conditions.append("scope = %s")
            params.append(scope)
        for needle in needles:
            for form in dict.fromkeys((needle, json.dumps(needle, ensure_ascii=False)[1:-1])):
                conditions.append(" OR ".join(holds(column) for column in ("reason", "before", "after")))
                params.extend([form] * 3)
        if not conditions:
            return []
        found = " OR ".join(f"({c})" for c in conditions)
        return [{"seq": int(seq), "reason": reason, "before": before, "after": after} for seq, reason, before, after
                in self._rows(f"SELECT seq, reason, before, after FROM audit WHERE ({found}) AND NOT ({_BLANK}) "
                              "ORDER BY seq", params)]

    def blank_audit(self, rows: Iterable[dict[str, Any]]) -> None:
        def blank(value: str | None) -> str | None:
            if value is None:
                return None
            return json.dumps({"purged": "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()})

        with self._write() as conn:
            conn.cursor().executemany("UPDATE audit SET reason = '', before = %s, after = %s WHERE seq = %s",
                                      [(blank(r["before"]), blank(r["after"]), r["seq"]) for r in rows])


def _json_or_none(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, default=str)
