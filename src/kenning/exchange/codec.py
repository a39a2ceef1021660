"""Items as the JSON objects of kenning's export, and back into store rows.

An item's record holds every field of its domain object (``kenning.models``) with ``kind`` and
``content``; times are ISO 8601 in UTC to the microsecond, so that a round trip keeps them exactly.
Reading a record back checks every field's type and range (a file is input like any other) and
derives what the store keys on (``content_key``, ``context_key``, the indexed ``content``) from the
fields, never from what the file claims.
"""

from __future__ import annotations

import base64
import math
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

import numpy as np

from ..checks import check_category, check_scope, check_tags, check_unit
from ..entities import check_attributes, name_key
from ..errors import InvalidInput
from ..lessons import check_outcome
from ..models import KINDS, Item, render_entity, render_lesson
from ..text import clean_content, content_key, normalize
from ..timeutil import to_epoch

MAX_ID = 100
_TIMES = ("created_at", "updated_at", "last_accessed", "expires_at")


def _iso(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def item_record(item: Item) -> dict[str, Any]:
    """Every field of ``item`` as JSON values (``kind`` and ``content`` first)."""
    data = {"kind": item.kind, "id": item.id, "scope": item.scope, "content": item.content, **asdict(item)}
    return {k: (list(v) if isinstance(v, tuple) else _iso(v)) for k, v in data.items()}


def vector_of(record: object, embedder: str, dim: int) -> np.ndarray | None:
    """The vector a record carries, when it was made by ``embedder`` with ``dim`` dimensions (else
    None: the item is embedded again)."""
    if not isinstance(record, dict) or record.get("embedder") != embedder or record.get("dim") != dim:
        return None
    try:
        raw = base64.b64decode(str(record.get("float32_b64", "")), validate=True)
    except ValueError:
        raise InvalidInput("its vector is not base64 text; export again, or remove \"vector\" to embed anew") from None
    if len(raw) != 4 * dim:
        raise InvalidInput(f"its vector holds {len(raw)} bytes, not {4 * dim} ({dim} float32 values)")
    vec = np.frombuffer(raw, dtype="<f4").astype(np.float32)
    if not np.all(np.isfinite(vec)):
        raise InvalidInput("its vector holds a value that is not a finite number")
    return vec


# -- reading a record back ----------------------------------------------------------------------


def _text(record: dict[str, Any], name: str, *, limit: int | None = None, empty: bool = False) -> str:
    value = record.get(name, "")
    if value is None and empty:
        return ""
    if empty and value == "":
        return ""
    return clean_content(value, name) if limit is None else clean_content(value, name, limit)


def _when(record: dict[str, Any], name: str) -> float | None:
    value = record.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be an ISO 8601 time or null, got {value!r}")
    try:
        at = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"{name} {value[:40]!r} is not an ISO 8601 time (2026-12-01T10:00:00+00:00)") from None
    return to_epoch(at if at.tzinfo else at.replace(tzinfo=UTC))


def _count(record: dict[str, Any], name: str) -> int:
    value = record.get(name, 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(f"{name} must be a whole number >= 0, got {value!r}")
    return value


def _flag(record: dict[str, Any], name: str) -> bool:
    value = record.get(name, False)
    if not isinstance(value, bool):
        raise InvalidInput(f"{name} must be true or false, got {value!r}")
    return value


def _link(record: dict[str, Any], name: str) -> str | None:
    value = record.get(name)
    if value is None:
        return None
    return check_id(value, name)


def check_id(value: object, what: str = "id") -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_ID or value != value.strip():
        raise InvalidInput(f"{what} must be an item id such as 'f_1a2b3c4d5e6f', got {value!r:.80}")
    return value


def _number(record: dict[str, Any], name: str, default: float) -> float:
    value = record.get(name, default)
    if isinstance(value, float) and math.isnan(value):
        raise InvalidInput(f"{name} must be a number between 0 and 1, got NaN")
    return check_unit(value, name)


def row_of(record: object) -> dict[str, Any]:
    """The store row a record describes (every column the item's kind uses), checked field by field."""
    if not isinstance(record, dict):
        raise InvalidInput(f"an item must be a JSON object, got {type(record).__name__}")
    kind = record.get("kind")
    if kind not in KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(KINDS)}, got {kind!r:.40}")
    source = record.get("source", "import")
    if not isinstance(source, str) or not source.strip():
        raise InvalidInput(f"source must be a short label, got {source!r:.60}")
    row: dict[str, Any] = {
        "id": check_id(record.get("id")),
        "kind": kind,
        "scope": check_scope(record.get("scope")),
        "tags": check_tags(record.get("tags", [])) if kind != "entity" else [],
        "source": source.strip()[:200],
        "access_count": _count(record, "access_count"),
        **{name: _when(record, name) for name in _TIMES if name != "expires_at"},
    }
    if row["created_at"] is None or row["updated_at"] is None:
        raise InvalidInput("created_at and updated_at are needed (ISO 8601 times)")
    if kind == "fact":
        text = _text(record, "content")
        row.update(content=text, content_key=content_key(text), confidence=_number(record, "confidence", 1.0),
                   category=check_category(record.get("category")), importance=_number(record, "importance", 0.4),
                   expires_at=_when(record, "expires_at"), superseded_by=_link(record, "superseded_by"),
                   supersedes=_link(record, "supersedes"), pinned=_flag(record, "pinned"),
                   reinforced=_count(record, "reinforced"))
    elif kind == "lesson":
        slots = {name: _text(record, name) for name in ("action", "context", "insight")}
        outcome = check_outcome(record.get("outcome"))
        text = render_lesson(slots["action"], slots["context"], outcome, slots["insight"])
        row.update(slots, outcome=outcome, content=text, content_key=content_key(text), category="general",
                   importance=0.8, context_key=normalize(slots["context"]),
                   applied_count=_count(record, "applied_count"))
    else:
        name = _text(record, "name", limit=200)
        aliases = record.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise InvalidInput(f"aliases must be a list of names, got {aliases!r:.60}")
        attributes = record.get("attributes", {})
        if not isinstance(attributes, dict):
            raise InvalidInput(f"attributes must be a JSON object, got {type(attributes).__name__}")
        kind_name = record.get("entity_kind") or ""
        if not isinstance(kind_name, str):
            raise InvalidInput(f"entity_kind must be text, got {kind_name!r:.40}")
        notes = _text(record, "notes", limit=20_000, empty=True)
        alias_list = [clean_content(a, "alias", 200) for a in aliases]
        text = render_entity(name, kind_name, alias_list, check_attributes(attributes), notes)
        row.update(name=name, entity_kind=kind_name, aliases=alias_list, attributes=attributes, notes=notes,
                   content=text, content_key=name_key(name))
    return row

