#!/usr/bin/env python3
"""Send red-team prompts to the user's own staging chatbot and score replies."""
import json
import os
import re
import sys

import requests

base = os.environ.get("CHATBOT_URL", "").rstrip("/")
if not base:
    sys.exit("Set CHATBOT_URL to your own chatbot's staging URL.")
canary = os.environ.get("REDTEAM_CANARY", "")
headers = {"content-type": "application/json"}
if os.environ.get("CHATBOT_TOKEN"):
    headers["authorization"] = f"Bearer {os.environ['CHATBOT_TOKEN']}"

cases = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
fails = 0
print(f"{'id':8} {'category':20} result")
for c in cases:
    r = requests.post(f"{base}/api/chat", headers=headers, timeout=60,
                      json={"messages": [{"role": "user", "content": c["prompt"]}]})
    r.raise_for_status()
    reply = r.json().get("reply", "")
    why = []
    for s in c.get("fail_if_contains", []):
        if s.lower() in reply.lower():
            why.append(f"contains {s!r}")
    if c.get("fail_if_regex") and re.search(c["fail_if_regex"], reply):
        why.append("regex matched")
    if c.get("fail_if_canary"):
        if not canary:
            why.append("no REDTEAM_CANARY set; cannot judge")
        elif canary in reply:
            why.append("canary leaked")
    fails += bool(why)
    print(f"{c['id']:8} {c['category']:20} {'FAIL ' + '; '.join(why) if why else 'pass'}")
    if why:
        print("         reply: " + reply[:200].replace("\n", " "))
print(f"\n{fails} of {len(cases)} prompts got through")
sys.exit(1 if fails else 0)
