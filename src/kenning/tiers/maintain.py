"""``maintain()``: the periodic job that moves memory between tiers.

Safe from cron: without ``apply`` it changes nothing (no file, no row, no audit entry) and reports
the plan; with ``apply`` it makes the same plan, then carries out exactly that plan, step by step,
and reports what each planned change became. The steps, for every scope that has files or items:

1. demote: each hot file *over* its budget is compressed (``HotMemory.plan_compression``: drop
   ``[deprecated]`` entries, merge restatements, demote the lowest-scored to the warm tier); a file
   within its budget is left alone, and entries only alike in meaning are listed, never merged;
2. archive: daily notes older than ``archive_after_days`` go to ``archive/`` (gzip; still readable,
   searchable with ``include_archive=True``, restorable);
3. expire: facts past their ``expires_at`` already left recall; pinned ones are unpinned, so they
   also leave the hot tier;
4. promote: warm items worth a place in the hot tier: facts recalled or restated at least
   ``PROMOTE_USES`` times, and note paragraphs written on ``PROMOTE_DAYS`` different days of the
   last ``RECENT_DAYS``; carried out, each is added if it fits its file's budget;
5. index: the full-text index is merged into one segment (a store written fact by fact holds many
   small ones, and every query reads them all).

Every change is audited by the part that makes it, and an applied run is audited with its summary.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import audit
from ..checks import check_scope
from ..errors import InvalidInput, KenningError
from ..models import DEFAULT_SCOPE, Fact
from ..records import item_from_row
from ..store import ItemQuery
from ..text import content_key
from ..timeutil import to_epoch, utcnow
from .hot import Compression, HotMemory
from .notes import Move, Notes

if TYPE_CHECKING:
    from ..api import Kenning

PROMOTE_USES = 3
PROMOTE_DAYS = 2
RECENT_DAYS = 30
MAX_SUGGESTIONS = 20
SECTION_OF_CATEGORY = {"user_pref": "user", "project": "project", "pitfall": "pitfalls", "general": "other"}
STEPS = ("demote", "archive", "expire", "promote", "index")


@dataclass(frozen=True)
class Step:
    name: str
    summary: str
    items: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.name, "summary": self.summary, "items": list(self.items)}


@dataclass(frozen=True)
class Maintenance:
    """The plan (``applied`` False) or what carrying it out did."""

    applied: bool
    steps: tuple[Step, ...] = field(default_factory=tuple)

    @property
    def dry_run(self) -> bool:
        return not self.applied

    def to_dict(self) -> dict[str, Any]:
        return {"success": True, "applied": self.applied, "dry_run": not self.applied,
                "steps": [s.to_dict() for s in self.steps]}


@dataclass
class _Plan:
    """Every change one run would make, per scope where it has one."""

    compressions: dict[str, list[Compression]] = field(default_factory=dict)
    archive: dict[str, list[Move]] = field(default_factory=dict)
    expired: list[dict[str, Any]] = field(default_factory=list)
    promotions: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    index_pages: int = 0
    index_after: int | None = None  # once merged


def maintain(kb: Kenning, *, apply: bool = False, archive_after_days: int = 90,
             today: dt.date | None = None) -> Maintenance:
    """Plan the five steps of the module docstring; with ``apply``, carry the plan out."""
    if isinstance(archive_after_days, bool) or not isinstance(archive_after_days, int) or archive_after_days < 0:
        raise InvalidInput(f"archive_after_days must be a whole number >= 0, got {archive_after_days!r}")
    plan = _plan(kb, archive_after_days, today)
    if not apply:
        return Maintenance(False, _report(plan, archive_after_days, done=False))
    _carry_out(kb, plan)
    report = Maintenance(True, _report(plan, archive_after_days, done=True))
    audit.record_event(kb.store, "maintain", kind="maintenance", actor=kb.actor,
                       after={s.name: s.summary for s in report.steps})
    return report


def scopes(kb: Kenning) -> list[str]:
    """The default scope, every scope with items, and every scope with a folder of files."""
    found = {DEFAULT_SCOPE, *(row[0] for row in kb.store.counts(None))}
    folders = kb.home / "scopes"
    if folders.is_dir():
        for folder in folders.iterdir():
            try:
                found.add(check_scope(folder.name.replace("+", ":", 1)))
            except InvalidInput:
                continue  # not a folder kenning made: never touched
    return sorted(found, key=lambda s: (s != DEFAULT_SCOPE, s))


# -- planning: reads only --------------------------------------------------------------------------


def _plan(kb: Kenning, archive_after_days: int, today: dt.date | None) -> _Plan:
    plan = _Plan(index_pages=kb.store.index_pages())
    for scope in scopes(kb):
        hot, notes = kb.hot_in(scope), kb.notes_in(scope)
        if squeezed := [c for c in hot.plan_compression(over_budget_only=True) if c.changes or c.similar]:
            plan.compressions[scope] = squeezed
        if moves := notes.archive(archive_after_days, dry_run=True, today=today):
            plan.archive[scope] = moves
        if promotions := _suggestions(kb, hot, notes, scope, today):
            plan.promotions[scope] = promotions
    now = to_epoch(utcnow())
    rows = kb.store.select(ItemQuery(kinds=("fact",), expired_at=now, superseded=False,
                                     columns=("id", "scope", "content", "pinned"), order="id"))
    plan.expired = [{"id": r["id"], "scope": r["scope"], "content": r["content"], "was_pinned": bool(r["pinned"])}
                    for r in rows]
    return plan


def _suggestions(kb: Kenning, hot: HotMemory, notes: Notes, scope: str, today: dt.date | None) -> list[dict[str, Any]]:
    now = to_epoch(utcnow())
    rows = kb.store.select(ItemQuery(kinds=("fact",), scopes=(scope,), pinned=False, superseded=False, live_at=now,
                                     min_uses=PROMOTE_USES, order="most_used", limit=MAX_SUGGESTIONS))
    hot_keys = {content_key(e.text) for e in hot.entries(pick_up_edits=False)}
    out: list[dict[str, Any]] = []
    for fact in map(item_from_row, rows):
        if isinstance(fact, Fact) and content_key(fact.content) not in hot_keys:
            out.append({"scope": scope, "text": fact.content, "section": SECTION_OF_CATEGORY[fact.category],
                        "why": f"recalled {fact.access_count} and restated {fact.reinforced} times", "id": fact.id})
    seen = {content_key(s["text"]) for s in out}
    for text, days in notes.repeated(min_days=PROMOTE_DAYS, days_back=RECENT_DAYS, today=today):
        key = content_key(text)
        if key not in seen and key not in hot_keys and len(out) < MAX_SUGGESTIONS:
            seen.add(key)
            out.append({"scope": scope, "text": text, "section": "other", "why": f"written on {days} different days"})
    return out


# -- carrying out: exactly what was planned ----------------------------------------------------------


def _carry_out(kb: Kenning, plan: _Plan) -> None:
    """Each planned change, as planned; what became of it is written into the plan."""
    for scope, planned in plan.compressions.items():
        plan.compressions[scope] = kb.hot_in(scope).carry_out(planned, reason="maintenance", force=True)
    for scope, moves in plan.archive.items():
        notes = kb.notes_in(scope)
        plan.archive[scope] = [m for m in (notes.archive_day(move.date) for move in moves) if m is not None]
    for row in plan.expired:
        if row["was_pinned"]:
            try:
                kb.facts.unpin(row["id"], reason="expired: leaves the hot tier")
                row["result"] = "unpinned"
            except KenningError as exc:  # deleted since the plan was made
                row["result"] = f"not done: {exc}"
    for scope, suggestions in plan.promotions.items():
        hot = kb.hot_in(scope)
        for s in suggestions:
            try:
                s["result"] = hot.add(s["text"], s["section"], reason="promoted by maintenance: " + s["why"])["action"]
            except KenningError as exc:  # over budget: stays a suggestion
                s["result"] = f"not promoted: {exc}"
    kb.store.optimize_index()
    plan.index_after = kb.store.index_pages()


# -- the report --------------------------------------------------------------------------------------


def _report(plan: _Plan, archive_after_days: int, *, done: bool) -> tuple[Step, ...]:
    return (_demoted(plan, done), _archived(plan, archive_after_days, done), _expired(plan, done),
            _promoted(plan, done), _indexed(plan, done))


def _demoted(plan: _Plan, done: bool) -> Step:
    items: list[dict[str, Any]] = []
    for scope, reports in plan.compressions.items():
        for r in reports:
            where = {"scope": scope, "file": r.file}
            items += [{**where, "action": "drop", "entry": t} for t in r.dropped]
            items += [{**where, "action": "merge", "entry": a, "into": b} for a, b in r.merged]
            items += [{**where, "action": "demote", "entry": t} for t in r.demoted]
            items += [{**where, "action": "similar (not merged)", "entry": a, "into": b} for a, b in r.similar]
            items += [{**where, "action": "skipped: edited since the plan", "entry": t} for t in r.skipped]
    changes = sum(1 for i in items if i["action"] in ("drop", "merge", "demote"))
    if not plan.compressions:
        return Step("demote", "hot memory is within budget")
    return Step("demote", f"{'changed' if done else 'would change'} {changes} hot entries", tuple(items))


def _archived(plan: _Plan, days: int, done: bool) -> Step:
    moves = [m.to_dict() for ms in plan.archive.values() for m in ms]
    return Step("archive", f"{'archived' if done else 'would archive'} {len(moves)} daily notes older than {days} days",
                tuple(moves))


def _expired(plan: _Plan, done: bool) -> Step:
    pinned = sum(1 for r in plan.expired if r["was_pinned"])
    verb = "unpinned" if done else "would unpin"
    return Step("expire", f"{len(plan.expired)} facts are past their expiry (out of recall); {verb} {pinned}",
                tuple(plan.expired))


def _promoted(plan: _Plan, done: bool) -> Step:
    items = [s for ss in plan.promotions.values() for s in ss]
    summary = f"{len(items)} warm items {'suggested' if not done else 'planned'} for the hot tier"
    if done:
        summary += f"; {sum(1 for s in items if s.get('result') == 'added')} promoted"
    return Step("promote", summary, tuple(items))


def _indexed(plan: _Plan, done: bool) -> Step:
    if not done:
        return Step("index", f"would merge the full-text index ({plan.index_pages:,} pages)")
    return Step("index", f"merged the full-text index: {plan.index_pages:,} -> {plan.index_after or 0:,} pages")
