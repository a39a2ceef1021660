#!/usr/bin/env python3
"""Rank parent domains in a Zeek dns.log by how much they look like DNS tunnelling."""
import argparse
import collections
import gzip
import math
import sys


def entropy(s):
    if not s:
        return 0.0
    counts = collections.Counter(s)
    return -sum(n / len(s) * math.log2(n / len(s)) for n in counts.values())


def records(path):
    opener = gzip.open if path.endswith(".gz") else open
    fields = []
    with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.startswith("#fields"):
                fields = line.rstrip("\n").split("\t")[1:]
            elif not line.startswith("#") and fields:
                yield dict(zip(fields, line.rstrip("\n").split("\t")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--min-queries", type=int, default=30)
    ap.add_argument("--allow", help="file with one allowed parent domain per line")
    args = ap.parse_args()
    allow = set()
    if args.allow:
        allow = {l.strip().lower() for l in open(args.allow) if l.strip()}

    stats = collections.defaultdict(lambda: {"n": 0, "subs": set(), "txt": 0, "clients": collections.Counter()})
    for path in args.logs:
        for r in records(path):
            q = r.get("query", "-").lower().rstrip(".")
            parts = q.split(".")
            if q == "-" or len(parts) < 3 or q.endswith(".arpa"):
                continue
            parent = ".".join(parts[-2:])
            if parent in allow:
                continue
            s = stats[parent]
            s["n"] += 1
            s["subs"].add(".".join(parts[:-2]))
            s["txt"] += r.get("qtype_name") in ("TXT", "NULL")
            s["clients"][r.get("id.orig_h", "?")] += 1

    rows = []
    for parent, s in stats.items():
        if s["n"] < args.min_queries:
            continue
        labels = [lab for sub in s["subs"] for lab in sub.split(".") if lab]
        mean_len = sum(map(len, labels)) / max(len(labels), 1)
        mean_ent = sum(map(entropy, labels)) / max(len(labels), 1)
        txt_share = s["txt"] / s["n"]
        uniq = len(s["subs"])
        score = math.log10(uniq + 1) * (mean_len / 10) * mean_ent + 2 * txt_share
        rows.append((score, parent, s["n"], uniq, mean_len, mean_ent, txt_share, s["clients"].most_common(1)[0][0]))

    w = sys.stdout.write
    w("parent\tqueries\tunique_subs\tmean_len\tmean_entropy\ttxt_null_share\ttop_client\tscore\n")
    for score, parent, n, uniq, ml, me, ts, client in sorted(rows, reverse=True):
        w(f"{parent}\t{n}\t{uniq}\t{ml:.1f}\t{me:.2f}\t{ts:.2f}\t{client}\t{score:.2f}\n")


if __name__ == "__main__":
    main()
