"""Possible conflicts: pairs of current facts the write gate kept side by side although one may
correct the other, waiting for a person or the agent to settle them.

A pair is recorded (``Store.add_conflict``) when a statement is stored as new and
the rule (``kenning.gate.current``) could not tell whether it corrects a stored fact: ``a`` is the
fact stored first, ``b`` the newer one, with the rule that hesitated and the cosine; never the texts,
which stay in the items (a purge of either fact leaves nothing here to look for). A pair is
listed while it is unsettled and both facts are current; once either is superseded, expired or
deleted there is nothing left to choose.

Settling a pair (``settle``) keeps ``a``, ``b`` or both. Keeping one supersedes the other through
the normal supersede path (``Facts.supersede`` with the kept fact's text, which links the dropped
fact to the kept one and reinforces it); the choice is recorded on the pair and in the audit log,
all in one transaction: a failure leaves both facts and the pair as they were.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..checks import check_scope
from ..errors import InvalidInput, NotFound
from ..records import item_from_row
from ..timeutil import from_epoch, to_epoch, utcnow
from .novelty import Suspect

if TYPE_CHECKING:
    from ..memory import Facts
    from ..models import Fact
    from ..store import Store

KEEP = ("a", "b", "both")


@dataclass(frozen=True)
class PossibleConflict:
    """Two current facts of one scope that may contradict each other, and why the gate thought so."""

    a: Fact  # stored first
    b: Fact
    scope: str
    rule: str
    cosine: float | None
    found_at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a.to_dict(), "b": self.b.to_dict(), "scope": self.scope, "why": self.rule,
                "cosine": None if self.cosine is None else round(self.cosine, 4),
                "found_at": self.found_at.isoformat(),
                "settle": f"kenning conflicts resolve {self.a.id} {self.b.id} --keep A|B|both"}


@dataclass(frozen=True)
class Settlement:
    """What ``settle`` did: which fact was kept (``kept``: the ids still current) and the fact that
    now holds when one was dropped (``current``)."""

    a: str
    b: str
    keep: str
    kept: tuple[str, ...]
    current: Fact | None

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "keep": self.keep, "kept": list(self.kept),
                "current": self.current.to_dict() if self.current else None}


def record(store: Store, scope: str, new_id: str, suspects: tuple[Suspect, ...], *, actor: str) -> int:
    """Record the possible conflicts of the just stored fact ``new_id`` (call inside its write's
    transaction); returns how many were new."""
    added = 0
    now = to_epoch(utcnow())
    with store.transaction():
        for s in suspects:
            if store.add_conflict(a=s.target_id, b=new_id, scope=scope, rule=s.rule, cosine=s.cosine, found_at=now,
                                  found_by=actor):
                added += 1
                _audit(store, "conflict_found", new_id, scope, actor, s.rule,
                       None, {"a": s.target_id, "b": new_id, "cosine": round(s.cosine, 4)})
    return added


def listing(store: Store, scope: str | None = None) -> list[PossibleConflict]:
    """The unsettled pairs whose two facts are both current (unsuperseded, unexpired), oldest first;
    of one scope, or of every scope when ``scope`` is None."""
    rows = store.open_conflicts(check_scope(scope) if scope is not None else None)
    now = utcnow()
    out = []
    for row in rows:
        a, b = _current(store, row["a"], now), _current(store, row["b"], now)
        if a is not None and b is not None:
            out.append(PossibleConflict(a, b, row["scope"], row["rule"], row["cosine"],
                                        from_epoch(row["found_at"]) or now))
    return out


def _current(store: Store, item_id: str, now: datetime) -> Fact | None:
    row = store.get(item_id)
    if row is None or row["superseded_by"] is not None:
        return None
    fact: Fact = item_from_row(row)  # type: ignore[assignment]
    return None if fact.is_expired(now) else fact


def settle(facts: Facts, first: str, second: str, keep: str, *, reason: str = "",
           scope: str | None = None) -> Settlement:
    """Settle the possible conflict between facts ``first`` and ``second`` (in either order):
    ``keep`` "a" keeps ``first`` and supersedes ``second`` by it, "b" the other way round, "both"
    keeps the two as true together; the pair is never listed again."""
    choice = keep.strip().casefold() if isinstance(keep, str) else keep
    if choice not in KEEP:
        raise InvalidInput(f"keep must be 'a' (the first id), 'b' (the second) or 'both', got {keep!r}")
    store = facts.store
    pair = _open_pair(store, first, second, scope)
    stored_a = pair["a"]
    why = reason or f"possible conflict settled: kept {'both' if choice == 'both' else (first if choice == 'a' else second)}"
    with store.transaction():
        current: Fact | None = None
        if choice != "both":
            kept, dropped = (first, second) if choice == "a" else (second, first)
            holder = facts.get(kept)
            current = facts.supersede(dropped, holder.content, reason=why)
        # the choice in the pair's own terms: its a is the fact stored first
        column = "both" if choice == "both" else ("a" if (choice == "a") == (first == stored_a) else "b")
        store.settle_conflict(pair["a"], pair["b"], settled=column, at=to_epoch(utcnow()), by=facts.actor)
        for item in (pair["a"], pair["b"]):  # filed under both, so `kenning audit ID` shows it
            _audit(store, "conflict_settled", item, pair["scope"], facts.actor, why,
                   {"a": pair["a"], "b": pair["b"], "settled": None},
                   {"a": pair["a"], "b": pair["b"], "settled": column})
    still = (first, second) if choice == "both" else ((first,) if choice == "a" else (second,))
    return Settlement(first, second, choice, still, current)


def _audit(store: Store, action: str, item_id: str, scope: str, actor: str, reason: str,
           before: dict[str, Any] | None, after: dict[str, Any]) -> None:
    # like ``audit.record_event``, but filed under the fact
    store.append_audit({"at": to_epoch(utcnow()), "action": action, "item_id": item_id, "kind": "fact",
                        "scope": scope, "actor": actor, "reason": reason, "before": before, "after": after})


def _open_pair(store: Store, first: str, second: str, scope: str | None) -> dict[str, Any]:
    for name, value in (("first", first), ("second", second)):
        if not isinstance(value, str) or not value.strip():
            raise InvalidInput(f"the {name} fact id is empty; give two ids as `kenning conflicts` lists them")
    first, second = first.strip(), second.strip()
    if first == second:
        raise InvalidInput(f"both ids are {first!r}; a conflict is between two facts")
    row = store.conflict_between(first, second)
    where = check_scope(scope) if scope is not None else None
    if row is None or (where is not None and row["scope"] != where):
        raise NotFound(f"no possible conflict between {first} and {second}"
                       + (f" in scope {where!r}" if where else "")
                       + "; `kenning conflicts` (MCP: memory_conflicts) lists the open ones")
    if row["settled"] is not None:
        raise InvalidInput(f"the conflict between {first} and {second} was already settled (kept {row['settled']}); "
                           "to change a fact now, supersede it")
    now = utcnow()
    for item in (first, second):
        if _current(store, item, now) is None:
            raise InvalidInput(f"fact {item} is no longer current (superseded, expired or deleted), so the "
                               "conflict has settled itself; `kenning history` shows what holds now")
    return {"a": row["a"], "b": row["b"], "scope": row["scope"]}
