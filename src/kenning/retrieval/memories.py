"""Hybrid recall: words and meaning, fused, filtered, lightly reranked, explained.

1. Candidates from one scope: semantic (cosine between the query vector and the stored vectors,
   ``store.vectors``) and full-text (the documents holding the query's rarer segmented, stemmed
   terms, chosen by the fused score below, ``retrieval.lexical``). Every candidate gets its exact
   cosine, whichever list brought it.
2. Fusion by evidence, not by rank (``retrieval.ranker``, as for notes and skills):
   ``score = meaning + LEXICAL_WEIGHT * words`` (normalised to [0, 1]) where
   *meaning* is the cosine rescaled to [0, 1] between the weakest and the strongest semantic
   candidate, and *words* is the share of the query's information (IDF-weighted terms) that the
   document contains. A document that shares only a common word with the query earns little; a
   query whose words appear in no document (an English question over Chinese memories) earns
   nothing from the lexical side, so cross-language recall is the semantic ranking itself. Plain
   reciprocal-rank fusion does the opposite: it gives the one-common-word match a full vote.
3. Filters (kinds, tags, confidence, time range, superseded, expired) in the store on the candidates; if
   too few survive, the candidate lists are widened and the search runs again.
4. A light rerank by importance, confidence and recency (at most ±5% of the score), then the
   returned items get ``last_accessed`` / ``access_count`` updated (written behind, see
   ``kenning.store.access``).
5. Every hit gets ``relevance`` (``retrieval.relevance``): the probability that it is relevant, from
   its cosine (against the store's null and the shipped one), its word share and how many memories
   were ranked, on one scale for every query and store. Hits
   below ``min_relevance`` are dropped (0 keeps them all); the answer remembers the best one dropped,
   so an empty answer can say "nothing relevant: best candidate scored 0.04".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np

from ..embed import Embedder
from ..models import Hit
from ..records import item_from_row
from ..store import ItemQuery, Store
from ..store.vectors import Scored, VectorIndex
from ..text import Language, language, neutral_terms, query_words
from ..timeutil import from_epoch, to_epoch, utcnow
from .fusion import idf, share_of, word_share
from .hits import Hits
from .lexical import searched_terms, word_candidates
from .mixed import QueryNull
from .relevance import ROWS_CEILING
from .query import check_k, check_min_relevance, check_query
from .ranker import Candidate, Ranker, explain

# Measured with bench/sweep.py on LoCoMo (500 queries; BM25 R@10 62.6): R@10 64.6 at 1.5, 68.3 at
# 2.5, 67.7 at 4 (0.6 gave 61.2 on all queries). XQuAD en->zh Hit@5 stays at the dense level
# (92.7) because a query that shares no words with a memory gets no word evidence at all. Checked
# again once the full-text candidates were chosen by this score: 3 gave LoCoMo R@10 69.6 against
# 69.1 (66.0 against 65.6 among 100k facts) but lost a little on most other sets (XQuAD en->en
# Hit@5 99.7 / 99.8, en->zh Hit@1 70.8 / 71.2, MemDaily R@3 70.5 / 70.7, PAWS-X Hit@1 49.0 / 49.2).
LEXICAL_WEIGHT = 2.5
MAX_K = 1000
RECENCY_HALF_LIFE_DAYS = 90.0
PRIOR_WEIGHT = 0.1
# Measured with bench/sweep.py: word evidence as BM25 relative to the best lexical candidate (the
# form that won for skills) lost for memories: LoCoMo R@10 68.3 (share) / 67.6 (half each) / 67.0,
# XQuAD en->zh Hit@1 68 / 54 / 46: relative BM25 gives one stray shared token a full match.


@dataclass(frozen=True)
class Filters:
    kinds: tuple[str, ...] | None = None
    tags: tuple[str, ...] = ()
    min_confidence: float | None = None
    since: datetime | None = None
    until: datetime | None = None
    include_superseded: bool = False
    include_expired: bool = False

    def query(self, now: float) -> ItemQuery:
        """The items these filters keep (at ``now``), for the store to pick among the candidates."""
        return ItemQuery(
            kinds=self.kinds or None,
            tags=self.tags,
            superseded=None if self.include_superseded else False,
            live_at=None if self.include_expired else now,
            min_confidence=self.min_confidence,
            created_since=None if self.since is None else to_epoch(self.since),
            created_until=None if self.until is None else to_epoch(self.until),
        )


@dataclass(frozen=True)
class RecallHit(Hit):
    """A recall hit with its ``relevance`` (see ``retrieval.relevance``) and the word share behind it."""

    relevance: float = 0.0
    word_share: float = 0.0
    z: float = 0.0  # the cosine in spreads above unrelated memories of its language (QueryNull.relevance_z)

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["relevance"] = round(self.relevance, 4)
        return data


def _prior(row: dict[str, Any], now: float) -> float:
    """Importance, confidence and recency in [0, 1]."""
    age_days = max(0.0, now - float(row["last_accessed"] or row["updated_at"])) / 86400
    recency = math.pow(0.5, age_days / RECENCY_HALF_LIFE_DAYS)
    return (float(row["importance"]) + float(row["confidence"]) + recency) / 3


def _reranked(row: dict[str, Any], now: float) -> float:
    """What the prior multiplies a score by: at most ``PRIOR_WEIGHT / 2`` either way."""
    return 1 - PRIOR_WEIGHT / 2 + PRIOR_WEIGHT * _prior(row, now)


def recall(
    store: Store,
    embedder: Embedder,
    query: str,
    *,
    k: int,
    scope: str,
    filters: Filters,
    touch: bool = True,
    min_relevance: float = 0.0,
) -> Hits[RecallHit]:
    """The ``k`` best items of ``scope`` for ``query``, without those below ``min_relevance``."""
    query = check_query(query)
    min_relevance = check_min_relevance(min_relevance)
    k = check_k(k, MAX_K)
    words = query_words(query)
    terms = list(words)
    qvec = embedder.embed_query(query)
    qlang = language(query)
    vectors = store.fresh_vectors()
    df = store.doc_freq(terms)
    searched = [t for t in searched_terms(terms, df) if df.get(t)]
    weights = {t: idf(len(vectors), df.get(t, 0)) for t in terms}
    now = to_epoch(utcnow())
    wanted = filters.query(now)
    neutral = neutral_terms(query)
    pool = max(50, 4 * k)
    while True:
        seen = vectors.scored(qvec, scope, filters.kinds, pool)
        null = QueryNull.of(seen, qlang)
        # every row of the scope is scored below the prefilter's size; a scope above it is beyond the
        # largest stores relevance was fitted on
        ranker = Ranker(qlang, LEXICAL_WEIGHT, null, len(seen.rowids) if seen.sample is None else ROWS_CEILING)
        # candidates chosen on one scale for both languages; raw cosines kept for the evidence
        aligned = null.aligned(seen)
        chosen = aligned.best(pool)
        dense = _raw(seen, chosen) if aligned is not seen else chosen
        lexical = word_candidates(store, vectors, qvec, aligned, chosen, searched, weights, scope, filters.kinds,
                                  pool, LEXICAL_WEIGHT) if searched else []
        evidence = _Evidence.collect(words, weights, dense, lexical, neutral, null)
        evidence.add_cosines(seen, vectors, qvec)
        ranked = _score_and_filter(store, evidence, wanted, now, ranker)
        exhausted = len(dense) < pool and len(lexical) < pool
        if len(ranked) >= k or exhausted:
            break
        pool *= 4
    hits = _hits(store, evidence, weights, ranker, ranked[:k])
    answer = Hits.floored(hits, min_relevance)
    answer.rows = ranker.rows
    if touch and answer:
        rowid_of = {h.item.id: rowid for (rowid, _, _), h in zip(ranked, hits)}
        store.touch((rowid_of[h.item.id] for h in answer), now)
        # relevance needed the rows first: a returned hit shows the access it just counted
        answer[:] = [replace(h, item=replace(h.item, access_count=h.item.access_count + 1,
                                             last_accessed=from_epoch(now))) for h in answer]
    return answer


@dataclass
class _Evidence:
    cosine: dict[int, float]
    dense_rank: dict[int, int]
    words: dict[int, tuple[float, list[str], int]]
    # the share of the query's words a memory in the other language holds that read the same in
    # any language (names, numbers: kenning.text.neutral_terms); a gloss such as "school" in a
    # Chinese passage does not count towards its rank
    neutral_share: dict[int, float]
    null: QueryNull  # what unrelated memories of each language score for this query, in this pass

    @classmethod
    def collect(
        cls,
        words: dict[str, str],
        weights: dict[str, float],
        dense: list[tuple[int, float]],
        lexical: list[tuple[int, float, str]],
        neutral: set[str],
        null: QueryNull,
    ) -> _Evidence:
        matched, neutral_share = {}, {}
        for rank, (rowid, _score, body) in enumerate(lexical, 1):
            share, found = word_share(weights, set(body.split()))
            if found:
                matched[rowid] = (share, [words[t] for t in found], rank)
                neutral_share[rowid] = share_of(weights, found, neutral)
        return cls(
            cosine=dict(dense),
            dense_rank={rowid: rank for rank, (rowid, _) in enumerate(dense, 1)},
            words=matched,
            neutral_share=neutral_share,
            null=null,
        )

    def add_cosines(self, seen: Scored, vectors: VectorIndex, query: np.ndarray) -> None:
        """The cosine of every word candidate: from the vector search where it scored it, else exact."""
        wanted = np.array([r for r in self.words if r not in self.cosine], dtype=np.int64)
        known, cos = seen.lookup(wanted)
        self.cosine.update(zip(wanted[known].tolist(), cos[known].tolist()))
        self.cosine.update(vectors.cosines(query, wanted[~known].tolist()))

    def candidate(self, rowid: int, passage_language: Language) -> Candidate:
        """What one memory offers the query, its cosine ranked as standardised by what unrelated
        memories of its language score in this store for this query (``retrieval.mixed``).

        The embedder scores unrelated text of the query's own language higher, so raw cosines would
        rank a Chinese memory that shares nothing above an English one that answers a Chinese
        question. Within one language this is an affine map, and the rescaled meaning is exactly as
        with raw cosines.
        """
        cos = self.cosine.get(rowid)
        return Candidate(
            cosine=cos,
            scaled=None if cos is None else self.null.ranking_z(cos, passage_language),
            language=passage_language,
            words=self.words[rowid][0] if rowid in self.words else 0.0,
            neutral=self.neutral_share.get(rowid, 0.0),
            nearest=self.dense_rank.get(rowid),
        )


_SCORE_COLUMNS = ("content", "importance", "confidence", "last_accessed", "updated_at")


def _raw(seen: Scored, chosen: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """The chosen (rowid, aligned cosine) pairs with their raw cosines, in the same order."""
    _, cos = seen.lookup(np.array([r for r, _ in chosen], dtype=np.int64))
    return [(rowid, float(c)) for (rowid, _), c in zip(chosen, cos)]


def _score_and_filter(
    store: Store, ev: _Evidence, wanted: ItemQuery, now: float, ranker: Ranker
) -> list[tuple[int, float, Candidate]]:
    """(rowid, score, evidence) of the candidates that pass the filters, best first: the ranker's
    score, lightly reranked by importance, confidence and recency."""
    ids = list(dict.fromkeys([*ev.cosine, *ev.words]))
    if not ids:
        return []
    rows = store.select(replace(wanted, rowids=tuple(ids), columns=_SCORE_COLUMNS))
    candidates = [ev.candidate(int(row["rowid"]), language(row["content"])) for row in rows]
    scored = [(int(row["rowid"]), base * _reranked(row, now), row["content"], c)
              for row, c, base in zip(rows, candidates, ranker.scores(candidates))]
    scored.sort(key=lambda t: (-t[1], t[2]))
    return [(rowid, score, c) for rowid, score, _, c in scored]


def _hits(store: Store, ev: _Evidence, weights: dict[str, float], ranker: Ranker,
          ranked: list[tuple[int, float, Candidate]]) -> list[RecallHit]:
    """Full items, with their reasons and relevance, for the ranked (rowid, score, evidence)."""
    if not ranked:
        return []
    rows = {int(r["rowid"]): r for r in store.select(ItemQuery(rowids=tuple(r for r, _, _ in ranked)))}
    # the exact share of every hit, also of those only the vector search found (it ranked them
    # without word evidence, but their relevance should not ignore the words they hold)
    bodies = store.bodies([r for r, _, _ in ranked])
    out = []
    for rowid, score, candidate in ranked:
        lex_share, found, lex_rank = ev.words.get(rowid, (0.0, [], None))
        share = word_share(weights, set(bodies.get(rowid, "").split()))[0]
        out.append(RecallHit(
            item=item_from_row(rows[rowid]),
            score=score,
            why=explain(candidate.cosine, candidate.nearest, found, lex_share, word_rank=lex_rank),
            semantic=candidate.cosine,
            lexical_rank=lex_rank,
            relevance=ranker.relevance(candidate, share),
            word_share=share,
            z=ranker.z(candidate),
        ))
    return out
