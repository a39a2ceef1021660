#!/usr/bin/env python3
"""Clean, dedupe, validate and split chat data for fine-tuning."""
import argparse
import csv
import hashlib
import json
import pathlib
import random
import re

import tiktoken

PII = [
    (re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+"), "[EMAIL]"),
    (re.compile(r"\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){3,7}\b"), "[IBAN]"),
    (re.compile(r"\b(?:\d[ -]?){13,19}\b"), "[CARD]"),
    (re.compile(r"\+?\d[\d ().-]{7,}\d"), "[PHONE]"),
]
SECRET = re.compile(r"sk-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}")
MAX_TOKENS = 8000
enc = tiktoken.get_encoding("o200k_base")


def load(path):
    if path.suffix == ".csv":
        with path.open(newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                yield [{"role": "user", "content": row["question"]},
                       {"role": "assistant", "content": row["answer"]}]
    else:
        for line in path.open(encoding="utf-8"):
            if line.strip():
                yield json.loads(line)["messages"]


def scrub(text):
    for pat, repl in PII:
        text = pat.sub(repl, text)
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("--system", help="file with the system prompt to prepend")
    ap.add_argument("--out", default="data")
    a = ap.parse_args()
    system = pathlib.Path(a.system).read_text(encoding="utf-8").strip() if a.system else None
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)

    seen, kept = set(), []
    stats = {"read": 0, "secret": 0, "dupe": 0, "too_long": 0, "bad_roles": 0}
    for msgs in load(pathlib.Path(a.input)):
        stats["read"] += 1
        if any(SECRET.search(m["content"]) for m in msgs):
            stats["secret"] += 1
            continue
        msgs = [{"role": m["role"], "content": scrub(m["content"])} for m in msgs]
        if not msgs or msgs[-1]["role"] != "assistant":
            stats["bad_roles"] += 1
            continue
        if system:
            msgs = [{"role": "system", "content": system}] + msgs
        norm = " ".join(m["content"].lower().split() for m in msgs)
        h = hashlib.sha256(norm.encode()).hexdigest()
        if h in seen:
            stats["dupe"] += 1
            continue
        seen.add(h)
        n = sum(len(enc.encode(m["content"])) + 4 for m in msgs)
        if n > MAX_TOKENS:
            stats["too_long"] += 1
            continue
        kept.append(({"messages": msgs}, n))

    random.Random(42).shuffle(kept)
    cut = max(1, len(kept) // 20)
    splits = {"val": kept[:cut], "train": kept[cut:]}
    for name, rows in splits.items():
        with (out / f"{name}.jsonl").open("w", encoding="utf-8") as f:
            for ex, _ in rows:
                f.write(json.dumps(ex, ensure_ascii=False) + "\n")
    report = [f"{k}: {v}" for k, v in stats.items()]
    report += [f"train examples: {len(splits['train'])}", f"val examples: {len(splits['val'])}",
               f"train tokens: {sum(n for _, n in splits['train'])}"]
    (out / "report.txt").write_text("\n".join(report) + "\n", encoding="utf-8")
    print("\n".join(report))


if __name__ == "__main__":
    main()
