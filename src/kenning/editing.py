"""Correcting a stored item: ``kb.edit(item_id, ...)``.

A fact's content is never rewritten: new content supersedes the fact (``Facts.supersede``), so the
old statement stays in its history. Every other field changes in place, in one transaction, with
one audit row ("edit") holding the before and after of the fields that changed; an edit that
changes nothing writes nothing. Each kind has its own fields (``FIELDS``); a field of another kind
is refused. New values pass the same checks and the same gate as at creation (secrets masked in
text, refused in identifiers such as aliases). A lesson's or entity's searchable text and vector
follow its fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import EllipsisType
from typing import Any

import numpy as np

from . import audit
from .checks import check_category, check_tags, check_unit
from .entities import KIND_LIMIT, MAX_NOTES_CHARS, Entities, _attributes, _check_merged, _names, name_key
from .errors import Conflict, InvalidInput, NotFound
from .gate import Scrub
from .lessons import SLOT_LIMIT, Lessons, check_outcome
from .memory import Facts, When
from .models import Item, render_entity, render_lesson
from .records import item_from_row
from .text import clean_content, content_key, normalize
from .timeutil import parse_when, to_epoch, utcnow

# what ``edit`` may change on each kind of item
FIELDS: dict[str, tuple[str, ...]] = {
    "fact": ("content", "category", "tags", "importance", "confidence", "expires_at", "pinned"),
    "lesson": ("action", "context", "outcome", "insight", "tags"),
    "entity": ("entity_kind", "aliases", "attributes", "notes"),
}
_SLOTS = ("action", "context", "insight")


class Editor:
    """The edit operation over the three kinds (``Kenning.edit`` calls it)."""

    def __init__(self, facts: Facts, lessons: Lessons, entities: Entities) -> None:
        self.facts = facts
        self.lessons = lessons
        self.entities = entities
        self.store = facts.store
        self.gate = facts.gate
        self.actor = facts.actor

    def edit(self, item_id: str, *, reason: str = "", scope: str | None = None, expires_at: When | EllipsisType = ...,
             **given: Any) -> Item:
        """Change the fields given (not None; ``expires_at=None`` removes the expiry) of ``item_id``."""
        row = self.facts._row(item_id, scope)
        kind = row["kind"]
        wanted = {k: v for k, v in given.items() if v is not None}
        if expires_at is not ...:
            wanted["expires_at"] = expires_at
        if wrong := [k for k in wanted if k not in FIELDS[kind]]:
            raise InvalidInput(f"{', '.join(wrong)} cannot be edited on {kind} {row['id']}; a {kind} takes "
                               f"{', '.join(FIELDS[kind])}")
        if not isinstance(reason, str):
            raise InvalidInput(f"reason must be text, got {type(reason).__name__}")
        scrub = self.gate.scrub(kind)
        reason = scrub(reason, "reason")
        if kind == "fact":
            content = wanted.pop("content", None)
            changes = _fact_changes(row, wanted, scrub)
            if content is not None and content_key(clean_content(content)) != row["content_key"]:
                return self._supersede(row, content, changes, reason, scrub)
            return self._apply(row, changes, reason, scrub)
        if kind == "lesson":
            changes = _lesson_changes(row, wanted, scrub)
            index = self._lesson_index(row, changes)  # adds the new text's columns to ``changes``
            return self._apply(row, changes, reason, scrub, index)
        changes, aliases = _entity_changes(row, wanted, scrub)
        index = self._entity_index(row, changes)
        return self._apply(row, changes, reason, scrub, index, aliases)

    def _apply(self, row: dict[str, Any], changes: dict[str, Any], reason: str, scrub: Scrub,
               index: tuple[str, np.ndarray] | None = None, aliases: list[str] | None = None) -> Item:
        if not changes:
            return item_from_row(row)
        with self.store.transaction():
            current = self.store.get_rowid(row["rowid"])  # what another writer left since it was read
            if current is None or current["id"] != row["id"]:
                raise NotFound(f"item {row['id']} was deleted while it was being edited; nothing was changed")
            before = item_from_row(current)
            self.store.update_item(row["rowid"], {**changes, "updated_at": to_epoch(utcnow())})
            if index is not None:
                self.store.replace_index(row["rowid"], *index)
            if aliases is not None:
                self._rename(row, aliases)
            after = item_from_row(self.store.get_rowid(row["rowid"]))  # type: ignore[arg-type]
            old, new = before.to_dict(), after.to_dict()
            changed = [k for k in new if k != "updated_at" and old.get(k) != new[k]]
            self.store.append_audit({
                "at": to_epoch(utcnow()), "action": "edit", "item_id": after.id, "kind": after.kind,
                "scope": after.scope, "actor": self.actor, "reason": reason,
                "before": {k: old.get(k) for k in changed}, "after": {k: new[k] for k in changed}})
            self.gate.audit(scrub, scope=after.scope, item_id=after.id)
        return after

    def _supersede(self, row: dict[str, Any], content: str, changes: dict[str, Any], reason: str,
                   scrub: Scrub) -> Item:
        """New content: a new fact supersedes this one, carrying the other fields given."""
        overrides: dict[str, Any] = {k: v for k, v in changes.items() if k in ("tags", "category", "confidence",
                                                                             "importance")}
        if "expires_at" in changes:
            overrides["expires_at"] = changes["expires_at"]
        # embedded before the write lock is taken (the gate keeps the last vectors it made)
        self.gate.vector(self.gate.scrub("fact")(clean_content(content, "new content"), "new content"))
        with self.store.transaction():
            new = self.facts.supersede(row["id"], content, reason=reason, **overrides)
            if "pinned" in changes and new.pinned != changes["pinned"]:
                return self._apply(self.facts._row(new.id), {"pinned": changes["pinned"]}, reason, scrub)
            self.gate.audit(scrub, scope=new.scope, item_id=new.id)
        return new

    def _lesson_index(self, row: dict[str, Any], changes: dict[str, Any]) -> tuple[str, np.ndarray] | None:
        """The lesson's new text and vector when a slot changed; refused when another current lesson of
        the scope already says the same."""
        if not changes.keys() & {*_SLOTS, "outcome"}:
            return None
        slots = {k: changes.get(k, row[k]) for k in (*_SLOTS, "outcome")}
        text = render_lesson(slots["action"], slots["context"], slots["outcome"], slots["insight"])
        key = content_key(text)
        twin = self.store.find_current(row["scope"], "lesson", key)
        if twin is not None and twin["rowid"] != row["rowid"]:
            raise Conflict(f"lesson {twin['id']} of scope {row['scope']!r} already says this; edit or delete that "
                           "one instead")
        changes.update(content=text, content_key=key, context_key=normalize(slots["context"]))
        return text, self.gate.vector(text)

    def _entity_index(self, row: dict[str, Any], changes: dict[str, Any]) -> tuple[str, np.ndarray] | None:
        if not changes:
            return None
        before: Any = item_from_row(row)
        merged = {"name": before.name, "entity_kind": changes.get("entity_kind", before.entity_kind),
                  "aliases": tuple(changes.get("aliases", before.aliases)),
                  "attributes": changes.get("attributes", before.attributes),
                  "notes": changes.get("notes", before.notes)}
        _check_merged(merged)
        text = render_entity(**merged)
        changes["content"] = text
        return text, self.gate.vector(text)

    def _rename(self, row: dict[str, Any], aliases: list[str]) -> None:
        """The entity's name index anew: its name and these aliases (inside the edit's transaction, so a
        refused alias undoes the whole edit)."""
        scope, rowid = row["scope"], row["rowid"]
        self.store.drop_entity_names(rowid)
        for alias in aliases:
            holder = self.store.entity_rowid(scope, name_key(alias))
            if holder is not None and holder != rowid:
                other: Any = item_from_row(self.store.get_rowid(holder))  # type: ignore[arg-type]
                raise Conflict(f"alias {alias!r} already names entity {other.name!r} ({other.id}) in scope "
                               f"{scope!r}; remove it there first or pick another alias")
        self.store.add_entity_names(scope, rowid, [name_key(n) for n in [row["name"], *aliases]])


def _differs(row: dict[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """The values that are not what the row holds already (tags and aliases compared as lists)."""
    shown = item_from_row(row).to_dict()  # JSON columns read back, NULL texts as ""
    out = {}
    for column, value in values.items():
        held = shown[column] if column in ("tags", "aliases", "attributes", "entity_kind", "notes") else row[column]
        if column == "pinned":
            held = bool(held)
        if held != value:
            out[column] = value
    return out


def _fact_changes(row: dict[str, Any], given: dict[str, Any], scrub: Scrub) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if "category" in given:
        values["category"] = check_category(given["category"])
    if "tags" in given:
        values["tags"] = [scrub(t, "tag") for t in check_tags(given["tags"])]
    for name in ("importance", "confidence"):
        if name in given:
            values[name] = check_unit(given[name], name)
    if "expires_at" in given:
        values["expires_at"] = _expiry(given["expires_at"], row["id"])
    if "pinned" in given:
        if not isinstance(given["pinned"], bool):
            raise InvalidInput(f"pinned must be True or False, got {given['pinned']!r}")
        values["pinned"] = given["pinned"]
    return _differs(row, values)


def _expiry(value: When, item_id: str) -> float | None:
    at = parse_when(value, "expires_at")
    if at is not None and at <= utcnow():
        raise InvalidInput(f"expires_at {value!s} is not in the future; give a later time ('30d', '2027-01-31'), "
                           f"None to keep {item_id} for good, or run `kenning expire {item_id}` to end it now")
    return None if at is None else to_epoch(at)


def _lesson_changes(row: dict[str, Any], given: dict[str, Any], scrub: Scrub) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name in _SLOTS:
        if name in given:
            values[name] = scrub(clean_content(given[name], f"lesson {name}", SLOT_LIMIT), name)
    if "outcome" in given:
        values["outcome"] = check_outcome(given["outcome"])
    if "tags" in given:
        values["tags"] = [scrub(t, "tag") for t in check_tags(given["tags"])]
    return _differs(row, values)


def _entity_changes(row: dict[str, Any], given: dict[str, Any], scrub: Scrub) -> tuple[dict[str, Any], list[str] | None]:
    """The changed columns, and the new aliases when they change (the name index follows them)."""
    values: dict[str, Any] = {}
    if "entity_kind" in given:
        kind = given["entity_kind"]
        blank = isinstance(kind, str) and not kind.strip()
        values["entity_kind"] = "" if blank else scrub(clean_content(kind, "kind", KIND_LIMIT), "kind")
    if "aliases" in given:
        seen = {name_key(row["name"])}
        aliases = []
        for alias in (scrub.check(a, "alias") for a in _names(given["aliases"], "aliases")):
            if name_key(alias) not in seen:
                seen.add(name_key(alias))
                aliases.append(alias)
        values["aliases"] = aliases
    if "attributes" in given:
        values["attributes"] = scrub.fields(_attributes(given["attributes"]))
    if "notes" in given:
        notes = given["notes"]
        blank = isinstance(notes, str) and not notes.strip()
        values["notes"] = "" if blank else scrub(clean_content(notes, "notes", MAX_NOTES_CHARS), "notes")
    changes = _differs(row, values)
    return changes, changes.get("aliases")


__all__ = ["FIELDS", "Editor"]
