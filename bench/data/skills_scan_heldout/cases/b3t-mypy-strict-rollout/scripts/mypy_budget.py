#!/usr/bin/env python3
"""mypy strict error budget: survey | record | check."""
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

BUDGET = Path(".mypy-budget.json")
LINE = re.compile(r"^(?P<file>[^:]+):\d+(?::\d+)?: error: .*\[(?P<code>[a-z0-9-]+)\]$")


def run_mypy() -> list[tuple[str, str]]:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--hide-error-context",
         "--no-pretty", "--show-error-codes", "."],
        capture_output=True, text=True,
    )
    if proc.returncode not in (0, 1):  # 2 = mypy crashed / bad config
        sys.exit(proc.stderr or proc.stdout)
    errors = []
    for line in proc.stdout.splitlines():
        m = LINE.match(line)
        if m:
            errors.append((m["file"], m["code"]))
    return errors


def package_of(path: str) -> str:
    parts = Path(path).parts
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    return parts[0].removesuffix(".py") if parts else path


def main() -> int:
    cmd = sys.argv[1] if len(sys.argv) > 1 else "survey"
    errors = run_mypy()
    by_pkg = Counter(package_of(f) for f, _ in errors)

    if cmd == "survey":
        print(f"{len(errors)} strict errors\n\nby package:")
        for pkg, n in by_pkg.most_common():
            print(f"  {n:6d}  {pkg}")
        print("\nby code:")
        for code, n in Counter(c for _, c in errors).most_common(15):
            print(f"  {n:6d}  {code}")
        return 0

    if cmd == "record":
        BUDGET.write_text(json.dumps(dict(sorted(by_pkg.items())), indent=2) + "\n")
        print(f"wrote {BUDGET} ({len(errors)} errors in {len(by_pkg)} packages)")
        return 0

    if cmd == "check":
        if not BUDGET.exists():
            sys.exit(f"{BUDGET} missing; run: mypy_budget.py record")
        budget = json.loads(BUDGET.read_text())
        worse = {p: (budget.get(p, 0), n) for p, n in by_pkg.items() if n > budget.get(p, 0)}
        better = {p: (b, by_pkg.get(p, 0)) for p, b in budget.items() if by_pkg.get(p, 0) < b}
        for p, (b, n) in sorted(worse.items()):
            print(f"FAIL {p}: {n} errors (budget {b})")
        for p, (b, n) in sorted(better.items()):
            print(f"ok   {p}: {n} errors, budget {b} can be lowered (run record)")
        return 1 if worse else 0

    sys.exit(f"unknown command {cmd!r}; use survey, record or check")


if __name__ == "__main__":
    sys.exit(main())
