"""One statement from another tool (a mem0 memory, a Markdown bullet) written as a fact through
the whole write gate, as ``kenning remember`` would: masked or refused, a restatement reinforcing
the stored fact, a correction superseding it (``kenning.gate``). What is already stored word for
word, with the same tags, is left unchanged, so importing the same file again changes nothing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from ..errors import InvalidInput
from ..text import content_key
from ..timeutil import to_epoch, utcnow
from .summary import ImportSummary, Outcome

if TYPE_CHECKING:
    from ..api import Kenning


@dataclass(frozen=True)
class Statement:
    line: int  # where it is in the file (a mem0 memory's position, from 1, when the file has no lines)
    text: str
    scope: str
    tags: tuple[str, ...] = ()
    category: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    expires_at: datetime | None = None


class GatedWriter:
    def __init__(self, kb: Kenning, summary: ImportSummary, *, source: str, reason: str, dry_run: bool) -> None:
        self.kb, self.summary, self.source, self.reason, self.dry_run = kb, summary, source[:200], reason, dry_run
        self.pending: set[tuple[str, str]] = set()  # (scope, content key) a dry run would have added

    def write(self, s: Statement) -> Outcome:
        try:
            outcome = self._write(s)
        except InvalidInput as exc:
            self.summary.refuse(s.line, str(exc), scope=s.scope, kind="fact")
            return "refused"
        if outcome != "refused":
            self.summary.count(s.scope, "fact", outcome)
        return outcome

    def _write(self, s: Statement) -> Outcome:
        decision = self.kb.gate.check_fact(s.text, category=s.category, scope=s.scope, min_importance=0.0)
        if decision.action == "refuse":
            self.summary.refuse(s.line, decision.reason, scope=s.scope, kind="fact")
            return "refused"
        key = content_key(decision.text)
        if decision.action == "reinforce" and decision.target_id:
            target = self.kb.store.get(decision.target_id)
            if target is not None and target["content_key"] == key and set(s.tags) <= set(self.kb.get(target["id"]).tags):  # type: ignore[union-attr]
                return "unchanged"
        expires = s.expires_at if s.expires_at is not None and s.expires_at > utcnow() else None
        if self.dry_run:
            if decision.action == "store" and (s.scope, key) not in self.pending:
                self.pending.add((s.scope, key))
                return "added"
            return "unchanged" if decision.action == "store" else "merged"
        fact = self.kb.facts.remember(s.text, tags=list(s.tags), scope=s.scope, category=s.category,
                                      expires_at=expires, source=self.source, reason=self.reason)
        fresh = decision.action == "store" and fact.reinforced == 0 and fact.supersedes is None
        if fresh and (s.created_at or s.updated_at):
            # the other tool's times: when the statement was first and last made
            created = s.created_at or s.updated_at
            row = self.kb.store.get(fact.id)
            if row is not None and created is not None:
                with self.kb.store.transaction():
                    self.kb.store.update_item(row["rowid"], {"created_at": to_epoch(created),
                                                             "updated_at": to_epoch(s.updated_at or created)})
        return "added" if fresh else "merged"
