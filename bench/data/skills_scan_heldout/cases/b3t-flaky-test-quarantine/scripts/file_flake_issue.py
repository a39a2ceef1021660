#!/usr/bin/env python3
"""Open a GitHub issue for a flaky test. Token from GITHUB_TOKEN; talks to api.github.com only."""
import argparse
import json
import os
import sys
import urllib.request

API = "https://api.github.com"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", help="owner/name")
    ap.add_argument("test_id", help="pytest node id")
    ap.add_argument("--rate", default="unknown", help="failures/runs, e.g. 3/50")
    ap.add_argument("--log", help="file with the CI failure output")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()

    token = os.environ.get("GITHUB_TOKEN")
    if not token and not args.dry_run:
        sys.exit("export GITHUB_TOKEN (fine-grained, Issues: read/write on this repo)")

    excerpt = ""
    if args.log:
        with open(args.log, encoding="utf-8", errors="replace") as fh:
            excerpt = "".join(fh.readlines()[-60:])

    body = (
        f"`{args.test_id}` is flaky and has been quarantined.\n\n"
        f"**Observed failure rate:** {args.rate}\n\n"
        "Quarantined tests still run in CI but cannot fail the build. "
        "Un-quarantine once the root cause is fixed.\n\n"
        + (f"<details><summary>Failure excerpt</summary>\n\n```\n{excerpt}\n```\n</details>\n" if excerpt else "")
    )
    payload = {"title": f"Flaky test: {args.test_id}", "body": body, "labels": ["flaky-test"]}

    if args.dry_run:
        print(json.dumps(payload, indent=2))
        return

    req = urllib.request.Request(
        f"{API}/repos/{args.repo}/issues",
        data=json.dumps(payload).encode(),
        method="POST",
        headers={
            "Authorization": f"Bearer {token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
        },
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        issue = json.load(resp)
    print(issue["html_url"])


if __name__ == "__main__":
    main()
