"""Pinned skills: the ones the curator leaves alone (never marked stale, never archived).

A pin is kept in the store (``Store.add_skill_pin``) by the skill's location, the key
its history has (source root + path inside it), so pinning the project's "deploy" says nothing about
the user's. Pinning and unpinning are audited in the same transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..audit import record_event
from ..store import Store
from ..timeutil import from_epoch, to_epoch, utcnow
from .model import Skill


@dataclass(frozen=True)
class PinChange:
    """What ``pin`` or ``unpin`` did; ``changed`` is False when the skill already was so."""

    action: str  # "pin" | "unpin"
    name: str
    source: str
    path: str
    changed: bool

    @property
    def message(self) -> str:
        if self.action == "pin":
            return (f"pinned skill {self.name!r}: the curator never marks it stale nor archives it" if self.changed
                    else f"skill {self.name!r} was already pinned")
        return (f"unpinned skill {self.name!r}: the curator treats it like any other" if self.changed
                else f"skill {self.name!r} was not pinned")

    def to_dict(self) -> dict[str, Any]:
        return {"success": True, "action": self.action, "name": self.name, "source": self.source,
                "path": self.path, "changed": self.changed, "message": self.message}


def pinned(store: Store) -> dict[tuple[str, str], datetime]:
    """Every pin: (root, rel_path) -> when it was pinned."""
    return {key: from_epoch(at) or utcnow() for key, at in store.skill_pins().items()}


def pin(store: Store, skill: Skill, *, actor: str, reason: str = "") -> PinChange:
    with store.transaction():
        added = store.add_skill_pin(root=str(skill.root), rel_path=skill.rel_path, name=skill.name,
                                    source=skill.source, at=to_epoch(utcnow()), actor=actor, reason=reason)
        change = PinChange("pin", skill.name, skill.source, str(skill.path), added)
        if change.changed:
            _audit(store, change, actor, reason)
    return change


def unpin(store: Store, skill: Skill, *, actor: str, reason: str = "") -> PinChange:
    with store.transaction():
        removed = store.remove_skill_pin(str(skill.root), skill.rel_path)
        change = PinChange("unpin", skill.name, skill.source, str(skill.path), removed)
        if change.changed:
            _audit(store, change, actor, reason)
    return change


def _audit(store: Store, change: PinChange, actor: str, reason: str) -> None:
    state = {"name": change.name, "path": change.path, "pinned": change.action == "pin"}
    record_event(store, f"skill_{change.action}", kind="skill", scope=change.source, actor=actor, reason=reason,
                 before={**state, "pinned": not state["pinned"]}, after=state)
