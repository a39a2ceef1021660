#!/usr/bin/env python3
"""Summarise Cowrie JSON logs into Markdown tables. Reads files only; makes no network calls."""
import argparse
import collections
import json
import re


def defang(text: str) -> str:
    text = re.sub(r"\bhttp", "hxxp", text)
    return re.sub(r"(\d+\.\d+\.\d+)\.(\d+)", r"\1[.]\2", text).replace(".example", "[.]example")


def table(title, counter, top, header):
    print(f"\n## {title}\n\n| {header} | count |\n|---|---|")
    for key, n in counter.most_common(top):
        cell = str(key).replace("|", "\\|").replace("`", "'")
        print(f"| `{cell[:120]}` | {n} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args()

    sessions, ips, creds, commands, downloads = set(), collections.Counter(), collections.Counter(), \
        collections.Counter(), collections.Counter()
    ok = failed = 0
    for path in args.files:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    ev = json.loads(line)
                except json.JSONDecodeError:
                    continue
                eid = ev.get("eventid", "")
                sessions.add(ev.get("session"))
                if eid == "cowrie.session.connect":
                    ips[ev.get("src_ip")] += 1
                elif eid in ("cowrie.login.success", "cowrie.login.failed"):
                    creds[f"{ev.get('username')} / {ev.get('password')}"] += 1
                    ok += eid.endswith("success")
                    failed += eid.endswith("failed")
                elif eid == "cowrie.command.input":
                    commands[ev.get("input", "").strip()] += 1
                elif eid == "cowrie.session.file_download":
                    downloads[f"{defang(ev.get('url', ''))}  sha256={ev.get('shasum', '?')}"] += 1

    print("# Honeypot summary\n")
    print(f"- sessions: {len(sessions)}\n- logins: {ok} succeeded, {failed} failed")
    table("Top source IPs", ips, args.top, "ip")
    table("Top credentials", creds, args.top, "username / password")
    table("Commands", collections.Counter({defang(k): v for k, v in commands.items()}), args.top, "input")
    table("Downloads (defanged, do not visit)", downloads, args.top, "url")


if __name__ == "__main__":
    main()
