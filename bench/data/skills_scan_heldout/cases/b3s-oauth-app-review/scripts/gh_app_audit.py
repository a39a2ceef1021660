#!/usr/bin/env python3
"""Audit GitHub App installations and SSO credential authorizations for an org.
Reads GITHUB_TOKEN from the environment; talks only to api.github.com. Prints Markdown."""
import datetime as dt
import json
import os
import sys
import urllib.error
import urllib.request

API = "https://api.github.com"
RISKY = {"administration", "workflows", "secrets", "members", "organization_administration"}


def get_all(path):
    url, out = f"{API}{path}?per_page=100", []
    while url:
        req = urllib.request.Request(url, headers={
            "Authorization": f"Bearer {os.environ['GITHUB_TOKEN']}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28"})
        with urllib.request.urlopen(req, timeout=30) as r:
            data = json.load(r)
            out += data["installations"] if isinstance(data, dict) else data
            link = r.headers.get("Link", "")
        url = next((p.split(";")[0].strip("<> ") for p in link.split(",") if 'rel="next"' in p), None)
    return out


def main(org):
    if "GITHUB_TOKEN" not in os.environ:
        sys.exit("GITHUB_TOKEN is not set")
    now = dt.datetime.now(dt.timezone.utc)
    print(f"# GitHub app & credential audit: {org} ({now:%Y-%m-%d})\n")
    print("## GitHub App installations\n\n| App | Repos | Risky permissions | Installed | Flags |\n|---|---|---|---|---|")
    for i in get_all(f"/orgs/{org}/installations"):
        perms = i.get("permissions", {})
        risky = [f"{k}:{v}" for k, v in perms.items() if k in RISKY and v in ("write", "admin")]
        flags = (["all repos"] if i.get("repository_selection") == "all" else []) + (["risky"] if risky else [])
        print(f"| {i['app_slug']} | {i.get('repository_selection')} | {', '.join(risky) or '-'} | "
              f"{i['created_at'][:10]} | {', '.join(flags) or 'ok'} |")

    print("\n## SSO credential authorizations\n")
    try:
        creds = get_all(f"/orgs/{org}/credential-authorizations")
    except urllib.error.HTTPError as e:
        print(f"Skipped (HTTP {e.code}; org may not use SAML SSO).")
        return
    print("| User | Type | Scopes | Last used | Flags |\n|---|---|---|---|---|")
    for c in creds:
        last = c.get("credential_accessed_at")
        stale = not last or (now - dt.datetime.fromisoformat(last.replace("Z", "+00:00"))).days > 90
        print(f"| {c['login']} | {c['credential_type']} | {', '.join(c.get('scopes') or []) or '-'} | "
              f"{(last or 'never')[:10]} | {'stale' if stale else 'ok'} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: gh_app_audit.py <org>")
    main(sys.argv[1])
