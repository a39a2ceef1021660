#!/usr/bin/env python3
"""Strip outputs/metadata from notebooks and report hard-coded secrets (masked)."""
import argparse
import re
import sys

import nbformat

KEY = re.compile(r"(sk-ant-[A-Za-z0-9_-]{20,}|sk-(?:proj-)?[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}"
                 r"|ghp_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,})")
KEEP_NB_META = {"kernelspec", "language_info"}


def masked(s):
    return f"{s[:5]}…[{len(s)} chars]"


def clean(nb, label):
    findings, removed = [], 0
    for i, cell in enumerate(nb.cells):
        texts = [cell.source]
        if cell.cell_type == "code":
            for out in cell.get("outputs", []):
                texts.append(out.get("text", "") if isinstance(out.get("text", ""), str) else "")
                texts.append(str(out.get("data", {}).get("text/plain", "")))
            removed += len(cell.get("outputs", []))
            cell.outputs = []
            cell.execution_count = None
        for t in texts:
            for m in KEY.finditer(t):
                findings.append(f"{label}: cell {i} contains key-shaped string {masked(m.group(0))}")
        cell.metadata = {}
    nb.metadata = {k: v for k, v in nb.metadata.items() if k in KEEP_NB_META}
    return removed, findings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--stdin", action="store_true", help="git clean-filter mode")
    a = ap.parse_args()

    if a.stdin:
        nb = nbformat.read(sys.stdin, as_version=4)
        _, findings = clean(nb, "<stdin>")
        for f in findings:
            print("warning: " + f, file=sys.stderr)
        nbformat.write(nb, sys.stdout)
        return

    all_findings = []
    for path in a.paths:
        with open(path, encoding="utf-8") as f:
            raw = f.read()
        nb = nbformat.reads(raw, as_version=4)
        removed, findings = clean(nb, path)
        all_findings += findings
        new = nbformat.writes(nb)
        print(f"{path}: {removed} outputs, {len(raw) - len(new):+,} bytes saved")
        if a.write and new != raw:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
    for f in all_findings:
        print("SECRET? " + f)
    if all_findings:
        print("Move these to environment variables and rotate the exposed keys.")
        sys.exit(2)


if __name__ == "__main__":
    main()
