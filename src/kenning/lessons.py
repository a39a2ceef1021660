"""Lessons: what was tried, where, how it went, and what to do next time.

A lesson has four slots (action, context, outcome, insight); the outcome is one of positive,
negative or neutral. Lessons never expire and are never forgotten automatically; recording the
same lesson again reinforces it, and ``applied`` counts each time an agent acted on one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import audit
from .embed import Embedder
from .errors import InvalidInput, NotFound
from .gate import Gate
from .memory import check_scope, check_tags, new_id
from .models import DEFAULT_SCOPE, OUTCOMES, Lesson, render_lesson
from .records import item_from_row
from .store import ItemQuery, Store
from .text import clean_content, content_key, normalize
from .timeutil import to_epoch, utcnow

SLOT_LIMIT = 10_000


def check_outcome(outcome: object) -> str:
    if not isinstance(outcome, str) or outcome.strip().lower() not in OUTCOMES:
        raise InvalidInput(f"outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
    return outcome.strip().lower()


class Lessons:
    def __init__(self, store: Store, embedder: Embedder, actor: str = "api", gate: Gate | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.actor = actor
        self.gate = gate or Gate(store, embedder, actor=actor)

    def record(
        self,
        action: str,
        context: str,
        outcome: str,
        insight: str,
        *,
        tags: Sequence[str] | None = None,
        scope: str = DEFAULT_SCOPE,
        source: str = "api",
        reason: str = "",
    ) -> Lesson:
        """Store a lesson (or reinforce the same one) and return it. All four slots are needed: action,
        context and insight as text, outcome one of positive, negative, neutral."""
        scrub = self.gate.scrub("lesson")
        slots = {
            name: scrub(clean_content(value, f"lesson {name}", SLOT_LIMIT), name)
            for name, value in (("action", action), ("context", context), ("insight", insight))
        }
        result = check_outcome(outcome)
        reason = scrub(reason, "reason")
        text = render_lesson(slots["action"], slots["context"], result, slots["insight"])
        now = to_epoch(utcnow())
        row: dict[str, Any] = {
            "kind": "lesson",
            "scope": check_scope(scope),
            "content": text,
            "content_key": content_key(text),
            "tags": [scrub(t, "tag") for t in check_tags(tags)],
            "source": str(source)[:200] or "api",
            "category": "general",
            "importance": 0.8,
            "created_at": now,
            "updated_at": now,
            "context_key": normalize(slots["context"]),
            "outcome": result,
            **slots,
        }
        existing = self.store.find_current(row["scope"], "lesson", row["content_key"])
        vec = None if existing else self.embedder.embed_passages([text])[0]
        with self.store.transaction():
            existing = self.store.find_current(row["scope"], "lesson", row["content_key"])
            if existing:
                before = item_from_row(existing)
                tags_now = list(before.tags) + [t for t in row["tags"] if t not in before.tags]  # type: ignore[union-attr]
                self.store.update_item(existing["rowid"], {"tags": tags_now, "updated_at": now})
                lesson = item_from_row(self.store.get_rowid(existing["rowid"]))  # type: ignore[arg-type]
                audit.record(self.store, "reinforce", before=before, after=lesson, actor=self.actor, reason=reason)
            else:
                if vec is None:
                    vec = self.embedder.embed_passages([text])[0]
                rowid = self.store.insert_item({**row, "id": new_id("lesson")}, text, vec)
                lesson = item_from_row(self.store.get_rowid(rowid))  # type: ignore[arg-type]
                audit.record(self.store, "record_lesson", after=lesson, actor=self.actor, reason=reason)
            self.gate.audit(scrub, scope=row["scope"], item_id=lesson.id)
        return lesson  # type: ignore[return-value]

    def find(
        self,
        context: str | None = None,
        outcome: str | None = None,
        *,
        scope: str = DEFAULT_SCOPE,
        tags: Sequence[str] | None = None,
        limit: int = 20,
    ) -> list[Lesson]:
        """Lessons whose context contains ``context`` (ignoring case and width), optionally of one
        outcome; negative lessons first (what to avoid), then the most applied, then the newest."""
        scopes = (check_scope(scope),)
        key = None if context is None else normalize(clean_content(context, "context"))
        wanted = None if outcome is None else check_outcome(outcome)
        tagged = tuple(check_tags(tags))
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InvalidInput(f"limit must be a whole number >= 1, got {limit!r}")
        rows = self.store.select(ItemQuery(kinds=("lesson",), scopes=scopes, context_holds=key, outcome=wanted,
                                           tags=tagged, order="lessons", limit=limit))
        return [item_from_row(r) for r in rows]  # type: ignore[misc]

    def applied(self, lesson_id: str, reason: str = "", *, scope: str | None = None) -> Lesson:
        """Count one more time an agent acted on this lesson."""
        row = self.store.get(str(lesson_id))
        if row is None or row["kind"] != "lesson" or (scope is not None and row["scope"] != scope):
            raise NotFound(f"no lesson with id {lesson_id!r}; `kenning lesson find` lists them")
        before = item_from_row(row)
        with self.store.transaction():
            self.store.update_item(
                row["rowid"], {"applied_count": int(row["applied_count"]) + 1, "updated_at": to_epoch(utcnow())}
            )
            after = item_from_row(self.store.get_rowid(row["rowid"]))  # type: ignore[arg-type]
            audit.record(self.store, "apply_lesson", before=before, after=after, actor=self.actor, reason=reason)
        return after  # type: ignore[return-value]
