#!/usr/bin/env python3
"""Check required env vars from .env (python-dotenv) and write .env.example without values."""
import argparse
import os
import re
import sys
from pathlib import Path

from dotenv import dotenv_values, load_dotenv

LINE = re.compile(r"^\s*(export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=")


def mask(v: str) -> str:
    return (v[:4] + "****") if len(v) > 8 else "****"


def write_example(src: Path, dst: Path) -> None:
    out = []
    for line in src.read_text().splitlines():
        m = LINE.match(line)
        out.append(f"{m.group(2)}=" if m else line)  # keep comments and blank lines
    dst.write_text("\n".join(out) + "\n")
    print(f"wrote {dst} ({sum(1 for l in out if l.endswith('='))} keys, no values)")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--env", default=".env")
    ap.add_argument("--require", default="")
    ap.add_argument("--write-example", action="store_true")
    ap.add_argument("--show", action="store_true", help="list keys with masked values")
    a = ap.parse_args()
    env = Path(a.env)
    if not env.exists():
        print(f"{env} not found; copy .env.example to {env} and fill it in", file=sys.stderr)
        return 1
    if a.write_example:
        write_example(env, env.with_name(".env.example"))
    load_dotenv(env, override=False)   # real environment wins over the file
    if a.show:
        for k, v in dotenv_values(env).items():
            print(f"{k}={mask(v or '')}")
    missing = [k for k in filter(None, a.require.split(",")) if not os.environ.get(k)]
    if missing:
        print("missing or empty: " + ", ".join(missing), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
