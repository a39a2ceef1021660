#!/usr/bin/env python3
"""Build sitemap.xml from a static build directory."""
import argparse
import datetime as dt
import re
import subprocess
from pathlib import Path
from xml.sax.saxutils import escape

NOINDEX = re.compile(r'<meta[^>]+name=["\']robots["\'][^>]+noindex', re.I)
SRC_EXT = (".md", ".mdx", ".astro", ".tsx", ".jsx", ".html")
LIMIT = 50_000


def url_path(rel: Path) -> str:
    p = rel.as_posix()
    if p.endswith("index.html"):
        return "/" + p[: -len("index.html")]
    return "/" + p[: -len(".html")]


def lastmod(page: Path, rel: Path, src_root: Path | None) -> str:
    if src_root:
        slug = rel.as_posix().removesuffix("/index.html").removesuffix(".html") or "index"
        for base in ("", "src/pages/", "content/", "app/"):
            for ext in SRC_EXT:
                cand = src_root / f"{base}{slug}{ext}"
                if cand.exists():
                    r = subprocess.run(["git", "log", "-1", "--format=%cI", "--", str(cand)],
                                       cwd=src_root, capture_output=True, text=True)
                    if r.stdout.strip():
                        return r.stdout.strip()
    return dt.datetime.fromtimestamp(page.stat().st_mtime, dt.timezone.utc).isoformat(timespec="seconds")


def write_urlset(path: Path, entries):
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    lines += [f"  <url><loc>{escape(u)}</loc><lastmod>{m}</lastmod></url>" for u, m in entries]
    path.write_text("\n".join(lines + ["</urlset>", ""]), encoding="utf-8")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", type=Path)
    ap.add_argument("--base", required=True)
    ap.add_argument("--src-root", type=Path)
    ap.add_argument("--exclude", action="append", default=[])
    a = ap.parse_args()
    base = a.base.rstrip("/")

    entries = []
    for page in sorted(a.build.rglob("*.html")):
        rel = page.relative_to(a.build)
        path = url_path(rel)
        if rel.name == "404.html" or any(path.startswith(x) for x in a.exclude):
            continue
        if NOINDEX.search(page.read_text(encoding="utf-8", errors="ignore")[:5000]):
            continue
        entries.append((base + path, lastmod(page, rel, a.src_root)))

    if len(entries) <= LIMIT:
        write_urlset(a.build / "sitemap.xml", entries)
    else:
        index = ['<?xml version="1.0" encoding="UTF-8"?>',
                 '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
        for n, i in enumerate(range(0, len(entries), LIMIT), 1):
            write_urlset(a.build / f"sitemap-{n}.xml", entries[i:i + LIMIT])
            index.append(f"  <sitemap><loc>{base}/sitemap-{n}.xml</loc></sitemap>")
        (a.build / "sitemap.xml").write_text("\n".join(index + ["</sitemapindex>", ""]), encoding="utf-8")
    print(f"{len(entries)} URLs -> {a.build / 'sitemap.xml'}")


if __name__ == "__main__":
    main()
