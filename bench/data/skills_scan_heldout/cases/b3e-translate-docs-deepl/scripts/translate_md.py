#!/usr/bin/env python3
import argparse
import csv
import json
import os
import re
import sys
from pathlib import Path

import requests

PROTECT = re.compile(
    r"(?s)\A---\n.*?\n---\n"          # front matter
    r"|```.*?```"                     # fenced code
    r"|`[^`\n]+`"                     # inline code
    r"|<!--.*?-->"                    # html comments
    r"|\]\([^)]+\)"                   # link targets
    r"|https?://\S+"
)
CACHE = Path.home() / ".cache" / "translate-md" / "glossaries.json"


def host(key: str) -> str:
    return "https://api-free.deepl.com" if key.endswith(":fx") else "https://api.deepl.com"


def glossary_id(s, base, target):
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    cache = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    if target in cache:
        return cache[target]
    rows = list(csv.DictReader(open(Path(__file__).parent.parent / "references" / "glossary.csv")))
    entries = "\n".join(f"{r['source']}\t{r[target]}" for r in rows if r.get(target))
    r = s.post(f"{base}/v2/glossaries", data={"name": f"docs-en-{target.lower()}", "source_lang": "EN",
                                               "target_lang": target, "entries": entries,
                                               "entries_format": "tsv"})
    r.raise_for_status()
    cache[target] = r.json()["glossary_id"]
    CACHE.write_text(json.dumps(cache))
    return cache[target]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("--to", required=True, choices=["DE", "FR", "ES"])
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    key = os.environ.get("DEEPL_AUTH_KEY") or sys.exit("DEEPL_AUTH_KEY is not set")
    base = host(key)
    s = requests.Session()
    s.headers["Authorization"] = f"DeepL-Auth-Key {key}"

    text = Path(a.src).read_text()
    saved = []

    def stash(m):
        saved.append(m.group(0))
        return f'<x id="{len(saved) - 1}"/>'

    masked = PROTECT.sub(stash, text)
    r = s.post(f"{base}/v2/translate", data={
        "text": masked, "source_lang": "EN", "target_lang": a.to, "tag_handling": "xml",
        "ignore_tags": "x", "preserve_formatting": "1", "formality": "prefer_more",
        "glossary_id": glossary_id(s, base, a.to),
    }, timeout=120)
    r.raise_for_status()
    out = r.json()["translations"][0]["text"]
    out = re.sub(r'<x id="(\d+)"\s*/>', lambda m: saved[int(m.group(1))], out)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(out)
    print(f"wrote {a.out} ({len(text)} chars source, {len(saved)} protected spans)")


if __name__ == "__main__":
    main()
