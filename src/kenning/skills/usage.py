"""How skills are used: each view, and each outcome an agent reports (helped / failed /
not-relevant, with a note), timestamped in ``kenning.db`` (table ``skill_usage``, migration 2).

Usage is keyed by skill name, not location: what matters to the agent is whether "deploy" helps,
whichever copy of it was in effect. This is the only module with SQL about usage.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

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


@dataclass(frozen=True)
class UsageStats:
    name: str
    views: int
    helped: int
    failed: int
    not_relevant: int
    last_used: datetime | None

    @property
    def uses(self) -> int:
        """Times an agent reported using the skill, whatever the outcome."""
        return self.helped + self.failed + self.not_relevant

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "views": self.views, "uses": self.uses, "helped": self.helped,
                "failed": self.failed, "not_relevant": self.not_relevant,
                "last_used": self.last_used.isoformat(timespec="seconds") if self.last_used else None}


def check_outcome(outcome: object) -> str:
    value = outcome.strip().lower().replace("_", "-").replace(" ", "-") if isinstance(outcome, str) else outcome
    if value not in OUTCOMES:
        raise InvalidInput(f"outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
    return str(value)


def record(store: Store, name: str, event: str, *, actor: str, outcome: str | None = None, detail: str = "") -> None:
    with store.transaction() as conn:
        conn.execute(
            "INSERT INTO skill_usage (at, name, event, outcome, detail, actor) VALUES (?, ?, ?, ?, ?, ?)",
            (to_epoch(utcnow()), name, event, outcome, store.redactor.text(detail[:MAX_NOTE], what="the note"), actor),
        )


def stats(store: Store, name: str | None = None) -> list[UsageStats]:
    """Counts per skill name (only ``name`` when given), most used first."""
    where, params = ("WHERE name = ?", [name]) if name else ("", [])
    with store.transaction() as conn:
        rows = conn.execute(
            "SELECT name, sum(event = 'view'), sum(outcome = 'helped'), sum(outcome = 'failed'), "
            f"sum(outcome = 'not-relevant'), max(at) FROM skill_usage {where} GROUP BY name",
            params,
        ).fetchall()
    out = [UsageStats(r[0], int(r[1] or 0), int(r[2] or 0), int(r[3] or 0), int(r[4] or 0), from_epoch(r[5]))
           for r in rows]
    return sorted(out, key=lambda s: (-(s.uses + s.views), s.name))


def recent(store: Store, name: str, limit: int = 20) -> list[UsageEvent]:
    """The newest events about one skill, newest first."""
    with store.transaction() as conn:
        rows = conn.execute(
            "SELECT at, name, event, outcome, detail, actor FROM skill_usage WHERE name = ? "
            "ORDER BY id DESC LIMIT ?",
            (name, limit),
        ).fetchall()
    return [UsageEvent(from_epoch(r[0]) or utcnow(), r[1], r[2], r[3], r[4], r[5]) for r in rows]
