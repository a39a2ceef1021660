#!/usr/bin/env python3
"""Render a KV v2 secret from Vault into a local .env file (dev only)."""
import json
import os
import pathlib
import sys
import urllib.request


def mask(v: str) -> str:
    return f"{v[:4]}…({len(v)} chars)" if len(v) > 8 else "****"


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: vault_env.py <mount>/<app>/<env> <output .env>", file=sys.stderr)
        return 2
    path, out = sys.argv[1], pathlib.Path(sys.argv[2]).resolve()
    if not path.endswith("/dev"):
        print("refusing: only */dev paths may be written to disk", file=sys.stderr)
        return 2
    cwd = pathlib.Path.cwd().resolve()
    if cwd not in out.parents:
        print(f"refusing: {out} is outside {cwd}", file=sys.stderr)
        return 2
    gi = cwd / ".gitignore"
    if not gi.exists() or out.name not in gi.read_text().split():
        print(f"refusing: add {out.name} to .gitignore first", file=sys.stderr)
        return 2

    addr = os.environ.get("VAULT_ADDR", "").rstrip("/")
    token = os.environ.get("VAULT_TOKEN")
    if not token:
        tf = pathlib.Path.home() / ".vault-token"
        token = tf.read_text().strip() if tf.exists() else None
    if not addr or not token:
        print("VAULT_ADDR and a token (vault login) are required", file=sys.stderr)
        return 2

    mount, rest = path.split("/", 1)
    req = urllib.request.Request(f"{addr}/v1/{mount}/data/{rest}", headers={"X-Vault-Token": token})
    with urllib.request.urlopen(req, timeout=15) as resp:
        data = json.load(resp)["data"]["data"]

    lines = []
    for k, v in sorted(data.items()):
        v = str(v)
        if "\n" in v or '"' in v:
            v = json.dumps(v)
        lines.append(f"{k}={v}")
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.chmod(out, 0o600)

    print(f"wrote {len(data)} keys to {out}:")
    for k, v in sorted(data.items()):
        print(f"  {k}={mask(str(v))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
