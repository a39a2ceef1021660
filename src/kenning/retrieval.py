"""Hybrid recall: words and meaning, fused, filtered, lightly reranked, explained.

1. Two candidate lists from one scope: full-text (FTS5 BM25 over segmented text) and semantic
   (cosine between the query vector and every stored vector).
2. Fusion by reciprocal rank, where the lexical list only counts as far as it shares the query's
   words: a document that matched one common query word out of five adds a fifth of a full vote.
   A lexical list that shares no words with the query (a Chinese memory asked for in English) adds
   nothing, so cross-language recall is as good as the semantic list alone.
3. Filters (kinds, tags, confidence, time range, superseded, expired) in SQL on the candidates; if
   too few survive, the candidate lists are widened and the search runs again.
4. A light rerank by importance, confidence and recency (at most ±10% of the score), then the
   accessed items get ``last_accessed`` / ``access_count`` updated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .embed import Embedder
from .errors import InvalidInput
from .models import KINDS, Hit
from .records import item_from_row
from .store import Store
from .text import fts_match_expression, query_terms
from .timeutil import to_epoch, utcnow

RRF_K = 60
MAX_QUERY_CHARS = 10_000
RECENCY_HALF_LIFE_DAYS = 90.0
PRIOR_WEIGHT = 0.1


@dataclass(frozen=True)
class Filters:
    kinds: tuple[str, ...] | None = None
    tags: tuple[str, ...] = ()
    min_confidence: float | None = None
    since: datetime | None = None
    until: datetime | None = None
    include_superseded: bool = False
    include_expired: bool = False

    def sql(self, now: float) -> tuple[str, list[Any]]:
        parts: list[str] = []
        params: list[Any] = []
        if not self.include_superseded:
            parts.append("superseded_by IS NULL")
        if not self.include_expired:
            parts.append("(expires_at IS NULL OR expires_at > ?)")
            params.append(now)
        if self.kinds:
            parts.append(f"kind IN ({', '.join('?' * len(self.kinds))})")
            params.extend(self.kinds)
        for tag in self.tags:
            parts.append("EXISTS (SELECT 1 FROM json_each(items.tags) WHERE value = ?)")
            params.append(tag)
        if self.min_confidence is not None:
            parts.append("confidence >= ?")
            params.append(self.min_confidence)
        if self.since is not None:
            parts.append("created_at >= ?")
            params.append(to_epoch(self.since))
        if self.until is not None:
            parts.append("created_at <= ?")
            params.append(to_epoch(self.until))
        return " AND ".join(parts) or "1", params


def check_query(query: object) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("the query is empty; say what to look for")
    if "\x00" in query:
        raise InvalidInput("the query contains a NUL byte; remove it")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(f"the query is {len(query):,} characters; keep it under {MAX_QUERY_CHARS:,}")
    return query.strip()


def check_kinds(kinds: object) -> tuple[str, ...] | None:
    if kinds is None:
        return None
    if isinstance(kinds, str):
        kinds = [kinds]
    if not isinstance(kinds, list | tuple | set | frozenset):
        raise InvalidInput(f"kinds must be a list of {', '.join(KINDS)}")
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise InvalidInput(f"unknown kind {bad[0]!r}; use one of {', '.join(KINDS)}")
    return tuple(dict.fromkeys(kinds)) or None


def _stem(term: str) -> str:
    """Crude plural/verb-ending strip, enough to see that 'drops' in a query matched 'drop'."""
    for suffix in ("ing", "ed", "es", "s"):
        if term.isascii() and len(term) > len(suffix) + 2 and term.endswith(suffix):
            return term[: -len(suffix)]
    return term


def _coverage(terms: list[str], body: str) -> tuple[float, list[str]]:
    """Share of the query's terms found in a document's segmented body, and which."""
    doc = {_stem(t) for t in body.split()}
    found = [t for t in terms if _stem(t.lower()) in doc]
    return (len(found) / len(terms) if terms else 0.0), found


def _prior(row: dict[str, Any], now: float) -> float:
    """Importance, confidence and recency in [0, 1]."""
    age_days = max(0.0, now - float(row["last_accessed"] or row["updated_at"])) / 86400
    recency = math.pow(0.5, age_days / RECENCY_HALF_LIFE_DAYS)
    return (float(row["importance"]) + float(row["confidence"]) + recency) / 3


def recall(
    store: Store,
    embedder: Embedder,
    query: str,
    *,
    k: int,
    scope: str,
    filters: Filters,
    touch: bool = True,
) -> list[Hit]:
    query = check_query(query)
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 1000:
        raise InvalidInput(f"k must be a whole number from 1 to 1000, got {k!r}")
    terms = query_terms(query)
    match = fts_match_expression(terms)
    qvec = embedder.embed_query(query)
    now = to_epoch(utcnow())
    where, params = filters.sql(now)
    pool = max(50, 4 * k)
    while True:
        dense = store.dense(qvec, scope, filters.kinds, pool)
        lexical = store.lexical(match, scope, filters.kinds, pool) if match else []
        hits = _fuse_and_filter(store, terms, dense, lexical, where, params, now)
        exhausted = len(dense) < pool and len(lexical) < pool
        if len(hits) >= k or exhausted:
            break
        pool *= 4
    hits = hits[:k]
    if touch and hits:
        store.touch((h[0] for h in hits), now)
    return [h[1] for h in hits]


def _fuse_and_filter(
    store: Store,
    terms: list[str],
    dense: list[tuple[int, float]],
    lexical: list[tuple[int, float, str]],
    where: str,
    params: list[Any],
    now: float,
) -> list[tuple[int, Hit]]:
    fused: dict[int, float] = {}
    cosine: dict[int, tuple[int, float]] = {}
    words: dict[int, tuple[int, list[str]]] = {}
    for rank, (rowid, cos) in enumerate(dense, 1):
        fused[rowid] = 1.0 / (RRF_K + rank)
        cosine[rowid] = (rank, cos)
    for rank, (rowid, _bm25, body) in enumerate(lexical, 1):
        share, found = _coverage(terms, body)
        if not found:
            continue
        fused[rowid] = fused.get(rowid, 0.0) + share / (RRF_K + rank)
        words[rowid] = (rank, found)
    if not fused:
        return []
    ids = list(fused)
    rows = store.select(f"rowid IN ({', '.join('?' * len(ids))}) AND {where}", [*ids, *params])
    best = 2.0 / (RRF_K + 1)
    out: list[tuple[int, Hit]] = []
    for row in rows:
        rowid = int(row["rowid"])
        base = fused[rowid] / best
        score = base * (1 - PRIOR_WEIGHT / 2 + PRIOR_WEIGHT * _prior(row, now))
        sem = cosine.get(rowid)
        lex = words.get(rowid)
        out.append(
            (
                rowid,
                Hit(
                    item=item_from_row(row),
                    score=score,
                    why=_why(sem, lex),
                    semantic=sem[1] if sem else None,
                    lexical_rank=lex[0] if lex else None,
                ),
            )
        )
    out.sort(key=lambda pair: (-pair[1].score, pair[1].item.id))
    return out


def _why(sem: tuple[int, float] | None, lex: tuple[int, list[str]] | None) -> str:
    parts = []
    if sem:
        parts.append(f"meaning: cosine {sem[1]:.2f} (#{sem[0]})")
    if lex:
        parts.append("words: " + ", ".join(lex[1][:6]) + f" (#{lex[0]})")
    return "; ".join(parts)
