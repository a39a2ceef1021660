"""``purge``: the right to be forgotten. Deleting an item keeps its last state in the audit log;
purging removes its text from everywhere kenning keeps it:

* the rows: the item, its full-text row, its vector, its entity names (for a fact, its whole
  supersede chain: every version said it);
* the audit log: every entry about a purged item, or holding its text, keeps its action, time and
  actor, but its before / after become the SHA-256 of what they held and its reason is emptied
  (migration 6 allows exactly this change of the log, and nothing else);
* the files of its scope: hot entries (and the ``.bak`` copies holding them), daily notes, their
  archive, HISTORY.md paragraphs, archived session transcripts, skill feedback notes;
* the vector cache's snapshot file (rebuilt when needed) and the passage vectors of removed text;
* the bytes: the full-text index is merged, the database rebuilt (``VACUUM``) and its write-ahead
  log emptied, so the text is not left in free pages.

Three ways to name what goes: an item id; a whole scope (every item and every file of it); or a
piece of text (``match``, at least ``MIN_MATCH`` characters, any case): every item holding it and
every paragraph, entry and message holding it, in one scope or all. The purge is audited as a
purge: counts and ids, never the text. Files go first, then the rows in one transaction: a purge
cut short is finished by running it again.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import audit
from .checks import check_scope, scope_folder
from .consolidate.session import purge_transcripts, transcript_dir
from .errors import InvalidInput
from .models import DEFAULT_SCOPE, Fact
from .passages import PassageVectors
from .records import item_from_row
from .store import ItemQuery
from .text import has_cjk
from .tiers.maintain import scopes

if TYPE_CHECKING:
    from .api import Kenning

MIN_MATCH = 3  # characters (2 when the text holds Chinese or Japanese): "a" must not purge everything
DEFAULT_SCOPE_FILES = ("MEMORY.md", "MEMORY.md.bak", "USER.md", "USER.md.bak", "HISTORY.md")
DEFAULT_SCOPE_FOLDERS = ("daily", "archive", "sessions")


@dataclass(frozen=True)
class Purge:
    """What a purge removed (or, with ``dry_run``, would remove): ids and counts, never text."""

    mode: str  # "item" | "scope" | "match"
    scope: str | None
    dry_run: bool
    items: tuple[str, ...] = ()
    audit_entries: int = 0
    hot_entries: int = 0
    note_paragraphs: int = 0
    transcript_messages: int = 0
    feedback_notes: int = 0
    removed_paths: tuple[str, ...] = field(default_factory=tuple)
    vacuum: str | None = None  # why the table files were not rewritten (a server role not their owner)

    def to_dict(self) -> dict[str, Any]:
        done = {"success": True, "mode": self.mode, "scope": self.scope, "dry_run": self.dry_run,
                "items": list(self.items), "audit_entries": self.audit_entries, "hot_entries": self.hot_entries,
                "note_paragraphs": self.note_paragraphs, "transcript_messages": self.transcript_messages,
                "feedback_notes": self.feedback_notes, "removed_paths": list(self.removed_paths)}
        return done | ({"vacuum": self.vacuum} if self.vacuum else {})


@dataclass
class _Targets:
    mode: str
    scope: str | None  # the scope named, when one was
    rows: list[dict[str, Any]]
    scopes: list[str]  # whose files are searched
    needles: list[str]  # text removed wherever it stands


def purge(kb: Kenning, item_id: str | None = None, *, scope: str | None = None, match: str | None = None,
          dry_run: bool = False) -> Purge:
    """Remove an item (``item_id``), a scope (``scope`` alone) or a text (``match``, in ``scope``
    or in all) from everywhere; see the module docstring."""
    targets = _targets(kb, item_id, scope, match)
    ids = {str(r["id"]) for r in targets.rows}
    if targets.mode == "scope":
        counts, paths = _scope_files(kb, targets.scope or DEFAULT_SCOPE, dry_run)
        gone_texts: list[str] = []
    else:
        counts, gone_texts, linked = _files(kb, targets.scopes, ids, _needles(targets, targets.rows), dry_run)
        ids |= linked
        paths = ()
    # the facts of hot entries that held the text, though their rows may not (edited since)
    extra = (kb.store.get(i) for i in sorted(ids - {str(r["id"]) for r in targets.rows}))
    rows = targets.rows + [r for r in extra if r is not None]
    needles = _needles(targets, rows)
    blank = kb.store.audit_to_blank(sorted(ids), needles, targets.scope if targets.mode == "scope" else None)
    feedback = kb.store.blank_usage_notes(targets.needles, dry_run=True)
    report = Purge(targets.mode, targets.scope, dry_run, tuple(sorted(ids)), len(blank), *counts,
                   feedback_notes=feedback, removed_paths=paths)
    if dry_run:
        return report
    with kb.store.transaction():
        for row in rows:
            kb.store.delete_item(int(row["rowid"]))
        for row in rows:
            fact = item_from_row(row)
            if isinstance(fact, Fact):
                kb.facts.relink(fact, "")  # a neighbour of the chain that stays: the gap is closed
        kb.store.blank_audit(blank)
        kb.store.blank_usage_notes(targets.needles)
        PassageVectors(kb.store, kb.embedder).forget(gone_texts)
        summary = {k: v for k, v in report.to_dict().items() if k not in ("success", "dry_run", "items")}
        audit.record_event(kb.store, "purge", kind="purge", scope=targets.scope, actor=kb.actor,
                           after={**summary, "item_count": len(report.items), "ids": list(report.items[:100])})
    (kb.settings.cache_dir / "vectors.snapshot").unlink(missing_ok=True)
    note = kb.store.vacuum()
    return replace(report, vacuum=note) if note else report


def _targets(kb: Kenning, item_id: str | None, scope: str | None, match: str | None) -> _Targets:
    named = [x for x in (item_id, match) if x is not None]
    if len(named) > 1 or (not named and scope is None):
        raise InvalidInput("purge takes one item id, or --scope SCOPE (the whole scope), or --match TEXT "
                           "(with or without --scope); give exactly one of them")
    if item_id is not None:
        if scope is not None:
            raise InvalidInput("an item id names its scope already; leave out --scope")
        item = kb.get(item_id)
        chain = kb.history(item.id) if isinstance(item, Fact) else [item]
        texts = [f.content for f in chain]
        rows = _by_id([r for f in chain if (r := kb.store.get(f.id)) is not None] + _holding(kb, texts, item.scope))
        return _Targets("item", None, rows, [item.scope], texts)
    if match is None:
        where = check_scope(scope)
        return _Targets("scope", where, kb.store.select(ItemQuery(scopes=(where,))), [where], [])
    text = " ".join(match.split()) if isinstance(match, str) else ""
    if len(text) < (2 if has_cjk(text) else MIN_MATCH):
        raise InvalidInput(f"--match {match!r} is too short: give at least {MIN_MATCH} characters (2 in Chinese), "
                           "or the item id, so that a purge cannot remove more than was meant")
    within = None if scope is None else check_scope(scope)
    return _Targets("match", within, _holding(kb, [text], within), [within] if within else scopes(kb), [text])


def _holding(kb: Kenning, needles: list[str], scope: str | None) -> list[dict[str, Any]]:
    """The items (of ``scope``, or all) with one of ``needles`` in a text column, any ASCII case."""
    return kb.store.select(ItemQuery(holding=tuple(needles), scopes=None if scope is None else (scope,)))


def _by_id(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return list({str(r["id"]): r for r in rows}.values())


def _needles(targets: _Targets, rows: list[dict[str, Any]]) -> list[str]:
    """The texts removed wherever they stand: the one named, and each purged item's."""
    return targets.needles + [str(r["content"]) for r in rows]


def _files(kb: Kenning, scopes: list[str], ids: set[str], needles: list[str],
           dry_run: bool) -> tuple[tuple[int, int, int], list[str], set[str]]:
    """Hot entries (linked to ``ids`` or holding a needle), note paragraphs and transcript messages
    holding a needle, in ``scopes``: the counts, the texts removed, and the facts of those entries."""
    hot = notes = messages = 0
    texts: list[str] = []
    linked: set[str] = set()
    for scope in scopes:
        entries = kb.hot_in(scope).purge(ids, needles, dry_run=dry_run)
        paragraphs = kb.notes_in(scope).purge(needles, dry_run=dry_run)
        messages += purge_transcripts(kb.home, scope, needles, dry_run=dry_run)
        hot += len(entries)
        notes += len(paragraphs)
        texts += [e.text for e in entries] + paragraphs
        linked |= {e.item_id for e in entries if e.item_id}
    return (hot, notes, messages), texts, linked


def _scope_files(kb: Kenning, scope: str, dry_run: bool) -> tuple[tuple[int, int, int], tuple[str, ...]]:
    """A whole scope's files: its folder (the default scope: its files at the top of the data
    directory); the counts of what they held, and the paths removed."""
    home = kb.home
    counts = (len(kb.hot_in(scope).entries(pick_up_edits=False)), kb.notes_in(scope).count(),
              _messages(home / transcript_dir(scope)))
    if scope == DEFAULT_SCOPE:
        paths = [home / name for name in DEFAULT_SCOPE_FILES + DEFAULT_SCOPE_FOLDERS]
    else:
        paths = [home / scope_folder(scope)]
    present = [p for p in paths if p.exists()]
    if not dry_run:
        for path in present:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    return counts, tuple(str(p.relative_to(home)) for p in present)


def _messages(folder: Path) -> int:
    """How many messages the archived transcripts in ``folder`` hold (one per line)."""
    return sum(len(p.read_bytes().splitlines()) for p in folder.glob("*.jsonl")) if folder.is_dir() else 0
