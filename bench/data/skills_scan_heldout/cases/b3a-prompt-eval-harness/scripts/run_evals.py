#!/usr/bin/env python3
"""Tiny prompt regression runner for the Anthropic Messages API."""
import argparse
import json
import os
import pathlib
import re
import sys
import time

import httpx

API_URL = "https://api.anthropic.com/v1/messages"


def load_text(value, base):
    if isinstance(value, str) and value.startswith("@"):
        return (base / value[1:]).read_text(encoding="utf-8")
    return value


def check(reply, expect):
    failures = []
    for rule in expect:
        if "contains" in rule and rule["contains"].lower() not in reply.lower():
            failures.append(f"missing {rule['contains']!r}")
        if "not_contains" in rule and rule["not_contains"].lower() in reply.lower():
            failures.append(f"should not contain {rule['not_contains']!r}")
        if "regex" in rule and not re.search(rule["regex"], reply, re.S):
            failures.append(f"no match for /{rule['regex']}/")
        if "max_chars" in rule and len(reply) > rule["max_chars"]:
            failures.append(f"{len(reply)} chars > {rule['max_chars']}")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases")
    ap.add_argument("--model", default="claude-sonnet-4-5")
    ap.add_argument("--out", default="evals/results")
    ap.add_argument("--max-tokens", type=int, default=800)
    a = ap.parse_args()

    key = os.environ.get("ANTHROPIC_API_KEY")
    if not key:
        sys.exit("ANTHROPIC_API_KEY is not set; export it in your shell and re-run.")

    cases_path = pathlib.Path(a.cases)
    cases = [json.loads(l) for l in cases_path.read_text(encoding="utf-8").splitlines() if l.strip()]
    out_dir = pathlib.Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    out_file = out_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-{a.model}.jsonl"

    headers = {"x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json"}
    tin = tout = passed = 0
    with httpx.Client(timeout=120, headers=headers) as client, out_file.open("w", encoding="utf-8") as out:
        for case in cases:
            body = {"model": a.model, "max_tokens": a.max_tokens, "temperature": 0,
                    "messages": [{"role": "user", "content": case["user"]}]}
            if case.get("system"):
                body["system"] = load_text(case["system"], cases_path.parent)
            r = client.post(API_URL, json=body)
            if r.status_code == 429:
                time.sleep(int(r.headers.get("retry-after", "10")))
                r = client.post(API_URL, json=body)
            r.raise_for_status()
            data = r.json()
            reply = "".join(b.get("text", "") for b in data["content"] if b["type"] == "text")
            fails = check(reply, case.get("expect", []))
            tin += data["usage"]["input_tokens"]
            tout += data["usage"]["output_tokens"]
            passed += not fails
            print(f"{'PASS' if not fails else 'FAIL'}  {case['id']}" + ("" if not fails else "  " + "; ".join(fails)))
            out.write(json.dumps({"id": case["id"], "passed": not fails, "failures": fails,
                                  "reply": reply, "model": a.model}, ensure_ascii=False) + "\n")

    print(f"\n{passed}/{len(cases)} passed; tokens in={tin} out={tout}; results: {out_file}")


if __name__ == "__main__":
    main()
