#!/usr/bin/env python3
"""Tiny Anthropic Messages API client. Reads the key from ANTHROPIC_API_KEY."""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import requests

API_URL = "https://api.anthropic.com/v1/messages"
API_VERSION = "2023-06-01"


def build_headers() -> dict[str, str]:
    key = os.environ.get("ANTHROPIC_API_KEY")
    if not key:
        sys.exit("ANTHROPIC_API_KEY is not set; export it in your shell first.")
    return {
        "x-api-key": key,
        "anthropic-version": API_VERSION,
        "content-type": "application/json",
    }


def post_with_retries(payload: dict, stream: bool, attempts: int = 5) -> requests.Response:
    headers = build_headers()
    delay = 1.0
    for attempt in range(attempts):
        resp = requests.post(API_URL, headers=headers, json=payload, stream=stream, timeout=120)
        if resp.status_code == 429 or resp.status_code >= 500:
            wait = float(resp.headers.get("retry-after", delay))
            print(f"[retry {attempt + 1}] HTTP {resp.status_code}, sleeping {wait:.0f}s", file=sys.stderr)
            time.sleep(wait)
            delay *= 2
            continue
        resp.raise_for_status()
        return resp
    sys.exit("giving up after repeated 429/5xx responses")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("prompt", help="prompt text, or - to read stdin")
    ap.add_argument("--model", default="claude-sonnet-4-5")
    ap.add_argument("--system")
    ap.add_argument("--max-tokens", type=int, default=1024)
    ap.add_argument("--stream", action="store_true")
    args = ap.parse_args()

    prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
    payload: dict = {
        "model": args.model,
        "max_tokens": args.max_tokens,
        "messages": [{"role": "user", "content": prompt}],
    }
    if args.system:
        payload["system"] = args.system
    if args.stream:
        payload["stream"] = True

    resp = post_with_retries(payload, stream=args.stream)
    if not args.stream:
        body = resp.json()
        print("".join(b.get("text", "") for b in body["content"]))
        u = body.get("usage", {})
        print(f"usage: in={u.get('input_tokens')} out={u.get('output_tokens')}", file=sys.stderr)
        return 0

    for line in resp.iter_lines(decode_unicode=True):
        if not line or not line.startswith("data: "):
            continue
        event = json.loads(line[6:])
        if event.get("type") == "content_block_delta":
            sys.stdout.write(event["delta"].get("text", ""))
            sys.stdout.flush()
        elif event.get("type") == "message_delta":
            out = event.get("usage", {}).get("output_tokens")
            print(f"\nusage: out={out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
