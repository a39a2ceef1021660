#!/usr/bin/env python3
"""The write gate's novelty floors against the cosines of real text, per language pair.

    python bench/novelty_null.py [--per-kind 1500] [--threads 1] [--json bench/results/novelty_null.json]

The gate (``kenning.gate.novelty``) compares a new statement with its nearest stored facts by the
cosine of their *passage* vectors and hands a pair to its lexical rules only above a floor
(``same_subject_floor``; restatements above ``NEAR_DUPLICATE``). The default embedder is biased by
language, so this script measures, with passage vectors on both sides:

* the **null**: cosines of unrelated statements, from different LoCoMo conversations (English chat
  messages, and the short fact-like ``observation`` statements the data set ships) and different
  MemDaily users (Chinese messages, themselves short facts: "金融科技精英论坛的地点是北京。"), and
  across languages (a LoCoMo text against a MemDaily message). Per row: mean, sd, p1, p50, p99,
  the share at or above each floor, and, of a sample of the pairs at or above the floor, the share
  the rules relate (a contradiction or near duplicate of ``relation``, a supersession or a
  possible conflict of ``current.judge``): an unrelated pair the rules relate is a wrong
  supersession or a spurious conflict when the two land in one store;
* the **pairs the gate must relate**: the corrections and co-true pairs of ``bench/data/current``
  (and of its held-out batches, each a row of its own)
  and the restatements and alike-but-different pairs of the gate's tests (written below), with their
  cosine, their z against the null of their language, and how many the rule decides differently
  with no floor at all (what a floor costs).

A statement is Chinese when ``kenning.gate.novelty.language`` says so. Unrelated pairs are drawn from
``--per-kind`` texts per kind (seeded), every pair of texts from different conversations or users.
Nothing is written to the stores; the data is read from ``--data`` (``load_recipes``).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DEFAULT_DATA, git_commit, load_recipes, write_json  # noqa: E402

from kenning.embed import default_embedder  # noqa: E402
from kenning.gate import novelty  # noqa: E402
from kenning.gate.current import judge  # noqa: E402

console = Console(width=190)
CURRENT = Path(__file__).resolve().parent / "data" / "current"
RAW_FLOORS = (0.85, 0.95)
RULE_SAMPLE = 2000  # pairs at or above a floor whose rule verdict is computed, per row and floor
MIN_WORDS = 4  # LoCoMo chat turns shorter than this ("Hey Mel!") are not statements

# restatements (the gate must reinforce) and alike statements that are different facts (it must
# keep both): from tests/test_gate.py and the measurements in novelty's docstring
RESTATEMENTS = [
    ("Deploys run from GitHub Actions", "Deployments run from GitHub Actions!"),
    ("The database is PostgreSQL 15", "Our database is PostgreSQL 15"),
    ("Logs are shipped to Loki", "Logs get shipped to Loki"),
    ("the cafeteria opens at noon", "The cafeteria opens at noon."),
    ("the build takes 3 minutes", "Our build takes 3 minutes"),
    ("The API supports pagination", "The API really supports pagination"),
    ("Standup is at 9:30", "The standup is at 9:30"),
    ("We deploy on Tuesdays", "We do deploy on Tuesdays"),
    ("部署在上海机房", "部署在上海的机房"),
    ("站会在9点", "站会在9点了"),
    ("服务器支持IPv6", "这个服务器支持IPv6"),
    ("用户喜欢简短的回答", "用户很喜欢简短的回答"),
    ("合同三月到期", "合同在三月到期"),
    ("我们用Jenkins做CI", "我们都用Jenkins做CI"),
    ("办公室在柏林", "我们的办公室在柏林"),
]
ALIKE = [
    ("Alice reviews backend PRs", "Alice reviews frontend PRs"),
    ("Alice reports to Bob", "Bob reports to Alice"),
    ("server 1 is down", "server 2 is down"),
    ("port 8000 belongs to team 0", "port 8001 belongs to team 1"),
    ("one fact", "another fact"),
    ("Alice prefers tea", "Alice prefers coffee"),
    ("部署在上海机房", "部署在北京机房"),
    ("小王审后端的代码", "小王审前端的代码"),
    ("我们在北京有办公室", "我们在上海有办公室"),
    ("用户在学西班牙语", "用户在学游泳"),
]
# a statement and a Chinese (or English) rewording or correction of it: a mixed store's case, which
# the lexical rules cannot relate (no shared words) but a configured model is asked about
ACROSS = [
    ("The office is in Berlin", "办公室在柏林", "restatement"),
    ("The office is in Berlin", "办公室在慕尼黑", "correction"),
    ("we use Jenkins for CI", "我们不再用Jenkins了", "correction"),
    ("the report is monthly", "报告改为每周一次", "correction"),
    ("Standup is at 9:00", "站会在九点半", "correction"),
    ("The user prefers short answers", "用户喜欢详细的回答", "correction"),
    ("The billing service is owned by Alice", "计费服务的负责人是Marco", "correction"),
    ("合同三月到期", "The contract expires in June", "correction"),
    ("市场部在三楼", "The marketing team is on the fifth floor", "correction"),
    ("The API supports pagination", "接口不支持分页", "correction"),
    ("Deploys run from GitHub Actions", "部署从GitHub Actions运行", "restatement"),
    ("服务器支持IPv6", "The server supports IPv6", "restatement"),
]


@dataclass
class Texts:
    """Statements of one kind, each with the group (conversation, user) it comes from."""

    kind: str
    texts: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    vectors: np.ndarray | None = None


def sample(kind: str, items: Sequence[tuple[str, str]], n: int, rng: random.Random) -> Texts:
    seen: dict[str, str] = {}
    for group, text in items:
        seen.setdefault(text, group)
    chosen = rng.sample(sorted(seen), min(n, len(seen)))
    return Texts(kind, chosen, [seen[t] for t in chosen])


def locomo(recipes: Any) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(conversation, chat message) and (conversation, observation) of every LoCoMo conversation."""
    messages = []
    for task in recipes.load_locomo():
        for text in task["corpus"].values():
            said = re.sub(r"^\[[^\]]*\] [^:]+: ", "", text)  # "[date] speaker: " is not the statement
            if len(said.split()) >= MIN_WORDS:
                messages.append((task["name"], said))
    data = json.loads(Path(recipes.P("locomo", "locomo10.json")).read_text(encoding="utf-8"))
    facts = [(conv["sample_id"], obs[0]) for conv in data for session in conv["observation"].values()
             for per_speaker in session.values() for obs in per_speaker if obs and isinstance(obs[0], str)]
    return messages, facts


def memdaily(recipes: Any) -> list[tuple[str, str]]:
    """(user, message) of every MemDaily user, without the "[time place]" the loader puts first."""
    return [(task["name"], re.sub(r"^\[[^\]]*\] ", "", text)) for task in recipes.load_memdaily()
            for text in task["corpus"].values()]


# -- the null ---------------------------------------------------------------------------------------------


@dataclass
class NullRow:
    name: str
    langs: str
    cosines: np.ndarray
    related: dict[float, float]  # floor -> share of the sampled pairs at or above it the rules relate
    above: dict[float, int]
    examples: list[tuple[float, str, str, str]]


def rule_relates(old: str, new: str, cos: float) -> str:
    """What the gate's rules make of a pair given its cosine, with no floor: "" when nothing."""
    kind, _ = novelty.relation(old, new, cos, same_subject=0.0)
    if kind != "new":
        return kind
    verdict = judge(old, new, cos, same_subject=0.0).verdict
    return "" if verdict == "separate" else verdict


def null_row(name: str, langs: str, a: Texts, b: Texts, floors: list[float], rng: random.Random) -> NullRow:
    assert a.vectors is not None and b.vectors is not None
    sims = a.vectors @ b.vectors.T
    ga, gb = np.array(a.groups), np.array(b.groups)
    mask = ga[:, None] != gb[None, :]
    if a is b:
        mask &= np.triu(np.ones_like(mask, dtype=bool), 1)
    cos = sims[mask]
    rows, cols = np.nonzero(mask)
    related: dict[float, float] = {}
    above: dict[float, int] = {}
    examples: list[tuple[float, str, str, str]] = []
    for floor in floors:
        hit = np.nonzero(cos >= floor)[0]
        above[floor] = int(len(hit))
        picked = rng.sample(list(hit), min(RULE_SAMPLE, len(hit)))
        verdicts = [(float(cos[k]), a.texts[rows[k]], b.texts[cols[k]]) for k in picked]
        said = [(c, x, y, rule_relates(x, y, c)) for c, x, y in verdicts]
        related[floor] = sum(bool(v) for *_, v in said) / len(said) if said else 0.0
        if not examples:
            examples = sorted((s for s in said if s[3]), reverse=True)[:3]
    return NullRow(name, langs, cos, related, above, examples)


# -- the pairs the gate must relate --------------------------------------------------------------------------


@dataclass
class Labelled:
    kind: str
    lang: str
    old: str
    new: str
    cosine: float = 0.0


def labelled_pairs() -> list[Labelled]:
    """The pairs of bench/data/current (language from the file name: ``corrections.zh.jsonl``), and
    the ones written above."""
    out = []
    for path in sorted(CURRENT.rglob("*.jsonl")):
        kind = "correction" if path.name.startswith("corrections") else "co-true"
        lang = path.name.split(".")[-2]
        batch = path.parent.relative_to(CURRENT).as_posix()  # "." for the dev pairs, "heldout", …
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            out.append(Labelled(kind if batch == "." else f"{kind} ({batch})", lang, row["old"], row["new"]))
    out += [Labelled("restatement (tests)", novelty.language(a), a, b) for a, b in RESTATEMENTS]
    out += [Labelled("alike, different (tests)", novelty.language(a), a, b) for a, b in ALIKE]
    out += [Labelled(f"{kind} (written)", "en-zh", a, b) for a, b, kind in ACROSS]
    return out


def floor_cost(pair: Labelled, floor: float) -> bool:
    """Whether the floor changes the rule's verdict on the pair (a correction it would catch, missed)."""
    return pair.cosine < floor and bool(rule_relates(pair.old, pair.new, pair.cosine))


# -- output ------------------------------------------------------------------------------------------------


def stats(values: np.ndarray) -> dict[str, float]:
    return {"n": int(len(values)), "mean": float(values.mean()), "sd": float(values.std()),
            "p1": float(np.percentile(values, 1)), "p50": float(np.percentile(values, 50)),
            "p99": float(np.percentile(values, 99)), "min": float(values.min()), "max": float(values.max())}


def null_table(rows: list[NullRow], floors: list[float]) -> Table:
    """Per floor: the share of unrelated pairs at or above it, and how many in 10,000 the rules then
    relate (estimated on a sample of those above)."""
    table = Table(title="unrelated statements (different conversations / users), passage vs passage")
    for col in ("pairs", "lang", "n", "mean", "sd", "p1", "p99", "max"):
        table.add_column(col, justify="left" if col in ("pairs", "lang") else "right")
    for floor in floors:
        table.add_column(f">= {floor:.3f}", justify="right")
        table.add_column("related /10k", justify="right")
    for row in rows:
        s = stats(row.cosines)
        cells = [row.name, row.langs, f"{s['n']:,}", *(f"{s[k]:.3f}" for k in ("mean", "sd", "p1", "p99", "max"))]
        for floor in floors:
            share = row.above[floor] / s["n"]
            cells += [f"{share:.2%}", f"{share * row.related[floor] * 10_000:.1f}"]
        table.add_row(*cells)
    return table


def pairs_table(pairs: list[Labelled], null: dict[str, tuple[float, float]]) -> Table:
    table = Table(title="pairs the gate must relate (corrections, co-true) or tell apart, passage vs passage")
    for col in ("kind", "lang", "n", "mean", "sd", "min", "p1", "p99", "z min", "z p1", "< 0.85", "< floor",
                "rule loses at 0.85", "rule loses at floor"):
        table.add_column(col, justify="left" if col in ("kind", "lang") else "right")
    groups: dict[tuple[str, str], list[Labelled]] = {}
    for p in pairs:
        groups.setdefault((p.kind, p.lang), []).append(p)
    for (kind, lang), group in sorted(groups.items()):
        cos = np.array([p.cosine for p in group])
        s = stats(cos)
        mean, sd = null[lang]
        z = (cos - mean) / sd
        floors = [pair_floor(p) for p in group]
        table.add_row(kind, lang, str(s["n"]), *(f"{s[k]:.3f}" for k in ("mean", "sd", "min", "p1", "p99")),
                      f"{z.min():.1f}", f"{np.percentile(z, 1):.1f}", str(int((cos < 0.85).sum())),
                      str(sum(c < f for c, f in zip(cos, floors))), str(sum(floor_cost(p, 0.85) for p in group)),
                      str(sum(floor_cost(p, f) for p, f in zip(group, floors))))
    return table


def pair_floor(pair: Labelled) -> float:
    """The floor the gate applies to this pair (by the languages of its two statements)."""
    return novelty.same_subject_floor(novelty.language(pair.old), novelty.language(pair.new))


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     epilog="example: python bench/novelty_null.py --per-kind 1500 --threads 1")
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="the shared benchmark folder")
    parser.add_argument("--per-kind", type=int, default=1500, help="texts sampled per kind (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=1, help="the embedder's threads (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--json", help="write the numbers here")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    commit = git_commit()
    rng = random.Random(args.seed)
    recipes = load_recipes(args.data)
    messages, facts = locomo(recipes)
    kinds = [sample("en chat", messages, args.per_kind, rng), sample("en facts", facts, args.per_kind, rng),
             sample("zh facts", memdaily(recipes), args.per_kind, rng)]
    embedder = default_embedder(threads=args.threads)
    pairs = labelled_pairs()
    with console.status("embedding"):
        for t in kinds:
            t.vectors = np.asarray(embedder.embed_passages(t.texts), dtype=np.float32)
        for p in pairs:
            vecs = embedder.embed_passages([p.old, p.new])
            p.cosine = float(vecs[0] @ vecs[1])
    en_msg, en_fact, zh = kinds
    shipped = {"en-en": novelty.same_subject_floor("en", "en"), "zh-zh": novelty.same_subject_floor("zh", "zh"),
               "en-zh": novelty.same_subject_floor("en", "zh")}
    plan = [("LoCoMo chat", "en-en", en_msg, en_msg), ("LoCoMo observations", "en-en", en_fact, en_fact),
            ("MemDaily messages", "zh-zh", zh, zh), ("LoCoMo chat x MemDaily", "en-zh", en_msg, zh),
            ("LoCoMo obs. x MemDaily", "en-zh", en_fact, zh)]
    floors = sorted({*RAW_FLOORS, *shipped.values()})
    rows = []
    with console.status("rules on the pairs above each floor"):
        for name, langs, a, b in plan:
            rows.append(null_row(name, langs, a, b, floors, rng))
    null = {lang: (float(rows[i].cosines.mean()), float(rows[i].cosines.std()))
            for lang, i in (("en", 1), ("zh", 2), ("en-zh", 4))}
    console.print(f"# novelty floors against the null: kenning @ {commit}, embedder {embedder.name} "
                  f"(threads {args.threads}), {args.per_kind} texts per kind, seed {args.seed}; floors shipped: "
                  + ", ".join(f"{k} {v:.3f}" for k, v in shipped.items()) + f", near duplicate {novelty.NEAR_DUPLICATE}")
    console.print(null_table(rows, floors))
    console.print("z below: against the null of the short facts: LoCoMo observations (en), MemDaily messages (zh), "
                  "and the two against each other (en-zh); floor: the one the gate applies to the pair")
    console.print(pairs_table(pairs, null))
    for row in rows:
        for cos, x, y, verdict in row.examples:
            console.print(f"  [{row.name}] {cos:.3f} {verdict}: {x[:70]!r} / {y[:70]!r}")
    if args.json:
        write_json(args.json, {
            "commit": commit, "argv": sys.argv, "embedder": embedder.name, "threads": args.threads,
            "shipped": shipped,
            "null": [{"pairs": r.name, "langs": r.langs, **stats(r.cosines), "above": r.above, "related": r.related}
                     for r in rows],
            "labelled": [{"kind": p.kind, "lang": p.lang, "old": p.old, "new": p.new, "cosine": p.cosine,
                          "verdict": rule_relates(p.old, p.new, p.cosine)} for p in pairs],
            "verdicts": dict(Counter(rule_relates(p.old, p.new, p.cosine) for p in pairs)),
        })


if __name__ == "__main__":
    main()
