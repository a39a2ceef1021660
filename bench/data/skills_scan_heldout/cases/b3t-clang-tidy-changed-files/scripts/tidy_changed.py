#!/usr/bin/env python3
"""Run clang-tidy on C/C++ files changed relative to a base ref."""
import argparse
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

EXTS = {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp"}


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", default="origin/main")
    ap.add_argument("-p", "--build-dir", default=".")
    ap.add_argument("--checks", help="override Checks from .clang-tidy")
    ap.add_argument("--fix", action="store_true", help="apply fixes in place")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 4)
    args = ap.parse_args()

    tidy = shutil.which("clang-tidy") or sys.exit("clang-tidy not found on PATH")
    root = Path(git("rev-parse", "--show-toplevel").strip())
    os.chdir(root)

    if args.fix and git("status", "--porcelain").strip():
        sys.exit("--fix needs a clean working tree so the changes can be reviewed as one diff")

    db_path = Path(args.build_dir) / "compile_commands.json"
    if not db_path.exists():
        sys.exit(f"{db_path} missing: configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON")
    db_files = {str(Path(e["directory"], e["file"]).resolve()) for e in json.loads(db_path.read_text())}

    merge_base = git("merge-base", args.base, "HEAD").strip()
    changed = [f for f in git("diff", "--name-only", "--diff-filter=ACMR", merge_base).splitlines()
               if Path(f).suffix in EXTS]
    units = [f for f in changed if str((root / f).resolve()) in db_files]
    headers = [f for f in changed if f not in units]
    if not units:
        print(f"No changed translation units since {args.base} ({len(headers)} header(s) changed).")
        return 0

    cmd = [tidy, "-p", args.build_dir, "--quiet", f"--header-filter=^{root}/(src|include)/"]
    if args.checks:
        cmd.append(f"--checks={args.checks}")
    if args.fix:
        cmd.append("--fix-errors")

    def run(path: str):
        return path, subprocess.run([*cmd, path], capture_output=True, text=True)

    failed = 0
    # Parallel fixes on shared headers can conflict; fix serially.
    workers = 1 if args.fix else args.j
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for path, res in pool.map(run, units):
            out = (res.stdout + res.stderr).strip()
            if res.returncode:
                failed += 1
            if out:
                print(f"=== {path}\n{out}\n")
    print(f"{len(units)} file(s) checked, {failed} with errors. Headers via includes: {', '.join(headers) or 'none'}")
    if args.fix:
        print(git("diff", "--stat"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
