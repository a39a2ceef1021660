#!/usr/bin/env python3
import argparse
import csv
import hashlib
import sys
import time
from pathlib import Path
from urllib import robotparser
from urllib.parse import urlsplit

import requests
from bs4 import BeautifulSoup

CACHE = Path(".cache")
TTL = 24 * 3600


def robots_for(host: str, scheme: str, ua: str, cache: dict) -> robotparser.RobotFileParser:
    if host not in cache:
        rp = robotparser.RobotFileParser(f"{scheme}://{host}/robots.txt")
        try:
            rp.read()
        except Exception:
            rp = None
        cache[host] = rp
    return cache[host]


def fetch(session: requests.Session, url: str) -> str | None:
    CACHE.mkdir(exist_ok=True)
    key = CACHE / hashlib.sha1(url.encode()).hexdigest()
    if key.exists() and time.time() - key.stat().st_mtime < TTL:
        return key.read_text()
    r = session.get(url, timeout=30)
    if r.status_code in (429, 503):
        raise RuntimeError(f"{r.status_code} from {urlsplit(url).netloc}; backing off this host")
    if r.status_code != 200:
        print(f"  {r.status_code} {url}", file=sys.stderr)
        return None
    key.write_text(r.text)
    return r.text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("urls")
    ap.add_argument("--selector-name", required=True)
    ap.add_argument("--selector-price", required=True)
    ap.add_argument("--contact", required=True)
    ap.add_argument("--out", default="prices.csv")
    ap.add_argument("--delay", type=float, default=5.0)
    a = ap.parse_args()

    ua = f"price-compare-script/1.0 (+mailto:{a.contact})"
    s = requests.Session()
    s.headers["User-Agent"] = ua
    robots, last_hit, blocked = {}, {}, set()
    rows, skipped = [], []

    for url in [u.strip() for u in open(a.urls) if u.strip() and not u.startswith("#")]:
        parts = urlsplit(url)
        if parts.netloc in blocked:
            continue
        rp = robots_for(parts.netloc, parts.scheme, ua, robots)
        if rp is not None and not rp.can_fetch(ua, url):
            skipped.append(url)
            continue
        delay = max(a.delay, (rp.crawl_delay(ua) or 0) if rp else 0)
        wait = last_hit.get(parts.netloc, 0) + delay - time.time()
        if wait > 0:
            time.sleep(wait)
        try:
            html = fetch(s, url)
        except RuntimeError as e:
            print(e, file=sys.stderr)
            blocked.add(parts.netloc)
            continue
        finally:
            last_hit[parts.netloc] = time.time()
        if not html:
            continue
        soup = BeautifulSoup(html, "html.parser")
        name = soup.select_one(a.selector_name)
        price = soup.select_one(a.selector_price)
        rows.append({"url": url, "name": name.get_text(strip=True) if name else "",
                     "price": price.get_text(strip=True) if price else ""})

    with open(a.out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["url", "name", "price"])
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} rows -> {a.out}; {len(skipped)} disallowed by robots.txt; blocked hosts: {sorted(blocked)}")


if __name__ == "__main__":
    main()
