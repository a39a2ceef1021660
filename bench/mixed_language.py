#!/usr/bin/env python3
"""Recall in stores that hold English and Chinese memories together, beside the same queries on
stores in one language: kenning against BM25 and dense.

    python bench/mixed_language.py
    python bench/mixed_language.py --set CROSS_LANGUAGE_SHARE=0,0.3,0.5 --only xquad

Sets (each printed with kenning, BM25 and dense, and for kenning the same queries on the store in
one language):

* ``xquad mixed``: the 240 XQuAD paragraphs, those of the even-numbered articles (48 articles of
  five paragraphs) in English, the others in Chinese; every question asked in Chinese and in
  English. The reference for a question is the store in one language that holds its paragraph in
  the same language as the mixed store does (``xquad_zh2zh`` / ``xquad_zh2en`` for a Chinese
  question whose paragraph is Chinese / English, and so on).
* ``memdaily + locomo``: each sampled MemDaily user's messages with 200 LoCoMo turns (English) as
  distractors, beside the clean store and the one with 200 other users' messages
  (``memdaily_noise200``: Chinese distractors).
* ``locomo + memdaily``: each LoCoMo conversation with 200 MemDaily messages (Chinese) mixed in.

The vectors of every text come from the stores ``bench/sweep.py`` keeps under ``--cache`` (the
same embedder made them; a text not found there is embedded), so mixing costs no embedding.
``--set`` scores other values of ``kenning.retrieval`` constants on the same stores.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sqlite3
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402
    DEFAULT_DATA, BatchedQueries, FtsBM25, Ingested, KnownVectors, Scores, StoredDense, apply_settings,
    current_settings, git_commit, ingest, load_recipes,
)
from retrieval import sample_users  # noqa: E402
from sweep import open_task, settings  # noqa: E402

from kenning import Kenning  # noqa: E402
from kenning import retrieval as kr  # noqa: E402
from kenning.embed import default_embedder  # noqa: E402

console = Console(width=180)
XQUAD_METRICS = ("Hit@1", "Hit@5", "MRR@10")
MEMORY_METRICS = ("Hit@1", "R@5", "R@10", "MRR@10")
DISTRACTORS = 200
MIXED_CACHE: Path | None = None  # --mixed-cache


def vectors_of(homes: list[Path]) -> dict[str, np.ndarray]:
    """content -> stored vector, from kenning stores on disk."""
    known: dict[str, np.ndarray] = {}
    for home in homes:
        db = home / "kenning.db"
        if not db.exists():
            continue
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            for content, blob in conn.execute(
                    "SELECT i.content, v.vec FROM vectors v JOIN items i ON i.rowid = v.item_rowid"):
                known[str(content)] = np.frombuffer(blob, dtype=np.float32)
        finally:
            conn.close()
    return known


def mixed_store(cache: Path, name: str, corpus: dict[Any, str], embedder: KnownVectors) -> tuple[Kenning, Ingested]:
    home = (MIXED_CACHE or cache / "mixed") / re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
    mapping = home / "mapping.json"
    kb = Kenning.open(home, embedder=embedder)  # type: ignore[arg-type]
    if mapping.exists():
        data = json.loads(mapping.read_text())
        return kb, Ingested(data["fact_of"], data["docs_of"], data["content"], 0.0)
    ing = ingest(kb, dict(corpus))
    mapping.write_text(json.dumps({"fact_of": ing.fact_of, "docs_of": ing.docs_of, "content": ing.content}))
    return kb, ing


class Bench:
    """Scores of kenning (one row per --set combination), BM25 and dense on one set."""

    def __init__(self, recipes: Any, metrics: Sequence[str], configs: list[dict[str, float]]) -> None:
        self.metrics, self.configs = metrics, configs
        self.labels = [label_of(c) for c in configs]
        self.systems = ["BM25", "dense", *self.labels]
        self.scores = Scores(recipes, metrics, self.systems)
        self.defaults = current_settings(n for c in configs for n in c)

    def task(self, kb: Kenning, ing: Ingested, queries: list[tuple[str, str, set[Any], str]],
             emb: BatchedQueries) -> None:
        bm25, dense = FtsBM25(ing.content), StoredDense(kb)
        k = max(int(m.split("@")[1]) for m in self.metrics)
        for _qid, text, gold, group in queries:
            gold_facts = ing.facts(gold)
            if not gold_facts:
                continue
            ranked = {"BM25": bm25.search(text, k), "dense": dense.search(emb.embed_query(text), k)}
            for label, config in zip(self.labels, self.configs):
                apply_settings(config, self.defaults)
                hits = kr.recall(kb.store, emb, text, k=k, scope="default", filters=kr.Filters(), touch=False)
                ranked[label] = [h.item.id for h in hits]
            apply_settings(self.defaults, self.defaults)
            for system in self.systems:
                self.scores.add(system, ["all", group], gold_facts, ranked[system])
        bm25.close()


def label_of(config: dict[str, float]) -> str:
    return "kenning " + (" ".join(f"{k.lower()}={v:g}" for k, v in config.items()) or "default")


def xquad(recipes: Any, args: argparse.Namespace, base: Any, configs: list[dict[str, float]]) -> list[Table]:
    """The mixed XQuAD store, and the same questions on the four stores in one language."""
    tasks = {n: recipes.DATASETS[n][0]()[0] for n in ("xquad_zh2zh", "xquad_en2en", "xquad_zh2en", "xquad_en2zh")}
    zh, en = tasks["xquad_zh2zh"], tasks["xquad_en2en"]
    homes = [args.cache / n / re.sub(r"[^A-Za-z0-9_.-]+", "_", t["name"]) for n, t in tasks.items()]
    emb = KnownVectors(base.name, base.dim, vectors_of(homes), base)
    lang_of = {i: ("en" if (i // 5) % 2 == 0 else "zh") for i in zh["corpus"]}
    corpus = {i: (en if lang_of[i] == "en" else zh)["corpus"][i] for i in zh["corpus"]}
    queries = {"zh": zh["queries"], "en": en["queries"]}
    qemb = BatchedQueries(base, [q[1] for qs in queries.values() for q in qs])
    mixed = Bench(recipes, XQUAD_METRICS, configs)
    kb, ing = mixed_store(args.cache, "xquad_mixed", {str(i): t for i, t in corpus.items()}, emb)
    for qlang, qs in queries.items():
        mixed.task(kb, ing, [(qid, text, {str(g) for g in gold}, f"{qlang}->{lang_of[next(iter(gold))]}")
                             for qid, text, gold, _ in qs], qemb)
    kb.close()
    if args.mixed_only:
        return [table_of("XQuAD, mixed store (even articles English, odd Chinese)", mixed)]
    single = Bench(recipes, XQUAD_METRICS, configs)
    for name, task in tasks.items():
        qlang, dlang = name[6:8], name[9:11]
        kb, ing = open_task(args.cache, name, task)
        # only the questions whose paragraph the mixed store holds in this store's language
        chosen = [(qid, text, gold, f"{qlang}->{dlang}") for qid, text, gold, _ in task["queries"]
                  if lang_of[next(iter(gold))] == dlang]
        single.task(kb, ing, [(q, t, {str(g) for g in gold}, grp) for q, t, gold, grp in chosen], qemb)
        kb.close()
    return [table_of("XQuAD, mixed store (even articles English, odd Chinese)", mixed),
            table_of("XQuAD, the same questions on stores in one language", single)]


def memdaily_mixed(recipes: Any, args: argparse.Namespace, base: Any, configs: list[dict[str, float]]) -> list[Table]:
    """Each sampled MemDaily user with LoCoMo turns as English distractors, beside the clean store."""
    users = sample_users(recipes.DATASETS["memdaily"][0](), args.sample_users, args.seed)
    turns = [t for task in recipes.DATASETS["locomo"][0]() for t in task["corpus"].values()]
    return with_distractors(recipes, args, base, configs, "memdaily", users, turns,
                            ("clean", "+ 200 LoCoMo turns (English)"), f"MemDaily ({len(users)} users)")


def locomo_mixed(recipes: Any, args: argparse.Namespace, base: Any, configs: list[dict[str, float]]) -> list[Table]:
    """Each LoCoMo conversation with 200 MemDaily messages as Chinese distractors, beside the plain one."""
    users = sample_users(recipes.DATASETS["memdaily"][0](), args.sample_users, args.seed)
    messages = [m for u in users for m in u["corpus"].values()]
    return with_distractors(recipes, args, base, configs, "locomo", recipes.DATASETS["locomo"][0](), messages,
                            ("alone", "+ 200 MemDaily messages (Chinese)"), "LoCoMo")


def with_distractors(recipes: Any, args: argparse.Namespace, base: Any, configs: list[dict[str, float]],
                     name: str, tasks: list[dict[str, Any]], distractors: list[str], labels: tuple[str, str],
                     title: str) -> list[Table]:
    """Every task of data set ``name`` on its own store, then with ``DISTRACTORS`` texts of the other
    language mixed in (a seeded sample per task); one table each."""
    other = "locomo" if name == "memdaily" else "memdaily"
    homes = [*(args.cache / "memdaily").glob("*"), *(args.cache / "locomo").glob("*")]
    emb = KnownVectors(base.name, base.dim, vectors_of(homes), base)
    qemb = BatchedQueries(base, [q[1] for t in tasks for q in t["queries"]])
    out = []
    for label, noise in zip(labels, (False, True)):
        bench = Bench(recipes, MEMORY_METRICS, configs)
        for task in tasks:
            if noise:
                corpus = {str(k): v for k, v in task["corpus"].items()}
                rng = random.Random(f"{args.seed}:{task['name']}")
                corpus.update({f"noise{j}": t for j, t in enumerate(rng.sample(distractors, DISTRACTORS))})
                kb, ing = mixed_store(args.cache, f"{name}_{other}/{task['name']}", corpus, emb)
            else:
                kb, ing = open_task(args.cache, name, task)
            bench.task(kb, ing, [(qid, t, {str(g) for g in gold}, str(meta["cat"]))
                                 for qid, t, gold, meta in task["queries"]], qemb)
            kb.close()
        out.append(table_of(f"{title}, {label}", bench))
    if emb.missed:
        console.print(f"[yellow]{emb.missed} MemDaily/LoCoMo texts had no stored vector and were embedded[/]")
    return out


def table_of(title: str, bench: Bench) -> Table:
    scores = bench.scores
    table = Table(title=f"{title} ({scores.count('all')} queries)")
    table.add_column("system")
    columns = [("all", m) for m in bench.metrics]
    if any(g.count("->") for g in scores.groups()):
        columns += [(g, "Hit@1") for g in scores.groups()[1:]]
    for group, metric in columns:
        table.add_column(metric if group == "all" else f"{group} {metric}", justify="right")
    for system in bench.systems:
        table.add_row(system, *[f"{scores.mean(system, g, m):.1f}" for g, m in columns])
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("xquad", "memdaily", "locomo"), action="append")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=V1,V2")
    parser.add_argument("--cache", type=Path, default=Path(__file__).resolve().parent / "results" / "stores")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sample-users", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--mixed-only", action="store_true", help="XQuAD: leave out the stores in one language")
    parser.add_argument("--mixed-cache", type=Path, help="where the mixed stores go (default: CACHE/mixed); "
                        "another kenning version may need its own")
    args = parser.parse_args()
    global MIXED_CACHE
    MIXED_CACHE = args.mixed_cache
    recipes = load_recipes(args.data)
    base = default_embedder(threads=args.threads)
    configs = settings(args.set)
    console.print(f"config: kenning @ {git_commit()} ({Path(kr.__file__).parents[1]}), embedder {base.name} "
                  f"({base.threads} threads), sets {', '.join(args.set) or 'defaults'}")
    runs = {"xquad": xquad, "memdaily": memdaily_mixed, "locomo": locomo_mixed}
    for name in args.only or list(runs):
        for table in runs[name](recipes, args, base, configs):
            console.print(table)


if __name__ == "__main__":
    main()
