"""How skills are used: each view, and each outcome an agent reports (helped / failed /
not-relevant, with a note), timestamped in the store (``Store.add_skill_usage``).

A row names the skill and, since migration 7, its location: the source root and the path inside it,
the key its version history has (``versions.Location``), so a project's "deploy" and the user's are
told apart and a skill's usage lines up with its history (the curator archives and restores by it).
Rows written without a location (before migration 7, or by a caller that gives none) count by name.
``stats`` groups by name, or by location (``by_location``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from ..errors import InvalidInput
from ..store import Store
from ..timeutil import from_epoch, to_epoch, utcnow

OUTCOMES = ("helped", "failed", "not-relevant")
MAX_NOTE = 2000


@dataclass(frozen=True)
class UsageEvent:
    at: datetime
    name: str
    event: str  # "view" | "feedback"
    outcome: str | None
    detail: str  # the file viewed, or the note given with feedback
    actor: str

    def to_dict(self) -> dict[str, Any]:
        return {"at": self.at.isoformat(timespec="seconds"), "name": self.name, "event": self.event,
                "outcome": self.outcome, "detail": self.detail, "actor": self.actor}


class Located(Protocol):
    """Anything that says where a skill lives: a ``Skill`` or a ``versions.Location``."""

    @property
    def root(self) -> Path: ...

    @property
    def rel_path(self) -> str: ...


@dataclass(frozen=True)
class UsageStats:
    """Counts for one skill name, or (``stats(by_location=True)``) for one name at one location;
    ``root`` and ``rel_path`` are None for rows recorded without a location."""

    name: str
    views: int
    helped: int
    failed: int
    not_relevant: int
    last_used: datetime | None
    root: str | None = None
    rel_path: str | None = None

    @property
    def uses(self) -> int:
        """Times an agent reported using the skill, whatever the outcome."""
        return self.helped + self.failed + self.not_relevant

    @property
    def location(self) -> tuple[str, str] | None:
        """(root, rel_path), the key of the skill's history; None for rows counted by name."""
        return (self.root, self.rel_path) if self.root is not None and self.rel_path is not None else None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name, "views": self.views, "uses": self.uses, "helped": self.helped,
            "failed": self.failed, "not_relevant": self.not_relevant,
            "last_used": self.last_used.isoformat(timespec="seconds") if self.last_used else None}
        if self.root is not None:
            out |= {"root": self.root, "rel_path": self.rel_path}
        return out


def check_outcome(outcome: object) -> str:
    value = outcome.strip().lower().replace("_", "-").replace(" ", "-") if isinstance(outcome, str) else outcome
    if value not in OUTCOMES:
        raise InvalidInput(f"outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
    return str(value)


def record(store: Store, name: str, event: str, *, actor: str, outcome: str | None = None, detail: str = "",
           location: Located | None = None, at: datetime | None = None) -> None:
    """Store one event about skill ``name``; ``location`` (the skill, or its ``Location``) keys it
    to that very copy; ``at`` (default now) is for events replayed from elsewhere."""
    root, rel_path = (str(location.root), location.rel_path) if location is not None else (None, None)
    store.add_skill_usage(at=to_epoch(at or utcnow()), name=name, event=event, outcome=outcome,
                          detail=detail[:MAX_NOTE], actor=actor, root=root, rel_path=rel_path)


def stats(store: Store, name: str | None = None, *, by_location: bool = False) -> list[UsageStats]:
    """Counts per skill name (only ``name`` when given), most used first. With ``by_location``, one
    row per name and location, rows without a location (counted by name) apart from them."""
    out = [UsageStats(c["name"], c["views"], c["helped"], c["failed"], c["not_relevant"], from_epoch(c["last_at"]),
                      c["root"], c["rel_path"]) for c in store.skill_usage_counts(name, by_location=by_location)]
    return sorted(out, key=lambda s: (-(s.uses + s.views), s.name, s.root or "", s.rel_path or ""))


def recent(store: Store, name: str, limit: int = 20) -> list[UsageEvent]:
    """The newest events about one skill, newest first."""
    return [UsageEvent(from_epoch(e["at"]) or utcnow(), e["name"], e["event"], e["outcome"], e["detail"], e["actor"])
            for e in store.skill_usage_events(name, limit)]
