#!/usr/bin/env python3
"""Export pages shared with a Notion integration to Markdown."""
import argparse
import os
import re
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import requests

API = "https://api.notion.com/v1"
TOKEN = os.environ.get("NOTION_TOKEN") or sys.exit("set NOTION_TOKEN")
S = requests.Session()
S.headers.update({"Authorization": f"Bearer {TOKEN}", "Notion-Version": "2022-06-28"})


def call(method, path, **kw):
    time.sleep(0.35)
    r = S.request(method, API + path, timeout=30, **kw)
    r.raise_for_status()
    return r.json()


def paged(method, path, body=None):
    cursor = None
    while True:
        if method == "POST":
            data = call("POST", path, json={**(body or {}), **({"start_cursor": cursor} if cursor else {})})
        else:
            data = call("GET", path, params={"page_size": 100, **({"start_cursor": cursor} if cursor else {})})
        yield from data["results"]
        if not data.get("has_more"):
            return
        cursor = data["next_cursor"]


def text(rich):
    out = ""
    for t in rich:
        s = t["plain_text"]
        a = t.get("annotations", {})
        if a.get("code"): s = f"`{s}`"
        if a.get("bold"): s = f"**{s}**"
        if a.get("italic"): s = f"*{s}*"
        if t.get("href"): s = f"[{s}]({t['href']})"
        out += s
    return out


def block_md(b, assets, download):
    t = b["type"]; v = b[t]
    simple = {"paragraph": "", "heading_1": "# ", "heading_2": "## ", "heading_3": "### ",
              "bulleted_list_item": "- ", "numbered_list_item": "1. ", "quote": "> "}
    if t in simple:
        return simple[t] + text(v["rich_text"])
    if t == "to_do":
        return f"- [{'x' if v['checked'] else ' '}] {text(v['rich_text'])}"
    if t == "code":
        return f"```{v.get('language', '')}\n{text(v['rich_text'])}\n```"
    if t == "callout":
        return f"> **Note:** {text(v['rich_text'])}"
    if t == "divider":
        return "---"
    if t in ("image", "file", "pdf"):
        url = v.get("file", v.get("external", {})).get("url", "")
        if download and url and "file" in v:
            assets.mkdir(exist_ok=True)
            name = f"{b['id'][:8]}-{Path(urlparse(url).path).name}"
            (assets / name).write_bytes(requests.get(url, timeout=60).content)
            url = f"assets/{name}"
        return f"![{t}]({url})" if t == "image" else f"[{t}]({url})"
    return f"<!-- unsupported block: {t} -->"


def title_of(page):
    for prop in page["properties"].values():
        if prop["type"] == "title":
            return text(prop["title"]) or "Untitled"
    return "Untitled"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("notion-export"))
    ap.add_argument("--download-files", action="store_true")
    a = ap.parse_args()
    out = a.out.expanduser(); out.mkdir(parents=True, exist_ok=True)
    n = 0
    for page in paged("POST", "/search", {"filter": {"property": "object", "value": "page"}}):
        title = title_of(page)
        lines = [f"---\nnotion_id: {page['id']}\nlast_edited: {page['last_edited_time']}\n---", f"# {title}", ""]
        lines += [block_md(b, out / "assets", a.download_files) for b in paged("GET", f"/blocks/{page['id']}/children")]
        safe = re.sub(r"[^\w\- ]+", "", title).strip()[:80] or "untitled"
        (out / f"{safe}--{page['id'][:8]}.md").write_text("\n\n".join(lines) + "\n", encoding="utf-8")
        n += 1
        print(f"exported {title}")
    print(f"{n} pages -> {out}")


if __name__ == "__main__":
    main()
