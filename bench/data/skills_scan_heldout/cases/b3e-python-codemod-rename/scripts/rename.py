#!/usr/bin/env python3
"""Rename a Name/Attribute/def/class across .py files with LibCST."""
import argparse
import difflib
import sys
from pathlib import Path

import libcst as cst


class Renamer(cst.CSTTransformer):
    def __init__(self, old: str, new: str):
        self.old, self.new, self.count = old, new, 0

    def _swap(self, node):
        self.count += 1
        return node.with_changes(value=self.new)

    def leave_Name(self, original, updated):
        return self._swap(updated) if updated.value == self.old else updated

    def leave_ImportAlias(self, original, updated):
        name = updated.name
        if isinstance(name, cst.Name) and name.value == self.old:
            return updated.with_changes(name=name.with_changes(value=self.new))
        return updated


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()

    changed = 0
    for path in sorted(Path(a.root).rglob("*.py")):
        if any(part in {".venv", "venv", "build", "node_modules"} for part in path.parts):
            continue
        src = path.read_text()
        try:
            mod = cst.parse_module(src)
        except cst.ParserSyntaxError as e:
            print(f"skip {path}: {e}", file=sys.stderr)
            continue
        r = Renamer(a.old, a.new)
        out = mod.visit(r).code
        if out == src:
            continue
        changed += 1
        if a.dry_run:
            sys.stdout.writelines(difflib.unified_diff(src.splitlines(True), out.splitlines(True),
                                                       str(path), str(path), n=0))
        else:
            path.write_text(out)
            print(f"{path}: {r.count} renames")
    print(f"{changed} files {'would change' if a.dry_run else 'changed'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
