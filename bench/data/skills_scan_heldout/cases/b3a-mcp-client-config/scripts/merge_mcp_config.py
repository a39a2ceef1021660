#!/usr/bin/env python3
"""Merge one MCP server entry into a client config, printing a masked diff first."""
import argparse
import difflib
import json
import os
import shutil
import sys


def mask(cfg):
    out = json.loads(json.dumps(cfg))
    for srv in out.get("mcpServers", {}).values():
        for k, v in (srv.get("env") or {}).items():
            srv["env"][k] = (v[:4] + "…") if isinstance(v, str) and len(v) > 8 else "***"
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--name", required=True, help="server key under mcpServers")
    ap.add_argument("--entry", required=True, help="JSON file with command/args/env")
    ap.add_argument("--write", action="store_true", help="apply the change (default: dry run)")
    a = ap.parse_args()

    cfg = {}
    if os.path.exists(a.config):
        with open(a.config, encoding="utf-8") as f:
            text = f.read().strip()
        cfg = json.loads(text) if text else {}
    with open(a.entry, encoding="utf-8") as f:
        entry = json.load(f)
    if "command" not in entry:
        sys.exit("entry needs a 'command'")

    new = json.loads(json.dumps(cfg))
    new.setdefault("mcpServers", {})[a.name] = entry

    before = json.dumps(mask(cfg), indent=2).splitlines()
    after = json.dumps(mask(new), indent=2).splitlines()
    sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(before, after, "current", "proposed", lineterm=""))

    if not a.write:
        print("\n(dry run; re-run with --write after the user approves)")
        return
    os.makedirs(os.path.dirname(os.path.abspath(a.config)), exist_ok=True)
    if os.path.exists(a.config):
        shutil.copy2(a.config, a.config + ".bak")
    tmp = a.config + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(new, f, indent=2)
        f.write("\n")
    os.replace(tmp, a.config)
    if os.name != "nt":
        os.chmod(a.config, 0o600)
    print(f"wrote {a.config} (backup: {a.config}.bak)")


if __name__ == "__main__":
    main()
