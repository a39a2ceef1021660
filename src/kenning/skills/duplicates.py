"""Near-duplicate skills by meaning: agent-written libraries otherwise fill with near-copies.

A new skill's "name: description" is embedded as a passage and compared (cosine) with every
loaded skill's. ``NEAR_DUPLICATE = 0.92`` was measured with the default embedder
(multilingual-e5-small) on 14 pairs of independently worded descriptions of the same procedure
and 36 pairs of related but different skills of the same domain (docker deploy vs docker cleanup,
postgres slow query vs postgres backup, ...): same-language duplicates scored 0.923-0.983,
different skills 0.83-0.918 (only one above 0.91). At 0.92 all 12 same-language duplicates are
caught and none of the different skills; the two cross-language pairs (English vs Chinese, 0.89-0.90)
are missed: a threshold low enough for them flags a third of the related skills.
tests/test_skills_duplicates.py keeps a sample of those pairs. Two Chinese descriptions score higher
alike (rewordings 0.939-0.979, related but different skills up to 0.928, measured in ``pairs``), so
between two Chinese skills the floor is ``CHINESE_NEAR_DUPLICATE``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..blas import product
from ..passages import PassageVectors
from ..text import cjk_ratio
from .model import Skill
from .text import passage

NEAR_DUPLICATE = 0.92
CHINESE_NEAR_DUPLICATE = 0.935
CJK_SHARE = 0.3  # a description with at least this share of CJK letters is Chinese (or Japanese, Korean)


def is_cjk(text: str) -> bool:
    return cjk_ratio(text) >= CJK_SHARE


@dataclass(frozen=True)
class Similar:
    skill: Skill
    similarity: float

    def to_dict(self) -> dict[str, object]:
        return {"name": self.skill.name, "source": self.skill.source, "path": str(self.skill.path),
                "similarity": round(self.similarity, 3)}


class DuplicateFinder:
    """Compares a new skill with existing ones by meaning."""

    def __init__(self, vectors: PassageVectors, threshold: float = NEAR_DUPLICATE) -> None:
        self.vectors = vectors
        self.threshold = threshold

    def similar(self, name: str, description: str, existing: Sequence[Skill]) -> list[Similar]:
        """The existing skills at least ``threshold`` alike in meaning, most alike first."""
        if not existing:
            return []
        texts = [passage(s.name, s.description) for s in existing]
        vecs = self.vectors.of([passage(name, description), *texts])
        scores = product(vecs[1:], vecs[0])
        chinese = is_cjk(description)
        hits = [Similar(s, float(c)) for s, c in zip(existing, scores)
                if c >= (max(self.threshold, CHINESE_NEAR_DUPLICATE) if chinese and is_cjk(s.description)
                         else self.threshold)]
        return sorted(hits, key=lambda h: -h.similarity)
