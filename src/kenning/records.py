"""Turning store rows into domain objects (the one place that knows both shapes)."""

from __future__ import annotations

import json
import logging
from typing import Any

from .models import Entity, Fact, Item, Lesson
from .timeutil import from_epoch


log = logging.getLogger("kenning.store")


def _json(raw: Any, want: type, row: dict[str, Any], column: str) -> Any:
    """A JSON column's value; a damaged one (not JSON, or not a ``want``) reads as empty, with a
    warning naming the item, so one bad row cannot stop every recall (the next write replaces it)."""
    if not raw:
        return want()
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        value = None
    if not isinstance(value, want):
        log.warning("item %s has a damaged %s value (%.60r); it is read as empty", row.get("id"), column, raw)
        return want()
    return value


def _list(row: dict[str, Any], column: str) -> tuple[str, ...]:
    return tuple(str(v) for v in _json(row[column], list, row, column))


def item_from_row(row: dict[str, Any]) -> Item:
    common = dict(
        id=row["id"],
        scope=row["scope"],
        source=row["source"],
        created_at=from_epoch(row["created_at"]),
        updated_at=from_epoch(row["updated_at"]),
        last_accessed=from_epoch(row["last_accessed"]),
        access_count=int(row["access_count"]),
    )
    kind = row["kind"]
    if kind == "fact":
        return Fact(
            content=row["content"],
            tags=_list(row, "tags"),
            confidence=float(row["confidence"]),
            category=row["category"],
            importance=float(row["importance"]),
            expires_at=from_epoch(row["expires_at"]),
            superseded_by=row["superseded_by"],
            supersedes=row["supersedes"],
            pinned=bool(row["pinned"]),
            reinforced=int(row["reinforced"]),
            **common,
        )
    if kind == "lesson":
        return Lesson(
            action=row["action"],
            context=row["context"],
            outcome=row["outcome"],
            insight=row["insight"],
            tags=_list(row, "tags"),
            applied_count=int(row["applied_count"]),
            **common,
        )
    return Entity(
        name=row["name"],
        entity_kind=row["entity_kind"] or "",
        aliases=_list(row, "aliases"),
        attributes=_json(row["attributes"], dict, row, "attributes"),
        notes=row["notes"] or "",
        **common,
    )
