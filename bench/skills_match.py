"""Matching a task to skills on the tool-selection sets: MetaTool and Seal-Tools.

Each tool becomes a real skill folder (``SKILL.md`` with its name and description) in the user
skills folder of a fresh kenning home, the way a person drops a folder in; every query is answered
by ``kb.skills.skills_search(query, k, min_relevance=0)``, the library call the CLI and MCP server
use (every match: this measures the ranking, ``skills_relevance.py`` the floor). Two baselines in
the same run, over the same skills:

* BM25: SQLite FTS5 over kenning's segmented "name: description" of each skill
  (``common.FtsBM25``, the lexical half of kenning alone);
* dense: cosine between the query and the very passage vectors ``skills_search`` uses.

    python bench/skills_match.py metatool metatool_multi seal_tools
    python bench/skills_match.py metatool --set LEXICAL_WEIGHT=0.5,1,2.5   # a sweep of kenning.skills.search

Seal-Tools' 4,076 tools exceed the 2,000 folders a skills root is read to, so they are spread over
the user folder and two extra read-only roots (``[skills] extra_dirs``). Tool names become skill
names (lowercase, ``a-z 0-9 -``; a clash gets ``-2``); descriptions longer
than 1,024 characters are cut at a word boundary (the format's limit). ``metatool`` samples 20
queries per tool (3,980), as ``recipes.py`` suggests; ``--limit-queries N`` samples fewer.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DEFAULT_DATA, FtsBM25, git_commit, load_recipes, percentile, run_config, write_json  # noqa: E402

from kenning import Kenning  # noqa: E402
from kenning.skills import search as ks  # noqa: E402
from kenning.skills.text import passage  # noqa: E402

DATASETS: dict[str, dict[str, Any]] = {
    "metatool": {"load": lambda r: r.load_metatool(max_per_tool=20), "metrics": ["Hit@1", "Hit@5", "R@5"]},
    "metatool_multi": {"load": lambda r: r.load_metatool(multi=True), "metrics": ["Hit@1", "Hit@5", "Comp@5", "R@5"]},
    "seal_tools": {"load": lambda r: r.load_seal_tools(), "metrics": ["Hit@1", "Hit@5", "Comp@5", "Comp@10"]},
}
SYSTEMS = ("BM25", "dense", "kenning")
MAX_DESCRIPTION = 1024
PER_ROOT = 1900


def skill_name(tool: str, taken: set[str]) -> str:
    """A valid, unused skill name for a tool name ("getWeather_v2" -> "get-weather-v2")."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", tool)
    slug = re.sub(r"[^a-z0-9]+", "-", spaced.lower()).strip("-")[:60].strip("-") or "tool"
    name, n = slug, 2
    while name in taken:
        name, n = f"{slug}-{n}", n + 1
    taken.add(name)
    return name


def cut(text: str, limit: int = MAX_DESCRIPTION) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0]


def write_skills(home: Path, corpus: dict[str, str]) -> dict[str, str]:
    """One skill folder per tool; returns tool name -> skill name. A skills root is read up to
    2,000 folders, so a larger set goes into extra read-only roots named in ``kenning.toml``."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    roots = [home / "skills", *(home / f"extra-{i}" for i in range(1, 1 + len(corpus) // PER_ROOT))]
    if len(roots) > 1:
        home.mkdir(parents=True, exist_ok=True)
        listed = ", ".join(json.dumps(str(r)) for r in roots[1:])
        (home / "kenning.toml").write_text(f"[skills]\nextra_dirs = [{listed}]\n", encoding="utf-8")
    for i, (tool, text) in enumerate(corpus.items()):
        name = skill_name(tool, taken)
        description = cut(text.split(": ", 1)[1] if text.startswith(f"{tool}: ") else text) or tool
        folder = roots[i // PER_ROOT] / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {json.dumps(description)}\n---\n\n# {tool}\n", encoding="utf-8")
        names[tool] = name
    return names


def run_dataset(name: str, recipes: Any, args: argparse.Namespace, settings: list[dict[str, Any]],
                console: Console) -> dict[str, Any]:
    spec = DATASETS[name]
    task = spec["load"](recipes)[0]
    queries = list(task["queries"])
    if args.limit_queries and len(queries) > args.limit_queries:
        queries = random.Random(args.seed).sample(queries, args.limit_queries)
    with tempfile.TemporaryDirectory(prefix="kenning-skills-bench-") as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir()
        names = write_skills(home, task["corpus"])
        kb = Kenning.open(home, project_dir=project)
        start = time.perf_counter()
        index = kb.skills.index()
        loaded = time.perf_counter() - start
        skipped = [d.to_dict() for d in index.diagnostics if d.level == "skipped"]
        start = time.perf_counter()
        prepared = kb.skills.finder.prepare(index)
        embedded = time.perf_counter() - start
        bm25 = FtsBM25({s.name: passage(s.name, s.description) for s in prepared.skills})
        labels = [_label(s) for s in settings]
        systems = ["BM25", "dense", *labels]
        scores: dict[str, dict[str, list[float]]] = {s: {m: [] for m in spec["metrics"]} for s in systems}
        by_group: dict[str, dict[str, dict[str, list[float]]]] = {}
        latency: list[float] = []
        kmax = max(int(m.split("@")[1]) for m in spec["metrics"])
        console.log(f"{name}: {len(prepared.skills)} skills loaded in {loaded:.2f} s, embedded in {embedded:.1f} s; "
                    f"{len(queries)} queries")
        for i, (_qid, text, gold_tools, meta) in enumerate(queries, 1):
            gold = {names[t] for t in gold_tools if t in names}
            qvec = kb.embedder.embed_query(text)
            dense_order = (prepared.vectors @ qvec).argsort()[::-1][:kmax]
            ranked = {"BM25": bm25.search(text, kmax), "dense": [prepared.skills[j].name for j in dense_order]}
            for label, setting in zip(labels, settings):
                for key, value in setting.items():
                    setattr(ks, key, value)
                t0 = time.perf_counter()
                found = kb.skills.skills_search(text, kmax, min_relevance=0)
                latency.append(time.perf_counter() - t0)
                ranked[label] = [s["name"] for s in found["skills"] if not s["always"] or s["name"] in gold]
            groups = ["all", *([str(meta["cat"])] if meta.get("cat") else [])]
            for system in systems:
                for metric in spec["metrics"]:
                    kind, k = metric.split("@")
                    value = float(recipes.METRICS[kind](gold, ranked[system], int(k)))
                    for group in groups:
                        by_group.setdefault(group, {}).setdefault(system, {}).setdefault(metric, []).append(value)
            if i % 500 == 0:
                console.log(f"{name}: {i} of {len(queries)} queries")
        kb.close()
    summary = {g: {s: {m: round(100 * sum(v) / len(v), 1) for m, v in ms.items()} | {"n": len(next(iter(ms.values())))}
                   for s, ms in systems_.items()} for g, systems_ in by_group.items()}
    return {"dataset": name, "skills": len(prepared.skills), "queries": len(queries), "skipped": skipped,
            "load_s": round(loaded, 3), "embed_s": round(embedded, 1), "metrics": spec["metrics"], "systems": systems,
            "latency_ms": {"p50": round(1000 * (percentile(latency, 50) or 0), 1),
                           "p95": round(1000 * (percentile(latency, 95) or 0), 1)},
            "summary": summary}


def _label(setting: dict[str, Any]) -> str:
    return "kenning" if not setting else "kenning " + " ".join(f"{k}={v}" for k, v in setting.items())


def render(result: dict[str, Any], console: Console) -> None:
    table = Table(title=f"{result['dataset']}: {result['skills']:,} skills, {result['queries']:,} queries")
    table.add_column("group")
    table.add_column("metric")
    for system in result["systems"]:
        table.add_column(system, justify="right")
    for group in sorted(result["summary"], key=lambda g: (g != "all", g)):
        rows = result["summary"][group]
        for metric in result["metrics"]:
            values = [rows[s][metric] for s in result["systems"]]
            best = max(values)
            table.add_row(group, f"{metric} (n={rows[result['systems'][0]]['n']})",
                          *[f"[bold]{v}[/]" if v == best else str(v) for v in values])
    console.print(table)
    console.print(f"skills loaded in {result['load_s']} s, embedded in {result['embed_s']} s (first search); "
                  f"skills_search p50 {result['latency_ms']['p50']} ms / p95 {result['latency_ms']['p95']} ms "
                  f"(query embedding included); {len(result['skipped'])} skill folders skipped", highlight=False)


def parse_settings(specs: Sequence[str]) -> list[dict[str, Any]]:
    settings: list[dict[str, Any]] = [{}]
    for spec in specs:
        key, _, values = spec.partition("=")
        if not hasattr(ks, key):
            raise SystemExit(f"kenning.skills.search has no setting {key!r}")
        kind = type(getattr(ks, key))
        settings = [{**s, key: kind(v)} for s in settings for v in values.split(",")]  # type: ignore[misc]
    return settings if specs else [{}]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("datasets", nargs="+", choices=sorted(DATASETS))
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="the shared benchmark folder")
    parser.add_argument("--limit-queries", type=int, default=None, help="sample this many queries per set")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--set", dest="settings", action="append", default=[],
                        help="NAME=V1,V2: score kenning with each value of a kenning.skills.search setting")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    commit = git_commit()
    console = Console(width=200)
    recipes = load_recipes(args.data)
    settings = parse_settings(args.settings)
    defaults = {k: getattr(ks, k) for s in settings for k in s}
    results = []
    for name in args.datasets:
        result = run_dataset(name, recipes, args, settings, console)
        for key, value in defaults.items():
            setattr(ks, key, value)
        render(result, console)
        results.append(result)
    with tempfile.TemporaryDirectory() as tmp:
        kb = Kenning.open(Path(tmp))
        config = run_config(kb, commit) | {"search": {k: getattr(ks, k) for k in ("LEXICAL_WEIGHT", "POOL")}}
        kb.close()
    console.print(f"config: {config}", highlight=False)
    if args.json:
        write_json(args.json, {"config": config, "results": results})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
