#!/usr/bin/env python3
"""Recall quality at scale: LoCoMo conversations stored among the 100k facts of bench/perf.py.

    python bench/perf.py --sizes 100000 --keep bench/results/perf-short      # builds the big store once
    python bench/scale_recall.py --store bench/results/perf-short/store-100000 --conversations 3 \\
        --set LEXICAL_POSTINGS=2000,3000,4000

The benchmark sets put one conversation in a store of a few hundred facts; a user's store grows to
tens of thousands. Here a copy of the perf store (real short sentences, English and Chinese) gets
the turns of the first ``--conversations`` LoCoMo conversations in the same scope (perf.py's corpus
already holds LoCoMo's turns, so most are found as existing facts rather than added), and their
questions are asked with each ``--set`` combination of ``kenning.retrieval`` constants (as in
``bench/sweep.py``). The copy is kept under ``--work`` and reused. Prints R@10 per setting and
category, beside the default.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DEFAULT_DATA, Ingested, apply_settings, current_settings, ingest, load_recipes  # noqa: E402
from sweep import settings  # noqa: E402

from kenning import Kenning  # noqa: E402
from kenning import retrieval as kr  # noqa: E402
from kenning.retrieval import Filters  # noqa: E402

console = Console(width=160)


def prepare(store: Path, work: Path, tasks: list[dict]) -> tuple[Kenning, list[Ingested]]:  # type: ignore[type-arg]
    """The copy of the big store with the conversations in it (made once, then reused)."""
    mapping = work / "conversations.json"
    if not (work / "kenning.db").exists():
        work.mkdir(parents=True, exist_ok=True)
        source, copy = sqlite3.connect(store / "kenning.db"), sqlite3.connect(work / "kenning.db")
        source.backup(copy)
        source.close()
        copy.close()
    kb = Kenning.open(work)
    done = json.loads(mapping.read_text()) if mapping.exists() else []
    for task in tasks[len(done):]:
        ing = ingest(kb, {str(k): v for k, v in task["corpus"].items()})
        done.append({"fact_of": ing.fact_of, "docs_of": ing.docs_of})
        mapping.write_text(json.dumps(done))
    return kb, [Ingested(d["fact_of"], d["docs_of"], {}, 0.0) for d in done[: len(tasks)]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, required=True, help="a store filled by bench/perf.py --keep")
    parser.add_argument("--work", type=Path, default=Path(__file__).resolve().parent / "results" / "scale-recall")
    parser.add_argument("--conversations", type=int, default=3)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=V1,V2")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()

    tasks = load_recipes(args.data).load_locomo()[: args.conversations]
    kb, ingested = prepare(args.store, args.work, tasks)
    configs = [{}, *settings(args.set)] if args.set else [{}]
    labels = ["default"] + [" ".join(f"{k.lower()}={v:g}" for k, v in c.items()) for c in configs[1:]]
    defaults = current_settings(name for c in configs for name in c)
    recall: dict[str, dict[str, list[float]]] = {label: {} for label in labels}
    for task, ing in zip(tasks, ingested):
        for _qid, text, gold, meta in task["queries"]:
            gold_facts = ing.facts(str(g) for g in gold)
            if not gold_facts:
                continue
            for label, config in zip(labels, configs):
                apply_settings({**defaults, **config}, defaults)
                hits = kr.recall(kb.store, kb.embedder, text, k=10, scope="default", filters=Filters(), touch=False)
                share = len(gold_facts & {h.item.id for h in hits}) / len(gold_facts)
                for group in ("all", str(meta["cat"])):
                    recall[label].setdefault(group, []).append(share)
    apply_settings(defaults, defaults)
    total = sum(c["total"] for c in kb.stats()["counts"])
    kb.close()

    groups = list(recall["default"])
    table = Table(title=f"LoCoMo R@10 with {len(tasks)} conversations among {total:,} facts "
                        f"({len(recall['default']['all'])} questions)")
    table.add_column("setting")
    for group in groups:
        table.add_column(group, justify="right")
    for label in labels:
        table.add_row(label, *[f"{100 * sum(v) / len(v):.1f}" for v in (recall[label][g] for g in groups)])
    console.print(table)


if __name__ == "__main__":
    main()
