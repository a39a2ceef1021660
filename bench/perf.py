#!/usr/bin/env python3
"""Speed of the embedded default at 10k and 100k facts: ingest, recall with and without the embedding, BM25.

    python bench/perf.py                       # 10k and 100k facts (100k ingest takes 20-30 min)
    python bench/perf.py --sizes 10000 --queries 300
    python bench/perf.py --keep bench/results/perf-stores   # reuse stores between runs (filled once;
                                                            # an interrupted fill resumes)

The facts are real short sentences (8-250 characters, the size of a fact an agent stores) from the
public sets in ../shared/bench: LoCoMo turns, MemDaily messages (with other users' messages when
more are needed), LCQMC and PAWS-X sentences, MetaTool and Seal-Tools requests, Seal-Tools tool
descriptions, XQuAD questions; English and Chinese mixed, deduplicated, shuffled with a fixed seed.
Queries are real LoCoMo and MemDaily questions.

Printed per size: ingest throughput (remember_many, batched); recall latency p50/p95 with a new
query (embedding included; also the p95 of the questions of at most 100 tokens), without the
embedding step (other new queries, embedded beforehand), and with a repeated query (served from
the embedding cache); remember-then-recall, one fact at a time as an agent works (the probe facts
are deleted afterwards); the query embedding alone; and a BM25 baseline (FTS5 MATCH + bm25 over
the same index, no embedding). Peak memory (max RSS) of the process is shown at the end.
Run it on an otherwise idle machine; compare rows of one run, not runs of different days.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from kenning import Kenning  # noqa: E402
from kenning.config import load_settings  # noqa: E402
from kenning.embed import Embedder, default_embedder  # noqa: E402
from kenning.store import open_store  # noqa: E402
from kenning.text import fts_match_expression, query_terms  # noqa: E402
from kenning.tokens import count_tokens  # noqa: E402

console = Console()


def load_recipes(data: Path):  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(data))
    import recipes  # type: ignore[import-not-found]

    return recipes


SHORT = (8, 250)  # characters: the length of a fact as an agent stores it
# MemDaily's "noisy" questions are whole chatty messages of 100-300 tokens with the question inside;
# embedding cost grows with length, so the p95 of the shorter questions is shown beside the overall one
SHORT_QUERY_TOKENS = 100
INTERLEAVED = 30  # facts remembered one at a time, each followed by a recall


def build_corpus(recipes, size: int, seed: int = 0) -> tuple[list[str], list[str]]:  # type: ignore[no-untyped-def]
    """Up to ``size`` distinct real short sentences (8-250 characters), and a pool of real questions."""
    texts: dict[str, None] = {}
    questions: list[str] = []

    def add(tasks, keep_questions: bool = True) -> None:  # type: ignore[no-untyped-def]
        for task in tasks:
            texts.update(dict.fromkeys(t.strip() for t in map(str, task["corpus"].values())
                                       if SHORT[0] <= len(t.strip()) <= SHORT[1]))
            if keep_questions:
                questions.extend(q[1] for q in task["queries"])

    add(recipes.load_locomo())
    add(recipes.load_memdaily())
    for name in ("lcqmc_test", "pawsx_zh_test", "lcqmc_dev", "pawsx_zh_dev"):
        add(recipes.load_csts_retrieval(name), keep_questions=False)
    # requests people typed to tool-using assistants, and tool descriptions
    for tasks in (recipes.load_metatool(), recipes.load_seal_tools(), recipes.load_xquad("en", "en"),
                  recipes.load_xquad("zh", "zh")):
        add([{"corpus": {i: q[1] for i, q in enumerate(t["queries"])}, "queries": []} for t in tasks])
        if tasks[0]["name"].startswith("xquad"):  # the paragraphs' sentences
            add([{"corpus": dict(enumerate(re.split(r"(?<=[.!?。！？])\s*", " ".join(map(str, t["corpus"].values()))))),
                  "queries": []} for t in tasks])
        if tasks[0]["name"] == "seal_tools":
            add(tasks, keep_questions=False)
    if len(texts) < size:  # other users' messages: MemDaily's distractors
        add(recipes.load_memdaily(distractors=200), keep_questions=False)
    pool = list(texts)
    rng = random.Random(seed)
    rng.shuffle(pool)
    if len(pool) < size:
        console.print(f"[yellow]only {len(pool):,} distinct short sentences available; using all of them[/]")
    return pool[:size], list(dict.fromkeys(questions))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def timed(fn, items: list[str]) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for item in items:
        start = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - start) * 1000)
    return out


def ingest(kb: Kenning, texts: list[str]) -> float:
    start = time.perf_counter()
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task(f"ingest {len(texts):,} facts", total=len(texts))
        for i in range(0, len(texts), 2000):
            kb.remember_many(texts[i : i + 2000], progress=lambda n: progress.advance(task, n))
    return time.perf_counter() - start


def bm25_search(db: sqlite3.Connection, query: str, k: int = 10) -> list[int]:
    """The baseline: FTS5's own bm25 ranking over kenning's index (every fact here is in one scope)."""
    match = fts_match_expression(query_terms(query))
    if not match:
        return []
    sql = "SELECT rowid FROM items_fts WHERE items_fts MATCH ? ORDER BY bm25(items_fts) LIMIT ?"
    return [r[0] for r in db.execute(sql, (match, k))]


def remember_then_recall(kb: Kenning, facts: list[str], questions: list[str]) -> tuple[list[float], list[float]]:
    """An agent's pattern: remember one fact, then recall. The new facts are deleted afterwards, so
    a kept store stays as it was filled."""
    write: list[float] = []
    read: list[float] = []
    added = []
    began = time.time()
    for fact, question in zip(facts, questions):
        start = time.perf_counter()
        item = kb.remember(fact)
        write.append((time.perf_counter() - start) * 1000)
        if item.created_at and item.created_at.timestamp() >= began:  # new, not an old fact restated
            added.append(item.id)
        start = time.perf_counter()
        kb.recall(question, k=10)
        read.append((time.perf_counter() - start) * 1000)
    for item_id in added:
        kb.delete(item_id, "bench/perf.py: a probe of remember-then-recall")
    return write, read


def startup(home: Path, embedder: Embedder) -> tuple[float, float | None]:
    """Seconds from opening the store to a searchable vector cache, as a new process (a CLI call,
    a hook) pays them: reading every vector from the database, and loading the snapshot file."""
    settings = load_settings(home)
    snapshot = settings.cache_dir / "vectors.snapshot"

    def seconds(snapshot: Path | None) -> float:
        start = time.perf_counter()
        store = open_store(settings.db_path, embedder.name, embedder.dim, snapshot=snapshot)
        store.fresh_vectors()
        elapsed = time.perf_counter() - start
        store.close()
        return elapsed

    seconds(snapshot)  # brings the snapshot up to date (the probe facts deleted above made it stale)
    # a store under vectors.SNAPSHOT_FROM rows has no snapshot
    return seconds(None), (seconds(snapshot) if snapshot.exists() else None)


def rss_mb() -> float | None:
    """This process's resident memory now (Linux), in MB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def measure(size: int, texts: list[str], questions: list[str], n_queries: int, keep: Path | None) -> dict:
    home = (keep / f"store-{size}") if keep else Path(tempfile.mkdtemp(prefix=f"kenning-perf-{size}-"))
    done = home / "perf-ingest.json"  # a kept store is filled once: later runs only measure recall
    embedder = default_embedder()
    rss_before = rss_mb()
    with Kenning.open(home, embedder=embedder) as kb:
        stored = sum(c["total"] for c in kb.stats()["counts"])
        ingest_per_s = json.loads(done.read_text())["per_s"] if done.exists() else None
        if not done.exists() and stored < len(texts):
            ingest_s = ingest(kb, texts[stored:])
            ingest_per_s = (len(texts) - stored) / ingest_s
            if keep:
                done.write_text(json.dumps({"per_s": ingest_per_s, "facts": len(texts), "resumed_from": stored}))
        rng = random.Random(size)
        sample = rng.sample(questions, 2 * n_queries)
        fresh, pre_embedded = sample[:n_queries], sample[n_queries:]
        kb.recall("warm up the caches", k=10)
        cold = timed(lambda q: kb.recall(q, k=10), fresh)  # every query new: embedding included
        for q in pre_embedded:  # the embedding step done beforehand: recall itself, on new queries
            embedder.embed_query(q)
        no_embedding = timed(lambda q: kb.recall(q, k=10), pre_embedded)
        repeated = timed(lambda q: kb.recall(q, k=10), pre_embedded)  # the same queries again
        embed_only = timed(embedder.embed_query, [q + " (uncached)" for q in fresh[:100]])
        with closing(sqlite3.connect(f"file:{kb.store.path}?mode=ro", uri=True)) as db:
            bm25 = timed(lambda q: bm25_search(db, q), pre_embedded)
        asked = set(sample)
        probes = rng.sample([q for q in questions if q not in asked and SHORT[0] <= len(q) <= SHORT[1]],
                            2 * INTERLEAVED)  # other real sentences, stored as facts, and new questions
        write, read = remember_then_recall(kb, probes[:INTERLEAVED], probes[INTERLEAVED:])
        total = sum(c["total"] for c in kb.stats()["counts"])
        rss_after = rss_mb()
    del kb  # its vectors, so that the startup below measures one store in memory, not two
    start_from_db, start_from_snapshot = startup(home, embedder)
    short = [ms for q, ms in zip(fresh, cold) if count_tokens(q) <= SHORT_QUERY_TOKENS]
    return {
        "size": size,
        "stored": total,
        "ingest_per_s": ingest_per_s,
        "store_rss_mb": (rss_after - rss_before) if rss_before and rss_after else None,
        "start_db_s": start_from_db,
        "start_snapshot_s": start_from_snapshot,
        "recall_p50": percentile(cold, 0.5),
        "recall_p95": percentile(cold, 0.95),
        "short_share": len(short) / len(cold),
        "short_p95": percentile(short, 0.95) if short else None,
        "no_embedding_p50": percentile(no_embedding, 0.5),
        "no_embedding_p95": percentile(no_embedding, 0.95),
        "repeated_p50": percentile(repeated, 0.5),
        "repeated_p95": percentile(repeated, 0.95),
        "embed_p50": percentile(embed_only, 0.5),
        "embed_p95": percentile(embed_only, 0.95),
        "write_p50": percentile(write, 0.5),
        "read_after_write_p50": percentile(read, 0.5),
        "read_after_write_p95": percentile(read, 0.95),
        "bm25_p50": percentile(bm25, 0.5),
        "bm25_p95": percentile(bm25, 0.95),
        "recall_qps": 1000 / statistics.mean(cold),
        "bm25_qps": 1000 / statistics.mean(bm25),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench")
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the stores in this folder")
    parser.add_argument("--json", type=Path, help="write the numbers here")
    args = parser.parse_args()

    recipes = load_recipes(args.data)
    texts, questions = build_corpus(recipes, max(args.sizes))
    embedder = default_embedder()
    console.print(f"embedder {embedder.name}, {embedder.threads} threads; {len(questions):,} questions to sample; "
                  f"corpus {len(texts):,} distinct sentences")
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    results = [measure(size, texts[:size], questions, args.queries, args.keep) for size in args.sizes]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    table = Table(title=f"kenning speed (k=10, {args.queries} queries per size; ms unless noted)")
    table.add_column("metric")
    for r in results:
        table.add_column(f"{r['stored']:,} facts", justify="right")
    rows = [
        ("ingest, facts/s (remember_many)", "ingest_per_s", "{:.0f}"),
        ("recall p50 (new query)", "recall_p50", "{:.1f}"),
        ("recall p95 (new query)", "recall_p95", "{:.1f}"),
        (f"recall p95 (new query of at most {SHORT_QUERY_TOKENS} tokens)", "short_p95", "{:.1f}"),
        (f"share of queries of at most {SHORT_QUERY_TOKENS} tokens", "short_share", "{:.0%}"),
        ("recall p50 without the embedding step (new query, embedded beforehand)", "no_embedding_p50", "{:.1f}"),
        ("recall p95 without the embedding step", "no_embedding_p95", "{:.1f}"),
        ("recall p50 (repeated query: embedding cache)", "repeated_p50", "{:.1f}"),
        ("recall p95 (repeated query)", "repeated_p95", "{:.1f}"),
        ("remember one fact p50 (embedding included)", "write_p50", "{:.1f}"),
        ("recall right after a remember p50 (new query)", "read_after_write_p50", "{:.1f}"),
        ("recall right after a remember p95", "read_after_write_p95", "{:.1f}"),
        ("query embedding alone p50", "embed_p50", "{:.1f}"),
        ("query embedding alone p95", "embed_p95", "{:.1f}"),
        ("BM25 baseline p50 (FTS5, no embedding)", "bm25_p50", "{:.2f}"),
        ("BM25 baseline p95", "bm25_p95", "{:.2f}"),
        ("recall throughput, queries/s", "recall_qps", "{:.0f}"),
        ("BM25 throughput, queries/s", "bm25_qps", "{:.0f}"),
        ("memory for the open store, MB (RSS growth)", "store_rss_mb", "{:.0f}"),
        ("open the store and load its vectors, s (from the database)", "start_db_s", "{:.2f}"),
        ("the same from the vector snapshot, s", "start_snapshot_s", "{:.2f}"),
    ]
    for label, key, fmt in rows:
        table.add_row(label, *[("—" if r[key] is None else fmt.format(r[key])) for r in results])
    console.print(table)
    console.print(f"peak memory (max RSS of this process): {peak_mb:,.0f} MB")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"results": results, "peak_rss_mb": peak_mb}, indent=2))


if __name__ == "__main__":
    main()
