"""What is current: precision and recall of supersession on correction pairs and co-true pairs.

Each pair of bench/data/current (``corrections.{en,zh}.jsonl``: the newer statement corrects the
older, ``co_true.{en,zh}.jsonl``: both may hold) is written through ``Kenning.remember`` into a
scope of its own in a fresh store, older first, exactly as an agent would. A pair counts as
superseded when the newer fact's ``supersedes`` is the older; *precision* is the share of
superseded pairs that are corrections, *recall* the share of corrections superseded. The table also
shows how many pairs were kept side by side as possible conflicts (``kenning conflicts``).

Rows, each in a fresh store:

* ``rule``: no model, the rule of ``kenning.gate.current``;
* ``previous gate``: the baseline, ``novelty.relation`` alone (what the gate superseded before);
* ``oracle model (upper bound)``: a scripted model that answers from the labels (UPDATE the older
  fact for a correction, ADD for a co-true pair): what the update step reaches with a perfect model;
* ``noisy model``: the same script, but a share of its answers wrong (``--wrong``, default 10%) and
  a share broken (``--broken``, default 10%: cut-off JSON, which the gate refuses and hands to the
  rule), drawn with a fixed seed.

The scripted model is an in-process object with the ``kenning.llm.LLM`` protocol (no HTTP, no cost
guard: the tests cover those through a real local server). The pairs were written for this
benchmark before the rule; the rule was then corrected where it misread them (the errors it makes
on them were looked at), so the rule row is an optimistic estimate on the kind of text it was
built for, not a held-out measurement. ``--set heldout`` runs on bench/data/current/heldout, a batch
written afterwards without reading the rule (its README records the figures of the first run, before
any tuning on it); ``--data DIR`` runs on any folder of the same four files.

    python bench/current.py [--set dev|heldout | --data DIR] [--wrong 0.1] [--broken 0.1] [--seed 17]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kenning import Kenning
from kenning.embed import default_embedder
from kenning.gate.novelty import NEAR_DUPLICATE, SAME_SUBJECT, relation
from kenning.llm import Completion

DATA = Path(__file__).resolve().parent / "data" / "current"
SETS = {"dev": DATA, "heldout": DATA / "heldout"}


@dataclass(frozen=True)
class Pair:
    old: str
    new: str
    correction: bool
    lang: str
    kind: str


def load(data: Path = DATA) -> list[Pair]:
    pairs = []
    for name, correction in (("corrections", True), ("co_true", False)):
        for lang in ("en", "zh"):
            for line in (data / f"{name}.{lang}.jsonl").read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                pairs.append(Pair(row["old"], row["new"], correction, lang, row["kind"]))
    return pairs


class CachedEmbedder:
    """The default embedder with its passage vectors kept: the three rows embed each text once."""

    def __init__(self) -> None:
        self.inner = default_embedder()
        self.name, self.dim = self.inner.name, self.inner.dim
        self.cache: dict[str, np.ndarray] = {}

    def embed_passages(self, texts: list[str], progress: Any = None) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if todo:
            for t, v in zip(todo, self.inner.embed_passages(todo)):
                self.cache[t] = v
        return np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, self.dim), dtype=np.float32)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class ScriptedModel:
    """Answers the gate's update step from the labels; ``noise`` (wrong, broken) shares of answers
    are spoiled, drawn from ``rng``."""

    def __init__(self, labels: dict[str, Pair], wrong: float = 0.0, broken: float = 0.0, seed: int = 17) -> None:
        self.name = "scripted/oracle" if not (wrong or broken) else "scripted/noisy"
        self.labels, self.wrong, self.broken = labels, wrong, broken
        self.rng = random.Random(seed)
        self.calls = 0

    def complete(self, messages: list[dict[str, str]], *, max_tokens: int | None = None, temperature: float = 0.0,
                 json_mode: bool = False) -> Completion:
        self.calls += 1
        asked = json.loads(messages[-1]["content"])
        pair = self.labels.get(asked["new"])
        older = next((s["id"] for s in asked["stored"] if pair and s["text"] == pair.old), None)
        correction = bool(pair and pair.correction and older)
        draw = self.rng.random()
        if draw < self.broken:
            return Completion('{"event": "UPD', self.name, 10, 5, "length")
        if draw < self.broken + self.wrong:
            correction = not correction
            older = older or asked["stored"][0]["id"]
        answer = {"event": "UPDATE", "id": older} if correction else {"event": "ADD", "id": None}
        return Completion(json.dumps(answer), self.name, 10, 5, "stop")


@dataclass
class Row:
    name: str
    superseded: dict[tuple[str, bool], int]
    conflicts: dict[tuple[str, bool], int]
    totals: dict[tuple[str, bool], int]
    calls: int
    seconds: float
    # The pairs this setting got wrong (a co-true pair superseded, a correction not), for --misses.
    misses: list[Pair] = field(default_factory=list)

    def scores(self, lang: str | None) -> tuple[float, float, int, int, int]:
        langs = ("en", "zh") if lang is None else (lang,)
        tp = sum(self.superseded.get((g, True), 0) for g in langs)
        fp = sum(self.superseded.get((g, False), 0) for g in langs)
        n = sum(self.totals.get((g, True), 0) for g in langs)
        conf_c = sum(self.conflicts.get((g, True), 0) for g in langs)
        conf_t = sum(self.conflicts.get((g, False), 0) for g in langs)
        precision = tp / (tp + fp) if tp + fp else 1.0
        return precision, tp / n if n else 0.0, fp, conf_c, conf_t


def run(name: str, pairs: list[Pair], embedder: CachedEmbedder, model: Callable[[], Any] | None) -> Row:
    row = Row(name, {}, {}, {}, 0, 0.0)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as home, Kenning.open(home, embedder=embedder) as kb:  # type: ignore[arg-type]
        source = model() if model else None
        kb.gate.llm_source = (lambda: source) if source is not None else None
        for i, pair in enumerate(pairs):
            scope = f"pair:{i}"
            old = kb.remember(pair.old, scope=scope)
            new = kb.remember(pair.new, scope=scope)
            key = (pair.lang, pair.correction)
            row.totals[key] = row.totals.get(key, 0) + 1
            if new.supersedes == old.id:
                row.superseded[key] = row.superseded.get(key, 0) + 1
            if (new.supersedes == old.id) != pair.correction:
                row.misses.append(pair)
            if kb.conflicts(scope):
                row.conflicts[key] = row.conflicts.get(key, 0) + 1
        row.calls = getattr(source, "calls", 0)
    row.seconds = time.perf_counter() - started
    return row


def baseline(pairs: list[Pair], embedder: CachedEmbedder) -> Row:
    """The gate before this rule: ``novelty.relation`` alone (a changed value or negation)."""
    row = Row("previous gate (value or negation only)", {}, {}, {}, 0, 0.0)
    started = time.perf_counter()
    for pair in pairs:
        vecs = embedder.embed_passages([pair.old, pair.new])
        kind, _ = relation(pair.old, pair.new, float(vecs[0] @ vecs[1]))
        key = (pair.lang, pair.correction)
        row.totals[key] = row.totals.get(key, 0) + 1
        if kind == "contradiction":
            row.superseded[key] = row.superseded.get(key, 0) + 1
        if (kind == "contradiction") != pair.correction:
            row.misses.append(pair)
    row.seconds = time.perf_counter() - started
    return row


def shown(data: Path) -> str:
    """``data`` relative to the repository when it is inside it, else as given."""
    root = DATA.parents[2]
    resolved = data.resolve()
    return str(resolved.relative_to(root)) if resolved.is_relative_to(root) else str(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wrong", type=float, default=0.1, help="noisy model: share of wrong answers")
    parser.add_argument("--broken", type=float, default=0.1, help="noisy model: share of broken (cut-off) answers")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--set", choices=sorted(SETS), default="dev",
                        help="dev: the pairs the rule was corrected on; heldout: the batch written blind")
    parser.add_argument("--data", type=Path, help="a folder of corrections/co_true .{en,zh}.jsonl (overrides --set)")
    parser.add_argument("--misses", action="store_true",
                        help="also list the pairs the rule row gets wrong (false supersessions, missed corrections)")
    args = parser.parse_args()
    data = args.data or SETS[args.set]
    pairs = load(data)
    labels = {p.new: p for p in pairs}
    embedder = CachedEmbedder()
    rows = [
        run("rule (no model)", pairs, embedder, None),
        baseline(pairs, embedder),
        run("oracle model (upper bound)", pairs, embedder, lambda: ScriptedModel(labels)),
        run(f"noisy model ({args.wrong:.0%} wrong, {args.broken:.0%} broken)", pairs, embedder,
            lambda: ScriptedModel(labels, args.wrong, args.broken, args.seed)),
    ]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=DATA).stdout.strip()
    counts = {g: (sum(p.lang == g and p.correction for p in pairs), sum(p.lang == g and not p.correction for p in pairs))
              for g in ("en", "zh")}
    print(f"# What is current: supersession on {len(pairs)} pairs "
          f"(en {counts['en'][0]} corrections + {counts['en'][1]} co-true, zh {counts['zh'][0]} + {counts['zh'][1]})")
    print(f"data {shown(data)}; "
          f"embedder {embedder.name}; same_subject {SAME_SUBJECT}, near_duplicate {NEAR_DUPLICATE}; "
          f"commit {commit}; python {sys.version.split()[0]}\n")
    print("| setting | lang | precision | recall | co-true superseded | corrections listed as conflict "
          "| co-true listed as conflict | model calls |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        for lang in ("en", "zh", None):
            p, r, fp, cc, ct = row.scores(lang)
            print(f"| {row.name} | {lang or 'all'} | {p:.3f} | {r:.3f} | {fp} | {cc} | {ct} | "
                  f"{row.calls if lang is None else ''} |")
    print(f"\n(times: {', '.join(f'{r.name} {r.seconds:.0f} s' for r in rows)})")
    if args.misses:
        print_misses(rows[0])


def print_misses(row: Row) -> None:
    """The pairs ``row`` got wrong, grouped as false supersessions and missed corrections."""
    for title, correction in (("co-true pairs superseded", False), ("corrections not superseded", True)):
        wrong = [p for p in row.misses if p.correction == correction]
        print(f"\n## {row.name}: {title} ({len(wrong)})\n")
        for p in wrong:
            print(f"- [{p.lang} {p.kind}] {p.old!r} -> {p.new!r}")


if __name__ == "__main__":
    main()
