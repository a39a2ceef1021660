#!/usr/bin/env python3
"""Export and import throughput, beside ``kenning migrate`` (the exact store copy) as the baseline.

    python bench/exchange.py                 # 2,000 facts
    python bench/exchange.py --facts 500     # a quick run

The facts are perf.py's corpus (real short sentences in English and Chinese from the public sets
in ../shared/bench), ingested with ``remember_many`` into a fresh SQLite store, a tenth of them then
superseded (chains of two). Timed, each on a fresh target: the JSON lines export (plain and with
vectors), the Markdown dump, the import of each export into an empty store (with vectors: nothing
embedded; without: every item embedded again), the same import again (everything unchanged), and
``kenning.store.transfer.migrate`` into an empty SQLite file. Then the top 10 of 20 questions on the
source and on each imported store must agree. Run it by hand on an idle machine; compare ratios.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from perf import REPO, build_corpus, load_recipes  # noqa: E402  (perf puts REPO/src first)

from kenning import Kenning  # noqa: E402
from kenning.embed import default_embedder  # noqa: E402
from kenning.store.transfer import migrate  # noqa: E402
from kenning.store.url import locate  # noqa: E402

console = Console()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--facts", type=int, default=2000)
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "bench"),
                        help="the public sets (default ../shared/bench; from a worktree: /work/shared/bench)")
    args = parser.parse_args()
    texts, questions = build_corpus(load_recipes(args.data), args.facts)
    embedder = default_embedder()
    rows: list[tuple[str, int, float, str]] = []
    with tempfile.TemporaryDirectory(prefix="kenning-exchange-") as tmp:
        root = Path(tmp)
        src = Kenning.open(root / "src", embedder=embedder)
        t = time.perf_counter()
        facts = src.remember_many(texts)
        for fact in facts[: len(facts) // 10]:
            src.supersede(fact.id, fact.content + " (corrected)")
        rows.append(("ingest (remember_many + supersede), baseline of writing", len(facts), time.perf_counter() - t, ""))
        total = sum(c["total"] for c in src.stats()["counts"])
        for name, kwargs in (("export jsonl", {}), ("export jsonl --vectors", {"vectors": True}),
                             ("export markdown", {"format": "markdown"})):
            out = root / name.replace(" ", "_").replace("--", "")
            t = time.perf_counter()
            n = src.export(out, **kwargs)  # type: ignore[arg-type]
            rows.append((name, n, time.perf_counter() - t, f"{out.stat().st_size / 1e3:,.0f} kB"))
        answers = [[h.item.id for h in src.recall(q, k=10, min_relevance=0)] for q in questions[:20]]
        agree = {}
        for name, file in (("import (vectors in the file)", "export_jsonl_vectors"),
                           ("import (embedded anew)", "export_jsonl")):
            dst = Kenning.open(root / file.replace("export", "dst"), embedder=embedder)
            t = time.perf_counter()
            summary = dst.import_file(root / file)
            rows.append((name, summary.added, time.perf_counter() - t, f"{summary.added} added"))
            t = time.perf_counter()
            again = dst.import_file(root / file)
            rows.append((name.replace("import", "import again"), again.unchanged, time.perf_counter() - t,
                         f"{again.unchanged} unchanged"))
            got = [[h.item.id for h in dst.recall(q, k=10, min_relevance=0)] for q in questions[:20]]
            agree[name] = sum(a == b for a, b in zip(answers, got))
            dst.close()
        src.close()
        t = time.perf_counter()
        report = migrate(locate(str(root / "src" / "kenning.db"), setting="--from"),
                         locate(str(root / "copy.db"), setting="--to"), embedder.name, embedder.dim)
        rows.append(("kenning migrate to SQLite (baseline)", total, time.perf_counter() - t,
                     "verified" if report.verified else "DIFFERS"))
    table = Table(title=f"Export and import of {total:,} items ({len(facts):,} facts + supersedes), {embedder.name}")
    for col in ("step", "items", "seconds", "items/s", "note"):
        table.add_column(col, justify="left" if col in ("step", "note") else "right")
    for step, n, seconds, note in rows:
        table.add_row(step, f"{n:,}", f"{seconds:.2f}", f"{n / seconds:,.0f}" if seconds else "", note)
    console.print(table)
    for name, n in agree.items():
        console.print(f"{name}: the same top 10 as the source for {n} of 20 questions")


if __name__ == "__main__":
    main()
