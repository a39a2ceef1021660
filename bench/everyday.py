#!/usr/bin/env python3
"""Recall and context in the small stores people really have: kenning's own everyday set, and the
floor's cost on the benchmark sets, at the default settings beside ``min_relevance=0``.

    python bench/everyday.py                       # the everyday tables, test split
    python bench/everyday.py --split dev           # ... on the dev split
    python bench/everyday.py --sets locomo memdaily xquad_en2zh xquad_zh2en xquad_en2en xquad_zh2zh
    python bench/everyday.py --fit --sets ...      # fit the relevance calibration and floor on dev

The everyday set (``bench/data/everyday/{en,zh,mixed}.json``, written by the team for this, not
drawn from any set the calibration was first fitted on) holds stores of 5 to 50 facts and lessons,
each with questions and tasks labelled with their pertinent items, and off-topic questions that
should get nothing. Stores alternate between the dev and the test split. Every item is written
through ``remember`` / ``lessons.record`` (the gate may merge a restatement or supersede a
correction: a label on an item that left recall is counted as such). Printed per file:

* R@5 of the pertinent items at floor 0 and at the default floor, over questions and tasks;
* context recall: the share of pertinent items ``kb.context(text)`` shows (task layout), and the
  same in the session layout;
* false drops: pertinent items in the top 10 at floor 0 that the default floor removed;
* false answers: off-topic cases that got a hit from recall at the default floor, and off-topic
  cases whose context shows a fact or lesson;
* ECE of ``relevance`` over the top 10 hits of every case, and a reliability table by decile.

``--sets`` also asks the questions of benchmark sets (their stores kept under ``--cache``, as
``bench/sweep.py`` keeps them) and prints R@10 and Hit@1 at floor 0 and at the default floor, per
split. ``--fit`` fits ``kenning.retrieval.relevance``'s logistic calibration on the dev hits of every set
collected (each set weighs the same) and the default floor (the highest at which no set's dev R@10
or Hit@1 drops by more than ``--max-loss`` points), and prints the constants. Hits are kept in
``--records`` and reused (``--fresh`` asks again).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import shutil
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DEFAULT_DATA, StoredDense, git_commit, load_recipes  # noqa: E402
from retrieval import sample_users  # noqa: E402
from sweep import open_task  # noqa: E402

from kenning import Kenning  # noqa: E402
from kenning.retrieval import relevance as rel  # noqa: E402
from kenning import retrieval as kr  # noqa: E402
from kenning.embed import default_embedder  # noqa: E402
from kenning.text import language  # noqa: E402

console = Console(width=170)
HERE = Path(__file__).resolve().parent
EVERYDAY = HERE / "data" / "everyday"
FILES = ("en", "zh", "mixed")
# the mixed stores with every memory rendered in one language (the same items, ids and cases): recall
# on a store of two languages against recall on the same memories in one; read when present, never
# fitted on (they repeat the mixed stores' content)
RECIPE_FILES = ("mixed_as_en", "mixed_as_zh")
K = 10
R_AT = 5
CONTEXT_BUDGET = 2000
EVERYDAY_WEIGHT = 2.0  # in the fit: the stores people have count twice a benchmark set
MEMORY_SECTIONS = {"hot", "facts", "lessons", "entities", "relevant", "recent"}


# -- the everyday stores -----------------------------------------------------------------------------


@dataclass
class Loaded:
    """One everyday store written into a kenning home, and its labels mapped to item ids."""

    kb: Kenning
    store: dict[str, Any]
    ids: dict[str, str]  # label id -> kenning id of the item that holds it now
    gone: set[str]  # label ids whose item left recall (superseded by a later item)


def everyday_files() -> tuple[str, ...]:
    return FILES + tuple(f for f in RECIPE_FILES if (EVERYDAY / f"{f}.json").exists())


def load_file(name: str) -> list[dict[str, Any]]:
    data = json.loads((EVERYDAY / f"{name}.json").read_text(encoding="utf-8"))
    for store in data["stores"]:
        store["file"] = name
    return list(data["stores"])


def write_store(kb: Kenning, store: dict[str, Any]) -> tuple[dict[str, str], set[str]]:
    ids: dict[str, str] = {}
    for item in store["items"]:
        if item["kind"] == "lesson":
            made = kb.lessons.record(item["action"], item["context"], item["outcome"], item["insight"])
        else:
            made = kb.remember(item["content"], category=item.get("category"), pinned=bool(item.get("pinned")))
        ids[item["id"]] = made.id
    live = {i.id for i in kb.items(limit=1000).items}
    return ids, {label for label, item_id in ids.items() if item_id not in live}


def open_store(store: dict[str, Any], cache: Path, work: Path, embedder: Any) -> Loaded:
    """The store written once under ``cache`` (keyed by its content), copied to ``work`` for this run
    (context counts accesses, which would move the next run's ranking)."""
    key = hashlib.sha256(json.dumps(store["items"], sort_keys=True).encode()).hexdigest()[:16]
    home = cache / f"{store['id']}-{key}"
    labels = home / "labels.json"
    if not labels.exists():
        shutil.rmtree(home, ignore_errors=True)
        with Kenning.open(home, embedder=embedder) as kb:
            ids, gone = write_store(kb, store)
        labels.write_text(json.dumps({"ids": ids, "gone": sorted(gone)}))
    data = json.loads(labels.read_text())
    copy = work / home.name
    shutil.copytree(home, copy)
    return Loaded(Kenning.open(copy, embedder=embedder), store, data["ids"], set(data["gone"]))


def hit_record(h: Any, pertinent: set[str], rows: int, qlang: str) -> dict[str, Any]:
    return {"id": h.item.id, "kind": h.item.kind, "z": getattr(h, "z", None), "rows": rows, "qlang": qlang,
            "cos": h.semantic,
            "share": h.word_share,
            "relevance": h.relevance, "gold": h.item.id in pertinent, "dlang": language(h.item.content),
            "category": getattr(h.item, "category", None), "outcome": getattr(h.item, "outcome", None)}


def context_ids(kb: Kenning, text: str, layout: str) -> set[str]:
    ctx = kb.context(text, CONTEXT_BUDGET, layout=layout)
    return {str(s["id"]) for sec in ctx.sections if sec.name in MEMORY_SECTIONS for s in sec.sources if s.get("id")}


def everyday_records(stores: list[dict[str, Any]], args: argparse.Namespace, embedder: Any) -> list[dict[str, Any]]:
    records = []
    with tempfile.TemporaryDirectory(prefix="everyday-") as tmp:
        for n, store in enumerate(stores, 1):
            loaded = open_store(store, args.cache / "everyday", Path(tmp), embedder)
            kb = loaded.kb
            for case in store["cases"]:
                pertinent = {loaded.ids[p] for p in case["pertinent"] if p not in loaded.gone}
                hits = kr.recall(kb.store, kb.embedder, case["text"], k=K, scope="default", filters=kr.Filters(), touch=False)
                records.append({
                    "set": f"everyday-{store['file']}", "split": store["split"], "store": store["id"],
                    "size": len(store["items"]), "case": case["id"], "type": case["type"],
                    "lang": case.get("lang") or language(case["text"]), "text": case["text"],
                    "gold": sorted(pertinent), "gone": len(case["pertinent"]) - len(pertinent),
                    "hits": [hit_record(h, pertinent, getattr(hits, "rows", 0), language(case["text"])) for h in hits],
                    "context": sorted(context_ids(kb, case["text"], "task")),
                    "session": sorted(context_ids(kb, case["text"], "session")),
                })
            kb.close()
            console.log(f"everyday {n}/{len(stores)}: {store['id']} ({len(store['items'])} items)")
    return records


def measure_null(stores: list[dict[str, Any]], args: argparse.Namespace, embedder: Any) -> None:
    """The cosines of every dev case with every item of its store not pertinent to it, per (case
    language, item language): what unrelated short memories score, the null of a small store."""
    sums: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    with tempfile.TemporaryDirectory(prefix="everyday-null-") as tmp:
        for store in (s for s in stores if s["split"] == "dev"):
            loaded = open_store(store, args.cache / "everyday", Path(tmp), embedder)
            dense = StoredDense(loaded.kb)
            rows = {r["id"]: r for r in (loaded.kb.store.get(i) for i in dense.ids) if r}
            langs = [language(rows[i]["content"]) for i in dense.ids]
            for case in store["cases"]:
                gold = {loaded.ids[p] for p in case["pertinent"]}
                cos = dense.matrix @ embedder.embed_query(case["text"])
                qlang = case.get("lang") or language(case["text"])
                for item_id, c, dlang in zip(dense.ids, cos.tolist(), langs):
                    if item_id not in gold:
                        acc = sums[(qlang, dlang)]
                        acc[0], acc[1], acc[2] = acc[0] + c, acc[1] + c * c, acc[2] + 1
            loaded.kb.close()
    table = Table(title="null of short memories: dev cases against the items of their store not pertinent to them")
    for col in ("case", "item", "pairs", "mean", "sd"):
        table.add_column(col, justify="right")
    for (q, d), (total, sq, n) in sorted(sums.items()):
        mean_ = total / n
        table.add_row(q, d, f"{int(n):,}", f"{mean_:.4f}", f"{np.sqrt(max(sq / n - mean_ * mean_, 0)):.4f}")
    console.print(table)


# -- the benchmark sets ------------------------------------------------------------------------------


def set_records(name: str, recipes: Any, args: argparse.Namespace, embedder: Any) -> list[dict[str, Any]]:
    tasks = recipes.DATASETS[name][0]()
    if name.startswith("memdaily"):
        tasks = sample_users(tasks, args.sample_users, args.seed)
    records = []
    for i, task in enumerate(tasks):
        kb, ing = open_task(args.cache, name, task)
        queries = task["queries"]
        if args.limit_queries:
            queries = queries[:: max(1, len(queries) // args.limit_queries)]
        for n, (qid, text, gold, _meta) in enumerate(queries):
            facts = ing.facts(str(g) for g in gold)
            if not facts:
                continue
            # one task of many: its position splits (LoCoMo, MemDaily); one task (XQuAD): the query's
            split = ("dev" if i % 2 == 0 else "test") if len(tasks) > 1 else ("dev" if n % 2 == 0 else "test")
            hits = kr.recall(kb.store, kb.embedder, text, k=K, scope="default", filters=kr.Filters(), touch=False)
            records.append({"set": name, "split": split, "store": task["name"], "case": str(qid), "type": "question",
                            "size": len(task["corpus"]), "lang": language(text),
                            "gold": sorted(facts), "hits": [hit_record(h, facts, getattr(hits, "rows", 0), language(text)) for h in hits]})
        kb.close()
        console.log(f"{name} {i + 1}/{len(tasks)}")
    return records


def collect(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every record asked for, from ``--records`` where it holds the set already."""
    wanted = [f"everyday-{f}" for f in everyday_files()] + list(args.sets)
    kept: list[dict[str, Any]] = []
    if args.records.exists() and not args.fresh:
        kept = [r for r in json.loads(args.records.read_text()) if r["set"] in wanted]
    have = {r["set"] for r in kept}
    embedder = None
    missing = [w for w in wanted if w not in have]
    if missing:
        embedder = default_embedder(threads=args.threads)
        stores = [s for f in everyday_files() if f"everyday-{f}" in missing for s in load_file(f)]
        if stores:
            kept += everyday_records(stores, args, embedder)
        recipes = load_recipes(args.data) if args.sets else None
        for name in args.sets:
            if name in missing:
                kept += set_records(name, recipes, args, embedder)
        args.records.parent.mkdir(parents=True, exist_ok=True)
        args.records.write_text(json.dumps(kept))
    return kept


# -- measures ----------------------------------------------------------------------------------------


def relevance_of(h: dict[str, Any], beta: np.ndarray | None = None) -> float:
    if beta is None:
        return float(h["relevance"])
    f = features(h)
    return float(1 / (1 + np.exp(-(f @ beta))))


NAMES = ("B0", "B_Z", "B_SHARE", "B_AGREE", "B_SHIPPED_Z", "B_ROWS", "B_ROWS_Z", "B_ROWS_SHARE", "B_ROWS_SHIPPED_Z")


def features(h: dict[str, Any]) -> np.ndarray:
    """The evidence ``kenning.retrieval.relevance.relevance_of`` weighs, in the order of ``NAMES``."""
    z, share = float(h["z"]), float(h["share"])
    shipped = 0.0 if h["cos"] is None else rel.cosine_z(float(h["cos"]), h["qlang"], h["dlang"])
    size = math.log(min(max(int(h["rows"]), rel.ROWS_FLOOR), rel.ROWS_CEILING))
    return np.array([1.0, z, share, max(z, 0.0) * share, shipped, size, size * z, size * share, size * shipped])


def recall_at(r: dict[str, Any], k: int, floor: float, beta: np.ndarray | None = None) -> float:
    gold = set(r["gold"])
    if not gold:
        return float("nan")
    top = [h for h in r["hits"][:k] if relevance_of(h, beta) >= floor]
    return len(gold & {h["id"] for h in top}) / len(gold)


def hit_at_1(r: dict[str, Any], floor: float, beta: np.ndarray | None = None) -> float:
    top = [h for h in r["hits"][:1] if relevance_of(h, beta) >= floor]
    return float(bool(top) and top[0]["gold"])


def mean(values: list[float]) -> float:
    values = [v for v in values if v == v]
    return 100 * float(np.mean(values)) if values else float("nan")


def ece(records: list[dict[str, Any]], beta: np.ndarray | None = None) -> tuple[float, list[tuple[float, float, float, int]]]:
    """Expected calibration error over every hit, and the (low, mean relevance, share pertinent, n)
    of each decile of relevance."""
    pairs = [(relevance_of(h, beta), float(h["gold"])) for r in records for h in r["hits"]]
    if not pairs:
        return float("nan"), []
    p, y = np.array(pairs).T
    rows, error = [], 0.0
    for low in np.arange(0, 1, 0.1):
        inside = (p >= low) & ((p < low + 0.1) | (low >= 0.9))
        if inside.any():
            rows.append((float(low), float(p[inside].mean()), float(y[inside].mean()), int(inside.sum())))
            error += inside.sum() / len(p) * abs(p[inside].mean() - y[inside].mean())
    return float(error), rows


def everyday_row(records: list[dict[str, Any]], floor: float, beta: np.ndarray | None = None) -> list[str]:
    asked = [r for r in records if r["type"] != "offtopic"]
    off = [r for r in records if r["type"] == "offtopic"]
    pertinent = sum(len(r["gold"]) for r in asked)
    in_top = sum(len(set(r["gold"]) & {h["id"] for h in r["hits"]}) for r in asked)
    dropped = sum(len(set(r["gold"]) & {h["id"] for h in r["hits"] if relevance_of(h, beta) < floor}) for r in asked)
    context = sum(len(set(r["gold"]) & set(r["context"])) for r in asked)
    session = sum(len(set(r["gold"]) & set(r["session"])) for r in asked)
    answered = sum(any(relevance_of(h, beta) >= floor for h in r["hits"]) for r in off)
    shown = sum(bool(r["context"]) for r in off)
    error, _ = ece(records, beta)
    return [str(len(asked)), str(len(off)),
            f"{mean([recall_at(r, R_AT, 0.0, beta) for r in asked]):.1f}",
            f"{mean([recall_at(r, R_AT, floor, beta) for r in asked]):.1f}",
            f"{100 * context / max(1, pertinent):.1f}", f"{100 * session / max(1, pertinent):.1f}",
            f"{dropped} / {in_top}", f"{answered} / {len(off)}", f"{shown} / {len(off)}", f"{error:.3f}"]


def show_everyday(records: list[dict[str, Any]], split: str, floor: float) -> None:
    table = Table(title=f"everyday set, {split} split (floor {floor:g}; context at the default settings)")
    for col in ("set", "cases", "off-topic", f"R@{R_AT} floor 0", f"R@{R_AT} floor", "context recall",
                "session recall", "false drops", "false answers", "off-topic context", "ECE"):
        table.add_column(col, justify="left" if col == "set" else "right")
    chosen = [r for r in records if r["set"] in {f"everyday-{f}" for f in FILES} and r["split"] == split]
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in chosen:
        groups[r["set"].removeprefix("everyday-")].append(r)
        groups[f"{r['set'].removeprefix('everyday-')} / {r['lang']} case"].append(r)
        groups["all"].append(r)
    for name in sorted(groups, key=lambda g: (g == "all", g)):
        table.add_row(name, *everyday_row(groups[name], floor))
    console.print(table)
    types = Table(title=f"everyday set by kind of case, {split} split")
    for col in ("type", "cases", f"R@{R_AT} floor 0", f"R@{R_AT} floor", "context recall"):
        types.add_column(col, justify="right")
    for kind in ("question", "task"):
        rs = [r for r in chosen if r["type"] == kind]
        pertinent = sum(len(r["gold"]) for r in rs)
        context = sum(len(set(r["gold"]) & set(r["context"])) for r in rs)
        types.add_row(kind, str(len(rs)), f"{mean([recall_at(r, R_AT, 0.0) for r in rs]):.1f}",
                      f"{mean([recall_at(r, R_AT, floor) for r in rs]):.1f}", f"{100 * context / max(1, pertinent):.1f}")
    console.print(types)
    error, rows = ece(chosen)
    reliability = Table(title=f"reliability of relevance, everyday {split} split (ECE {error:.3f})")
    for col in ("relevance", "hits", "mean relevance", "share pertinent"):
        reliability.add_column(col, justify="right")
    for low, p, y, n in rows:
        reliability.add_row(f"{low:.1f}-{low + 0.1:.1f}", str(n), f"{p:.3f}", f"{y:.3f}")
    console.print(reliability)


def show_recipe(records: list[dict[str, Any]], floor: float) -> None:
    """Questions of the mixed stores, asked of each store as written and of the same memories in
    English and in Chinese: R@5 and R@10 at the default floor, per split and question language."""
    table = Table(title=f"mixed stores against the same memories in one language (questions; floor {floor:g})")
    for col in ("split", "questions", "mixed R@5", "all-English R@5", "all-Chinese R@5", "mixed R@10",
                "all-English R@10", "all-Chinese R@10"):
        table.add_column(col, justify="right")
    by = {name: [r for r in records if r["set"] == f"everyday-{name}" and r["type"] == "question"]
          for name in ("mixed", *RECIPE_FILES)}
    for split in ("dev", "test"):
        for lang in ("en", "zh", "all"):
            rows = {name: [r for r in rs if r["split"] == split and lang in ("all", r["lang"])] for name, rs in by.items()}
            cells = [f"{mean([recall_at(r, k, floor) for r in rows[name]]):.1f}" for k in (R_AT, K)
                     for name in ("mixed", *RECIPE_FILES)]
            table.add_row(f"{split} / {lang} questions", str(len(rows["mixed"])), *cells)
    console.print(table)


def show_sets(records: list[dict[str, Any]], floor: float, beta: np.ndarray | None = None, title: str = "") -> None:
    table = Table(title=title or f"the floor's cost (floor {floor:g})")
    for col in ("set", "split", "questions", "R@10 floor 0", "R@10 floor", "lost", "Hit@1 floor 0", "Hit@1 floor",
                "lost "):
        table.add_column(col, justify="left" if col == "set" else "right")
    for (name, split), rs in sorted(by_set(records).items()):
        asked = [r for r in rs if r["gold"]]
        r0, rf = mean([recall_at(r, K, 0.0, beta) for r in asked]), mean([recall_at(r, K, floor, beta) for r in asked])
        h0, hf = mean([hit_at_1(r, 0.0, beta) for r in asked]), mean([hit_at_1(r, floor, beta) for r in asked])
        table.add_row(name, split, str(len(asked)), f"{r0:.1f}", f"{rf:.1f}", f"{r0 - rf:.1f}", f"{h0:.1f}",
                      f"{hf:.1f}", f"{h0 - hf:.1f}")
    console.print(table)


def by_set(records: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The questions of each set and split: recall's floor answers questions; a task is served by
    its context (``kenning.pertinence``), measured in the everyday table."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if r["type"] == "question":
            out[(r["set"], r["split"])].append(r)
    return out


# -- fitting -----------------------------------------------------------------------------------------


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """Weighted logistic regression by Newton's method (a tiny ridge keeps it finite)."""
    beta = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-(x @ beta)))
        grad = x.T @ (w * (p - y)) + l2 * beta
        hess = (x * (w * p * (1 - p))[:, None]).T @ x + l2 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return beta


def training_data(records: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dev hits of every set, each set weighing the same and each everyday file twice that."""
    dev = [r for r in records if r["split"] == "dev" and fitted(r)]
    per_set: dict[str, int] = defaultdict(int)
    for r in dev:
        per_set[r["set"]] += len(r["hits"])
    rows, labels, weights = [], [], []
    for r in dev:
        for h in r["hits"]:
            rows.append(features(h))
            labels.append(float(h["gold"]))
            weights.append(1000.0 / per_set[r["set"]] * (EVERYDAY_WEIGHT if r["set"].startswith("everyday") else 1))
    return np.array(rows), np.array(labels), np.array(weights)


def worst_loss(records: list[dict[str, Any]], floor: float, beta: np.ndarray) -> float:
    """The most R@10 or Hit@1 points any set loses at ``floor``."""
    worst = 0.0
    for _, rs in by_set(records).items():
        asked = [r for r in rs if r["gold"]]
        if not asked:
            continue
        r_lost = mean([recall_at(r, K, 0.0, beta) for r in asked]) - mean([recall_at(r, K, floor, beta) for r in asked])
        h_lost = mean([hit_at_1(r, 0.0, beta) for r in asked]) - mean([hit_at_1(r, floor, beta) for r in asked])
        worst = max(worst, r_lost, h_lost)
    return worst


def fitted(record: dict[str, Any]) -> bool:
    """Whether the fit reads this record: not the mixed stores rendered in one language."""
    return record["set"].removeprefix("everyday-") not in RECIPE_FILES


def choose_floor(records: list[dict[str, Any]], beta: np.ndarray, max_loss: float) -> float:
    dev = [r for r in records if r["split"] == "dev" and fitted(r)]
    best = 0.0
    for floor in np.round(np.arange(0.001, 0.6, 0.001), 3):
        if worst_loss(dev, float(floor), beta) <= max_loss:
            best = float(floor)
        else:
            break
    return best


def fit(records: list[dict[str, Any]], args: argparse.Namespace) -> None:
    x, y, w = training_data(records)
    beta = fit_logistic(x, y, w)
    floor = choose_floor(records, beta, args.max_loss)
    console.print(f"fitted on {len(y):,} dev hits of {len({r['set'] for r in records})} sets:")
    for name, value in zip(NAMES, beta):
        console.print(f"{name} = {value:.3f}")
    console.print(f"DEFAULT_MIN_RELEVANCE = {floor:g}")
    for split in ("dev", "test"):
        chosen = [r for r in records if r["split"] == split]
        everyday = [r for r in chosen if r["set"].startswith("everyday") and fitted(r)]
        error, _ = ece(everyday, beta)
        off = [r for r in everyday if r["type"] == "offtopic"]
        answered = sum(any(relevance_of(h, beta) >= floor for h in r["hits"]) for r in off)
        console.print(f"{split}: everyday ECE {error:.3f}, off-topic answered {answered} / {len(off)}")
        show_sets(chosen, floor, beta, title=f"with the fitted constants, {split} split (floor {floor:g})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("dev", "test"), default="test")
    parser.add_argument("--sets", nargs="*", default=[], help="benchmark sets of recipes.py to ask too")
    parser.add_argument("--fit", action="store_true", help="fit the calibration and the floor on dev")
    parser.add_argument("--max-loss", type=float, default=2.0)
    parser.add_argument("--records", type=Path, default=HERE / "results" / "everyday_records.json")
    parser.add_argument("--fresh", action="store_true", help="ask every set again")
    parser.add_argument("--cache", type=Path, default=HERE / "results" / "stores")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sample-users", type=int, default=100)
    parser.add_argument("--limit-queries", type=int, help="at most about N questions per benchmark store")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--null", action="store_true", help="measure the null of short memories on the dev split")
    parser.add_argument("--floor", type=float, help="the floor of the tables (default: kenning's own); the "
                        "context columns always show kenning's defaults")
    args = parser.parse_args()
    if args.null:
        measure_null([s for f in FILES for s in load_file(f)], args, default_embedder(threads=args.threads))
        return
    records = collect(args)
    floor = rel.DEFAULT_MIN_RELEVANCE if args.floor is None else args.floor
    console.print(f"kenning {git_commit()}; default floor {floor:g}; k {K}; context budget {CONTEXT_BUDGET} tokens")
    if args.fit:
        fit(records, args)
        return
    show_everyday(records, args.split, floor)
    if all(f"everyday-{f}" in {r["set"] for r in records} for f in RECIPE_FILES):
        show_recipe(records, floor)
    if args.sets:
        show_sets(records, floor)


if __name__ == "__main__":
    main()
