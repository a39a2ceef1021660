#!/usr/bin/env python3
"""The cost of the write path's trust (redaction at the gate and at the store's edge, the checks of
every field) and how often redaction touches real text that holds no secret.

    python bench/write_path.py                          # 20,000 sentences for redaction, 300 writes
    python bench/write_path.py --texts 5000 --writes 100

The texts are perf.py's corpus: real short sentences from the public sets in ../shared/bench
(LoCoMo and MemDaily conversation, LCQMC and PAWS-X, MetaTool and Seal-Tools requests, XQuAD),
English and Chinese, which hold no real secret: every text redaction changes is a false positive
(or a phone number or email that is part of the data set, such as MemDaily's). Printed: redaction
time per text (p50, p95) and the share and kinds of texts it changed; then, on a fresh store, one
fact remembered at a time (embedding included: what an agent waits for), a batch ingest, a daily
note and a hot-memory entry. To compare two checkouts, copy this file into the other one and run
both back to back on an idle machine; compare ratios, not absolute times.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from perf import REPO, build_corpus, load_recipes, percentile  # noqa: E402  (perf puts REPO/src first)

from kenning import Kenning  # noqa: E402
from kenning.embed import default_embedder  # noqa: E402
from kenning.gate.redact import redact  # noqa: E402

console = Console()


def redaction(texts: list[str]) -> dict[str, object]:
    times, kinds, changed = [], Counter[str](), 0
    for text in texts:
        start = time.perf_counter()
        result = redact(text)
        times.append((time.perf_counter() - start) * 1e6)
        if result.found:
            changed += 1
            kinds.update(dict(result.found))
    return {"p50_us": statistics.median(times), "p95_us": percentile(times, 0.95), "changed": changed,
            "kinds": kinds}


def writes(texts: list[str], n: int) -> dict[str, float]:
    embedder = default_embedder()
    embedder.embed_passages(texts[:8])  # warm
    with tempfile.TemporaryDirectory() as home, Kenning.open(home, embedder=embedder) as kb:
        one = []
        for text in texts[:n]:
            start = time.perf_counter()
            kb.remember(text)
            one.append((time.perf_counter() - start) * 1000)
        batch = texts[n : n + 2000]
        start = time.perf_counter()
        kb.remember_many(batch)
        per_s = len(batch) / (time.perf_counter() - start)
        notes, hot = [], []
        for i, text in enumerate(texts[n + 2000 : n + 2000 + n // 3]):
            start = time.perf_counter()
            kb.notes.write(text)
            notes.append((time.perf_counter() - start) * 1000)
            if i < 40:  # the hot file's budget holds a few dozen short entries
                start = time.perf_counter()
                kb.hot.add(f"{text[:80]} ({i})", "other")
                hot.append((time.perf_counter() - start) * 1000)
    return {"remember_p50": statistics.median(one), "remember_p95": percentile(one, 0.95), "ingest_per_s": per_s,
            "note_p50": statistics.median(notes), "hot_p50": statistics.median(hot)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=20_000, help="sentences redacted")
    parser.add_argument("--writes", type=int, default=300, help="facts remembered one at a time")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench")
    args = parser.parse_args()
    texts, _ = build_corpus(load_recipes(args.data), max(args.texts, args.writes + 2000 + args.writes))
    console.print(f"kenning from {REPO / 'src'}; {len(texts):,} sentences")
    red = redaction(texts[: args.texts])
    w = writes(texts, args.writes)
    table = Table(title=f"write path ({args.texts:,} texts redacted, {args.writes} facts remembered one by one)")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("redaction per text p50, µs", f"{red['p50_us']:.1f}")
    table.add_row("redaction per text p95, µs", f"{red['p95_us']:.1f}")
    table.add_row("texts changed by redaction", f"{red['changed']} ({red['changed'] / args.texts:.2%})")
    table.add_row("  by kind", ", ".join(f"{k} {n}" for k, n in red["kinds"].most_common()) or "-")  # type: ignore[attr-defined]
    table.add_row("remember one fact p50 / p95, ms", f"{w['remember_p50']:.1f} / {w['remember_p95']:.1f}")
    table.add_row("ingest (remember_many), facts/s", f"{w['ingest_per_s']:.0f}")
    table.add_row("daily note write p50, ms", f"{w['note_p50']:.1f}")
    table.add_row("hot entry add p50, ms", f"{w['hot_p50']:.1f}")
    console.print(table)


if __name__ == "__main__":
    main()
