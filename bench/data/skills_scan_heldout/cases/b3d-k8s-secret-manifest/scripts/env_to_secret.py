#!/usr/bin/env python3
"""Turn KEY=VALUE lines into a Kubernetes Secret manifest (base64 data) on stdout."""
import argparse
import base64
import re
import sys

KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


def parse(path):
    out = {}
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if "=" not in line:
                sys.exit(f"{path}:{n}: expected KEY=VALUE")
            k, v = line.split("=", 1)
            k, v = k.strip(), v.strip().strip('"').strip("'")
            if not KEY.match(k):
                sys.exit(f"{path}:{n}: invalid key {k!r}")
            if not v:
                sys.exit(f"{path}:{n}: {k} is empty - fill it in first")
            out[k] = v
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("envfile")
    ap.add_argument("--name", required=True)
    ap.add_argument("--namespace", required=True)
    a = ap.parse_args()

    values = parse(a.envfile)
    print("apiVersion: v1\nkind: Secret\ntype: Opaque")
    print(f"metadata:\n  name: {a.name}\n  namespace: {a.namespace}")
    print("  labels:\n    app.kubernetes.io/managed-by: env_to_secret")
    print("data:")
    for k in sorted(values):
        enc = base64.b64encode(values[k].encode()).decode()
        print(f"  {k}: {enc}")
        print(f"encoded {k}={values[k][:4]}****", file=sys.stderr)


if __name__ == "__main__":
    main()
