"""Speed of the skill catalog (``kb.skills.skills_catalog``) with a large library.

Writes N skills (default 1,000, in 20 categories, descriptions of 15–60 words) into the user skills
folder of a fresh kenning home, then measures, each in a new Python process so nothing is warm:

* cold: the first catalog ever (walk, parse every SKILL.md, count tokens, write the snapshot);
* cold, snapshot on disk: a new process whose files match the on-disk snapshot;
* warm: repeated calls in one process (p50 / p95 over 200 calls);
* after a hand edit: one SKILL.md changed, the next call (rebuild) and the one after (warm again);
* skills_list and skills_search in the same process, for comparison.

    python bench/skills_catalog.py --skills 1000 --budget 2000
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from rich.console import Console
from rich.table import Table

WORDS = ("deploy build test release docker kubernetes database backup restore migrate schema index query cache "
         "monitor alert log trace metric secret token rotate certificate network proxy firewall queue worker "
         "retry timeout cluster node volume snapshot replica failover benchmark profile memory leak patch "
         "upgrade rollback review lint format package dependency audit report invoice email calendar").split()

PROBE = textwrap.dedent('''
    import json, sys, time
    t0 = time.perf_counter()
    from kenning import Kenning
    kb = Kenning.open(sys.argv[1], project_dir=sys.argv[2])
    mode, budget = sys.argv[3], int(sys.argv[4])
    out = {}
    t = time.perf_counter()
    first = kb.skills.skills_catalog(budget)
    out["first_ms"] = (time.perf_counter() - t) * 1000
    out["first_cached"] = first["cached"]
    out["tokens"], out["shown"] = first["tokens"], first["full"] + first["shortened"]
    out["name_only"], out["omitted"] = first["name_only"], first["omitted"]
    if mode == "warm":
        times = []
        for _ in range(200):
            t = time.perf_counter()
            kb.skills.skills_catalog(budget)
            times.append((time.perf_counter() - t) * 1000)
        times.sort()
        out["warm_p50_ms"], out["warm_p95_ms"] = times[100], times[190]
        skill_md = next((kb.settings.skills_dir).rglob("SKILL.md"))
        skill_md.write_text(skill_md.read_text() + "\\nEdited by hand.\\n")
        t = time.perf_counter()
        again = kb.skills.skills_catalog(budget)
        out["after_edit_ms"], out["after_edit_cached"] = (time.perf_counter() - t) * 1000, again["cached"]
        t = time.perf_counter()
        again = kb.skills.skills_catalog(budget)
        out["after_edit_again_ms"], out["after_edit_again_cached"] = (time.perf_counter() - t) * 1000, again["cached"]
        times = []
        for _ in range(50):
            t = time.perf_counter()
            kb.skills.skills_list()
            times.append((time.perf_counter() - t) * 1000)
        out["list_p50_ms"] = sorted(times)[25]
        kb.skills.skills_search("rotate the database certificate", 5)
        times = []
        for _ in range(50):
            t = time.perf_counter()
            kb.skills.skills_search("rotate the database certificate", 5)
            times.append((time.perf_counter() - t) * 1000)
        out["search_p50_ms"] = sorted(times)[25]
    out["process_s"] = time.perf_counter() - t0
    print(json.dumps(out))
''')


def write_library(root: Path, n: int, seed: int) -> None:
    rng = random.Random(seed)
    for i in range(n):
        words = rng.sample(WORDS, 3)
        name = f"{'-'.join(words)}-{i}"
        description = " ".join(rng.choice(WORDS) for _ in range(rng.randint(15, 60))).capitalize() + "."
        folder = root / f"category-{i % 20}" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {json.dumps(description)}\n---\n\n"
                                         "# Steps\n\n1. Do it.\n", encoding="utf-8")


def probe(home: Path, project: Path, mode: str, budget: int) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", PROBE, str(home), str(project), mode, str(budget)],
                          capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    console = Console(width=160)
    with tempfile.TemporaryDirectory(prefix="kenning-catalog-bench-") as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir()
        write_library(home / "skills", args.skills, args.seed)
        cold = probe(home, project, "cold", args.budget)
        snapshot = probe(home, project, "cold", args.budget)
        warm = probe(home, project, "warm", args.budget)
    table = Table(title=f"skills_catalog: {args.skills:,} skills, budget {args.budget:,} tokens")
    table.add_column("call")
    table.add_column("ms", justify="right")
    table.add_column("served from")
    table.add_row("cold: first call in a new process, no snapshot", f"{cold['first_ms']:.0f}",
                  "snapshot" if cold["first_cached"] else "built")
    table.add_row("cold: new process, snapshot on disk", f"{snapshot['first_ms']:.1f}",
                  "snapshot" if snapshot["first_cached"] else "built")
    table.add_row("warm p50 (200 calls)", f"{warm['warm_p50_ms']:.2f}", "memory")
    table.add_row("warm p95", f"{warm['warm_p95_ms']:.2f}", "memory")
    table.add_row("after a hand edit of one SKILL.md", f"{warm['after_edit_ms']:.0f}",
                  "snapshot" if warm["after_edit_cached"] else "built")
    table.add_row("the call after that", f"{warm['after_edit_again_ms']:.2f}",
                  "cache" if warm["after_edit_again_cached"] else "built")
    table.add_row("skills_list p50 (for comparison)", f"{warm['list_p50_ms']:.2f}", "")
    table.add_row("skills_search p50 (query embedding cached)", f"{warm['search_p50_ms']:.2f}", "")
    console.print(table)
    console.print(f"catalog: {cold['tokens']} tokens; {cold['shown']} skills described, {cold['name_only']} by name, "
                  f"{cold['omitted']} left out", highlight=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
