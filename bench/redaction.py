#!/usr/bin/env python3
"""How often redaction masks real text that holds no secret: this tree's ``kenning.gate.redact``
beside a baseline's (``git show REF:src/kenning/gate/redact.py``, default HEAD), in the same run.

    python bench/redaction.py                       # the repository's own texts, this tree vs HEAD
    python bench/redaction.py --baseline HEAD~5     # another baseline
    python bench/redaction.py --sentences 20000     # and perf.py's real sentences (../shared/bench)
    python bench/redaction.py --show                # every mask, marked new (+), gone (-) or kept (=)

The texts: README.md, docs/*.md, the SKILL.md of every benign case of bench/data/skills_scan and
skills_scan_heldout (per their cases.json), the built-in skills, the memories of bench/data/everyday
and the pairs of bench/data/current; with ``--sentences``, short real sentences of LoCoMo,
MemDaily, LCQMC, PAWS-X, MetaTool, Seal-Tools and XQuAD. They carry no real secret, so a mask is a
false positive, except the placeholder-shaped examples a document shows on purpose (a README that
explains redaction quotes what it masks): ``--show`` lists each so a person can tell which.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from rich.console import Console
from rich.table import Table

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

current = importlib.import_module("kenning.gate.redact")  # the module: kenning.gate.redact is also its function

console = Console(width=160)
Span = tuple[int, int, str]


def baseline(ref: str) -> ModuleType:
    """``redact.py`` as it is at ``ref``, imported beside the current one (its relative imports
    resolve in this tree's ``kenning.gate``)."""
    source = subprocess.run(["git", "show", f"{ref}:src/kenning/gate/redact.py"], cwd=REPO, check=True,
                            capture_output=True, text=True).stdout
    spec = importlib.util.spec_from_loader("kenning.gate._redact_baseline", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "kenning.gate"
    sys.modules[spec.name] = module  # dataclasses look their module up there
    exec(compile(source, f"{ref}:redact.py", "exec"), module.__dict__)
    return module


def benign_skills(corpus: Path) -> Iterator[Path]:
    cases = json.loads((corpus / "cases.json").read_text(encoding="utf-8"))["cases"]
    for case in cases:
        path = corpus / "cases" / case["name"] / "SKILL.md"
        if case["label"] == "benign" and path.is_file():
            yield path


def repo_texts() -> dict[str, list[str]]:
    """The repository's own texts, by corpus."""
    def read(paths: Iterator[Path] | list[Path]) -> list[str]:
        return [p.read_text(encoding="utf-8", errors="replace") for p in sorted(paths)]

    data = REPO / "bench" / "data"
    everyday = [str(value) for name in ("en", "zh", "mixed")
                for store in json.loads((data / "everyday" / f"{name}.json").read_text(encoding="utf-8"))["stores"]
                for item in store["items"]
                for key, value in item.items() if key in ("content", "action", "context", "insight")]
    current_pairs = [text for path in sorted((data / "current").rglob("*.jsonl"))
                     for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
                     for text in (json.loads(line)["old"], json.loads(line)["new"])]
    return {
        "README.md": read([REPO / "README.md"]),
        "docs/*.md": read(list((REPO / "docs").rglob("*.md"))),
        "skills_scan benign": read(benign_skills(data / "skills_scan")),
        "skills_scan_heldout benign": read(benign_skills(data / "skills_scan_heldout")),
        "built-in skills": read(list((REPO / "src" / "kenning" / "skills" / "builtin").rglob("SKILL.md"))),
        "everyday memories": everyday,
        "current pairs": current_pairs,
    }


def sentences(n: int, data: Path) -> list[str]:
    sys.path.insert(0, str(REPO / "bench"))
    from perf import build_corpus, load_recipes

    texts, _ = build_corpus(load_recipes(data), n)
    return list(texts)


def spans(module: ModuleType, text: str) -> list[Span]:
    return list(module._spans(text, frozenset(module.CATEGORIES)))


def context(text: str, span: Span) -> str:
    start, end, kind = span
    before, after = text[max(0, start - 40) : start], text[end : end + 30]
    return " ".join(f"{before}⟦{text[start:end]}⟧{after}".split()) + f"  [{kind}]"


def measure(name: str, texts: list[str], old: ModuleType, show: bool) -> tuple[str, ...]:
    was, now = Counter[str](), Counter[str]()
    for text in texts:
        before, after = spans(old, text), spans(current, text)
        was.update(k for _, _, k in before)
        now.update(k for _, _, k in after)
        if show:
            for span in after:
                console.print(f"  {'=' if span in before else '+'} {name}: {context(text, span)}", markup=False)
            for span in (s for s in before if s not in after):
                console.print(f"  - {name}: {context(text, span)}", markup=False)
    delta = ", ".join(f"{now[k] - was[k]:+d} {k}" for k in sorted(set(was) | set(now)) if now[k] != was[k])
    return (name, f"{len(texts):,}", f"{sum(map(len, texts)):,}", str(sum(was.values())), str(sum(now.values())),
            delta or "-")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default="HEAD", help="git ref of the redact.py to compare with")
    parser.add_argument("--sentences", type=int, default=0, help="also this many real sentences (../shared/bench)")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench")
    parser.add_argument("--show", action="store_true", help="list every mask with its context")
    args = parser.parse_args()
    old = baseline(args.baseline)
    corpora = repo_texts()
    if args.sentences:
        corpora["real sentences"] = sentences(args.sentences, args.data)
    table = Table(title=f"masks on real text: {args.baseline} beside this tree ({REPO})")
    for column in ("corpus", "texts", "characters", f"masks {args.baseline}", "masks now", "change by kind"):
        table.add_column(column, justify="left" if column in ("corpus", "change by kind") else "right",
                         no_wrap=column == "corpus")
    rows = [measure(name, texts, old, args.show) for name, texts in corpora.items()]
    for row in rows:
        table.add_row(*row)
    table.add_row("total", "", "", str(sum(int(r[3]) for r in rows)), str(sum(int(r[4]) for r in rows)), "")
    console.print(table)


if __name__ == "__main__":
    main()
