#!/usr/bin/env python3
"""What a page of ``kb.items`` costs on a large store, against reading every item and paging in Python.

    python bench/listing.py                      # 100,000 facts in 10 scopes, SQLite
    python bench/listing.py --items 20000 --repeat 10

The facts are written straight through the store with one fixed vector (listing reads no vectors;
embedding 100k texts would only make the setup slow), with created times a second apart, tags from
a small set and importances spread over 0-1. Each row of the table is one call, timed ``--repeat``
times (p50 and p95, ms): the first page, a page in the middle (a deep OFFSET), a tag filter, one
scope, the importance and last-access sorts, and the baseline that loads every row
(``store.select`` of everything) and pages in Python, which is what listing without LIMIT/OFFSET
would cost.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from kenning import Kenning  # noqa: E402
from kenning.embed import default_embedder  # noqa: E402
from kenning.records import item_from_row  # noqa: E402
from kenning.store import ItemQuery  # noqa: E402
from kenning.text import content_key  # noqa: E402

TAGS = ("ops", "db", "web", "infra", "billing", "auth", "search", "ci")
T0 = 1_780_000_000.0


def fill(kb: Kenning, n: int, scopes: int) -> None:
    flat = np.full(kb.embedder.dim, 1 / np.sqrt(kb.embedder.dim), dtype=np.float32)
    rng = np.random.default_rng(7)
    with kb.store.transaction():
        for i in range(n):
            text = f"service number {i} in rack {i % 97} answers on port {7000 + i % 1000}"
            tags = sorted({TAGS[int(t)] for t in rng.integers(0, len(TAGS), 2)})
            touched = T0 + i if i % 3 == 0 else None  # a third were recalled once
            kb.store.insert_item({"id": f"f_{i:012x}", "kind": "fact", "scope": "default" if i % scopes == 0
                                  else f"project:p{i % scopes}", "content": text, "content_key": content_key(text),
                                  "tags": tags, "created_at": T0 + i, "updated_at": T0 + i,
                                  "importance": float(rng.random()), "last_accessed": touched,
                                  "access_count": 1 if touched else 0}, text, flat)


def timed(call: Callable[[], object], repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(0.95 * len(times)))]


def everything_then_page(kb: Kenning, offset: int, limit: int) -> list[object]:
    rows = kb.store.select(ItemQuery(kinds=("fact",), superseded=False, order="newest"))
    return [item_from_row(r) for r in rows[offset:offset + limit]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--scopes", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    console = Console()
    with tempfile.TemporaryDirectory() as tmp, Kenning.open(Path(tmp) / "home", embedder=default_embedder()) as kb:
        start = time.perf_counter()
        fill(kb, args.items, args.scopes)
        console.print(f"{args.items:,} facts in {args.scopes} scopes written in {time.perf_counter() - start:.1f} s; "
                      f"SQLite {__import__('sqlite3').sqlite_version}, Python {platform.python_version()}, "
                      f"{platform.machine()}, repeat {args.repeat}")
        middle = args.items // 2
        calls: list[tuple[str, Callable[[], object]]] = [
            ("first page (50, newest)", lambda: kb.items()),
            (f"page at offset {middle:,}", lambda: kb.items(offset=middle)),
            ("tag 'db' (first page)", lambda: kb.items(tags=["db"])),
            ("one scope (first page)", lambda: kb.items(scope="project:p3")),
            ("sort importance", lambda: kb.items(sort="importance")),
            ("sort accessed", lambda: kb.items(sort="accessed")),
            ("baseline: read all, first page", lambda: everything_then_page(kb, 0, 50)),
            (f"baseline: read all, offset {middle:,}", lambda: everything_then_page(kb, middle, 50)),
        ]
        table = Table(title=f"kb.items on {args.items:,} facts (ms)")
        for column in ("call", "p50", "p95", "total matching"):
            table.add_column(column, justify="left" if column == "call" else "right")
        for label, call in calls:
            p50, p95 = timed(call, args.repeat)
            page = call()
            total = getattr(page, "total", "")
            table.add_row(label, f"{p50:.1f}", f"{p95:.1f}", f"{total:,}" if total != "" else "(all read)")
        console.print(table)


if __name__ == "__main__":
    main()
