#!/usr/bin/env python3
"""Count tokens in files: tiktoken locally, or Anthropic count_tokens with --exact."""
import argparse
import fnmatch
import os
import pathlib
import subprocess
import sys

SKIP = [".env*", "*.lock", "package-lock.json", "pnpm-lock.yaml", "*.min.js"]


def candidate_files(paths):
    for root in paths:
        root = pathlib.Path(root)
        try:
            out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", str(root)],
                                 capture_output=True, text=True, check=True).stdout.splitlines()
            files = [pathlib.Path(p) for p in out]
        except (subprocess.CalledProcessError, FileNotFoundError):
            files = [p for p in root.rglob("*") if p.is_file()] if root.is_dir() else [root]
        for p in files:
            if any(fnmatch.fnmatch(p.name, pat) for pat in SKIP):
                continue
            with p.open("rb") as f:
                if b"\0" in f.read(4096):
                    continue
            yield p


def exact_count(text, model):
    import httpx
    key = os.environ.get("ANTHROPIC_API_KEY")
    if not key:
        sys.exit("--exact needs ANTHROPIC_API_KEY in the environment")
    r = httpx.post("https://api.anthropic.com/v1/messages/count_tokens", timeout=60,
                   headers={"x-api-key": key, "anthropic-version": "2023-06-01"},
                   json={"model": model, "messages": [{"role": "user", "content": text}]})
    r.raise_for_status()
    return r.json()["input_tokens"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--budget", type=int, default=180_000)
    ap.add_argument("--exact", action="store_true")
    ap.add_argument("--model", default="claude-sonnet-4-5")
    a = ap.parse_args()

    if not a.exact:
        import tiktoken
        enc = tiktoken.get_encoding("o200k_base")
    rows = []
    for p in candidate_files(a.paths):
        text = p.read_text(encoding="utf-8", errors="replace")
        n = exact_count(text, a.model) if a.exact else len(enc.encode(text, disallowed_special=()))
        rows.append((n, str(p)))
    rows.sort(reverse=True)
    for n, name in rows[:40]:
        print(f"{n:>9,}  {name}")
    if len(rows) > 40:
        print(f"      ...  {len(rows) - 40} more files")
    total = sum(n for n, _ in rows)
    print(f"{total:>9,}  TOTAL ({len(rows)} files, {'exact' if a.exact else 'tiktoken estimate'})")
    print("FITS" if total <= a.budget else f"OVER BUDGET by {total - a.budget:,} tokens")


if __name__ == "__main__":
    main()
