"""Turning store rows into domain objects (the one place that knows both shapes)."""

from __future__ import annotations

import json
from typing import Any

from .models import Entity, Fact, Item, Lesson
from .timeutil import from_epoch


def _list(raw: Any) -> tuple[str, ...]:
    return tuple(json.loads(raw)) if raw else ()


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
            tags=_list(row["tags"]),
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
            tags=_list(row["tags"]),
            applied_count=int(row["applied_count"]),
            **common,
        )
    return Entity(
        name=row["name"],
        entity_kind=row["entity_kind"] or "",
        aliases=_list(row["aliases"]),
        attributes=json.loads(row["attributes"]) if row["attributes"] else {},
        notes=row["notes"] or "",
        **common,
    )
