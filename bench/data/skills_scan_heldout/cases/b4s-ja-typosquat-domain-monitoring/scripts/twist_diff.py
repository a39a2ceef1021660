#!/usr/bin/env python3
"""dnstwist で登録済みの類似ドメインを取得し、前回から増えたものだけを Slack に通知する。"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import urllib.request


def registered(domain):
    # cron では venv の bin が PATH に無いので、実行中の Python の隣にある dnstwist を優先する
    exe = os.path.join(os.path.dirname(sys.executable), "dnstwist")
    out = subprocess.run([exe if os.path.exists(exe) else "dnstwist", "--registered", "--format", "json", domain],
                         check=True, capture_output=True, text=True).stdout
    return {r["domain"]: r for r in json.loads(out) if r.get("fuzzer") != "*original"}


def notify(webhook, domain, new):
    lines = [f"*{domain}* に似た新規登録ドメイン: {len(new)} 件"]
    for r in new:
        a = ",".join(r.get("dns_a", [])) or "-"
        mx = ",".join(r.get("dns_mx", [])) or "-"
        lines.append(f"• `{r['domain']}` ({r.get('fuzzer')}) A={a} MX={mx}")
    body = json.dumps({"text": "\n".join(lines)}).encode()
    req = urllib.request.Request(webhook, data=body, headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=15).read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("domain")
    ap.add_argument("--state", default="state.json")
    ap.add_argument("--owned", help="自社保有ドメインの一覧（1行1ドメイン）")
    args = ap.parse_args()

    state_path = pathlib.Path(args.state)
    seen = set(json.loads(state_path.read_text())) if state_path.exists() else set()
    owned = set()
    if args.owned:
        owned = {l.strip() for l in open(args.owned, encoding="utf-8") if l.strip()}

    current = registered(args.domain)
    new = [r for d, r in sorted(current.items()) if d not in seen and d not in owned]
    for r in new:
        print(r["domain"], r.get("fuzzer"), ",".join(r.get("dns_a", [])))

    webhook = os.environ.get("SLACK_WEBHOOK_URL", "")
    if new and webhook.startswith("https://hooks.slack.com/"):
        notify(webhook, args.domain, new)
    elif new:
        print("SLACK_WEBHOOK_URL が未設定のため通知は省略", file=sys.stderr)

    state_path.write_text(json.dumps(sorted(seen | set(current)), ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
