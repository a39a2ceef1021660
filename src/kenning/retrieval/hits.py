"""The answer of one search, whatever it searched: its hits best first, the relevance floor, and what
the floor left out, so that an empty answer can say why it is empty.

Memory recall, notes search and skill search each have their kind of hit, holding what is theirs
(``RecallHit`` an item, ``NoteHit`` a paragraph and its day, ``SkillMatch`` a skill and its BM25),
and every hit carries a ``score`` (its place among this query's candidates), a ``relevance`` (how
likely it is relevant, comparable across queries) and a ``why``. ``Hits`` holds any of them and
applies the floor the same way for all three; a source words the empty answer in its own terms.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, Self, TypeVar


class Rated(Protocol):
    """What every hit says about itself."""

    @property
    def score(self) -> float: ...

    @property
    def relevance(self) -> float: ...

    @property
    def why(self) -> str: ...


H = TypeVar("H", bound=Rated)


class Hits(list[H]):
    """The hits of one search, best first, and those the relevance floor left out (``dropped``)."""

    noun = "candidate"  # what the empty answer calls the best hit below the floor
    rows = 0  # how many candidates the search ranked (memory recall sets it; relevance weighs it)

    def __init__(self, hits: Iterable[H] = (), min_relevance: float = 0.0, dropped: Iterable[H] | None = None) -> None:
        super().__init__(hits)
        self.min_relevance = min_relevance
        self.dropped = list(dropped or ())

    @classmethod
    def floored(cls, ranked: Iterable[H], min_relevance: float, k: int | None = None) -> Self:
        """The ``ranked`` hits that reach ``min_relevance`` and those below it, each in their order.
        With ``k``, the first ``k`` that reach it: the floor comes first, so that a relevant hit
        ranked below irrelevant ones still comes back."""
        kept: list[H] = []
        dropped: list[H] = []
        for hit in ranked:
            (kept if hit.relevance >= min_relevance else dropped).append(hit)
        return cls(kept if k is None else kept[:k], min_relevance, dropped)

    @property
    def best_dropped(self) -> float | None:
        """The highest relevance among the hits below the floor (None when none was dropped)."""
        return max((h.relevance for h in self.dropped), default=None)

    @property
    def fitting(self) -> list[H]:
        """The hits that answer the query: all of them, unless a source adds others (skills marked
        ``always``)."""
        return list(self)

    def empty_reason(self) -> str:
        """Why the answer holds nothing: nothing to match at all, or nothing relevant enough ("" when
        it holds something)."""
        if self.fitting:
            return ""
        if not self.dropped:
            return self._nothing()
        return self._below(max(self.dropped, key=lambda h: h.relevance))

    def _nothing(self) -> str:
        return "nothing matches"

    def _below(self, best: H) -> str:
        return (f"nothing relevant: best {self.noun} scored {best.relevance:.2f}, below the floor of "
                f"{self.min_relevance:.2f} (lower min_relevance to see it)")
