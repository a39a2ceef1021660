"""The domain objects: Fact, Lesson, Entity (the three kinds of stored item), Hit, AuditEntry.

All are frozen dataclasses; ``to_dict()`` gives the JSON the CLI and MCP faces print. Every item
has ``.id``, ``.kind`` ("fact" | "lesson" | "entity"), ``.scope`` and ``.content`` (the text that
is indexed and shown), so recall can return any of them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Literal

Kind = Literal["fact", "lesson", "entity"]
KINDS: tuple[Kind, ...] = ("fact", "lesson", "entity")
CATEGORIES = ("user_pref", "project", "pitfall", "general")
OUTCOMES = ("positive", "negative", "neutral")
DEFAULT_SCOPE = "default"


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat(timespec="seconds")
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


class _Item:
    def to_dict(self) -> dict[str, Any]:
        item: Any = self  # every subclass is a dataclass with .kind and .content
        data = {"kind": item.kind, **asdict(item), "content": item.content}
        return {k: _jsonable(v) for k, v in data.items()}


@dataclass(frozen=True)
class Fact(_Item):
    id: str
    content: str
    scope: str = DEFAULT_SCOPE
    tags: tuple[str, ...] = ()
    source: str = "api"
    confidence: float = 1.0
    category: str = "general"
    importance: float = 0.4
    created_at: datetime | None = None
    updated_at: datetime | None = None
    last_accessed: datetime | None = None
    access_count: int = 0
    expires_at: datetime | None = None
    superseded_by: str | None = None
    supersedes: str | None = None
    pinned: bool = False
    reinforced: int = 0

    @property
    def kind(self) -> Kind:
        return "fact"

    def is_expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now


@dataclass(frozen=True)
class Lesson(_Item):
    id: str
    action: str
    context: str
    outcome: str
    insight: str
    scope: str = DEFAULT_SCOPE
    tags: tuple[str, ...] = ()
    applied_count: int = 0
    source: str = "api"
    created_at: datetime | None = None
    updated_at: datetime | None = None
    last_accessed: datetime | None = None
    access_count: int = 0

    @property
    def kind(self) -> Kind:
        return "lesson"

    @property
    def content(self) -> str:
        return render_lesson(self.action, self.context, self.outcome, self.insight)


def render_lesson(action: str, context: str, outcome: str, insight: str) -> str:
    """The searchable text of a lesson."""
    return f"{insight} (when {context}: {action} -> {outcome})"


@dataclass(frozen=True)
class Entity(_Item):
    """A named thing. ``entity_kind`` is what it is ("person", "service", …); ``kind`` is always
    "entity", like every item's kind."""

    id: str
    name: str
    scope: str = DEFAULT_SCOPE
    entity_kind: str = ""
    aliases: tuple[str, ...] = ()
    attributes: dict[str, Any] = field(default_factory=dict)
    notes: str = ""
    source: str = "api"
    created_at: datetime | None = None
    updated_at: datetime | None = None
    last_accessed: datetime | None = None
    access_count: int = 0

    @property
    def kind(self) -> Kind:
        return "entity"

    @property
    def content(self) -> str:
        return render_entity(self.name, self.entity_kind, self.aliases, self.attributes, self.notes)


def render_entity(
    name: str, entity_kind: str, aliases: tuple[str, ...] | list[str], attributes: dict[str, Any], notes: str
) -> str:
    """The searchable text of an entity: name, kind, aliases, attributes and notes."""
    head = f"{name} ({entity_kind})" if entity_kind else name
    parts = [head]
    if aliases:
        parts.append("also known as " + ", ".join(aliases))
    if attributes:
        parts.append("; ".join(f"{k}: {v}" for k, v in attributes.items()))
    if notes:
        parts.append(notes)
    return ". ".join(parts)


Item = Fact | Lesson | Entity


@dataclass(frozen=True)
class Hit:
    """One recall result: the item, its final score and why it matched."""

    item: Item
    score: float
    why: str
    semantic: float | None = None
    lexical_rank: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data = self.item.to_dict()
        data.update(score=round(self.score, 4), why=self.why)
        return data


@dataclass(frozen=True)
class AuditEntry:
    seq: int
    at: datetime
    action: str
    item_id: str | None
    kind: str | None
    scope: str | None
    actor: str
    reason: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        return {k: _jsonable(v) for k, v in asdict(self).items()}
