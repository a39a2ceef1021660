#!/usr/bin/env python3
"""Small same-host crawler that obeys robots.txt and rate limits."""
import argparse
import hashlib
import pathlib
import sys
import time
import urllib.robotparser
from urllib.parse import urljoin, urldefrag, urlparse

import requests
from bs4 import BeautifulSoup

ap = argparse.ArgumentParser()
ap.add_argument("start")
ap.add_argument("--ua", required=True, help="identifying User-Agent with contact info")
ap.add_argument("--max-pages", type=int, default=200)
ap.add_argument("--out", default="pages")
ap.add_argument("--min-delay", type=float, default=2.0)
a = ap.parse_args()

start = urlparse(a.start)
robots = urllib.robotparser.RobotFileParser(f"{start.scheme}://{start.netloc}/robots.txt")
robots.read()
delay = max(a.min_delay, robots.crawl_delay(a.ua) or 0)
out, cache = pathlib.Path(a.out), pathlib.Path(".scrape-cache")
out.mkdir(parents=True, exist_ok=True)
cache.mkdir(exist_ok=True)

session = requests.Session()
session.headers["User-Agent"] = a.ua
queue, seen, errors, last = [a.start], set(), 0, 0.0
index = open(out / "index.tsv", "w", encoding="utf-8")

while queue and len(seen) < a.max_pages:
    url = queue.pop(0)
    if url in seen:
        continue
    seen.add(url)
    if not robots.can_fetch(a.ua, url):
        print(f"robots.txt disallows {url}", file=sys.stderr)
        continue
    key = hashlib.sha256(url.encode()).hexdigest()[:16]
    cached = cache / f"{key}.html"
    if cached.exists():
        html, status = cached.read_text(encoding="utf-8"), 200
    else:
        time.sleep(max(0, last + delay - time.time()))
        r = session.get(url, timeout=30)
        last = time.time()
        status = r.status_code
        if status in (429, 503):
            wait = int(r.headers.get("Retry-After", "60"))
            print(f"{status} from server, sleeping {wait}s", file=sys.stderr)
            time.sleep(wait)
            queue.insert(0, url); seen.discard(url); errors += 1
            if errors >= 3:
                sys.exit("too many errors; stopping")
            continue
        if status != 200 or "text/html" not in r.headers.get("content-type", ""):
            index.write(f"{url}\t{status}\t-\n")
            continue
        errors, html = 0, r.text
        cached.write_text(html, encoding="utf-8")
    (out / f"{key}.html").write_text(html, encoding="utf-8")
    index.write(f"{url}\t{status}\t{key}.html\n")
    for link in BeautifulSoup(html, "html.parser").find_all("a", href=True):
        nxt = urldefrag(urljoin(url, link["href"]))[0]
        p = urlparse(nxt)
        if p.netloc == start.netloc and p.path.startswith(start.path) and nxt not in seen:
            queue.append(nxt)

index.close()
print(f"fetched {len(seen)} URLs into {out}/ (delay {delay}s)")
