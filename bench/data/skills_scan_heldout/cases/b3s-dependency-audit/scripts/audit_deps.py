#!/usr/bin/env python3
"""Run pip-audit and npm audit on a project folder and print one summary."""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys


def run_json(cmd, cwd):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    # Both tools exit non-zero when they find vulnerabilities; that is not an error here.
    try:
        return json.loads(proc.stdout or "{}")
    except json.JSONDecodeError:
        sys.stderr.write(f"{cmd[0]} failed:\n{proc.stderr}\n")
        return None


def pip_rows(pip_audit, root):
    rows = []
    reqs = sorted(root.glob("requirements*.txt"))
    targets = [["-r", str(r)] for r in reqs] or ([[str(root)]] if (root / "pyproject.toml").exists() else [])
    for t in targets:
        data = run_json([pip_audit, "--format", "json", "--progress-spinner", "off", *t], root)
        for dep in (data or {}).get("dependencies", []):
            for v in dep.get("vulns", []):
                rows.append(("pypi", dep["name"], dep.get("version", "?"), v["id"],
                             ",".join(v.get("fix_versions", [])) or "-", "-"))
    return rows


def npm_rows(root):
    if not (root / "package-lock.json").exists() or not shutil.which("npm"):
        return []
    data = run_json(["npm", "audit", "--json"], root) or {}
    rows = []
    for name, info in data.get("vulnerabilities", {}).items():
        fix = info.get("fixAvailable")
        fix_s = fix.get("version", "yes") if isinstance(fix, dict) else ("yes" if fix else "-")
        ids = [v.get("url", "").rsplit("/", 1)[-1] for v in info.get("via", []) if isinstance(v, dict)]
        rows.append(("npm", name, info.get("range", "?"), ",".join(ids) or "(transitive)",
                     fix_s, info.get("severity", "-")))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("project", nargs="?", default=".")
    ap.add_argument("--pip-audit", default="pip-audit")
    args = ap.parse_args()
    root = pathlib.Path(args.project).resolve()

    rows = pip_rows(args.pip_audit, root) + npm_rows(root)
    if not rows:
        print("No known vulnerabilities found.")
        return 0
    header = ("eco", "package", "version", "advisory", "fixed in", "severity")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(6)]
    for r in [header] + rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    print(f"\n{len(rows)} finding(s)")
    return 1


if __name__ == "__main__":
    sys.exit(main())
