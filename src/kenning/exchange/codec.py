"""Items as the JSON objects of kenning's export, and back into store rows.

An item's record holds every field of its domain object (``kenning.models``) with ``kind`` and
``content``; times are ISO 8601 in UTC to the microsecond, so that a round trip keeps them exactly.
Reading a record back checks every field's type and range (a file is input like any other) and
derives what the store keys on (``content_key``, ``context_key``, the indexed ``content``) from the
fields, never from what the file claims. Ids must have the form kenning gives them, and an entity the
bounds ``Entities.upsert`` keeps; ``audit_of`` checks an exported audit entry the same way.
"""

from __future__ import annotations

import base64
import math
import re
from dataclasses import asdict
from datetime import datetime
from typing import Any

import numpy as np

from ..checks import check_category, check_scope, check_tags, check_unit
from ..entities import KIND_LIMIT, MAX_NOTES_CHARS, NAME_LIMIT, name_key
from ..entities import _attributes as checked_attributes  # the checks of Entities.upsert, so that an
from ..entities import _names as checked_names  # imported entity can be upserted afterwards
from ..errors import InvalidInput
from ..lessons import SLOT_LIMIT, check_outcome
from ..memory import _PREFIX as ID_PREFIXES  # what ``memory.new_id`` puts before the 12 hex digits
from ..models import KINDS, Item, render_entity, render_lesson
from ..text import MAX_CONTENT_CHARS, check_unicode, clean_content, content_key, normalize
from ..timeutil import from_epoch, to_epoch, utcnow

MAX_COUNT = 2**31 - 1  # PostgreSQL's INTEGER: a larger counter would fail the insert halfway through an import
MAX_LABEL = 200  # a source, an audit actor
_TIMES = ("created_at", "updated_at", "last_accessed", "expires_at")
_ACTION = re.compile(r"[a-z][a-z0-9_]{0,63}")


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
        epoch = to_epoch(datetime.fromisoformat(value))
        from_epoch(epoch)  # stored, it must read back: "0001-01-01T00:00+14:00" is before year 1 in UTC
    except (ValueError, OverflowError):
        raise InvalidInput(f"{name} {value[:40]!r} is not an ISO 8601 time from year 1 to 9999 in UTC "
                           "(2026-12-01T10:00:00+00:00)") from None
    return epoch


def _count(record: dict[str, Any], name: str) -> int:
    value = record.get(name, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise InvalidInput(f"{name} must be a whole number from 0 to {MAX_COUNT:,}, got {value!r:.40}")
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
    return check_id(value, "fact", name)


def check_id(value: object, kind: str, what: str = "id") -> str:
    """``value`` if it has the form kenning gives ids of ``kind``: an id is shown in Markdown, in
    MEMORY.md's ``<!-- id -->`` marks and on command lines, so "f_a --> INJECTED <!--" must not be one."""
    prefix = ID_PREFIXES[kind]
    if not isinstance(value, str) or not re.fullmatch(rf"{prefix}_[0-9a-f]{{12}}", value):
        article = "an" if kind[0] in "aeiou" else "a"
        raise InvalidInput(f"{what} must be {article} {kind} id such as '{prefix}_1a2b3c4d5e6f' (the form kenning "
                           f"gives ids), got {value!r:.80}; export the item from kenning again")
    return value


def _plain(record: dict[str, Any], name: str, limit: int) -> str:
    """An optional text (a source, an audit actor or reason): "" when absent; valid Unicode, no NUL."""
    value = record.get(name)
    if value is None:
        return ""
    if not isinstance(value, str) or "\x00" in value:
        raise InvalidInput(f"{name} must be text without NUL bytes, got {value!r:.60}")
    if len(value) > limit:
        raise InvalidInput(f"{name} is {len(value):,} characters; the limit is {limit:,}")
    return check_unicode(value, name)


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
    source = _plain(record, "source", MAX_CONTENT_CHARS).strip() if "source" in record else "import"
    if not source:
        raise InvalidInput(f"source must be a short label, got {record.get('source')!r:.60}")
    row: dict[str, Any] = {
        "id": check_id(record.get("id"), kind),
        "kind": kind,
        "scope": check_scope(record.get("scope")),
        "tags": check_tags(record.get("tags", [])) if kind != "entity" else [],
        "source": source[:MAX_LABEL],
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
        slots = {name: _text(record, name, limit=SLOT_LIMIT) for name in ("action", "context", "insight")}
        outcome = check_outcome(record.get("outcome"))
        text = render_lesson(slots["action"], slots["context"], outcome, slots["insight"])
        row.update(slots, outcome=outcome, content=text, content_key=content_key(text), category="general",
                   importance=0.8, context_key=normalize(slots["context"]),
                   applied_count=_count(record, "applied_count"))
    else:
        row.update(_entity(record))
    return row


def _entity(record: dict[str, Any]) -> dict[str, Any]:
    """An entity's columns, bounded as ``Entities.upsert`` bounds them (so that it can be upserted)."""
    name = _text(record, "name", limit=NAME_LIMIT)
    aliases = [a for a in dict.fromkeys(checked_names(record.get("aliases", []), "aliases"))
               if name_key(a) != name_key(name)]
    attributes = checked_attributes(record.get("attributes", {}))
    kind_name = record.get("entity_kind") or ""
    kind_name = clean_content(kind_name, "kind", KIND_LIMIT) if kind_name else ""
    notes = _text(record, "notes", limit=MAX_NOTES_CHARS, empty=True)
    text = render_entity(name, kind_name, aliases, attributes, notes)
    return {"name": name, "entity_kind": kind_name, "aliases": aliases, "attributes": attributes, "notes": notes,
            "content": text, "content_key": name_key(name)}


def audit_of(record: object) -> dict[str, Any]:
    """An exported audit entry, every field checked: at (epoch; a time ahead of now becomes now, so
    a file cannot date history into the future), action, actor, reason, before and after."""
    if not isinstance(record, dict):
        raise InvalidInput(f"must be a JSON object, got {type(record).__name__}")
    action = record.get("action")
    if not isinstance(action, str) or not _ACTION.fullmatch(action):
        raise InvalidInput(f"action {action!r:.60} is not an audit action (a lower-case word such as 'remember')")
    at = _when(record, "at")
    now = to_epoch(utcnow())
    out: dict[str, Any] = {"at": now if at is None else min(at, now), "action": action,
                           "actor": _plain(record, "actor", MAX_LABEL),
                           "reason": _plain(record, "reason", MAX_CONTENT_CHARS)}
    for name in ("before", "after"):
        value = record.get(name)
        if value is not None and not isinstance(value, dict):
            raise InvalidInput(f"{name} must be a JSON object or null, got {type(value).__name__}")
        out[name] = _valid_text(value, name)
    return out


def _valid_text(value: Any, what: str) -> Any:
    """``value`` when every string in it (keys too) is valid Unicode; its nesting is bounded already
    (``reader.MAX_NESTING``), so recursion is safe."""
    if isinstance(value, str):
        check_unicode(value, what)
    elif isinstance(value, dict):
        for key, item in value.items():
            _valid_text(key, what)
            _valid_text(item, what)
    elif isinstance(value, list):
        for item in value:
            _valid_text(item, what)
    elif isinstance(value, float) and not math.isfinite(value):
        raise InvalidInput(f"{what} holds {value}, which JSON has not; export the item again")
    return value
