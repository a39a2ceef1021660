"""What a consolidation extracts from a conversation, and the strict check of a model's answer.

The answer is one JSON object::

    {
      "history_entry": "[2026-11-30 14:05] 2-5 sentences: who did what, decided what.",
      "memory_update": [{"op": "add", "section": "pitfalls", "text": "..."},
                        {"op": "replace", "old": "port 8080", "text": "The API listens on 9090"},
                        {"op": "remove", "old": "prefers tabs"}],
      "facts":    [{"text": "...", "category": "project", "importance": 0.6}],
      "lessons":  [{"action": "...", "context": "...", "outcome": "negative", "insight": "..."}],
      "entities": [{"name": "stg-01", "kind": "host", "aliases": [], "attributes": {}, "notes": ""}],
      "skill_draft": null | {"name": "a-z0-9-", "description": "...", "body": "# Steps ..."}
    }

``check`` turns a parsed value into an ``Extraction`` or raises ``InvalidInput`` naming the first
problem; unknown keys are ignored, missing lists are empty. Nothing is applied from an answer that
fails: a half-understood answer must not half-change memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidInput
from ..models import CATEGORIES, OUTCOMES
from ..tiers.hotfile import section_key

STAMP = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}\]\s+\S")
OPS = ("add", "replace", "remove")
MAX_ITEMS = 50
MAX_TEXT = 2000


@dataclass(frozen=True)
class MemoryOp:
    op: str
    section: str = "other"
    text: str = ""
    old: str = ""


@dataclass(frozen=True)
class FactDraft:
    text: str
    category: str = "general"
    importance: float | None = None


@dataclass(frozen=True)
class LessonDraft:
    action: str
    context: str
    outcome: str
    insight: str


@dataclass(frozen=True)
class EntityDraft:
    name: str
    kind: str = ""
    aliases: tuple[str, ...] = ()
    attributes: dict[str, Any] = field(default_factory=dict)
    notes: str = ""


@dataclass(frozen=True)
class SkillDraft:
    name: str
    description: str
    body: str


@dataclass(frozen=True)
class Extraction:
    history_entry: str
    memory_update: tuple[MemoryOp, ...] = ()
    facts: tuple[FactDraft, ...] = ()
    lessons: tuple[LessonDraft, ...] = ()
    entities: tuple[EntityDraft, ...] = ()
    skill_draft: SkillDraft | None = None

    def counts(self) -> dict[str, int]:
        return {"memory_update": len(self.memory_update), "facts": len(self.facts), "lessons": len(self.lessons),
                "entities": len(self.entities), "skill_draft": int(self.skill_draft is not None)}


def _text(value: object, where: str, *, required: bool = True, limit: int = MAX_TEXT, multiline: bool = False) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise InvalidInput(f"{where} must be non-empty text, got {value!r}"[:200])
    if len(value) > limit:
        raise InvalidInput(f"{where} is {len(value)} characters; at most {limit}")
    return value.strip() if multiline else " ".join(value.split())


def _list(data: dict[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidInput(f"{key} must be a list, got {type(value).__name__}")
    if len(value) > MAX_ITEMS:
        raise InvalidInput(f"{key} has {len(value)} items; at most {MAX_ITEMS}")
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise InvalidInput(f"{key}[{i}] must be an object, got {type(item).__name__}")
    return value


def check(value: object) -> Extraction:
    """The ``Extraction`` in a model's parsed answer (see the module docstring)."""
    if not isinstance(value, dict):
        raise InvalidInput(f"the answer must be a JSON object, got {type(value).__name__}")
    history = _text(value.get("history_entry"), "history_entry")
    if not STAMP.match(history):
        raise InvalidInput("history_entry must start with a [YYYY-MM-DD HH:MM] timestamp")
    ops = []
    for i, op in enumerate(_list(value, "memory_update")):
        kind = op.get("op")
        if kind not in OPS:
            raise InvalidInput(f"memory_update[{i}].op must be one of {', '.join(OPS)}, got {kind!r}")
        section = section_key(op.get("section", "other") or "other")
        if not section:
            raise InvalidInput(f"memory_update[{i}].section {op.get('section')!r} is not a hot-memory section")
        text = _text(op.get("text"), f"memory_update[{i}].text", required=kind != "remove")
        old = _text(op.get("old"), f"memory_update[{i}].old", required=kind != "add")
        ops.append(MemoryOp(kind, section, text, old))
    facts = []
    for i, fact in enumerate(_list(value, "facts")):
        category = fact.get("category") or "general"
        if category not in CATEGORIES:
            raise InvalidInput(f"facts[{i}].category must be one of {', '.join(CATEGORIES)}, got {category!r}")
        importance = fact.get("importance")
        if importance is not None and (isinstance(importance, bool) or not isinstance(importance, int | float)
                                       or not 0 <= importance <= 1):
            raise InvalidInput(f"facts[{i}].importance must be a number from 0 to 1, got {importance!r}")
        facts.append(FactDraft(_text(fact.get("text"), f"facts[{i}].text"), category,
                               None if importance is None else float(importance)))
    lessons = []
    for i, lesson in enumerate(_list(value, "lessons")):
        outcome = lesson.get("outcome")
        if outcome not in OUTCOMES:
            raise InvalidInput(f"lessons[{i}].outcome must be one of {', '.join(OUTCOMES)}, got {outcome!r}")
        lessons.append(LessonDraft(_text(lesson.get("action"), f"lessons[{i}].action"),
                                   _text(lesson.get("context"), f"lessons[{i}].context"), outcome,
                                   _text(lesson.get("insight"), f"lessons[{i}].insight")))
    entities = []
    for i, entity in enumerate(_list(value, "entities")):
        aliases = entity.get("aliases") or []
        attributes = entity.get("attributes") or {}
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise InvalidInput(f"entities[{i}].aliases must be a list of names")
        if not isinstance(attributes, dict):
            raise InvalidInput(f"entities[{i}].attributes must be an object")
        entities.append(EntityDraft(_text(entity.get("name"), f"entities[{i}].name", limit=200),
                                    _text(entity.get("kind"), f"entities[{i}].kind", required=False, limit=100),
                                    tuple(aliases), dict(attributes),
                                    _text(entity.get("notes"), f"entities[{i}].notes", required=False)))
    draft = None
    raw = value.get("skill_draft")
    if raw is not None:
        if not isinstance(raw, dict):
            raise InvalidInput("skill_draft must be an object or null")
        draft = SkillDraft(_text(raw.get("name"), "skill_draft.name", limit=64),
                           _text(raw.get("description"), "skill_draft.description", limit=1024),
                           _text(raw.get("body"), "skill_draft.body", limit=50_000, multiline=True))
    return Extraction(history, tuple(ops), tuple(facts), tuple(lessons), tuple(entities), draft)
