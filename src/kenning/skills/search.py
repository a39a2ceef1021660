"""Matching a task to skills: the evidence fusion of memory recall (``kenning.fusion``) over each
skill's name, description, tags and category.

*Meaning* is the cosine between the task (embedded as a query) and the skill's passage
("name: description", ``vectors.passage``), rescaled between the weakest and the strongest of the
``POOL`` nearest skills; *words* is the share of the task's IDF mass (IDF over the visible skills)
that the skill's name, description, tags and category contain. A task in another language than the
skills shares no words with them and is ranked by meaning alone. ``always: true`` skills are
included in every answer, after the matches, marked so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InvalidInput
from ..fusion import fuse, idf, rescale, word_share
from ..retrieval import check_query
from ..text import query_words, segment
from .availability import missing
from .index import SkillIndex
from .model import Skill
from ..passages import PassageVectors
from .text import passage

# Measured with bench/skills_match.py (MetaTool, 3,980 queries over 199 tools; Seal-Tools, 1,354
# queries over 4,076 tools): see the bench README. Tool descriptions share fewer words with a task
# than a memory with a question about it, so words weigh less here than in memory recall.
LEXICAL_WEIGHT = 2.5
POOL = 50
WORDS = "share"  # "share" (recall's) or "bm25" (max-normalised BM25): a tuning aid for bench/skills_match.py
MAX_K = 100


@dataclass(frozen=True)
class SkillMatch:
    skill: Skill
    score: float
    semantic: float
    words: tuple[str, ...]  # the task's words found in the skill
    share: float
    always: bool = False  # included because of ``always: true``, not because it matched

    def why(self) -> str:
        parts = [f"meaning: cosine {self.semantic:.2f}"]
        if self.words:
            parts.append(f"words: {', '.join(self.words[:6])} ({self.share:.0%} of the task)")
        if self.always:
            parts.append("always: true")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        lacking = missing(self.skill.requires)
        return {"name": self.skill.name, "description": self.skill.description, "category": self.skill.category,
                "source": self.skill.source, "score": round(self.score, 4), "why": self.why(),
                "always": self.skill.always, "available": not lacking, "missing": lacking}


@dataclass(frozen=True)
class _Prepared:
    """The visible skills of one index with their vectors and index terms."""

    index: SkillIndex
    skills: tuple[Skill, ...]
    vectors: np.ndarray
    terms: tuple[frozenset[str], ...]
    tokens: tuple[tuple[str, ...], ...]


def skill_tokens(skill: Skill) -> tuple[str, ...]:
    """The lexical index terms of a skill: name (hyphens split), description, tags and category."""
    text = " ".join([skill.name.replace("-", " "), skill.description, " ".join(skill.tags),
                     (skill.category or "").replace("/", " ")])
    return tuple(segment(text).split())


class SkillSearch:
    """``search(index, task, k)``; keeps the prepared vectors of the last index it saw."""

    def __init__(self, vectors: PassageVectors) -> None:
        self.vectors = vectors
        self.embedder = vectors.embedder
        self._prepared: _Prepared | None = None
        self._tokens: dict[tuple[str, str, tuple[str, ...], str | None], tuple[str, ...]] = {}

    def prepare(self, index: SkillIndex) -> _Prepared:
        """Vectors and terms for the visible skills (embedding only skills never seen before)."""
        if self._prepared is not None and self._prepared.index is index:
            return self._prepared
        skills = tuple(index.visible())
        vectors = self.vectors.of([passage(s.name, s.description) for s in skills])
        tokens = []
        for s in skills:
            key = (s.name, s.description, s.tags, s.category)
            if key not in self._tokens:
                self._tokens[key] = skill_tokens(s)
            tokens.append(self._tokens[key])
        self._prepared = _Prepared(index, skills, vectors, tuple(frozenset(t) for t in tokens), tuple(tokens))
        return self._prepared

    def search(self, index: SkillIndex, task: str, k: int = 5) -> list[SkillMatch]:
        """The ``k`` skills that best match ``task``, best first, then any ``always`` skill not among them."""
        task = check_query(task)
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise InvalidInput(f"k must be a whole number from 1 to {MAX_K}, got {k!r}")
        ready = self.prepare(index)
        if not ready.skills:
            return []
        cos = ready.vectors @ self.embedder.embed_query(task)
        pool = np.sort(cos)[-min(POOL, len(cos)):]
        lo, hi = float(pool[0]), float(pool[-1])
        words = query_words(task)
        weights = _weights(words, ready.terms)
        bm25 = _bm25(weights, ready.tokens) if WORDS == "bm25" else None
        scored = []
        for i, skill in enumerate(ready.skills):
            share, found = word_share(weights, ready.terms[i])
            if bm25 is not None:
                share = bm25[i]
            score = fuse(rescale(float(cos[i]), lo, hi), share, LEXICAL_WEIGHT)
            scored.append(SkillMatch(skill, score, float(cos[i]), tuple(words[t] for t in found), share))
        scored.sort(key=lambda m: (-m.score, m.skill.name, str(m.skill.path)))
        top = scored[:k]
        shown = {id(m.skill) for m in top}
        extra = [SkillMatch(m.skill, m.score, m.semantic, m.words, m.share, always=True)
                 for m in scored[k:] if m.skill.always and id(m.skill) not in shown]
        return top + extra


def _weights(words: dict[str, str], terms: Sequence[frozenset[str]]) -> dict[str, float]:
    """IDF of each task term over the skills (a term no skill has keeps the highest IDF: it is part
    of what the task asks, and no skill answers it)."""
    df: Counter[str] = Counter()
    for doc in terms:
        for t in words:
            if t in doc:
                df[t] += 1
    return {t: idf(len(terms), df[t]) for t in words}


def _bm25(weights: dict[str, float], docs: Sequence[tuple[str, ...]], k1: float = 1.2, b: float = 0.75) -> list[float]:
    avg = sum(len(d) for d in docs) / max(1, len(docs))
    out = []
    for doc in docs:
        tf = Counter(doc)
        norm = k1 * (1 - b + b * len(doc) / avg)
        out.append(sum(w * tf[t] * (k1 + 1) / (tf[t] + norm) for t, w in weights.items() if t in tf))
    top = max(out, default=0.0)
    return [x / top if top > 0 else 0.0 for x in out]
