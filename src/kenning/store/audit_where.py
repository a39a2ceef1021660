"""Which audit entries ``Store.audit_rows`` reads: the filters, written as SQL once for both backends.

Every filter left at None matches every entry; those given combine with AND. Times are seconds since
the epoch, both ends included. ``mark`` is the backend's parameter mark (``?`` or ``%s``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AuditFilter:
    item_id: str | None = None
    actor: str | None = None
    action: str | None = None
    since: float | None = None  # at or after
    until: float | None = None  # at or before

    def where(self, mark: str) -> tuple[str, list[Any]]:
        """The WHERE condition and its parameters."""
        parts, params = [], []
        for column, value, test in (("item_id", self.item_id, "="), ("actor", self.actor, "="),
                                    ("action", self.action, "="), ("at", self.since, ">="), ("at", self.until, "<=")):
            if value is not None:
                parts.append(f"{column} {test} {mark}")
                params.append(value)
        return (" AND ".join(parts) or "1 = 1"), params
