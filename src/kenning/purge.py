"""``purge``: the right to be forgotten. Deleting an item keeps its last state in the audit log;
purging removes its text from everywhere kenning keeps it:

* the rows: the item, its full-text row, its vector, its entity names (for a fact, its whole
  supersede chain: every version said it);
* the audit log: every entry about a purged item, or holding its text, keeps its action, time and
  actor, but its before / after become the SHA-256 of what they held and its reason is emptied
  (migration 6 allows exactly this change of the log, and nothing else);
* the files of its scope: hot entries (and the ``.bak`` copies holding them), daily notes, their
  archive, HISTORY.md paragraphs, archived session transcripts, skill feedback notes;
* skills (with an item id or a text; they belong to no scope): every skill draft, waiting or
  rejected, holding the text, removed whole (a draft with a passage cut out would be a proposal
  nobody made); the lines holding it cut out of every recorded skill version's files; the skill
  scanner's cached reports quoting it. The skill files in place are not changed (they are the
  skills, yours to edit): the purge lists those still holding the text, so that they can be edited,
  and the purge run again for the versions that edit records;
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

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import audit, fileio
from .checks import check_scope, scope_folder
from .consolidate.session import purge_transcripts, transcript_dir
from .errors import InvalidInput
from .models import DEFAULT_SCOPE, Fact
from .passages import PassageVectors
from .records import item_from_row
from .skills import versions
from .skills.masking import decoded
from .store import ItemQuery
from .text import has_cjk, holds
from .tiers.maintain import scopes

if TYPE_CHECKING:
    from .api import Kenning

MIN_MATCH = 3  # characters (2 when the text holds Chinese or Japanese): "a" must not purge everything
DEFAULT_SCOPE_FILES = ("MEMORY.md", "MEMORY.md.bak", "USER.md", "USER.md.bak", "HISTORY.md")
DEFAULT_SCOPE_FOLDERS = ("daily", "archive", "sessions")
DRAFT_FOLDERS = ("drafts/skills", "drafts/rejected")  # kenning.consolidate.drafts: waiting, rejected
SCAN_CACHE = "skill-scan"  # under the cache folder: kenning.skills.scanning.folder


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
    skill_drafts: int = 0
    skill_version_files: int = 0  # stored files of skill versions the text was cut out of
    removed_paths: tuple[str, ...] = field(default_factory=tuple)
    live_skill_files: tuple[str, ...] = ()  # skill files in place still holding the text (not changed)
    vacuum: str | None = None  # why the table files were not rewritten (a server role not their owner)

    def to_dict(self) -> dict[str, Any]:
        done = {"success": True, "mode": self.mode, "scope": self.scope, "dry_run": self.dry_run,
                "items": list(self.items), "audit_entries": self.audit_entries, "hot_entries": self.hot_entries,
                "note_paragraphs": self.note_paragraphs, "transcript_messages": self.transcript_messages,
                "feedback_notes": self.feedback_notes, "skill_drafts": self.skill_drafts,
                "skill_version_files": self.skill_version_files, "removed_paths": list(self.removed_paths),
                "live_skill_files": list(self.live_skill_files)}
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
    skill_needles = [] if targets.mode == "scope" else needles  # skills belong to no scope
    drafts = _drafts(kb.home, skill_needles, dry_run)
    cached = _scan_cache(kb.settings.cache_dir, skill_needles, dry_run)
    blank = kb.store.audit_to_blank(sorted(ids), needles, targets.scope if targets.mode == "scope" else None)
    feedback = kb.store.blank_usage_notes(targets.needles, dry_run=True)
    report = Purge(targets.mode, targets.scope, dry_run, tuple(sorted(ids)), len(blank), *counts,
                   feedback_notes=feedback, skill_drafts=len(drafts),
                   skill_version_files=versions.purge(kb.store, skill_needles, dry_run=True) if skill_needles else 0,
                   removed_paths=paths + _shown(kb.home, drafts + cached),
                   live_skill_files=_live_skill_files(kb, skill_needles))
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
        if skill_needles:
            versions.purge(kb.store, skill_needles)
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


def _drafts(home: Path, needles: list[str], dry_run: bool) -> list[Path]:
    """The skill drafts, waiting or rejected, with a needle in one of their files (SKILL.md, and the
    origin and base text in draft.json), removed whole (see the module docstring)."""
    found: list[Path] = []
    if not needles or not (home / "drafts").is_dir():
        return found
    with fileio.locked(home / DRAFT_FOLDERS[0] / ".drafts"):  # the lock a draft is saved under
        for base in (home / d for d in DRAFT_FOLDERS):
            folders = sorted(p for p in base.iterdir() if p.is_dir() and not p.is_symlink()) if base.is_dir() else []
            for folder in folders:
                if any(_file_holds(f, needles) for f in _files_in(folder)):
                    found.append(folder)
                    if not dry_run:
                        shutil.rmtree(folder)
    return found


def _scan_cache(cache_dir: Path, needles: list[str], dry_run: bool) -> list[Path]:
    """The skill scanner's cached reports quoting a needle (a finding's match), removed: made again
    when needed."""
    folder = cache_dir / SCAN_CACHE
    found = [p for p in sorted(folder.glob("*.json")) if _file_holds(p, needles)] if needles and folder.is_dir() else []
    if not dry_run:
        for path in found:
            path.unlink(missing_ok=True)
    return found


def _live_skill_files(kb: Kenning, needles: list[str]) -> tuple[str, ...]:
    """The files of skills in writable sources that still hold a needle (a purge does not change them)."""
    if not needles:
        return ()
    roots = [s.root for s in kb.skills.sources if s.writable]
    return tuple(str(f) for skill in kb.skills.index().skills if skill.root in roots
                 for f in _files_in(skill.path) if not f.name.startswith(".") and _file_holds(f, needles))


def _files_in(folder: Path) -> Iterator[Path]:
    """The regular files under ``folder``, links not followed."""
    return (p for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink())


def _file_holds(path: Path, needles: list[str]) -> bool:
    """Whether a file holds a needle: as text in the encoding it reads as, and for JSON (where text
    is escaped: ``\\n``, ``\\u00e9``) in its strings too."""
    try:
        data = path.read_bytes()
    except OSError:
        return False  # gone meanwhile
    text, _ = decoded(data) or (data.decode("latin-1"), "latin-1")
    if holds(text, needles):
        return True
    if path.suffix == ".json":
        try:
            return any(holds(s, needles) for s in _strings(json.loads(text)))
        except ValueError:
            return False
    return False


def _strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _shown(home: Path, paths: list[Path]) -> tuple[str, ...]:
    """Paths as a report shows them: inside the data directory relative to it, else whole."""
    return tuple(str(p.relative_to(home)) if p.is_relative_to(home) else str(p) for p in paths)
