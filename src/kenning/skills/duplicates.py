"""Near-duplicate skills by meaning: agent-written libraries otherwise fill with near-copies.

A new skill's "name: description" is embedded as a passage and compared (cosine) with every
loaded skill's. ``NEAR_DUPLICATE = 0.92`` was measured with the default embedder
(multilingual-e5-small) on 14 pairs of independently worded descriptions of the same procedure
and 36 pairs of related but different skills of the same domain (docker deploy vs docker cleanup,
postgres slow query vs postgres backup, ...): same-language duplicates scored 0.923-0.983,
different skills 0.83-0.918 (only one above 0.91). At 0.92 all 12 same-language duplicates are
caught and none of the different skills; the two cross-language pairs (English vs Chinese, 0.89-0.90)
are missed: a threshold low enough for them flags a third of the related skills.
tests/test_skills_duplicates.py keeps a sample of those pairs.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..embed import Embedder
from .model import Skill

NEAR_DUPLICATE = 0.92
_CACHE_SIZE = 4096
# passage vectors by (embedder, text), shared by every library in the process: the same skills are
# compared again at each create, and an embedding is the slow part
_vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_lock = threading.Lock()


@dataclass(frozen=True)
class Similar:
    skill: Skill
    similarity: float

    def to_dict(self) -> dict[str, object]:
        return {"name": self.skill.name, "source": self.skill.source, "path": str(self.skill.path),
                "similarity": round(self.similarity, 3)}


def passage(name: str, description: str) -> str:
    return f"{name}: {' '.join(description.split())}"


class DuplicateFinder:
    """Compares a new skill with existing ones by meaning."""

    def __init__(self, embedder: Embedder, threshold: float = NEAR_DUPLICATE) -> None:
        self.embedder = embedder
        self.threshold = threshold

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        name = self.embedder.name
        with _lock:
            todo = [t for t in dict.fromkeys(texts) if (name, t) not in _vectors]
        made = self.embedder.embed_passages(todo) if todo else np.zeros((0, self.embedder.dim), dtype=np.float32)
        with _lock:
            for text, vec in zip(todo, made):
                _vectors[(name, text)] = vec
            rows = []
            for text in texts:
                vec = _vectors[(name, text)]
                _vectors.move_to_end((name, text))
                rows.append(vec)
            while len(_vectors) > _CACHE_SIZE:
                _vectors.popitem(last=False)
        return np.stack(rows) if rows else np.zeros((0, self.embedder.dim), dtype=np.float32)

    def similar(self, name: str, description: str, existing: Sequence[Skill]) -> list[Similar]:
        """The existing skills at least ``threshold`` alike in meaning, most alike first."""
        if not existing:
            return []
        texts = [passage(s.name, s.description) for s in existing]
        vecs = self._embed([passage(name, description), *texts])
        scores = vecs[1:] @ vecs[0]
        hits = [Similar(s, float(c)) for s, c in zip(existing, scores) if c >= self.threshold]
        return sorted(hits, key=lambda h: -h.similarity)
