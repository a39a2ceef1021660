"""Matching a task to skills: memory recall's ranker (``kenning.retrieval.ranker``) over each skill's
name, description, tags and category.

*Meaning* is the cosine between the task (embedded as a query) and the skill's passage
("name: description", ``text.passage``) above what that skill scores for any task of the task's
language (``retrieval.typical``), moved onto one scale for the library's two languages
(``retrieval.mixed``, the library's own cosines for this task) and rescaled between the weakest and
the strongest of the ``POOL`` nearest skills; *words* is the Okapi BM25 of the task's terms in the
skill's name, description, tags and category (IDF over the visible skills), divided by the best
skill's: tool descriptions carry information in term frequency and length that recall's word share
ignores (numbers below). A skill in another language than the task's shares no words with it; as in
recall, it is credited for its meaning with the words it cannot hold. ``always: true`` skills are
included in every answer, after the matches, marked so.

Each match also carries ``relevance`` (``kenning.skills.relevance``: the probability that it fits),
and ``min_relevance`` leaves out the matches below a floor, so that a task no skill fits gets no
skill; ``SkillMatches`` (``retrieval.hits``) remembers what the floor left out, to say why an answer
is empty.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..blas import product
from ..passages import PassageVectors
from ..retrieval import Hits, check_k, check_min_relevance, check_query
from ..retrieval.fusion import idf, share_of
from ..retrieval.mixed import QueryNull, ShippedNull
from ..retrieval.ranker import Candidate, Ranker, explain
from ..retrieval.typical import TYPICAL, typical_cosines
from ..store.vectors import LANGUAGES, Scored
from ..text import Language, language, neutral_terms, query_words, segment, stem
from .availability import missing
from .index import SkillIndex
from .model import Skill
from . import relevance as srel
from .relevance import skill_relevance, skill_z
from .text import passage

# Measured with bench/skills_match.py (400 sampled queries each; Hit@1): on MetaTool (199 tools)
# BM25 53.2, dense 52.8, recall's word share 56.8, max-normalised BM25 58.0; on Seal-Tools (4,076
# tools, long multi-tool requests) BM25 87.8, dense 77.2, share 81.8, max-normalised BM25 91.0
# (Comp@10 77.8 vs BM25 68.8). Share x (1/2 + 1/2 relative BM25) gave 83.8, and BM25 scaled by the best
# skill's word share 83.5. Tool
# descriptions repeat their key terms and vary in length, so term frequency and length
# normalisation carry information that a memory's one sentence does not. LEXICAL_WEIGHT 2.5 and 5
# were level; 2.5 is recall's.
LEXICAL_WEIGHT = 2.5
POOL = 50
K1, B = 1.2, 0.75  # BM25's usual constants (FTS5's too)
# function words a task sentence is full of; with the best skill's BM25 as the scale, one of them
# found in a single description would otherwise count as a full match ("… before the migration"
# matching "… before a task"; "帮我做一个幻灯片演示文稿" matching a Chinese skill that holds "做")
TASK_STOPWORDS = frozenset(stem(w) for w in """before after during while over under again once each every other
    such only own same via per within without onto upon among between through because until since whether
    both either neither more most less few many much well even still yet already now please need want
    帮 帮我 帮忙 做 给 用 请 让 要 想 能 可以 一下 一张 一份 一些 这份 这段 这些 这个 那个 有没有 没有 怎么样""".split())
MAX_K = 100
# what unrelated skills score, shipped (``skills.relevance.NULL``) and blended with the library's own;
# relevance reads one shift for both languages (``retrieval.mixed.pooled``). Built here, not in
# ``skills.relevance``, which the MCP handshake imports and which must stay free of numpy.
SHIPPED = ShippedNull(srel.NULL, srel.NULL, srel.RANKING_ROWS, srel.RELEVANCE_ROWS, srel.MIN_ROWS, pooled=True)


@dataclass(frozen=True)
class SkillMatch:
    skill: Skill
    score: float
    semantic: float
    words: tuple[str, ...]  # the task's words found in the skill
    share: float
    always: bool = False  # included because of ``always: true``, not because it matched
    relevance: float = 0.0
    # the task's BM25 in this skill over the most its terms could score (each found, unboundedly
    # often): absolute, unlike ``score``'s share of the best skill's BM25
    bm25: float = 0.0
    # ``semantic`` above the skill's typical cosine with tasks of the task's language, plus
    # ``typical.TYPICAL``: the cosine search ranks and rates by
    corrected: float = 0.0

    @property
    def why(self) -> str:
        reason = explain(self.semantic, None, self.words, self.share, of="task")
        return f"{reason}; always: true" if self.always else reason

    def to_dict(self) -> dict[str, Any]:
        lacking = missing(self.skill.requires)
        return {"name": self.skill.name, "description": self.skill.description, "category": self.skill.category,
                "source": self.skill.source, "score": round(self.score, 4), "relevance": round(self.relevance, 4),
                "why": self.why,
                "always": self.skill.always, "available": not lacking, "missing": lacking}


class SkillMatches(Hits[SkillMatch]):
    """The matches of one search, best first, then the ``always`` skills; and what the floor left out."""

    @property
    def fitting(self) -> list[SkillMatch]:
        """The matches that fit the task (the ``always`` skills left out)."""
        return [m for m in self if not m.always]

    def _nothing(self) -> str:
        return "no skill matches: the library has no skills to search"

    def _below(self, best: SkillMatch) -> str:
        return (f"no skill fits this task: the best match, {best.skill.name!r}, has relevance {best.relevance:.3f}, "
                f"below the floor of {self.min_relevance:g} (min_relevance 0 lists every match)")


@dataclass(frozen=True)
class _Prepared:
    """The visible skills of one index with their vectors, index terms and languages."""

    index: SkillIndex
    skills: tuple[Skill, ...]
    vectors: np.ndarray
    postings: dict[str, list[tuple[int, int]]]  # term -> (skill index, term frequency)
    norms: tuple[float, ...]  # BM25's length normalisation of each skill
    languages: tuple[Language, ...]  # of each skill's description
    typical: dict[Language, np.ndarray]  # each skill's typical cosine with tasks of each language

    def bm25(self, weights: dict[str, float]) -> tuple[dict[int, list[str]], dict[int, float]]:
        """The task's terms (``weights``: term -> idf) each skill holds, and the task's Okapi BM25 in
        it; skills holding none are left out of both."""
        found: dict[int, list[str]] = {}
        score: dict[int, float] = {}
        for term, weight in weights.items():
            for i, tf in self.postings.get(term, ()):
                found.setdefault(i, []).append(term)
                score[i] = score.get(i, 0.0) + weight * tf * (K1 + 1) / (tf + self.norms[i])
        return found, score


def skill_language(skill: Skill) -> Language:
    """The language of a skill's description: its name is an ASCII slug in every language (the Agent
    Skills format), and counted in, it made "Kubernetes 日常运维：查看 Pod 状态、日志、重启 Deployment"
    read as English."""
    return language(skill.description or skill.name)


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
        # a skill's index terms and language, worked out once per text
        self._read: dict[tuple[str, str, tuple[str, ...], str | None], tuple[tuple[str, ...], Language]] = {}

    def prepare(self, index: SkillIndex) -> _Prepared:
        """Vectors and terms for the visible skills (embedding only skills never seen before)."""
        if self._prepared is not None and self._prepared.index is index:
            return self._prepared
        skills = tuple(index.visible())
        vectors = self.vectors.of([passage(s.name, s.description) for s in skills])
        read = []
        for s in skills:
            key = (s.name, s.description, s.tags, s.category)
            if key not in self._read:
                self._read[key] = skill_tokens(s), skill_language(s)
            read.append(self._read[key])
        tokens = [t for t, _ in read]
        postings: dict[str, list[tuple[int, int]]] = {}
        for i, doc in enumerate(tokens):
            for term, tf in Counter(doc).items():
                postings.setdefault(term, []).append((i, tf))
        avg = sum(len(d) for d in tokens) / max(1, len(tokens))
        norms = tuple(K1 * (1 - B + B * len(d) / avg) for d in tokens)
        self._prepared = _Prepared(index, skills, vectors, postings, norms, tuple(lang for _, lang in read),
                                   typical_cosines(self.vectors, vectors))
        return self._prepared

    def search(self, index: SkillIndex, task: str, k: int = 5, min_relevance: float = 0.0) -> SkillMatches:
        """The ``k`` skills that best match ``task``, best first, without those below
        ``min_relevance``, then any ``always`` skill not among them (whatever its relevance)."""
        task = check_query(task)
        min_relevance = check_min_relevance(min_relevance)
        k = check_k(k, MAX_K)
        ready = self.prepare(index)
        if not ready.skills:
            return SkillMatches([], min_relevance)
        raw = product(ready.vectors, self.embedder.embed_query(task))
        every = query_words(task)
        words = {t: w for t, w in every.items() if t not in TASK_STOPWORDS} or every
        weights = {t: idf(len(ready.skills), len(ready.postings.get(t, ()))) for t in words}
        mass = sum(weights.values())
        found, bm25 = ready.bm25(weights)
        task_language = language(task)
        # each skill's cosine above what it scores for any task (``retrieval.typical``): ranked and rated
        cos = raw - ready.typical[task_language] + TYPICAL
        seen = Scored(np.arange(len(ready.skills)), cos, np.array([LANGUAGES.index(x) for x in ready.languages],
                                                                     dtype=np.int8))
        null = QueryNull.of(seen, task_language, SHIPPED)
        neutral = neutral_terms(task)
        ranker = Ranker(task_language, LEXICAL_WEIGHT, null, len(ready.skills))
        scores, order, candidates = _ranked(ready, null.aligned(seen).cosines, cos, bm25, ranker,
                                            {i: share_of(weights, terms, neutral) for i, terms in found.items()})

        def match(i: int, always: bool = False) -> SkillMatch:
            """Skill ``i``'s match, with its relevance (``kenning.skills.relevance``)."""
            terms = found.get(i, [])
            share = sum(weights[t] for t in terms) / mass if mass else 0.0
            absolute = bm25.get(i, 0.0) / ((K1 + 1) * mass) if mass else 0.0
            shipped = skill_z(float(cos[i]), task_language, ready.languages[i])
            rated = skill_relevance(ranker.z(candidates[i]), shipped, share, len(ready.skills))
            return SkillMatch(ready.skills[i], scores[i], float(raw[i]), tuple(words[t] for t in terms), share,
                              always, rated, absolute, float(cos[i]))

        top = SkillMatches.floored([match(i) for i in order[:k]], min_relevance)
        shown = {id(m.skill) for m in top}
        extra = [match(i, always=True) for i in order if ready.skills[i].always and id(ready.skills[i]) not in shown]
        # an ``always`` skill below the floor comes back with the extras: it was not left out
        return SkillMatches([*top, *extra], min_relevance, [m for m in top.dropped if not m.skill.always])


def _ranked(ready: _Prepared, aligned: np.ndarray, cos: np.ndarray, bm25: dict[int, float], ranker: Ranker,
            neutral: dict[int, float]) -> tuple[list[float], list[int], list[Candidate]]:
    """Each skill's score, the skills best first (ties by name, then path), and their candidates.
    Skills in two languages are ranked on one scale, as memories are (``retrieval.mixed``: the
    library's own cosines for this task say what unrelated skills of each language score), and a
    skill in the other language than the task's is credited for its meaning the words it cannot hold."""
    best = max(bm25.values(), default=0.0)
    nearest = {int(i): rank for rank, i in enumerate(np.argsort(-aligned, kind="stable")[:POOL], 1)}
    candidates = [Candidate(cosine=float(c), scaled=float(a), language=lang, nearest=nearest.get(i),
                            words=bm25.get(i, 0.0) / best if best else 0.0,
                            neutral=min(1.0, neutral.get(i, 0.0)))
                  for i, (c, a, lang) in enumerate(zip(cos, aligned, ready.languages))]
    scores = ranker.scores(candidates)
    skills = ready.skills
    order = sorted(range(len(skills)), key=lambda i: (-scores[i], skills[i].name, str(skills[i].path)))
    return scores, order, candidates
