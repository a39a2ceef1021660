"""Consolidation: a conversation becomes a HISTORY.md entry, hot-memory changes, facts, lessons,
entities and (maybe) a skill draft.

With a language model (``[llm]`` in kenning.toml, or one lent by an MCP client) the model gets the
current hot memory and the conversation and must answer the strict JSON of ``answer``; the answer
is parsed (broken JSON repaired), checked, and only then applied. A failed call, a truncated answer
or one that fails the check changes nothing and is logged (and audited). Without a model the
deterministic ``fallback`` runs and the report says so.

Two consolidations of one scope never run at once: each holds ``locks/consolidate-<scope>.lock``
for its whole run, so the second waits, then prompts with the hot memory as the first left it.
Hot-memory operations name entries by a piece of their text, so they apply to whatever the files
hold when they are applied; one whose entry is gone is skipped and reported, never forced.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import audit, fileio
from ..errors import InvalidInput, KenningError
from ..llm import LLM, LLMError
from ..llm_json import parse_json_answer
from ..models import DEFAULT_SCOPE
from . import fallback, prompt
from .answer import Extraction, check
from .drafts import Drafts
from .messages import Message

if TYPE_CHECKING:
    from ..api import Kenning

log = logging.getLogger("kenning.consolidate")
MAX_ANSWER_TOKENS = 4000
# what a conversation yields is noisier than what a caller stores on purpose: a fact below this
# importance (category base + emphasis + repetition, or the model's own figure) goes to the daily
# notes instead; a general fact stated once (0.4) still makes it
MIN_IMPORTANCE = 0.4


@dataclass
class Report:
    """What one consolidation did: ``written`` and ``skipped`` (with the reason) per item."""

    success: bool
    mode: str  # "model" | "fallback"
    model: str | None
    messages: int
    history_entry: str = ""
    written: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    repaired: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"success": self.success, "mode": self.mode, "model": self.model, "messages": self.messages,
                "history_entry": self.history_entry, "written": self.written, "skipped": self.skipped,
                "error": self.error, "repaired_json": self.repaired}


class Consolidator:
    def __init__(self, kb: Kenning, llm: LLM | None, *, actor: str = "consolidation") -> None:
        self.kb = kb
        self.llm = llm
        self.actor = actor
        self.drafts = Drafts(kb.settings.home, kb.store, actor=actor)

    def run(self, messages: Iterable[object], *, scope: str = DEFAULT_SCOPE) -> Report:
        """Consolidate ``messages`` into the memory of ``scope``."""
        batch = [Message.of(m) for m in messages]
        if not batch:
            raise InvalidInput("nothing to consolidate: the conversation has no messages")
        lock = self.kb.settings.home / "locks" / f"consolidate-{_safe(scope)}"
        with fileio.locked(lock):
            report = Report(False, "model" if self.llm else "fallback", self.llm.name if self.llm else None,
                            len(batch))
            extraction = self._extract(batch, report)
            if extraction is not None:
                self._apply(extraction, scope, report)
                report.success = True
            audit.record_event(self.kb.store, "consolidate" if report.success else "consolidate_failed",
                               kind="consolidation", scope=scope, actor=self.actor, reason=report.mode,
                               after={"messages": len(batch), "model": report.model, "error": report.error,
                                      "written": [{k: w[k] for k in ("kind", "action") if k in w}
                                                  for w in report.written],
                                      "skipped": [{"kind": s["kind"], "reason": s["reason"][:200]}
                                                  for s in report.skipped]})
        return report

    # -- extraction -----------------------------------------------------------------------------------

    def _extract(self, batch: Sequence[Message], report: Report) -> Extraction | None:
        if self.llm is None:
            return fallback.extract(batch)
        request = prompt.build(self.kb.hot.snapshot().text, batch)
        guard = getattr(self.llm, "guard", None)
        try:
            with guard.run() if guard is not None else nullcontext():
                answer = self.llm.complete(request, max_tokens=MAX_ANSWER_TOKENS, json_mode=True)
            if answer.finish_reason == "length":
                raise InvalidInput(f"the model's answer was cut off at {answer.completion_tokens} tokens "
                                   "(finish_reason 'length'); nothing was applied")
            parsed = parse_json_answer(answer.text)
            report.repaired = parsed.repaired
            return check(parsed.value)
        except (LLMError, InvalidInput) as exc:
            report.error = str(exc)
            log.warning("consolidation changed nothing: %s", exc)
            return None

    # -- applying -------------------------------------------------------------------------------------

    def _apply(self, ex: Extraction, scope: str, report: Report) -> None:
        kb = self.kb

        def attempt(kind: str, label: str, action: Any) -> None:
            try:
                result = action()
            except KenningError as exc:
                report.skipped.append({"kind": kind, "text": label, "reason": str(exc)})
                return
            report.written.append({"kind": kind, "text": label, **(result or {})})

        note = kb.notes.history_append(ex.history_entry)
        report.history_entry = note.text
        report.written.append({"kind": "history", "text": note.text, "id": note.id, "action": "appended"})
        for op in ex.memory_update:
            if op.op == "add":
                attempt("hot", op.text, lambda op=op: _hot(kb.hot.add(op.text, op.section, reason="consolidation")))
            elif op.op == "replace":
                attempt("hot", op.text, lambda op=op: _hot(kb.hot.replace(op.old, op.text, reason="consolidation")))
            else:
                attempt("hot", op.old, lambda op=op: _hot(kb.hot.remove(op.old, reason="consolidation")))
        for fact in ex.facts:
            attempt("fact", fact.text, lambda fact=fact: self._fact(fact.text, fact.category, fact.importance, scope))
        for lesson in ex.lessons:
            attempt("lesson", lesson.insight, lambda lesson=lesson: {"id": kb.lessons.record(
                lesson.action, lesson.context, lesson.outcome, lesson.insight, scope=scope,
                source="consolidation").id, "action": "recorded"})
        for entity in ex.entities:
            attempt("entity", entity.name, lambda entity=entity: {"id": kb.entities.upsert(
                entity.name, kind=entity.kind or None, aliases=list(entity.aliases), attributes=entity.attributes,
                notes=entity.notes or None, scope=scope, source="consolidation").id, "action": "upserted"})
        if ex.skill_draft is not None:
            draft = ex.skill_draft
            attempt("skill_draft", draft.name, lambda: {"name": self.drafts.save(
                draft, origin=f"consolidation {note.id}").name, "action": "drafted"})

    def _fact(self, text: str, category: str, importance: float | None, scope: str) -> dict[str, Any]:
        """Through the write gate: stored, reinforced, superseding the fact it corrects, or (below
        ``MIN_IMPORTANCE``) written to today's notes instead."""
        admitted = self.kb.admit(text, scope=scope, category=category, importance=importance,
                                 min_importance=MIN_IMPORTANCE, source="consolidation", reason="consolidation")
        decision = admitted.decision
        if admitted.fact is None:
            return {"id": admitted.notes[0].id if admitted.notes else None, "action": "noted",
                    "why": decision.reason}
        return {"id": admitted.fact.id, "action": decision.action, "why": decision.reason}


def _hot(result: dict[str, Any]) -> dict[str, Any]:
    return {"id": result.get("id"), "action": result.get("action"), "file": result.get("file")}


def _safe(scope: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in scope)[:80] or "default"
