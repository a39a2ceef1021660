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
    kb.entities.upsert("Alice", aliases=["ali"], notes="met at the conference in Berlin")
    kb.notes.write("a note that must survive")
    kb.hot.add("a hot entry that must survive")
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
    # text that cannot be written: what Python makes of bytes that are not UTF-8
    "lone surrogate in content": lambda kb: kb.remember("abc\udcffdef"),
    "lone surrogate in a tag": lambda kb: kb.remember("ok", tags=["a\udcff"]),
    "lone surrogate in the source": lambda kb: kb.remember("ok", source="chat\udcff"),
    "lone surrogate in a reason": lambda kb: kb.pin(kb.recall("survive", k=1)[0].item.id, reason="\ud800"),
    "lone surrogate in a query": lambda kb: kb.recall("abc\udcff"),
    "lone surrogate in an entity name": lambda kb: kb.entities.upsert("Bob\udcff"),
    "lone surrogate in an attribute": lambda kb: kb.entities.upsert("Bob", attributes={"k": "v\udcff"}),
    "lone surrogate in a lesson": lambda kb: kb.lessons.record(action="a\udcff", context="c", outcome="neutral",
                                                               insight="i"),
    "lone surrogate in a note": lambda kb: kb.notes.write("note \udcff"),
    "lone surrogate in hot memory": lambda kb: kb.hot.add("entry \udcff"),
    # times past what a calendar holds, or already gone
    "expiry in the past": lambda kb: kb.remember("ok", expires_at="2020-01-01"),
    "expiry a million years on": lambda kb: kb.remember("ok", expires_at="99999999d"),
    "since a billion days ago": lambda kb: kb.recall("x", since="1000000000d"),
    "until far in the future": lambda kb: kb.recall("x", until="+99999999y"),
    # entities stay small enough to show whole
    "NaN attribute": lambda kb: kb.entities.upsert("Bob", attributes={"score": float("nan")}),
    "infinite attribute": lambda kb: kb.entities.upsert("Bob", attributes={"score": float("inf")}),
    "10 MB attribute": lambda kb: kb.entities.upsert("Bob", attributes={"blob": "x" * 10_000_000}),
    "101 attributes": lambda kb: kb.entities.upsert("Bob", attributes={f"k{i}": i for i in range(101)}),
    "attribute nested 50 deep": lambda kb: kb.entities.upsert("Bob", attributes={"deep": _nested(50)}),
    "10 MB entity notes": lambda kb: kb.entities.upsert("Bob", notes="n" * 10_000_000),
    "notes grown past the limit": lambda kb: kb.entities.upsert("Alice", notes="m" * 19_990),
    "kind of 1,000 characters": lambda kb: kb.entities.upsert("Bob", kind="k" * 1_000),
    "200 aliases": lambda kb: kb.entities.upsert("Bob", aliases=[f"b{i}" for i in range(200)]),
}


def _nested(depth: int) -> object:
    value: object = "leaf"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("call", BAD_CALLS.values(), ids=list(BAD_CALLS))
def test_bad_input_is_refused_clearly_and_changes_nothing(seeded: Kenning, call) -> None:  # type: ignore[no-untyped-def]
    before = fingerprint(seeded.settings.db_path)
    with pytest.raises(KenningError) as info:
        call(seeded)
    message = str(info.value)
    assert 10 < len(message) < 400 and "\n" not in message
    assert fingerprint(seeded.settings.db_path) == before
    assert "must survive" in (seeded.home / "MEMORY.md").read_text(encoding="utf-8")


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
    with pytest.raises(NotFound, match="kenning list"):
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
