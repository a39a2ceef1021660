"""``maintain()``: the periodic job that moves memory between tiers (safe to run from cron).

1. demote: bring MEMORY.md and USER.md within their budgets (``HotMemory.compress``: drop
   ``[deprecated]`` entries, merge near-duplicates, demote the lowest-scored to the warm tier);
2. archive: daily notes older than ``archive_after_days`` go to ``archive/`` (gzip; still readable,
   searchable with ``include_archive=True``, restorable);
3. expire: facts past their ``expires_at`` already left recall; here they also leave the hot tier
   (unpinned), and the step reports how many there are;
4. promote: warm items worth a place in the hot tier are suggested: facts recalled or restated at
   least ``PROMOTE_USES`` times, and note paragraphs written on ``PROMOTE_DAYS`` different days of the
   last ``RECENT_DAYS``; ``apply=True`` adds them (each still has to fit its file's budget);
5. index: the full-text index is merged into one segment (a store written fact by fact holds many
   small ones, and every query reads them all).

With ``dry_run`` the plan is computed and nothing changes (files, store, audit log). Every change
is audited by the part that makes it, and the run itself is audited with its summary.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from .. import audit
from ..errors import Conflict
from ..memory import Facts
from ..models import Fact
from ..records import item_from_row
from ..text import content_key
from ..timeutil import to_epoch, utcnow
from .hot import HotMemory
from .notes import Notes

PROMOTE_USES = 3
PROMOTE_DAYS = 2
RECENT_DAYS = 30
MAX_SUGGESTIONS = 20
SECTION_OF_CATEGORY = {"user_pref": "user", "project": "project", "pitfall": "pitfalls", "general": "other"}


@dataclass(frozen=True)
class Step:
    name: str
    summary: str
    items: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.name, "summary": self.summary, "items": list(self.items)}


@dataclass(frozen=True)
class Maintenance:
    dry_run: bool
    applied_promotions: bool
    steps: tuple[Step, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {"success": True, "dry_run": self.dry_run, "applied_promotions": self.applied_promotions,
                "steps": [s.to_dict() for s in self.steps]}


def maintain(hot: HotMemory, notes: Notes, facts: Facts, *, dry_run: bool = False, apply: bool = False,
             archive_after_days: int = 90, today: dt.date | None = None, actor: str = "api") -> Maintenance:
    """Run (or with ``dry_run``, plan) the five steps of the module docstring."""
    steps = [
        _demote(hot, dry_run),
        _archive(notes, archive_after_days, dry_run, today),
        _expire(facts, dry_run),
        _promote(hot, notes, facts, dry_run=dry_run, apply=apply, today=today),
        _merge_index(facts, dry_run),
    ]
    report = Maintenance(dry_run, apply and not dry_run, tuple(steps))
    if not dry_run:
        audit.record_event(facts.store, "maintain", kind="maintenance", actor=actor,
                           after={s.name: s.summary for s in steps})
    return report


def _demote(hot: HotMemory, dry_run: bool) -> Step:
    items: list[dict[str, Any]] = []
    for report in hot.compress(dry_run=dry_run, reason="maintenance", force=True):
        items += [{"file": report.file, "action": "drop", "entry": t} for t in report.dropped]
        items += [{"file": report.file, "action": "merge", "entry": a, "into": b} for a, b in report.merged]
        items += [{"file": report.file, "action": "demote", "entry": t} for t in report.demoted]
    verb = "would change" if dry_run else "changed"
    return Step("demote", f"{verb} {len(items)} hot entries" if items else "hot memory is within budget",
                tuple(items))


def _archive(notes: Notes, days: int, dry_run: bool, today: dt.date | None) -> Step:
    moves = notes.archive(days, dry_run=dry_run, today=today)
    verb = "would archive" if dry_run else "archived"
    return Step("archive", f"{verb} {len(moves)} daily notes older than {days} days",
                tuple(m.to_dict() for m in moves))


def _expire(facts: Facts, dry_run: bool) -> Step:
    now = to_epoch(utcnow())
    rows = facts.store.select("kind = 'fact' AND expires_at IS NOT NULL AND expires_at <= ? AND superseded_by IS NULL",
                              [now], columns="id, content, pinned")
    pinned = [r for r in rows if r["pinned"]]
    if not dry_run:
        for row in pinned:
            facts.unpin(str(row["id"]), reason="expired: leaves the hot tier")
    verb = "would unpin" if dry_run else "unpinned"
    return Step("expire", f"{len(rows)} facts are past their expiry (out of recall); {verb} {len(pinned)}",
                tuple({"id": r["id"], "content": r["content"], "was_pinned": bool(r["pinned"])} for r in rows))


def _promote(hot: HotMemory, notes: Notes, facts: Facts, *, dry_run: bool, apply: bool,
             today: dt.date | None) -> Step:
    now = to_epoch(utcnow())
    rows = facts.store.select(
        "kind = 'fact' AND pinned = 0 AND superseded_by IS NULL AND (expires_at IS NULL OR expires_at > ?) "
        "AND access_count + reinforced >= ?", [now, PROMOTE_USES],
        order="access_count + reinforced DESC, id", limit=MAX_SUGGESTIONS)
    hot_keys = {content_key(e.text) for e in hot.entries(pick_up_edits=not dry_run)}
    suggestions: list[dict[str, Any]] = []
    for fact in map(item_from_row, rows):
        if isinstance(fact, Fact) and content_key(fact.content) not in hot_keys:
            suggestions.append({"text": fact.content, "section": SECTION_OF_CATEGORY[fact.category],
                                "why": f"recalled {fact.access_count} and restated {fact.reinforced} times",
                                "id": fact.id})
    seen = {content_key(s["text"]) for s in suggestions}
    for text, days in notes.repeated(min_days=PROMOTE_DAYS, days_back=RECENT_DAYS, today=today):
        key = content_key(text)
        if key not in seen and key not in hot_keys and len(suggestions) < MAX_SUGGESTIONS:
            seen.add(key)
            suggestions.append({"text": text, "section": "other", "why": f"written on {days} different days"})
    applied = 0
    if apply and not dry_run:
        for s in suggestions:
            try:
                result = hot.add(s["text"], s["section"], reason="promoted by maintenance: " + s["why"])
                s["result"] = result["action"]
                applied += result["action"] == "added"
            except Conflict as exc:  # over budget: stays a suggestion
                s["result"] = f"not promoted: {exc}"
    summary = f"{len(suggestions)} warm items suggested for the hot tier"
    if apply and not dry_run:
        summary += f"; {applied} promoted"
    return Step("promote", summary, tuple(suggestions))


def _merge_index(facts: Facts, dry_run: bool) -> Step:
    before = facts.store.index_pages()
    if dry_run:
        return Step("index", f"would merge the full-text index ({before:,} pages)")
    facts.store.optimize_index()
    return Step("index", f"merged the full-text index: {before:,} -> {facts.store.index_pages():,} pages")
