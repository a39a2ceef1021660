"""The MCP tools that look through memory and correct it by id: memory_list, memory_get, memory_update.

They register in ``tools.TOOLS`` like every other tool (``tools`` imports this module at its end) and
keep its rule: one scope per call, the server's unless the call names another; an id of another
scope is not found. memory_list pages through ``Kenning.items``; memory_get shows one item with its
supersede chain and, on request, its audit entries; memory_update is ``Kenning.edit``, which keeps
history (new content supersedes a fact), so it is not destructive.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidInput
from ..models import CATEGORIES, KINDS, OUTCOMES, Fact
from .arguments import SHORT, Args, Param
from .tools import ID_SCOPE, ITEM_ID, REASON, SCOPE, SCOPED_ID, TAGS, Caller, tool

# expired / superseded: what to do with those items; kb.items takes False / True / None
_WHICH = {"exclude": False, "only": True, "include": None}
_NEVER = ("never", "none", "no")  # expires_at meaning "no expiry"


@tool("memory_list", "List memories", """List the stored facts, lessons and entities of the scope without a
      query, newest first (or by importance, or by last recall), a page at a time. Call when the user
      asks what you remember about them or the project, or to review memory before tidying it; to find
      something specific, memory_recall is better. The answer's next_offset is the offset of the next
      page (null on the last one).""",
      Param("kinds", "texts", "Only these kinds.", choices=KINDS, aliases=("kind", "types")),
      Param("category", "text", "Only facts of this category.", choices=CATEGORIES),
      TAGS,
      Param("pinned", "bool", "true: only pinned facts; false: only unpinned items; omit for both."),
      Param("expired", "text", "Facts whose expiry has passed: exclude (default), only, or include.",
            default="exclude", choices=tuple(_WHICH)),
      Param("superseded", "text", "Old versions of changed facts: exclude (default), only, or include.",
            default="exclude", choices=tuple(_WHICH)),
      Param("since", "text", "Created at or after: a date, or a duration ago such as '7d'.", limit=SHORT),
      Param("sort", "text", "recent: newest first; importance: highest first; accessed: last recalled first.",
            default="recent", choices=("recent", "importance", "accessed"), aliases=("order", "order_by")),
      Param("limit", "int", "How many per page.", default=50, low=1, high=1000,
            aliases=("k", "n", "page_size", "top_k")),
      Param("offset", "int", "Skip this many first: the previous answer's next_offset.", default=0, low=0,
            aliases=("skip", "start", "next_offset", "cursor")),
      SCOPE, read_only=True)
def memory_list(c: Caller, a: Args) -> dict[str, Any]:
    page = c.kb.items(kinds=a["kinds"], scope=a["scope"], category=a["category"], tags=a["tags"] or (),
                      pinned=a["pinned"], expired=_WHICH[a["expired"]], superseded=_WHICH[a["superseded"]],
                      since=a["since"], sort=a["sort"], limit=a["limit"], offset=a["offset"])
    more = (f"; the next page: offset={page.next_offset}" if page.next_offset is not None else "")
    shown = f"items {page.offset + 1}-{page.offset + len(page.items)}" if page.items else "no items"
    return {"success": True, "scope": a["scope"], "count": len(page.items), **page.to_dict(),
            "message": f"{shown} of {page.total}{more}"}


@tool("memory_get", "Read a memory", """Read one stored fact, lesson or entity by id, with every version of
      a fact (its supersede history, oldest first) and, with audit=true, the audit log's entries about it
      (who changed what, when, why). Call before memory_update, or when the user asks where a memory came
      from or how it changed. """ + SCOPED_ID.replace("is changed", "is read"),
      ITEM_ID,
      Param("audit", "bool", "Also the audit entries about it, newest first.", default=False,
            aliases=("include_audit", "with_audit")),
      Param("audit_limit", "int", "audit: at most this many entries.", default=20, low=1, high=500),
      ID_SCOPE, read_only=True)
def memory_get(c: Caller, a: Args) -> dict[str, Any]:
    item = c.kb.get(a["id"], a["scope"])
    history = c.kb.history(item.id, a["scope"]) if isinstance(item, Fact) else [item]
    out: dict[str, Any] = {"success": True, "item": item.to_dict(), "history": [f.to_dict() for f in history]}
    if a["audit"]:
        out["audit"] = [e.to_dict() for e in c.kb.audit(item.id, a["audit_limit"])]
    return out


@tool("memory_update", "Correct a memory", """Correct a stored item by id: a fact's content (a new version
      supersedes it, and the old one stays in its history), category, tags, importance, confidence,
      expiry or pin; a lesson's action, context, outcome, insight or tags; an entity's kind, aliases,
      attributes or notes. Give only what changes; tags, aliases and attributes replace the old ones
      whole. Call when the user corrects or re-files something you remembered. """ + SCOPED_ID,
      ITEM_ID,
      Param("content", "text", "fact: its new text (supersedes it).", aliases=("new_content", "text", "new_text")),
      Param("category", "text", "fact: its category.", choices=CATEGORIES),
      Param("tags", "texts", "fact or lesson: the tags, replacing the old ones, e.g. ['nginx', 'prod'].",
            aliases=("tag",)),
      Param("importance", "number", "fact: 0-1; 0.7 or more is never forgotten automatically.", low=0, high=1),
      Param("confidence", "number", "fact: how sure, 0-1.", low=0, high=1),
      Param("expires_at", "text", "fact: when it stops being true (a date, or a duration from now such as "
            "'30d'), or 'never'.", aliases=("expires", "expiry"), limit=SHORT),
      Param("pinned", "bool", "fact: true to pin it (never forgotten automatically), false to unpin.",
            aliases=("pin",)),
      Param("action", "text", "lesson: what was done."),
      Param("context", "text", "lesson: where, or in what situation."),
      Param("outcome", "text", "lesson: how it went.", choices=OUTCOMES),
      Param("insight", "text", "lesson: what to do next time."),
      Param("entity_kind", "text", "entity: what it is (person, service, host, project, ...).",
            aliases=("kind", "type"), limit=SHORT),
      Param("aliases", "texts", "entity: its other names, replacing the old ones.", aliases=("alias",)),
      Param("attributes", "object", "entity: its attributes, replacing the old ones, e.g. {\"team\": \"web\"}.",
            aliases=("attrs", "properties")),
      Param("notes", "text", "entity: its notes, replacing the old ones.", aliases=("note",)),
      REASON, ID_SCOPE)
def memory_update(c: Caller, a: Args) -> dict[str, Any]:
    fields = {k: a[k] for k in ("content", "category", "tags", "importance", "confidence", "pinned", "action",
                                "context", "outcome", "insight", "entity_kind", "aliases", "attributes", "notes")}
    if a["expires_at"] is not None:
        expires = a["expires_at"].strip()
        fields["expires_at"] = None if expires.lower() in _NEVER else expires
    if all(v is None for v in fields.values()) and "expires_at" not in fields:
        raise InvalidInput("memory_update needs something to change: content, category, tags, importance, "
                           "confidence, expires_at or pinned for a fact; action, context, outcome, insight or "
                           "tags for a lesson; entity_kind, aliases, attributes or notes for an entity")
    before = c.kb.get(a["id"], a["scope"])
    after = c.kb.edit(before.id, reason=a["reason"] or "updated at an MCP client's request", scope=a["scope"],
                      **fields)
    if after.id != before.id:
        message = f"{before.id} superseded by {after.id}"
    else:
        old, new = before.to_dict(), after.to_dict()
        changed = [k for k in new if k != "updated_at" and old.get(k) != new[k]]
        message = f"updated {', '.join(changed)} of {after.id}" if changed else f"nothing changed in {after.id}"
    return {"success": True, "item": after.to_dict(), "replaced": before.id if after.id != before.id else None,
            "message": message}
