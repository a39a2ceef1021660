"""Full-text candidates for recall, chosen by the score recall ranks by.

The index is asked which documents hold each of the query's rarer terms (plain posting lists, see
``searched_terms`` below), and every such document of the scope is scored the way recall will
score it: the share of the query's term weight it holds, plus its meaning where the vector search
already has its cosine. Asking FTS5 for its best bm25 matches instead chose on words alone, and in
a large store most documents that share a word with a question are about something else. Measured
with ``bench/scale_recall.py`` (the ten LoCoMo conversations among 100k facts, 1,536 questions),
R@10 went from 60.1 with bm25's choice to 65.6 with this one (multi-hop 29.9 -> 38.7, open-domain
27.0 -> 35.4). It is also cheaper: posting lists come in rowid order, while bm25 ordering scores and
sorts every match (recall without the embedding step at 100k facts, the same queries back to back:
p50 11.5 -> 9.2 and 13.0 -> 10.4 ms). On the small benchmark stores, where the bm25 list held most
matches anyway, it changes little: LoCoMo R@10 69.4 -> 69.1 (R@20 74.8 -> 75.0), MemDaily with
distractors R@10 78.8 -> 78.5, XQuAD, PAWS-X and clean MemDaily unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..blas import product
from ..store import ItemQuery, Store
from ..store.vectors import Scored, VectorIndex, locate
from .fusion import rescale_all

# (rowid, selection score, segmented body), best first
WordCandidate = tuple[int, float, str]

# Only the rarer query terms look for full-text candidates: a long Chinese message segments into
# dozens of terms, and on a large store the common ones hold tens of thousands of documents. Every
# term still counts in the word share of the candidates found, and a store of a few thousand facts
# is hardly touched. Measured with bench/scale_recall.py (LoCoMo among 100k facts, all 1,536
# questions, R@10): 65.6 at a budget of 1,500, 2,000 and 3,000 postings (383 questions: 68.6 at
# 1,000, 69.4 from 1,500 to 5,000). Reading the posting lists costs about 1.2 ms per 1,000.
LEXICAL_POSTINGS = 2000
MIN_SEARCHED_TERMS = 2


def searched_terms(terms: list[str], df: dict[str, int]) -> list[str]:
    """The query terms the full-text index is asked for: the rarest first, while their documents
    total at most ``LEXICAL_POSTINGS`` (and always the ``MIN_SEARCHED_TERMS`` rarest)."""
    out: list[str] = []
    total = found = 0
    for term in sorted(terms, key=lambda t: df.get(t, 0)):
        count = df.get(term, 0)
        if found >= MIN_SEARCHED_TERMS and total + count > LEXICAL_POSTINGS:
            break
        out.append(term)
        total += count
        found += count > 0
    return out


def word_candidates(
    store: Store,
    vectors: VectorIndex,
    query: np.ndarray,
    seen: Scored,
    dense: list[tuple[int, float]],
    searched: Sequence[str],
    weights: dict[str, float],
    scope: str,
    kinds: Sequence[str] | None,
    limit: int,
    lexical_weight: float,
) -> list[WordCandidate]:
    """The ``limit`` documents of ``scope`` (and ``kinds``) holding a searched term that score best.

    ``seen`` holds the cosines the vector search computed, and ``dense`` its best, which set the
    meaning scale (weakest 0, strongest 1) as in recall. A document it did not score gets meaning 0 (the
    prefilter passed it over, so it is far from the query), except at the cut: documents tied
    there get their exact cosine, so that neither rowids nor insertion order decide.
    """
    lists = store.postings(searched)
    ids = np.concatenate(lists) if lists else np.empty(0, dtype=np.int64)
    if not len(ids):
        return []
    docs, which = np.unique(ids, return_inverse=True)
    term_weight = np.concatenate([np.full(len(lst), weights[t]) for t, lst in zip(searched, lists)])
    share = np.bincount(which, weights=term_weight) / sum(weights.values())
    eligible = _in_scope(store, vectors, docs, scope, kinds)
    known, cos = seen.lookup(docs)
    cosines = [c for _, c in dense]
    lo, hi = min(cosines, default=0.0), max(cosines, default=1.0)

    def scores() -> np.ndarray:  # fusion.fuse of fusion.rescale'd cosines, for every document
        meaning = np.where(known, rescale_all(cos, lo, hi), 0.0)
        return (meaning + lexical_weight * share) / (1 + lexical_weight)

    score = scores()
    idx = np.flatnonzero(eligible)
    if len(idx) > limit:
        cut = np.partition(score[idx], len(idx) - limit)[len(idx) - limit]
        idx = idx[score[idx] >= cut]  # the best, and every document tied with the last of them
        unknown = idx[~known[idx]]
        if len(idx) > limit and len(unknown):
            found, vecs = vectors.rows_of(docs[unknown])
            pos, _ = locate(docs, found)
            known[pos], cos[pos] = True, product(vecs, query)
            score = scores()
    idx = idx[np.lexsort((-np.where(known, cos, -2.0)[idx], -score[idx]))[:limit]]
    rowids = [int(r) for r in docs[idx]]
    bodies = store.bodies(rowids)
    return [(rowid, float(score[i]), bodies[rowid]) for rowid, i in zip(rowids, idx)]


def _in_scope(
    store: Store, vectors: VectorIndex, docs: np.ndarray, scope: str, kinds: Sequence[str] | None
) -> np.ndarray:
    """Which of the documents belong to ``scope`` (and ``kinds``): from the vector cache, and from
    the items table for the few it does not hold (an item without a vector)."""
    held, eligible = vectors.held_in_scope(docs, scope, kinds)
    if not held.all():
        missing = docs[~held]
        rows = store.select(ItemQuery(rowids=tuple(missing.tolist()), scopes=(scope,),
                                      kinds=tuple(kinds) if kinds else None, columns=()))
        belong = {int(r["rowid"]) for r in rows}
        eligible[~held] = [r in belong for r in missing.tolist()]
    return eligible
