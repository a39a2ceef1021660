"""What an import did (or, dry, would do): a count per scope, kind and outcome, and one line per
item that was refused, with its line number and the reason."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

Outcome = Literal["added", "merged", "unchanged", "refused"]
OUTCOMES: tuple[Outcome, ...] = ("added", "merged", "unchanged", "refused")
MAX_LISTED = 10_000  # refusals kept one by one; past that only counted (a file of garbage stays small in memory)


@dataclass(frozen=True)
class Refusal:
    line: int
    reason: str
    kind: str | None = None
    id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "kind": self.kind, "id": self.id, "reason": self.reason}


@dataclass
class ImportSummary:
    """``counts[(scope, kind, outcome)]``: how many items; ``merged`` means the item reinforced or
    superseded a stored one, ``unchanged`` that it was there already. ``skipped`` counts what the
    format holds that is not an item (Markdown prose); ``notes`` says what was noticed (such as
    metadata that could not be kept)."""

    path: str
    format: str
    guessed: str | None = None  # why the format was chosen, when it was guessed
    dry_run: bool = False
    counts: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    refusals: list[Refusal] = field(default_factory=list)
    skipped: int = 0
    notes: list[str] = field(default_factory=list)
    position: str = "line"  # what ``Refusal.line`` counts: a line of the file, or mem0's "memory" in its list

    def count(self, scope: str, kind: str, outcome: Outcome) -> None:
        self.counts[(scope, kind, outcome)] += 1

    def refuse(self, line: int, reason: str, *, scope: str = "?", kind: str | None = None,
               item_id: str | None = None) -> None:
        self.counts[(scope, kind or "?", "refused")] += 1
        if len(self.refusals) < MAX_LISTED:
            self.refusals.append(Refusal(line, reason, kind, item_id))

    def note(self, text: str) -> None:
        if text not in self.notes and len(self.notes) < 100:
            self.notes.append(text)

    def total(self, outcome: Outcome) -> int:
        return sum(n for (_, _, o), n in self.counts.items() if o == outcome)

    @property
    def added(self) -> int:
        return self.total("added")

    @property
    def merged(self) -> int:
        return self.total("merged")

    @property
    def unchanged(self) -> int:
        return self.total("unchanged")

    @property
    def refused(self) -> int:
        return self.total("refused")

    def rows(self) -> list[tuple[str, str, int, int, int, int]]:
        """(scope, kind, added, merged, unchanged, refused), sorted by scope and kind."""
        keys = sorted({(s, k) for s, k, _ in self.counts})
        return [(s, k, *(self.counts[(s, k, o)] for o in OUTCOMES)) for s, k in keys]  # type: ignore[misc]

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "format": self.format, "position": self.position, "guessed": self.guessed, "dry_run": self.dry_run,
            **{o: self.total(o) for o in OUTCOMES}, "skipped": self.skipped,
            "by_scope": [dict(zip(("scope", "kind", *OUTCOMES), row)) for row in self.rows()],
            "refusals": [r.to_dict() for r in self.refusals], "notes": list(self.notes),
        }
