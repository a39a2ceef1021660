#!/usr/bin/env python3
"""Does a hit's ``relevance`` tell a real hit from the best of nothing? Own store against a foreign one.

    python bench/relevance.py                      # the tables, on the test split
    python bench/relevance.py --fit                # fit the calibration and floor on dev, print constants
    python bench/relevance.py --fit --null         # ... on the null measured in this run
    python bench/relevance.py --records R.json     # reuse the hits collected by an earlier run

Every query of a data set is asked (``recall`` with ``min_relevance=0``, k 10) of its own store and
of a *foreign* store, where nothing is relevant (``foreign_store``: the LoCoMo conversation or
sampled MemDaily user half the list away; a LoCoMo conversation for the tool sets). Printed per data
set and split:

* AUROC of the best hit's relevance (the highest among the ten), own store against foreign store;
* the share of foreign queries answered with nothing at the default floor
  (``kenning.retrieval.relevance.DEFAULT_MIN_RELEVANCE``);
* R@10 on the own stores with every hit (floor 0) and at the default floor, and the points lost.

Splits: LoCoMo conversations and MemDaily users alternate between dev and test (by their position
in the data set); the tool sets split their queries by a hash of the query id. ``--fit`` shows
the null measured on the way (cosines of each query with every passage of the foreign stores, and
XQuAD questions with the paragraphs that do not answer them; ``--null`` takes it in place of the
shipped one) and fits the logistic
calibration and the default floor on the dev split of the memory sets (LoCoMo, MemDaily) only;
the tool sets are shown beside them (skills have their own calibration). The tables then show dev
and test side by side. Stores are kept under ``--cache`` (as ``bench/sweep.py`` keeps them) and reused.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DEFAULT_DATA, BatchedQueries, StoredDense, git_commit, load_recipes, write_json  # noqa: E402
from everyday import NAMES as EVERYDAY_NAMES  # noqa: E402
from everyday import features as everyday_features  # noqa: E402
from everyday import fit_logistic  # noqa: E402
from retrieval import sample_users  # noqa: E402
from sweep import open_task  # noqa: E402

from kenning import retrieval as kr  # noqa: E402
from kenning.embed import default_embedder  # noqa: E402
from kenning.retrieval import relevance as rel  # noqa: E402
from kenning.text import language  # noqa: E402

console = Console(width=160)
K = 10
SETS = ("locomo", "memdaily", "metatool", "seal_tools")
MEMORY_SETS = ("locomo", "memdaily")
# MetaTool holds 20k queries over 199 tools; a seeded sample per tool keeps the run short
METATOOL_PER_TOOL = 5
# a source with fewer cosines than this (MemDaily's few questions detected as English) is shown, not used
MIN_NULL_PAIRS = 1000


def split_of(dataset: str, position: int, qid: str) -> str:
    if dataset in ("metatool", "seal_tools"):
        return "dev" if zlib.crc32(str(qid).encode()) % 2 == 0 else "test"
    return "dev" if position % 2 == 0 else "test"


def load_tasks(name: str, recipes: Any, args: argparse.Namespace) -> list[dict[str, Any]]:
    if name == "metatool":
        return recipes.load_metatool(max_per_tool=METATOOL_PER_TOOL)
    tasks = recipes.DATASETS[name][0]()
    if name == "memdaily":
        tasks = sample_users(tasks, args.sample_users, args.seed)
    return tasks


def hits_of(kb: Any, emb: Any, text: str, qlang: str, gold: set[str]) -> list[dict[str, Any]]:
    hits = kr.recall(kb.store, emb, text, k=K, scope="default", filters=kr.Filters(), touch=False)
    return [{"cos": h.semantic, "z": h.z, "rows": hits.rows, "share": h.word_share, "qlang": qlang,
             "dlang": language(h.item.content), "gold": h.item.id in gold, "id": h.item.id} for h in hits]


class Null:
    """Running sums of cosines of unrelated text, per (data set, query language, passage language)."""

    def __init__(self) -> None:
        self.sums: dict[tuple[str, str, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])

    def add(self, source: str, qlang: str, dlang: str, cos: np.ndarray) -> None:
        s = self.sums[(source, qlang, dlang)]
        s[0] += float(cos.sum())
        s[1] += float((cos.astype(np.float64) ** 2).sum())
        s[2] += len(cos)

    def table(self) -> dict[tuple[str, str], tuple[float, float]]:
        """Mean and sd per language pair: each data set's moments, averaged over the data sets."""
        by_pair: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
        for (_source, q, d), (total, sq, n) in self.sums.items():
            if n < MIN_NULL_PAIRS:
                continue
            mean = total / n
            by_pair[(q, d)].append((mean, sq / n))
        out = {}
        for pair, moments in by_pair.items():
            mean = float(np.mean([m for m, _ in moments]))
            second = float(np.mean([s for _, s in moments]))
            out[pair] = (round(mean, 4), round(float(np.sqrt(max(second - mean * mean, 1e-9))), 4))
        return out

    def rows(self) -> list[tuple[str, str, str, float, float, int]]:
        out = []
        for (source, q, d), (total, sq, n) in sorted(self.sums.items()):
            mean = total / n
            out.append((source, q, d, mean, float(np.sqrt(max(sq / n - mean * mean, 0))), int(n)))
        return out


def collect(recipes: Any, args: argparse.Namespace, null: Null, sets: list[str]) -> list[dict[str, Any]]:
    """Every query's hits in its own store and a foreign one, and the null cosines on the way."""
    base = default_embedder(threads=args.threads)
    records: list[dict[str, Any]] = []
    loaded = {name: load_tasks(name, recipes, args) for name in SETS}
    for name in sets:
        tasks = loaded[name]
        texts = [q[1] for t in tasks for q in limited(t, args)]
        emb = BatchedQueries(base, texts)
        for i, task in enumerate(tasks):
            fname, fi = foreign_store(name, i, loaded)
            kb, ing = open_task(args.cache, name, task)
            fkb, _ = open_task(args.cache, fname, loaded[fname][fi])
            fmatrix = StoredDense(fkb).matrix
            for qid, text, gold, _meta in limited(task, args):
                gold_facts = ing.facts(str(g) for g in gold)
                if not gold_facts:
                    continue
                qlang = language(text)
                records.append({
                    "set": name, "task": task["name"], "qid": str(qid), "split": split_of(name, i, str(qid)),
                    "gold": sorted(gold_facts), "own": hits_of(kb, emb, text, qlang, gold_facts),
                    "foreign": hits_of(fkb, emb, text, qlang, set()),
                })
                null.add(name, qlang, _passage_language(fname), fmatrix @ emb.embed_query(text))
            kb.close()
            fkb.close()
            console.log(f"{name} {i + 1}/{len(tasks)}: {task['name']}")
    if "locomo" in sets:  # by then every store the cross-language null reads exists
        _cross_language_null(recipes, args, base, loaded, null)
    return records


def foreign_store(name: str, position: int, loaded: dict[str, list[dict[str, Any]]]) -> tuple[str, int]:
    """The store a query of task ``position`` is asked where nothing is relevant to it.

    Half the list away, not the next one: sampled MemDaily users come in runs made from one template
    (users 57 and 58 of a category hold the same people and heights), so a neighbour's store answers
    the question. Half the list away falls in another category or conversation (no message shared,
    measured on the 100 sampled users). The tool sets are asked of a LoCoMo conversation: MetaTool's
    and Seal-Tools' tools overlap (both have weather and translation tools), so neither is foreign to
    the other's queries."""
    if name in ("metatool", "seal_tools"):
        return "locomo", position % len(loaded["locomo"])
    tasks = loaded[name]
    return name, (position + len(tasks) // 2) % len(tasks)


def _passage_language(dataset: str) -> str:
    return "zh" if dataset.startswith("memdaily") or dataset.endswith("2zh") else "en"


def limited(task: dict[str, Any], args: argparse.Namespace) -> list[tuple[Any, ...]]:
    queries = task["queries"]
    if args.limit_queries and len(queries) > args.limit_queries:
        keep = sorted(random.Random(f"{args.seed}:{task['name']}").sample(range(len(queries)), args.limit_queries))
        return [queries[i] for i in keep]
    return list(queries)


def _cross_language_null(recipes: Any, args: argparse.Namespace, base: Any,
                         loaded: dict[str, list[dict[str, Any]]], null: Null) -> None:
    """Cosines across languages: LoCoMo questions against a MemDaily user's messages and back, and
    XQuAD questions (both languages) against the paragraphs that do not answer them."""
    for qset, dset in [("locomo", "memdaily"), ("memdaily", "locomo")]:
        texts = [q[1] for t in loaded[qset][:4] for q in limited(t, args)]
        emb = BatchedQueries(base, texts)
        for j, task in enumerate(loaded[dset][:4]):
            kb, _ = open_task(args.cache, dset, task)
            matrix = StoredDense(kb).matrix
            for text in texts[j::4]:
                null.add(f"{qset}->{dset}", language(text), _passage_language(dset), matrix @ emb.embed_query(text))
            kb.close()
    xquad_null(recipes, args, base, null)


def xquad_null(recipes: Any, args: argparse.Namespace, base: Any, null: Null) -> None:
    """XQuAD questions (both languages) against the paragraphs that do not answer them."""
    for name in ("xquad_zh2zh", "xquad_en2en", "xquad_zh2en", "xquad_en2zh"):
        task = recipes.DATASETS[name][0]()[0]
        kb, ing = open_task(args.cache, name, task)
        dense = StoredDense(kb)
        queries = task["queries"][:: max(1, len(task["queries"]) // 300)]
        emb = BatchedQueries(base, [q[1] for q in queries])
        index = {f: i for i, f in enumerate(dense.ids)}
        for _qid, text, gold, _meta in queries:
            cos = dense.matrix @ emb.embed_query(text)
            keep = np.ones(len(cos), dtype=bool)
            keep[[index[f] for f in ing.facts(gold) if f in index]] = False
            null.add("xquad", language(text), _passage_language(name), cos[keep])
        kb.close()


# -- scoring ---------------------------------------------------------------------------------------------


def features(h: dict[str, Any]) -> np.ndarray:
    """The evidence recall computed for a hit, as ``kenning.relevance.relevance_of`` weighs it
    (``bench/everyday.py`` fits the same model on more sets)."""
    return everyday_features(h)


def fitted(record: dict[str, Any]) -> bool:
    """Whether a record belongs to the data the calibration and floor are fitted on: the dev split
    of the memory sets. The tool sets are shown, not fitted: tool descriptions are skills' kind of
    text, which ``kenning.skills.relevance`` calibrates on its own."""
    return record["split"] == "dev" and record["set"] in MEMORY_SETS


def training_data(records: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dev hits: own-store hits labelled by gold, foreign hits negative; each data set weighs the same."""
    rows, labels, weights = [], [], []
    per_set: dict[str, int] = defaultdict(int)
    for r in records:
        if fitted(r):
            per_set[r["set"]] += len(r["own"]) + len(r["foreign"])
    for r in records:
        if not fitted(r):
            continue
        for h in r["own"] + r["foreign"]:
            rows.append(features(h))
            labels.append(float(h["gold"]))
            weights.append(1000.0 / per_set[r["set"]])
    return np.array(rows), np.array(labels), np.array(weights)


def relevance_of(h: dict[str, Any]) -> float:
    shipped = 0.0 if h["cos"] is None else rel.cosine_z(float(h["cos"]), h["qlang"], h["dlang"])
    return rel.relevance_of(float(h["z"]), shipped, float(h["share"]), int(h["rows"]))


def best(hits: list[dict[str, Any]]) -> float:
    return max((relevance_of(h) for h in hits), default=0.0)


def auroc(pos: list[float], neg: list[float]) -> float:
    """Probability that a random own query's best hit outranks a random foreign one's (ties half)."""
    if not pos or not neg:
        return float("nan")
    values = np.array(pos + neg)
    order = values.argsort(kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(1, len(values) + 1)
    for v in np.unique(values):  # average ranks of ties
        tied = values == v
        ranks[tied] = ranks[tied].mean()
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def recall_at(r: dict[str, Any], floor: float) -> float:
    kept = [h for h in r["own"] if relevance_of(h) >= floor]
    return sum(h["gold"] for h in kept) / len(r["gold"])


def summary(records: list[dict[str, Any]], floor: float) -> dict[str, float]:
    own = [best(r["own"]) for r in records]
    foreign = [best(r["foreign"]) for r in records]
    r0 = 100 * float(np.mean([recall_at(r, 0.0) for r in records]))
    rf = 100 * float(np.mean([recall_at(r, floor) for r in records]))
    return {"n": len(records), "auroc": auroc(own, foreign),
            "foreign_empty": 100 * float(np.mean([f < floor for f in foreign])),
            "own_empty": 100 * float(np.mean([o < floor for o in own])),
            "r10": r0, "r10_floor": rf, "lost": r0 - rf}


def choose_floor(records: list[dict[str, Any]], max_loss: float) -> float:
    """The highest floor at which dev R@10, averaged over the memory sets, loses at most ``max_loss`` points."""
    dev = [r for r in records if fitted(r)]
    sets = sorted({r["set"] for r in dev})
    ok = 0.0
    for floor in np.arange(0.005, 0.95, 0.005):
        lost = [summary([r for r in dev if r["set"] == s], float(floor))["lost"] for s in sets]
        if float(np.mean(lost)) > max_loss:
            break
        ok = float(floor)
    return round(ok, 3)


def show(records: list[dict[str, Any]], floor: float, title: str) -> None:
    table = Table(title=title)
    for col in ("set", "split", "queries", "AUROC", "foreign empty %", "own empty %", "R@10 all",
                "R@10 at floor", "points lost"):
        table.add_column(col, justify="left" if col in ("set", "split") else "right")
    for name in SETS:
        for split in ("dev", "test"):
            part = [r for r in records if r["set"] == name and r["split"] == split]
            if not part:
                continue
            s = summary(part, floor)
            table.add_row(name, split, f"{s['n']:,}", f"{s['auroc']:.3f}", f"{s['foreign_empty']:.1f}",
                          f"{s['own_empty']:.1f}", f"{s['r10']:.1f}", f"{s['r10_floor']:.1f}", f"{s['lost']:.1f}")
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fit", action="store_true", help="fit the calibration and floor on dev (the null shown)")
    parser.add_argument("--null", action="store_true", help="--fit: also take the null measured here in place of "
                        "the shipped one (see kenning/retrieval/relevance.py for why it is kept)")
    parser.add_argument("--records", type=Path, help="hits of earlier runs: sets found there are not asked again; "
                        "the others are collected and added")
    parser.add_argument("--merge", type=Path, nargs="*", default=[], help="more record files to read")
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS, help="data sets (default: all)")
    parser.add_argument("--cache", type=Path, default=Path(__file__).resolve().parent / "results" / "stores")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sample-users", type=int, default=100)
    parser.add_argument("--limit-queries", type=int, help="at most N queries per task (seeded sample)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2, help="the embedder's threads (default: %(default)s)")
    parser.add_argument("--max-loss", type=float, default=2.0,
                        help="--fit: R@10 points the floor may cost any data set on dev (default: %(default)s)")
    args = parser.parse_args()
    commit = git_commit()
    saved: dict[str, Any] = {"records": [], "null": []}
    if args.records and args.records.exists():
        saved = json.loads(args.records.read_text())
    for extra in args.merge:  # runs made side by side (other sets) into other files
        more = json.loads(extra.read_text())
        known = {r["set"] for r in saved["records"]}
        saved["records"] += [r for r in more["records"] if r["set"] not in known]
        saved["null"] += [row for row in more["null"] if row[0] not in known]
    have = {r["set"] for r in saved["records"]}
    wanted = [s for s in args.sets if s not in have]
    if wanted:
        null = Null()
        saved["records"] += collect(load_recipes(args.data), args, null, wanted)
        saved["null"] += [list(r) for r in null.rows()]
        saved["commit"] = commit
        if args.records:
            write_json(args.records, saved)
    records, null_table = saved["records"], saved["null"]
    console.print(f"config: kenning @ {commit}, k={K}, embedder threads {args.threads}, MemDaily "
                  f"{args.sample_users} users (seed {args.seed}), MetaTool {METATOOL_PER_TOOL} queries per tool")
    if args.fit:
        fit(records, null_table, args)
    show(records, rel.DEFAULT_MIN_RELEVANCE, f"relevance of the best hit, own vs foreign store "
         f"(floor {rel.DEFAULT_MIN_RELEVANCE})")


def fit(records: list[dict[str, Any]], null_rows: list[list[Any]], args: argparse.Namespace) -> None:
    table = Table(title="null: cosine of unrelated text (query language -> passage language)")
    for col in ("source", "query", "passage", "mean", "sd", "pairs"):
        table.add_column(col)
    null = Null()
    for source, q, d, mean, sd, n in null_rows:
        table.add_row(source, q, d, f"{mean:.4f}", f"{sd:.4f}", f"{n:,}")
        null.sums[(source, q, d)] = [mean * n, (sd * sd + mean * mean) * n, n]
    console.print(table)
    if args.null:
        rel.NULL.update(null.table())
    x, y, w = training_data(records)
    beta = fit_logistic(x, y, w)
    names = EVERYDAY_NAMES
    for name, value in zip(names, beta):
        setattr(rel, name, round(float(value), 3))
    rel.DEFAULT_MIN_RELEVANCE = choose_floor(records, args.max_loss)
    console.print("constants for src/kenning/relevance.py, fitted on the memory sets alone "
                  "(bench/everyday.py --fit adds the everyday stores and XQuAD):")
    console.print(f"NULL = {rel.NULL}")
    console.print(", ".join(f"{name} = {getattr(rel, name)}" for name in names))
    console.print(f"DEFAULT_MIN_RELEVANCE = {rel.DEFAULT_MIN_RELEVANCE}")


if __name__ == "__main__":
    main()
