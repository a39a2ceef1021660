"""The append-only audit log: every change to the store, with what, before/after, who, why, when.

Rows are written in the same transaction as the change they describe, and triggers in the schema
refuse any UPDATE or DELETE of the log itself.
"""

from __future__ import annotations

import json
from typing import Any

from .models import AuditEntry, Item
from .store import Store
from .store.audit_where import AuditFilter
from .timeutil import from_epoch, utcnow, to_epoch


def record_event(
    store: Store,
    action: str,
    *,
    kind: str,
    scope: str | None = None,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    actor: str = "api",
    reason: str = "",
) -> None:
    """Append one audit row about something that is not a stored item (a hot-memory entry, a daily
    note, an archive file): ``kind`` says what, ``before`` / ``after`` describe it (never a secret)."""
    store.append_audit({"at": to_epoch(utcnow()), "action": action, "item_id": None, "kind": kind,
                        "scope": scope, "actor": actor, "reason": reason, "before": before, "after": after})


def record(
    store: Store,
    action: str,
    *,
    before: Item | None = None,
    after: Item | None = None,
    actor: str = "api",
    reason: str = "",
) -> None:
    """Append one audit row about ``after`` (or ``before`` for a removal); call it inside the
    change's transaction so that both land or neither does."""
    subject = after or before
    store.append_audit(
        {
            "at": to_epoch(utcnow()),
            "action": action,
            "item_id": subject.id if subject else None,
            "kind": subject.kind if subject else None,
            "scope": subject.scope if subject else None,
            "actor": actor,
            "reason": reason,
            "before": before.to_dict() if before else None,
            "after": after.to_dict() if after else None,
        }
    )


def entries(store: Store, item_id: str | None = None, limit: int = 50,
            where: AuditFilter | None = None) -> list[AuditEntry]:
    """Newest first; only those about ``item_id`` (and matching ``where``) when given."""
    out = []
    for row in store.audit_rows(item_id, limit, where):
        out.append(
            AuditEntry(
                seq=row["seq"],
                at=from_epoch(row["at"]),  # type: ignore[arg-type]
                action=row["action"],
                item_id=row["item_id"],
                kind=row["kind"],
                scope=row["scope"],
                actor=row["actor"],
                reason=row["reason"],
                before=json.loads(row["before"]) if row["before"] else None,
                after=json.loads(row["after"]) if row["after"] else None,
            )
        )
    return out
