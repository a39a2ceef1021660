"""Retrieval benchmark: kenning's hybrid recall against BM25 and dense-only search, in one run.

    python bench/retrieval.py locomo --json bench/results/locomo.json
    python bench/retrieval.py memdaily_noise200 --sample-users 100
    python bench/retrieval.py xquad_zh2en xquad_en2zh --limit-queries 200 --show-losses 5

Each task of a dataset (see ``recipes.py`` in the shared benchmark folder) goes into a fresh kenning
store in a temporary directory through the public API: ``Kenning.open(tmp)``, ``remember_many``
(the batched ingest path), then ``recall(query, k)`` with the default configuration. In the same run
and over the same deduplicated facts, two baselines (see ``bench/common.py``): BM25 (SQLite FTS5
over kenning's own segmented text) and dense-only (cosine over the vectors kenning stored). Numbers
are percentages over queries; rows are metrics, columns the three systems, the best in bold.

Run by hand, not in CI: embedding the corpus dominates the cost (11-15 LoCoMo turns/s on 2 shared
cores; a full LoCoMo run takes ~15 minutes). MemDaily users are therefore sampled
(``--sample-users``, default 100, stratified by question type, fixed seed; a larger sample contains a
smaller one with the same seed), and LCQMC scores 2,000 seeded queries against its full corpus
unless ``--limit-queries 0`` asks for all 6,147. On a terminal rich draws progress bars; without
one (nohup, a log file) a progress line is logged every minute.

Paraphrase sets (LCQMC, PAWS-X) exclude the query's own sentence from the results. Kenning stores
texts that differ only in case, width or outer punctuation as one fact; where a query's paraphrase
is thereby the *same* fact as the query, the query cannot be scored and is left out (counted as
"dropped" in the output).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402  (bench/ is a folder of scripts, not a package)
    DEFAULT_DATA,
    FtsBM25,
    Ingested,
    Scores,
    StoredDense,
    git_commit,
    ingest,
    load_recipes,
    parse_metric,
    percentile,
    run_config,
    write_json,
)

from kenning import Kenning  # noqa: E402

SYSTEMS = ("bm25", "dense", "kenning")
LABELS = {"bm25": "BM25", "dense": "dense", "kenning": "kenning"}


@dataclass(frozen=True)
class Plan:
    """Which metrics a dataset is scored with; ``headline`` drives win/loss counts and examples."""

    metrics: tuple[str, ...]
    group_metrics: tuple[str, ...] = ()
    headline: str = "Hit@1"
    users: bool = False  # one task per user: --sample-users applies
    queries: int | None = None  # default --limit-queries (the corpus is always complete)

    @property
    def max_k(self) -> int:
        return max(parse_metric(m)[1] for m in (*self.metrics, *self.group_metrics))


ONE_ANSWER = Plan(("Hit@1", "Hit@5", "Hit@10", "MRR@10"))
PARAPHRASE = Plan(("Hit@1", "Hit@5", "Hit@10", "R@10", "MRR@10"))
# LCQMC: 23.6k sentences to ingest and 6.1k queries; all of them took over an hour on a shared,
# loaded 2-core machine, so by default 2,000 seeded queries are scored against the full corpus
# (--limit-queries 0 scores all of them).
LCQMC = replace(PARAPHRASE, queries=2000)
PLANS = {
    "locomo": Plan(("R@5", "R@10", "R@20"), ("R@5", "R@10", "R@20"), headline="R@10"),
    # a clean MemDaily user has ~9 messages, so k stops at 5 (as in recipes.py)
    "memdaily": Plan(("Hit@1", "R@3", "R@5", "MRR@5"), ("Hit@1", "R@3"), headline="R@3", users=True),
    "memdaily_noise200": Plan(
        ("Hit@1", "Hit@5", "R@5", "R@10", "MRR@10"), ("Hit@1", "R@10"), headline="R@10", users=True
    ),
    "lcqmc_test": LCQMC,
    "lcqmc_dev": LCQMC,
    "pawsx_zh_test": PARAPHRASE,
    "pawsx_zh_dev": PARAPHRASE,
    "xquad_zh2zh": ONE_ANSWER,
    "xquad_en2en": ONE_ANSWER,
    "xquad_zh2en": ONE_ANSWER,
    "xquad_en2zh": ONE_ANSWER,
    # accepted, but tool selection is another benchmark's subject
    "metatool": Plan(("Hit@1", "Hit@3", "Hit@5", "MRR@5")),
    "metatool_multi": Plan(("R@2", "R@5", "R@10", "Comp@10", "MRR@10"), headline="R@5"),
    "seal_tools": Plan(("Hit@1", "R@5", "R@10", "Comp@10", "MRR@10"), ("Hit@1", "Comp@10")),
}


# -- choosing what to run ----------------------------------------------------------------------------


def task_group(task: dict[str, Any]) -> str:
    queries = task["queries"]
    return str(queries[0][3].get("cat", "")) if queries else ""


def sample_users(tasks: list[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` tasks stratified by question type; with one seed, a larger sample holds a smaller one."""
    by_group: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for task in tasks:
        by_group[task_group(task)].append(task)
    groups = sorted(by_group)
    chosen: set[str] = set()
    for i, group in enumerate(groups):
        quota = n // len(groups) + (1 if i < n % len(groups) else 0)
        members = sorted(by_group[group], key=lambda t: t["name"])
        random.Random(f"{seed}:{group}").shuffle(members)
        chosen.update(t["name"] for t in members[:quota])
    return [t for t in tasks if t["name"] in chosen]


def query_limit(plan: Plan, args: argparse.Namespace) -> int | None:
    """Queries per task to score: --limit-queries, else the data set's default; 0 or None = all."""
    n = args.limit_queries if args.limit_queries is not None else plan.queries
    return n or None


def limit_queries(task: dict[str, Any], n: int | None, seed: int) -> list[tuple[Any, ...]]:
    """At most ``n`` of a task's queries (a seeded sample, kept in order); 0 or None = all."""
    queries = task["queries"]
    if not n or len(queries) <= n:
        return list(queries)
    keep = sorted(random.Random(f"{seed}:{task['name']}").sample(range(len(queries)), n))
    return [queries[i] for i in keep]


def select_tasks(tasks: list[dict[str, Any]], plan: Plan, args: argparse.Namespace) -> tuple[list[dict[str, Any]], str]:
    """The tasks to run and a sentence saying how they were chosen."""
    total = len(tasks)
    note = f"all {total} tasks"
    if plan.users and args.sample_users and args.sample_users < total:
        tasks = sample_users(tasks, args.sample_users, args.seed)
        note = f"{len(tasks)} of {total} users, stratified by question type, seed {args.seed}"
    if args.limit_tasks is not None and args.limit_tasks < len(tasks):
        tasks = tasks[: args.limit_tasks]
        note += f", first {len(tasks)} tasks (--limit-tasks)"
    n = query_limit(plan, args)
    if n and any(len(t["queries"]) > n for t in tasks):
        note += f", at most {n:,} queries per task (seeded sample, seed {args.seed})"
    return tasks, note


# -- running one dataset -----------------------------------------------------------------------------


class Run:
    """Scores, timings, per-query records and examples of losses for one dataset."""

    def __init__(self, recipes: ModuleType, plan: Plan, exclude_self: bool) -> None:
        self.plan = plan
        self.exclude_self = exclude_self
        self.scores = Scores(recipes, (*plan.metrics, *plan.group_metrics), SYSTEMS)
        self.latency_ms: dict[str, list[float]] = {s: [] for s in SYSTEMS}
        self.ingest_s = 0.0
        self.docs = self.facts = self.skipped = 0
        self.dropped: list[Any] = []
        self.records: list[dict[str, Any]] = []
        self.losses: dict[str, list[dict[str, Any]]] = {"bm25": [], "dense": []}

    def task(self, task: dict[str, Any], queries: list[tuple[Any, ...]], kb: Kenning, ing: Ingested,
             on_query: Callable[[], None]) -> None:
        self.ingest_s += ing.seconds
        self.docs += len(task["corpus"])
        self.facts += len(ing.docs_of)
        self.skipped += len(ing.skipped)
        bm25 = FtsBM25(ing.content)
        dense = StoredDense(kb)
        try:
            for qid, text, gold, meta in queries:
                self.query(task, kb, ing, bm25, dense, qid, text, gold, meta)
                on_query()
        finally:
            bm25.close()

    def query(self, task: dict[str, Any], kb: Kenning, ing: Ingested, bm25: FtsBM25, dense: StoredDense,
              qid: Any, text: str, gold: set[Any], meta: dict[str, Any]) -> None:
        gold_facts = ing.facts(gold)
        own = ing.facts([meta["self_id"]]) if self.exclude_self and "self_id" in meta else set()
        if not gold_facts or own & gold_facts:
            self.dropped.append(qid)
            return
        k = self.plan.max_k + len(own)
        ranked: dict[str, list[str]] = {}
        start = time.perf_counter()
        ranked["kenning"] = [hit.item.id for hit in kb.recall(text, k=k)]
        self.latency_ms["kenning"].append(1000 * (time.perf_counter() - start))
        qvec = kb.embedder.embed_query(text)  # a cache hit: recall just embedded this query
        start = time.perf_counter()
        ranked["dense"] = dense.search(qvec, k)
        self.latency_ms["dense"].append(1000 * (time.perf_counter() - start))
        start = time.perf_counter()
        ranked["bm25"] = bm25.search(text, k)
        self.latency_ms["bm25"].append(1000 * (time.perf_counter() - start))
        groups = ["all"] + ([str(meta["cat"])] if "cat" in meta else [])
        values = {}
        for system in SYSTEMS:
            ranked[system] = [f for f in ranked[system] if f not in own][: self.plan.max_k]
            values[system] = self.scores.add(system, groups, gold_facts, ranked[system])
        self.records.append({
            "task": task["name"], "qid": qid, "group": groups[-1], "gold": sorted(gold, key=str),
            **{s: [ing.doc(f) for f in ranked[s]] for s in SYSTEMS},
            "headline": {s: values[s][self.plan.headline] for s in SYSTEMS},
        })
        self.note_losses(text, gold_facts, ranked, values, ing)

    def note_losses(self, text: str, gold: set[str], ranked: dict[str, list[str]],
                    values: dict[str, dict[str, float]], ing: Ingested) -> None:
        head = self.plan.headline
        for base in ("bm25", "dense"):
            if values["kenning"][head] < values[base][head]:
                self.losses[base].append({
                    "query": text,
                    "gold": [ing.content[f] for f in gold][:2],
                    "ranks": {s: gold_ranks(gold, ranked[s]) for s in SYSTEMS},
                    "kenning_top": [ing.content[f] for f in ranked["kenning"][:2]],
                })

    def wins(self) -> dict[str, dict[str, int]]:
        out = {}
        for base in ("bm25", "dense"):
            diff = [r["headline"]["kenning"] - r["headline"][base] for r in self.records]
            out[base] = {"better": sum(d > 0 for d in diff), "worse": sum(d < 0 for d in diff),
                         "tie": sum(d == 0 for d in diff)}
        return out

    def timing(self) -> dict[str, Any]:
        return {
            "ingest_s": round(self.ingest_s, 2),
            "docs_per_s": round(self.docs / self.ingest_s, 2) if self.ingest_s else None,
            "latency_ms": {
                s: {"p50": _round(percentile(v, 50)), "p95": _round(percentile(v, 95)), "n": len(v)}
                for s, v in self.latency_ms.items()
            },
        }


def gold_ranks(gold: set[str], ranked: list[str]) -> list[int]:
    """Positions (from 1) of the gold facts in a result list."""
    return [i for i, f in enumerate(ranked, 1) if f in gold]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def run_dataset(name: str, recipes: ModuleType, args: argparse.Namespace, console: Console) -> dict[str, Any]:
    loader, cfg = recipes.DATASETS[name]
    plan = PLANS.get(name, ONE_ANSWER)
    wall = time.perf_counter()
    load_before = os.getloadavg()[0]
    with console.status(f"loading {name}"):
        tasks = loader()
    load_s = time.perf_counter() - wall
    stats_all = recipes.task_stats(tasks)
    tasks, note = select_tasks(tasks, plan, args)
    console.log(f"{name}: {note} (loaded in {load_s:.1f} s)")
    run = Run(recipes, plan, bool(cfg.get("exclude_self")))
    beat = Heartbeat(console)
    config: dict[str, Any] = {}
    with _progress(console) as progress:
        bar = progress.add_task(f"{name} tasks", total=len(tasks))
        every = 1 if len(tasks) <= 20 else max(1, len(tasks) // 10)
        for i, task in enumerate(tasks, 1):
            queries = limit_queries(task, query_limit(plan, args), args.seed)
            with tempfile.TemporaryDirectory(prefix="kenning-bench-") as tmp, Kenning.open(tmp) as kb:
                if not config:
                    config = run_config(kb, args.commit)
                    kb.embedder.embed_query("warm-up")  # first-call costs stay out of the latencies
                bar_i, step = advancer(progress, f"{task['name']} ingest", len(task["corpus"]), beat)
                ing = ingest(kb, task["corpus"], progress=step)
                progress.remove_task(bar_i)
                bar_q, step = advancer(progress, f"{task['name']} queries", len(queries), beat)
                run.task(task, queries, kb, ing, step)
                progress.remove_task(bar_q)
            progress.advance(bar)
            if i % every == 0 or i == len(tasks):
                console.log(f"{name} {i}/{len(tasks)} {task['name']}: {len(task['corpus'])} docs in "
                            f"{ing.seconds:.1f} s, {len(queries)} queries")
    return {
        "note": note,
        "stats_all": stats_all,
        "stats_run": {"tasks": len(tasks), "docs": run.docs, "facts": run.facts, "skipped_empty": run.skipped,
                      "queries": len(run.records), "dropped": len(run.dropped)},
        "dropped_qids": run.dropped,
        "plan": {"metrics": plan.metrics, "group_metrics": plan.group_metrics, "headline": plan.headline,
                 "k": plan.max_k},
        "config": config,
        "load_s": round(load_s, 2),
        "loadavg_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "wall_s": round(time.perf_counter() - wall, 1),
        "timing": run.timing(),
        "metrics": run.scores.summary(),
        "wins": run.wins(),
        "queries": run.records,
        "_run": run,  # removed before writing JSON
    }


class Heartbeat:
    """Without a terminal (nohup, a log file) rich draws no bars: log a line a minute instead."""

    def __init__(self, console: Console, every_s: float = 60.0) -> None:
        self.console = console
        self.every_s = every_s
        self.on = not console.is_terminal
        self.last = time.monotonic()

    def __call__(self, what: str, done: int, total: int) -> None:
        if self.on and time.monotonic() - self.last >= self.every_s:
            self.last = time.monotonic()
            self.console.log(f"{what}: {done:,} of {total:,}")


def advancer(progress: Progress, label: str, total: int, beat: Heartbeat) -> tuple[TaskID, Callable[..., None]]:
    """A new bar, and a progress callback that moves it and lets the heartbeat report."""
    bar = progress.add_task(f"  {label}", total=total)
    done = 0

    def advance(n: int = 1) -> None:
        nonlocal done
        done += n
        progress.advance(bar, n)
        beat(label, done, total)

    return bar, advance


def _progress(console: Console) -> Progress:
    return Progress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=True,
    )


# -- reporting ---------------------------------------------------------------------------------------


def render(name: str, result: dict[str, Any], console: Console) -> None:
    run: Run = result["_run"]
    plan, scores, st = run.plan, run.scores, result["stats_run"]
    title = (f"{name}: {st['tasks']} tasks, {st['docs']:,} docs ({st['facts']:,} facts), "
             f"{st['queries']:,} queries" + (f", {st['dropped']} dropped" if st["dropped"] else ""))
    console.print(f"\n[bold]{title}[/]", highlight=False)
    table = Table()
    table.add_column("metric")
    table.add_column("n", justify="right")
    for system in SYSTEMS:
        table.add_column(LABELS[system], justify="right")
    rows = [("all", m) for m in plan.metrics]
    rows += [(g, m) for g in scores.groups() if g != "all" for m in plan.group_metrics]
    for group, metric in rows:
        values = [scores.mean(s, group, metric) for s in SYSTEMS]
        best = max((v for v in values if v is not None), default=None)
        cells = [("-" if v is None else f"[bold]{v:.1f}[/]" if v == best else f"{v:.1f}") for v in values]
        label = metric if group == "all" else f"{group} {metric}"
        table.add_row(label, f"{scores.count(group):,}", *cells)
    console.print(table)
    for line in describe(result):
        console.print(line, highlight=False)


def describe(result: dict[str, Any]) -> list[str]:
    cfg, t, st, plan = result["config"], result["timing"], result["stats_run"], result["plan"]
    lat = t["latency_ms"]
    wins = result["wins"]

    def ms(system: str) -> str:
        p = lat[system]
        return "-" if p["p50"] is None else f"p50 {p['p50']:.1f} ms / p95 {p['p95']:.1f} ms"

    return [
        f"sample: {result['note']}",
        f"config: kenning {cfg.get('kenning')} @ {cfg.get('commit')}, embedder {cfg.get('embedder')} "
        f"({cfg.get('dim')} d, {cfg.get('threads')} threads), recall k={plan['k']} with default settings; "
        "BM25 = SQLite FTS5 bm25 (k1 1.2, b 0.75) over kenning's segmented text; "
        "dense = cosine over kenning's stored vectors",
        f"ingest: {st['docs']:,} docs -> {st['facts']:,} facts in {t['ingest_s']:.1f} s "
        f"({t['docs_per_s']} docs/s, embedding included); kenning recall {ms('kenning')} "
        f"(query embedding included); BM25 {ms('bm25')}; dense search {ms('dense')}",
        f"kenning vs BM25 on {plan['headline']}: better on {wins['bm25']['better']}, worse on "
        f"{wins['bm25']['worse']}, tied {wins['bm25']['tie']}; vs dense: better on {wins['dense']['better']}, "
        f"worse on {wins['dense']['worse']}, tied {wins['dense']['tie']}",
        f"wall time: {result['wall_s']:.0f} s (loading {result['load_s']:.0f} s); 1-min load average "
        f"{result['loadavg_1min'][0]} at start, {result['loadavg_1min'][1]} at end ({cfg.get('cpus')} CPUs)",
    ]


def show_losses(name: str, result: dict[str, Any], n: int, seed: int, console: Console) -> None:
    run: Run = result["_run"]
    for base, losses in run.losses.items():
        if not losses:
            continue
        picked = random.Random(seed).sample(losses, min(n, len(losses)))
        console.print(f"\n[bold]{name}: {len(losses)} queries where kenning's {run.plan.headline} is below "
                      f"{LABELS[base]}'s; {len(picked)} of them[/]")
        for loss in picked:
            ranks = "; ".join(f"{LABELS[s]} {','.join(map(str, r)) or '-'}" for s, r in loss["ranks"].items())
            console.print(f"  Q: {_short(loss['query'], 240)}", highlight=False)
            console.print(f"     gold at ranks: {ranks}", highlight=False)
            for g in loss["gold"]:
                console.print(f"     gold: {_short(g)}", highlight=False)
            for top in loss["kenning_top"]:
                console.print(f"     kenning: {_short(top)}", highlight=False)


def _short(text: str, cells: int = 120) -> str:
    """One line of at most ``cells`` terminal cells (a Chinese character takes two)."""
    line = Text(" ".join(text.split()))
    line.truncate(cells, overflow="ellipsis")
    return line.plain


# -- entry point -------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark kenning's recall against BM25 and dense-only search on the shared data sets.",
        epilog="example: python bench/retrieval.py locomo xquad_zh2en --json bench/results/run.json",
    )
    parser.add_argument("datasets", nargs="+", metavar="DATASET",
                        help="names from recipes.py: " + ", ".join(PLANS))
    parser.add_argument("--data", default=str(DEFAULT_DATA),
                        help="folder holding recipes.py and the data (default: %(default)s)")
    parser.add_argument("--json", metavar="OUT.json", help="write every number (and per-query ranks) here")
    parser.add_argument("--limit-tasks", type=int, metavar="N", help="run only the first N tasks of a data set")
    parser.add_argument("--limit-queries", type=int, metavar="N",
                        help="at most N queries per task (seeded sample; 0 = all). Default: all, except "
                             "2,000 for LCQMC")
    parser.add_argument("--sample-users", type=int, default=100, metavar="N",
                        help="MemDaily users to sample, stratified by question type; 0 = all (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every sample (default: %(default)s)")
    parser.add_argument("--show-losses", type=int, default=0, metavar="N",
                        help="print N queries where kenning scores below a baseline, with their texts")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    args.commit = git_commit()  # now: the kenning modules in use were imported with this source
    recipes = load_recipes(args.data)
    unknown = [d for d in args.datasets if d not in recipes.DATASETS]
    if unknown:
        raise SystemExit(f"unknown data set {unknown[0]!r}; recipes.py has: {', '.join(recipes.DATASETS)}")
    console = Console(width=None if sys.stdout.isatty() else 140)
    out: dict[str, Any] = {"argv": sys.argv, "data": str(Path(args.data).resolve()), "datasets": {}}
    for name in args.datasets:
        result = run_dataset(name, recipes, args, console)
        render(name, result, console)
        if args.show_losses:
            show_losses(name, result, args.show_losses, args.seed, console)
        out["datasets"][name] = {k: v for k, v in result.items() if k != "_run"}
        if args.json:
            write_json(args.json, out)
    if args.json:
        console.print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
