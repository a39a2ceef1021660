"""Entities: named things (people, services, projects) looked up exactly by name or alias.

A name is unique in its scope; matching ignores case and full/half width ("ＡＬＩＣＥ" is "alice").
``upsert`` creates the entity or updates it: attributes are merged key by key, aliases are added,
notes are appended. An alias that already names another entity in the scope is refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from . import audit
from .embed import Embedder
from .errors import Conflict, InvalidInput, NotFound
from .gate import Gate
from .memory import check_scope, new_id
from .models import DEFAULT_SCOPE, Entity, render_entity
from .records import item_from_row
from .store import ItemQuery, Store
from .text import check_unicode, clean_content, normalize
from .timeutil import to_epoch, utcnow

NAME_LIMIT = 200
# an entity is looked up by name and shown whole in every context that names it: a 10 MB attribute
# once made a 71 MB database and a 9.6 s context, so what it holds is bounded
MAX_ALIASES = 100
MAX_ATTRIBUTES = 100  # names
MAX_ATTRIBUTES_CHARS = 20_000  # all attributes as JSON
MAX_DEPTH = 5  # of nested lists and objects in an attribute value
MAX_NOTES_CHARS = 20_000  # the notes of an entity, all upserts together
KIND_LIMIT = 100


def name_key(name: str) -> str:
    return normalize(name)


def _names(values: object, what: str) -> list[str]:
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    if not isinstance(values, list | tuple | set):
        raise InvalidInput(f"{what} must be a list of names")
    if len(values) > MAX_ALIASES:
        raise InvalidInput(f"{len(values)} {what} given; an entity has at most {MAX_ALIASES}")
    return [clean_content(v, what, NAME_LIMIT) for v in values]


def _attributes(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInput(f"attributes must be a JSON object (a dict), got {type(value).__name__}")
    out = {}
    for key, val in value.items():
        if not isinstance(key, str) or not key.strip():
            raise InvalidInput(f"attribute names must be non-empty text, got {key!r}")
        if _depth(val) > MAX_DEPTH:
            raise InvalidInput(f"attribute {key.strip()[:60]!r} nests lists and objects more than {MAX_DEPTH} deep")
        out[key.strip()] = val
    return check_attributes(out)


def check_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    """``attributes`` if they are JSON (no NaN or infinity: JSON has none) within the limits."""
    try:
        size = len(check_unicode(json.dumps(attributes, ensure_ascii=False, allow_nan=False), "the attributes"))
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"attributes must be JSON values (text, finite numbers, lists, objects): {exc}") from None
    if len(attributes) > MAX_ATTRIBUTES or size > MAX_ATTRIBUTES_CHARS:
        raise InvalidInput(f"the attributes would be {len(attributes)} names and {size:,} characters of JSON; an entity "
                           f"holds at most {MAX_ATTRIBUTES} and {MAX_ATTRIBUTES_CHARS:,}. Keep long text in a note or "
                           "a file and store where it is")
    return attributes


def _depth(value: object) -> int:
    if isinstance(value, Mapping):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list | tuple):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


class Entities:
    def __init__(self, store: Store, embedder: Embedder, actor: str = "api", gate: Gate | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.actor = actor
        self.gate = gate or Gate(store, embedder, actor=actor)

    def _find_row(self, name: str, scope: str) -> dict[str, Any] | None:
        rowid = self.store.entity_rowid(scope, name_key(name))
        return self.store.get_rowid(rowid) if rowid is not None else None

    def get(self, name: str, scope: str = DEFAULT_SCOPE) -> Entity:
        """The entity called ``name`` (or with that alias) in ``scope``."""
        text = clean_content(name, "entity name", NAME_LIMIT)
        row = self._find_row(text, check_scope(scope))
        if row is None:
            raise NotFound(f"no entity named {text!r} in scope {scope!r}; `kenning entity list` shows them")
        return item_from_row(row)  # type: ignore[return-value]

    def list(self, scope: str = DEFAULT_SCOPE, entity_kind: str | None = None) -> list[Entity]:
        query = ItemQuery(kinds=("entity",), scopes=(check_scope(scope),), entity_kind=entity_kind or None,
                          order="name")
        return [item_from_row(r) for r in self.store.select(query)]  # type: ignore[misc]

    def upsert(
        self,
        name: str,
        *,
        kind: str | None = None,
        aliases: Sequence[str] | None = None,
        attributes: Mapping[str, Any] | None = None,
        notes: str | None = None,
        scope: str = DEFAULT_SCOPE,
        source: str = "api",
        reason: str = "",
    ) -> Entity:
        """Create or update the entity ``name``; ``kind`` is what it is ("person", "service", …).

        Secrets and personal data are masked in notes, kind and attribute values (the whole value of
        an attribute named like a secret: "password", "api_key", "token", …); a name, alias or
        attribute name carrying any is refused, since masked, two names would become one.
        """
        scrub = self.gate.scrub("entity")
        clean_name = scrub.check(clean_content(name, "entity name", NAME_LIMIT), "name")
        scope = check_scope(scope)
        new_aliases = [scrub.check(a, "alias") for a in _names(aliases, "aliases")]
        attrs = scrub.fields(_attributes(attributes))
        note = scrub(clean_content(notes, "notes", MAX_NOTES_CHARS), "notes") if notes not in (None, "") else ""
        entity_kind = scrub(clean_content(kind, "kind", KIND_LIMIT), "kind") if kind else None
        reason = scrub(reason, "reason")
        with self.store.transaction():
            row = self._find_row(clean_name, scope)
            before = item_from_row(row) if row else None
            owner = row["rowid"] if row else None
            for alias in new_aliases:
                holder = self.store.entity_rowid(scope, name_key(alias))
                if holder is not None and holder != owner:
                    other: Any = item_from_row(self.store.get_rowid(holder))  # type: ignore[arg-type]
                    raise Conflict(
                        f"alias {alias!r} already names entity {other.name!r} ({other.id}) in scope {scope!r}; "
                        "remove it there first or pick another alias"
                    )
            merged = _merge(before, clean_name, entity_kind, new_aliases, attrs, note)  # type: ignore[arg-type]
            _check_merged(merged)
            text = render_entity(**merged)
            vec = self.embedder.embed_passages([text])[0]
            now = to_epoch(utcnow())
            fields = {
                "content": text,
                "name": merged["name"],
                "entity_kind": merged["entity_kind"],
                "aliases": list(merged["aliases"]),
                "attributes": merged["attributes"],
                "notes": merged["notes"],
                "updated_at": now,
            }
            if row is None:
                rowid = self.store.insert_item(
                    {**fields, "id": new_id("entity"), "kind": "entity", "scope": scope,
                     "content_key": name_key(clean_name), "source": str(source)[:200] or "api",
                     "created_at": now},
                    text,
                    vec,
                )
            else:
                rowid = row["rowid"]
                self.store.update_item(rowid, fields)
                self.store.replace_index(rowid, text, vec)
            self.store.add_entity_names(scope, rowid, [name_key(n) for n in [clean_name, *merged["aliases"]]])
            entity = item_from_row(self.store.get_rowid(rowid))  # type: ignore[arg-type]
            audit.record(self.store, "upsert_entity", before=before, after=entity, actor=self.actor, reason=reason)
            self.gate.audit(scrub, scope=scope, item_id=entity.id)
        return entity  # type: ignore[return-value]


def _check_merged(merged: dict[str, Any]) -> None:
    """What an upsert adds to a stored entity must keep it within the limits too."""
    check_attributes(merged["attributes"])
    if len(merged["notes"]) > MAX_NOTES_CHARS:
        raise InvalidInput(f"the entity's notes would be {len(merged['notes']):,} characters; the limit is "
                           f"{MAX_NOTES_CHARS:,}. Keep long text in a file and note where it is")
    if len(merged["aliases"]) > MAX_ALIASES:
        raise InvalidInput(f"the entity would have {len(merged['aliases'])} aliases; the limit is {MAX_ALIASES}")


def _merge(
    before: Entity | None, name: str, entity_kind: str | None, aliases: list[str],
    attributes: dict[str, Any], note: str,
) -> dict[str, Any]:
    if before is None:
        keep = [a for a in dict.fromkeys(aliases) if name_key(a) != name_key(name)]
        return {"name": name, "entity_kind": entity_kind or "", "aliases": tuple(keep),
                "attributes": attributes, "notes": note}
    known = {name_key(before.name), *(name_key(a) for a in before.aliases)}
    added = []
    for alias in [name, *aliases]:
        if name_key(alias) not in known:
            known.add(name_key(alias))
            added.append(alias)
    notes = before.notes
    if note and note not in notes:
        notes = f"{notes}\n{note}" if notes else note
    return {
        "name": before.name,
        "entity_kind": entity_kind or before.entity_kind,
        "aliases": (*before.aliases, *added),
        "attributes": {**before.attributes, **attributes},
        "notes": notes,
    }
