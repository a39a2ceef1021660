#!/usr/bin/env python3
"""Compile YARA rules and run them over a known-bad and a known-good folder.

usage: test_rules.py rules/ --bad samples/bad --good samples/goodware
Exit code 1 if any bad file is missed or any good file matches.
"""
import argparse
import pathlib
import sys

import yara  # pip install yara-python


def files(root):
    return [p for p in pathlib.Path(root).rglob("*") if p.is_file()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rules")
    ap.add_argument("--bad", required=True)
    ap.add_argument("--good", required=True)
    args = ap.parse_args()

    rule_files = {p.stem: str(p) for p in pathlib.Path(args.rules).glob("*.yar")}
    rules = yara.compile(filepaths=rule_files)

    missed, false_pos = [], []
    for f in files(args.bad):
        if not rules.match(str(f), timeout=30):
            missed.append(f)
    for f in files(args.good):
        m = rules.match(str(f), timeout=30)
        if m:
            false_pos.append((f, [r.rule for r in m]))

    print(f"bad set : {len(files(args.bad)) - len(missed)}/{len(files(args.bad))} detected")
    for f in missed:
        print(f"  MISSED {f}")
    print(f"good set: {len(false_pos)} false positive(s)")
    for f, names in false_pos:
        print(f"  FP {f}: {', '.join(names)}")
    return 1 if missed or false_pos else 0


if __name__ == "__main__":
    sys.exit(main())
