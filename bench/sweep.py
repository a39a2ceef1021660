#!/usr/bin/env python3
"""Sweep recall settings over benchmark sets, with stores kept between runs (a tuning aid).

    python bench/sweep.py locomo xquad_en2zh --set LEXICAL_WEIGHT=0.3,0.6,1.0
    python bench/sweep.py memdaily_noise200 --sample-users 50 --set LEXICAL_WEIGHT=0.6 --set PRIOR_WEIGHT=0,0.1

``bench/retrieval.py`` is the benchmark of record (fresh stores, baselines, latencies). This script
exists to compare many settings quickly: each task is ingested once into a store under ``--cache``
(through ``remember_many``, as a user would) and reused by later runs; every combination of the
``--set`` values (constants of ``kenning.retrieval``, or dotted paths under ``kenning`` such as
``store.vectors.RESCORE``) is then scored on the same
stores, without counting accesses (so no run changes the next one's recency prior). BM25 and dense
baselines are computed once per dataset, as in ``bench/retrieval.py``. One table per dataset: a
row per setting, a column per metric.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402
    DEFAULT_DATA, FtsBM25, Ingested, Scores, StoredDense, apply_settings, current_settings, ingest, load_recipes, setting,
)
from retrieval import ONE_ANSWER, PLANS, limit_queries, select_tasks  # noqa: E402

from kenning import Kenning  # noqa: E402
from kenning import retrieval as kr  # noqa: E402
from kenning.retrieval import Filters  # noqa: E402

console = Console(width=200)


def open_task(cache: Path, dataset: str, task: dict[str, Any]) -> tuple[Kenning, Ingested]:
    home = cache / dataset / re.sub(r"[^A-Za-z0-9_.-]+", "_", task["name"])
    mapping = home / "mapping.json"
    kb = Kenning.open(home)
    if mapping.exists():
        data = json.loads(mapping.read_text())
        return kb, Ingested(data["fact_of"], {k: v for k, v in data["docs_of"].items()}, data["content"], 0.0)
    ing = ingest(kb, {str(k): v for k, v in task["corpus"].items()})
    mapping.write_text(json.dumps({"fact_of": ing.fact_of, "docs_of": ing.docs_of, "content": ing.content}))
    return kb, ing


def settings(pairs: list[str]) -> list[dict[str, float]]:
    grid: list[list[tuple[str, float]]] = []
    for pair in pairs:
        name, _, values = pair.partition("=")
        setting(name)
        grid.append([(name, float(v)) for v in values.split(",")])
    return [dict(combo) for combo in itertools.product(*grid)] if grid else [{}]


def run(dataset: str, recipes: Any, args: argparse.Namespace) -> None:
    loader, cfg = recipes.DATASETS[dataset]
    plan = PLANS.get(dataset, ONE_ANSWER)
    tasks, note = select_tasks(loader(), plan, args)
    configs = settings(args.set)
    labels = ["BM25", "dense"] + [" ".join(f"{k.lower()}={v:g}" for k, v in c.items()) or "default" for c in configs]
    metrics = (*plan.metrics, *plan.group_metrics)
    scores = Scores(recipes, metrics, labels)
    defaults = current_settings(name for c in configs for name in c)
    exclude_self = bool(cfg.get("exclude_self"))
    with Progress(console=console, transient=True) as progress:
        bar = progress.add_task(dataset, total=len(tasks))
        for task in tasks:
            kb, ing = open_task(args.cache, dataset, task)
            bm25, dense = FtsBM25(ing.content), StoredDense(kb)
            for qid, text, gold, meta in limit_queries(task, args.limit_queries, args.seed):
                gold_facts = ing.facts(str(g) for g in gold)
                own = ing.facts([str(meta["self_id"])]) if exclude_self and "self_id" in meta else set()
                if not gold_facts or own & gold_facts:
                    continue
                k = plan.max_k + len(own)
                groups = ["all"] + ([str(meta["cat"])] if "cat" in meta else [])
                ranked = {"BM25": bm25.search(text, k), "dense": dense.search(kb.embedder.embed_query(text), k)}
                for label, config in zip(labels[2:], configs):
                    apply_settings(config, defaults)
                    hits = kr.recall(kb.store, kb.embedder, text, k=k, scope="default", filters=Filters(), touch=False)
                    ranked[label] = [h.item.id for h in hits]
                for label in labels:
                    scores.add(label, groups, gold_facts, [f for f in ranked[label] if f not in own][: plan.max_k])
            apply_settings(defaults, defaults)
            bm25.close()
            kb.close()
            progress.advance(bar)
    table = Table(title=f"{dataset} ({note}, {scores.count('all')} queries)")
    table.add_column("system / setting", no_wrap=True)
    columns = [("all", m) for m in plan.metrics] + [(g, m) for g in scores.groups()[1:] for m in plan.group_metrics]
    for group, metric in columns:
        table.add_column(metric if group == "all" else f"{group} {metric}", justify="right")
    for label in labels:
        table.add_row(label, *[f"{scores.mean(label, g, m):.1f}" for g, m in columns])
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=V1,V2")
    parser.add_argument("--cache", type=Path, default=Path(__file__).resolve().parent / "results" / "stores")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sample-users", type=int, default=100)
    parser.add_argument("--limit-tasks", type=int)
    parser.add_argument("--limit-queries", type=int)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    recipes = load_recipes(args.data)
    for dataset in args.datasets:
        run(dataset, recipes, args)


if __name__ == "__main__":
    main()
