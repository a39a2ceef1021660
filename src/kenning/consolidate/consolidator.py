"""Consolidation: a conversation becomes a HISTORY.md entry, hot-memory changes, facts, lessons,
entities and (maybe) a skill draft.

With a language model (``[llm]`` in kenning.toml, or one lent by an MCP client) the model gets the
current hot memory and the conversation, masked by the write gate's redaction first (``[gate]``:
secrets and personal data leave the machine as ``[REDACTED:kind]``; the consolidation's audit row
counts them by kind), and must answer the strict JSON of ``answer``; the answer
is parsed (sloppy JSON repaired), checked, and only then applied. A failed call, a truncated answer
(cut at ``max_tokens``, or ending inside an open string, array or object whatever the server says:
``llm_json.unclosed``) or one that fails the check changes nothing and is logged (and audited).
Without a model the deterministic ``fallback`` runs and the report says so. Every model call of
one consolidation, the extraction and the write gate's update step for each fact it writes, is
made inside one run of the cost guard, so ``max_calls_per_run`` bounds them all.

Each message is consolidated once per scope. A message's identity (``messages.identities``) is
its role, time and text when it carries the time it was said, else its role and text chained to
the identity of the message before it; the identities a consolidation took in are recorded in the
``consolidated_messages`` table, in the transaction of its final audit row, after everything it
wrote was written (a crash before then leaves them unrecorded: retried, never lost). A batch is
cut down to the messages not recorded yet; one with none left calls no model, writes nothing but
one ``consolidate_nothing_new`` audit row, and says so (``Report.nothing_new``).

Every text in the report is what was stored (with the write gate's placeholders) or, for what was
skipped and for errors, masked the same way: a report is shown, logged and audited.

Two consolidations of one scope never run at once: each holds ``locks/consolidate-<scope>.lock``
for its whole run, so the second waits, then prompts with the hot memory as the first left it
(and finds the messages the first took in already recorded).
Hot-memory operations name entries by a piece of their text, so they apply to whatever the files
hold when they are applied; one whose entry is gone is skipped and reported, never forced.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .. import audit, fileio
from ..errors import InvalidInput, KenningError, LLMAnswerError
from ..gate.decision import Scrub
from ..llm import LLM, CostGuard, LLMError
from ..llm_json import parse_json_answer
from ..models import DEFAULT_SCOPE, Entity, Lesson
from ..store import Store
from ..timeutil import to_epoch, utcnow
from . import fallback, prompt
from .answer import Extraction, check
from .drafts import Drafts
from .messages import Message, identities

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
    """What one consolidation did: ``written`` and ``skipped`` (with the reason) per item.
    ``messages`` counts the messages consolidated, ``already_consolidated`` those of the batch that
    this scope had consolidated before and that were left out."""

    success: bool
    mode: str  # "model" | "fallback"
    model: str | None
    messages: int
    history_entry: str = ""
    written: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    repaired: bool = False
    already_consolidated: int = 0
    masked_for_model: dict[str, int] = field(default_factory=dict)  # kind -> count, audited, never the values

    @property
    def nothing_new(self) -> bool:
        """Every message of the batch had been consolidated before: nothing was asked or written."""
        return self.messages == 0 and self.already_consolidated > 0

    def to_dict(self) -> dict[str, Any]:
        return {"success": self.success, "mode": self.mode, "model": self.model, "messages": self.messages,
                "already_consolidated": self.already_consolidated, "nothing_new": self.nothing_new,
                "history_entry": self.history_entry, "written": self.written, "skipped": self.skipped,
                "error": self.error, "repaired_json": self.repaired}

    def mask(self, scrub: Scrub) -> None:
        """Pass every text through ``scrub``: stored texts already carry their placeholders (masking
        them again changes nothing), the model's skipped items and error messages may not."""
        self.history_entry = scrub(self.history_entry, "history entry")
        self.error = None if self.error is None else scrub(self.error, "error")
        for entry in (*self.written, *self.skipped):
            for key in ("text", "reason", "why"):
                if isinstance(entry.get(key), str):
                    entry[key] = scrub(entry[key], key)


class Consolidator:
    def __init__(self, kb: Kenning, llm: LLM | None, *, actor: str = "consolidation") -> None:
        self.kb = kb
        self.llm = llm
        self.actor = actor
        self.drafts = Drafts(kb.settings.home, kb.store, actor=actor)

    def run(self, messages: Iterable[object], *, scope: str = DEFAULT_SCOPE) -> Report:
        """Consolidate the messages of ``messages`` that ``scope`` has not consolidated before."""
        batch = [Message.of(m) for m in messages]
        if not batch:
            raise InvalidInput("nothing to consolidate: the conversation has no messages")
        keys = identities(batch)
        lock = self.kb.settings.home / "locks" / f"consolidate-{_safe(scope)}"
        with fileio.locked(lock):  # the check for what is new runs under the lock, after any run before
            seen = consolidated(self.kb.store, scope, keys)
            fresh = [m for m, key in zip(batch, keys) if key not in seen]
            report = Report(False, "model" if self.llm else "fallback", self.llm.name if self.llm else None,
                            len(fresh), already_consolidated=len(batch) - len(fresh))
            if not fresh:
                report.success = True
                audit.record_event(self.kb.store, "consolidate_nothing_new", kind="consolidation", scope=scope,
                                   actor=self.actor, reason=report.mode,
                                   after={"messages": 0, "already_consolidated": report.already_consolidated})
                return report
            with self._budget():
                extraction = self._extract(fresh, scope, report)
                if extraction is not None:
                    self._apply(extraction, scope, report)
                    report.success = True
            report.mask(self.kb.gate.scrub("consolidation report", mask_only=True))
            if report.error:
                log.warning("consolidation changed nothing: %s", report.error)
            with self.kb.store.transaction():  # the messages count as done with the row saying they are
                audit.record_event(self.kb.store, "consolidate" if report.success else "consolidate_failed",
                                   kind="consolidation", scope=scope, actor=self.actor, reason=report.mode,
                                   after=_audited(report))
                if report.success:
                    record_consolidated(self.kb.store, scope, set(keys) - seen)
        return report

    # -- extraction -----------------------------------------------------------------------------------

    def _budget(self) -> AbstractContextManager[object]:
        """One cost-guard run over everything the consolidation asks: the extraction and the write
        gate's update step for each fact it writes, whichever model the gate asks (the run's own
        guard's limits, else the gate's model's, when the run has no model or an unguarded one)."""
        guard = getattr(self.llm, "guard", None)
        if not isinstance(guard, CostGuard):
            guard = getattr(self.kb.gate.model(), "guard", None)
        return guard.run() if isinstance(guard, CostGuard) else nullcontext()

    def _request(self, batch: Sequence[Message], scope: str, report: Report) -> list[dict[str, str]]:
        """The prompt, masked as the write gate masks a write, so that the conversation's secrets and
        personal data never leave the machine (``[gate] redact = "off"`` sends them as they are).
        Masked, not refused in "refuse" mode: what was said cannot be unsaid, only kept back."""
        scrub = self.kb.gate.scrub("consolidation prompt", mask_only=True)
        hot = scrub(self.kb.hot_in(scope).snapshot().text, "hot memory")  # a hand edit may not be masked yet
        masked = [replace(m, content=scrub(m.content, "message")) for m in batch]
        report.masked_for_model = dict(scrub.found)
        return prompt.build(hot, masked)

    def _extract(self, batch: Sequence[Message], scope: str, report: Report) -> Extraction | None:
        if self.llm is None:
            return fallback.extract(batch)
        request = self._request(batch, scope, report)
        try:
            answer = self.llm.complete(request, max_tokens=MAX_ANSWER_TOKENS, json_mode=True)
            if answer.finish_reason == "length":
                raise LLMAnswerError(f"the model's answer is truncated: cut off at {answer.completion_tokens} "
                                     "tokens (finish_reason 'length'); nothing was applied")
            parsed = parse_json_answer(answer.text)
            report.repaired = parsed.repaired
            if parsed.truncated:  # repairing it would make up its end: "Postgres 1" for "Postgres 16"
                raise LLMAnswerError(f"the model's answer is truncated: its JSON ends inside an unclosed "
                                     f"{parsed.unclosed} (finish_reason {answer.finish_reason!r}); nothing was "
                                     "applied. Raise the model's output limit or consolidate fewer messages")
            return check(parsed.value)
        except (LLMError, InvalidInput) as exc:
            report.error = str(exc)
            return None

    # -- applying -------------------------------------------------------------------------------------

    def _apply(self, ex: Extraction, scope: str, report: Report) -> None:
        kb, hot = self.kb, self.kb.hot_in(scope)

        def attempt(kind: str, label: str, action: Any) -> None:
            try:
                result = dict(action() or {})
            except KenningError as exc:
                report.skipped.append({"kind": kind, "text": label, "reason": str(exc)})
                return
            # the text as stored (placeholders in), not as the model wrote it
            report.written.append({"kind": kind, "text": result.pop("text", None) or label, **result})

        note = kb.notes_in(scope).history_append(ex.history_entry)
        report.history_entry = note.text
        report.written.append({"kind": "history", "text": note.text, "id": note.id, "action": "appended"})
        for op in ex.memory_update:
            if op.op == "add":
                attempt("hot", op.text, lambda op=op: _hot(hot.add(op.text, op.section, reason="consolidation")))
            elif op.op == "replace":
                attempt("hot", op.text, lambda op=op: _hot(hot.replace(op.old, op.text, reason="consolidation")))
            else:
                attempt("hot", op.old, lambda op=op: _hot(hot.remove(op.old, reason="consolidation")))
        for fact in ex.facts:
            attempt("fact", fact.text, lambda fact=fact: self._fact(fact.text, fact.category, fact.importance, scope))
        for lesson in ex.lessons:
            attempt("lesson", lesson.insight, lambda lesson=lesson: _lesson(kb.lessons.record(
                lesson.action, lesson.context, lesson.outcome, lesson.insight, scope=scope,
                source="consolidation")))
        for entity in ex.entities:
            attempt("entity", entity.name, lambda entity=entity: _entity(kb.entities.upsert(
                entity.name, kind=entity.kind or None, aliases=list(entity.aliases), attributes=entity.attributes,
                notes=entity.notes or None, scope=scope, source="consolidation")))
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
            return {"text": decision.text, "id": admitted.notes[0].id if admitted.notes else None,
                    "action": "noted", "why": decision.reason}
        return {"text": admitted.fact.content, "id": admitted.fact.id, "action": decision.action,
                "why": decision.reason}


def _hot(result: dict[str, Any]) -> dict[str, Any]:
    return {"text": result.get("entry"), "id": result.get("id"), "action": result.get("action"),
            "file": result.get("file")}


def _lesson(lesson: Lesson) -> dict[str, Any]:
    return {"text": lesson.insight, "id": lesson.id, "action": "recorded"}


def _entity(entity: Entity) -> dict[str, Any]:
    return {"text": entity.name, "id": entity.id, "action": "upserted"}


def _audited(report: Report) -> dict[str, Any]:
    """The audit row's account of a run: counts, kinds and (masked) reasons, never the texts."""
    return {"messages": report.messages, "already_consolidated": report.already_consolidated,
            "model": report.model, "error": report.error, "masked_for_model": report.masked_for_model,
            "written": [{k: w[k] for k in ("kind", "action") if k in w} for w in report.written],
            "skipped": [{"kind": s["kind"], "reason": s["reason"][:200]} for s in report.skipped]}


# -- which messages a scope has consolidated ------------------------------------------------------------


def consolidated(store: Store, scope: str, keys: Sequence[str]) -> set[str]:
    """The identities among ``keys`` that ``scope`` has consolidated."""
    return store.consolidated_keys(scope, keys)


def record_consolidated(store: Store, scope: str, keys: Iterable[str]) -> None:
    """Record ``keys`` as consolidated in ``scope`` (joining the caller's transaction, if any)."""
    store.add_consolidated(scope, keys, to_epoch(utcnow()))


def _safe(scope: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in scope)[:80] or "default"
