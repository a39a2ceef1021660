"""The curator: which skills nobody uses, which keep failing, which say the same thing twice.

A skill's idle clock starts at its last use (a view or a reported outcome, ``usage``), or at its last
recorded change when that is later (a skill just created, edited or restored is not idle), or, for a
skill with no history (built-in and extra skills), at its SKILL.md's modification time. Usage counts
by location, and rows recorded before usage had one (by name only) count for every skill of that
name: a copy that may have been used is never taken for an unused one.

- idle for ``stale_days`` (30): *stale*, listed with a mark and shortened in the catalog;
- idle for ``archive_days`` (90): *archived* (``archive``: moved under the data directory, versioned,
  audited, restorable); only skills of writable sources move, built-in and extra ones stay stale;
- pinned skills (``pins``) are never stale nor archived;
- at least ``min_outcomes`` (3) reported outcomes and more than ``failing_share`` (half) of them
  ``failed``: *failing*;
- near-duplicate pairs by meaning (``pairs``), each with a merge suggestion.

``marks`` is the cheap part (three grouped queries, no embedding) that lists and catalogs use;
``Curator.run`` is ``kenning skill curate``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput, KenningError
from ..store import Store
from ..timeutil import from_epoch, utcnow
from . import pins, usage
from .archive import ARCHIVE, Archived, Archiver, Moved, Recorded, archive_root, last_versions
from .duplicates import DuplicateFinder
from .index import SkillIndex
from .model import SKILL_FILE, Skill
from .pairs import Pair, near_duplicates
from .sources import Source

if TYPE_CHECKING:
    from .library import Skills


@dataclass(frozen=True)
class Policy:
    """The curator's thresholds."""

    stale_days: int = 30
    archive_days: int = 90
    min_outcomes: int = 3
    failing_share: float = 0.5

    def __post_init__(self) -> None:
        for what, days in (("stale_days", self.stale_days), ("archive_days", self.archive_days)):
            if isinstance(days, bool) or not isinstance(days, int) or days < 1:
                raise InvalidInput(f"{what} must be a whole number of days >= 1, got {days!r}")
        if self.archive_days < self.stale_days:
            raise InvalidInput(f"archive_days ({self.archive_days}) must be at least stale_days ({self.stale_days}): "
                               "a skill is stale before it is archived")


POLICY = Policy()


@dataclass(frozen=True)
class Mark:
    """What the curator thinks of one skill now."""

    stale: bool  # idle for stale_days, and not pinned
    failing: bool  # mostly failed outcomes
    last_used: datetime | None  # the last view or reported outcome
    pinned: bool
    since: datetime | None = None  # when the idle clock started (None: the skill's time is unknown)
    idle_days: int = 0
    archive_due: bool = False  # idle for archive_days, and not pinned (moved only from writable sources)
    views: int = 0
    outcomes: int = 0
    failed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"stale": self.stale, "failing": self.failing, "pinned": self.pinned,
                "last_used": _iso(self.last_used), "since": _iso(self.since), "idle_days": self.idle_days,
                "archive_due": self.archive_due, "views": self.views, "outcomes": self.outcomes, "failed": self.failed}


def marks(store: Store, index: SkillIndex, now: datetime | None = None, policy: Policy = POLICY) -> dict[Path, Mark]:
    """A ``Mark`` for every skill of ``index``, by skill folder (``Skill.path``)."""
    return _marks(store, index.skills, now or utcnow(), policy, last_versions(store))


def _marks(store: Store, skills: Sequence[Skill], now: datetime, policy: Policy,
           recorded: dict[tuple[str, str], Recorded]) -> dict[Path, Mark]:
    located: dict[tuple[str, str], list[usage.UsageStats]] = {}
    by_name: dict[str, list[usage.UsageStats]] = {}
    for row in usage.stats(store, by_location=True):
        if row.location is not None:
            located.setdefault(row.location, []).append(row)
        else:
            by_name.setdefault(row.name, []).append(row)
    pinned = pins.pinned(store)
    out: dict[Path, Mark] = {}
    for skill in skills:
        key = (str(skill.root), skill.rel_path)
        rows = located.get(key, []) + by_name.get(skill.name, [])
        last_used = max((r.last_used for r in rows if r.last_used), default=None)
        state = recorded.get(key)
        changed = state.at if state is not None else _modified(skill)
        since = max((t for t in (last_used, changed) if t is not None), default=None)
        idle = max(0, (now - since) // timedelta(days=1)) if since else 0
        outcomes = sum(r.uses for r in rows)
        failed = sum(r.failed for r in rows)
        held = key in pinned
        out[skill.path] = Mark(
            stale=not held and since is not None and idle >= policy.stale_days,
            failing=outcomes >= policy.min_outcomes and failed > policy.failing_share * outcomes,
            last_used=last_used, pinned=held, since=since, idle_days=idle,
            archive_due=not held and since is not None and idle >= policy.archive_days,
            views=sum(r.views for r in rows), outcomes=outcomes, failed=failed)
    return out


def _modified(skill: Skill) -> datetime | None:
    try:
        return from_epoch(os.stat(skill.path / SKILL_FILE).st_mtime)
    except OSError:
        return None


# -- the report ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One skill in the curator's report."""

    skill: Skill
    mark: Mark
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.skill.name, "source": self.skill.source, "path": str(self.skill.path),
                "qualified": self.skill.qualified, **self.mark.to_dict(), "note": self.note}


@dataclass(frozen=True)
class Report:
    """What ``Curator.run`` did, or would do (``dry_run``)."""

    dry_run: bool
    at: datetime
    policy: Policy
    stale: tuple[Entry, ...]  # marked stale, left in place
    archived: tuple[Entry, ...]  # moved to the archive (with dry_run: would be)
    failing: tuple[Entry, ...]
    duplicates: tuple[Pair, ...]
    not_archived: tuple[Entry, ...] = ()  # due but refused (the note says why): nothing was moved
    in_archive: tuple[Archived, ...] = field(default=())  # everything in the archive after the run

    @property
    def message(self) -> str:
        verb = "would archive" if self.dry_run else "archived"
        return (f"{len(self.stale)} stale, {verb} {len(self.archived)}, {len(self.failing)} failing, "
                f"{len(self.duplicates)} near-duplicate pair(s)"
                + (f", {len(self.not_archived)} could not be archived" if self.not_archived else ""))

    def to_dict(self) -> dict[str, Any]:
        return {"success": True, "dry_run": self.dry_run, "at": _iso(self.at),
                "policy": {"stale_days": self.policy.stale_days, "archive_days": self.policy.archive_days,
                           "min_outcomes": self.policy.min_outcomes, "failing_share": self.policy.failing_share},
                "message": self.message,
                "stale": [e.to_dict() for e in self.stale], "archived": [e.to_dict() for e in self.archived],
                "not_archived": [e.to_dict() for e in self.not_archived],
                "failing": [e.to_dict() for e in self.failing],
                "duplicates": [p.to_dict() for p in self.duplicates],
                "in_archive": [a.to_dict() for a in self.in_archive]}


class Curator:
    """The curator of one library: its store, sources, near-duplicate finder and archive."""

    def __init__(self, store: Store, sources: Sequence[Source], finder: DuplicateFinder, *, home: Path, actor: str,
                 on_change: Callable[[], None] = lambda: None) -> None:
        self.store = store
        self.sources = tuple(sources)
        self.finder = finder
        self.actor = actor
        self.archiver = Archiver(store, self.sources, archive_root(home), actor=actor, on_change=on_change)

    @classmethod
    def of(cls, skills: Skills, home: Path) -> Curator:
        """The curator of ``skills`` (``kb.skills``), archiving under ``home``."""

        def changed() -> None:  # what Skills does after its own writes
            skills.loader.invalidate()
            skills.catalog_cache.invalidate()

        return cls(skills.store, skills.sources, skills.manager.finder, home=home, actor=skills.actor,
                   on_change=changed)

    def run(self, index: SkillIndex, *, dry_run: bool = False, now: datetime | None = None, policy: Policy = POLICY,
            progress: Callable[[int, int], None] | None = None, reason: str = "") -> Report:
        """Mark, archive (unless ``dry_run``) and compare the skills of ``index``."""
        at = now or utcnow()
        recorded = last_versions(self.store)
        found = _marks(self.store, index.skills, at, policy, recorded)
        writable = {s.root for s in self.sources if s.writable}
        stale: list[Entry] = []
        due: list[Entry] = []
        for skill in sorted(index.skills, key=lambda s: (s.name, s.qualified)):
            mark = found[skill.path]
            if mark.archive_due and skill.root in writable:
                due.append(Entry(skill, mark))
            elif mark.stale:
                note = "" if skill.root in writable or not mark.archive_due else \
                    f"{skill.source} skills are read-only: marked stale, never archived"
                stale.append(Entry(skill, mark, note))
        archived, refused = self._archive(due, dry_run, reason or f"unused for {policy.archive_days} days or more")
        gone = {id(e.skill) for e in archived}
        failing = [Entry(s, found[s.path]) for s in sorted(index.skills, key=lambda s: (s.name, s.qualified))
                   if found[s.path].failing and id(s) not in gone]
        compared = [s for s in index.visible() if id(s) not in gone]
        pairs = near_duplicates(self.finder, compared, {s.path: found[s.path] for s in compared},
                                persist=not dry_run, progress=progress)
        return Report(dry_run, at, policy, tuple(stale), tuple(archived), tuple(failing), tuple(pairs),
                      tuple(refused), tuple(self.archiver.archived()))

    def _archive(self, due: list[Entry], dry_run: bool, reason: str) -> tuple[list[Entry], list[Entry]]:
        if dry_run:
            return due, []
        done: list[Entry] = []
        refused: list[Entry] = []
        for entry in due:
            try:
                moved = self.archiver.archive(entry.skill, reason=reason)
            except (KenningError, OSError) as exc:  # one skill that cannot move does not stop the others
                refused.append(Entry(entry.skill, entry.mark, str(exc)))
                continue
            done.append(Entry(entry.skill, entry.mark, f"moved to {moved.archive_path}"))
        return done, refused

    def restore(self, index: SkillIndex, name: object, *, reason: str = "") -> Moved:
        """Put an archived skill back (see ``archive.Archiver.restore``)."""
        return self.archiver.restore(name, taken=index.skills, reason=reason)

    def restorable(self, index: SkillIndex, name: object) -> Archived:
        """The archived skill ``name`` if ``restore`` would put it back, else the error it would raise."""
        return self.archiver.restorable(name, taken=index.skills)

    def archive(self, skill: Skill, *, reason: str = "") -> Moved:
        return self.archiver.archive(skill, reason=reason or "archived by hand")

    def archived(self) -> list[Archived]:
        return self.archiver.archived()

    def pin(self, skill: Skill, *, reason: str = "") -> pins.PinChange:
        return pins.pin(self.store, skill, actor=self.actor, reason=reason)

    def unpin(self, skill: Skill, *, reason: str = "") -> pins.PinChange:
        return pins.unpin(self.store, skill, actor=self.actor, reason=reason)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat(timespec="seconds") if value else None


__all__ = ["ARCHIVE", "Curator", "Entry", "Mark", "POLICY", "Pair", "Policy", "Report", "marks"]
