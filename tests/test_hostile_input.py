"""Hostile input gets a clear error and changes nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kenning import InvalidInput, Kenning, KenningError, NotFound
from storekit import fingerprint


@pytest.fixture
def seeded(kb: Kenning) -> Kenning:
    kb.remember("a fact that must survive", tags=["keep"])
    kb.lessons.record(action="a", context="c", outcome="neutral", insight="i")
    kb.entities.upsert("Alice", aliases=["ali"])
    return kb


BAD_CALLS = {
    "empty content": lambda kb: kb.remember(""),
    "blank content": lambda kb: kb.remember(" \n\t "),
    "10 MB content": lambda kb: kb.remember("x" * 10_000_000),
    "NUL byte": lambda kb: kb.remember("abc\x00def"),
    "not text": lambda kb: kb.remember(12345),
    "confidence above 1": lambda kb: kb.remember("ok", confidence=1.5),
    "importance as text": lambda kb: kb.remember("ok", importance="high"),
    "unknown category": lambda kb: kb.remember("ok", category="gossip"),
    "bad expiry date": lambda kb: kb.remember("ok", expires_at="next tuesday-ish"),
    "bad expiry month": lambda kb: kb.remember("ok", expires_at="2026-13-45"),
    "empty scope": lambda kb: kb.remember("ok", scope=""),
    "tag with NUL": lambda kb: kb.remember("ok", tags=["a\x00b"]),
    "batch with one bad text": lambda kb: kb.remember_many(["fine", "also fine", ""]),
    "batch given one string": lambda kb: kb.remember_many("just one"),
    "invalid outcome": lambda kb: kb.lessons.record(action="a", context="c", outcome="meh", insight="i"),
    "lesson without context": lambda kb: kb.lessons.record(action="a", context="", outcome="positive", insight="i"),
    "alias taken": lambda kb: kb.entities.upsert("Alibaba", aliases=["ALI"]),
    "unknown id to supersede": lambda kb: kb.supersede("f_doesnotexist", "new"),
    "unknown id to pin": lambda kb: kb.pin("nope"),
    "unknown id to delete": lambda kb: kb.delete("f_000000000000"),
    "id of wrong type": lambda kb: kb.history(None),
    "empty query": lambda kb: kb.recall(""),
    "query with NUL": lambda kb: kb.recall("a\x00b"),
    "k of zero": lambda kb: kb.recall("x", k=0),
    "unknown kind": lambda kb: kb.recall("x", kinds=["memo"]),
    "bad since": lambda kb: kb.recall("x", since="yesterday-ish"),
    "negative days": lambda kb: kb.forget_stale(days=-1),
    "max_access as float": lambda kb: kb.forget_stale(max_access=1.5),
}


@pytest.mark.parametrize("call", BAD_CALLS.values(), ids=list(BAD_CALLS))
def test_bad_input_is_refused_clearly_and_changes_nothing(seeded: Kenning, call) -> None:  # type: ignore[no-untyped-def]
    before = fingerprint(seeded.settings.db_path)
    with pytest.raises(KenningError) as info:
        call(seeded)
    message = str(info.value)
    assert 10 < len(message) < 400 and "\n" not in message
    assert fingerprint(seeded.settings.db_path) == before


@pytest.mark.parametrize(
    "query",
    ['"a" OR b*', "NEAR(", "NEAR(a b", "content:secret", "a AND", "*", '"', "^start", "(((", "-x", "col : val",
     "fact' OR 1=1 --", "; DROP TABLE items; --"],
)
def test_fts_syntax_in_queries_is_plain_text(seeded: Kenning, query: str) -> None:
    hits = seeded.recall(query, k=5)
    assert all(h.item.scope == "default" for h in hits)
    assert seeded.recall("fact that must survive", k=1)[0].item.content == "a fact that must survive"


def test_content_at_the_limit_is_stored_and_long_text_is_embedded_fast(kb: Kenning) -> None:
    text = "很长的内容。" * 16_000 + "end"  # 96k characters, far past the model's 512-token window
    fact = kb.remember(text)
    assert kb.get(fact.id).content == text


def test_unknown_ids_say_how_to_find_real_ones(kb: Kenning) -> None:
    with pytest.raises(NotFound, match="kenning recall"):
        kb.get("f_123456789abc")


def test_a_failure_midway_through_a_batch_writes_nothing(kb: Kenning, monkeypatch: pytest.MonkeyPatch,
                                                         fail_third_insert) -> None:  # type: ignore[no-untyped-def]
    kb.remember("already here")
    before = fingerprint(kb.settings.db_path)
    fail_third_insert(kb)
    with pytest.raises(sqlite3.OperationalError):
        kb.remember_many(["one", "two", "three", "four"])
    assert fingerprint(kb.settings.db_path) == before
    monkeypatch.undo()
    assert len(kb.remember_many(["one", "two", "three", "four"])) == 4


def test_invalid_input_is_also_a_value_error(kb: Kenning) -> None:
    with pytest.raises(ValueError):
        kb.remember("")
    assert issubclass(InvalidInput, KenningError)
