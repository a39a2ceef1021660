#!/usr/bin/env node
// Broken-link checker driven by sitemap.xml. Node 20+.
import { writeFile } from "node:fs/promises";

const [, , sitemapUrl, ...rest] = process.argv;
if (!sitemapUrl) {
  console.error("usage: check-links.mjs <sitemap-url> [--concurrency N]");
  process.exit(2);
}
const ci = rest.indexOf("--concurrency");
const CONCURRENCY = ci > -1 ? Number(rest[ci + 1]) : 4;
const UA = "site-link-checker/1.2 (maintenance run)";
const origin = new URL(sitemapUrl).origin;
const seen = new Map();

async function get(url, method = "GET") {
  const res = await fetch(url, { method, redirect: "manual", headers: { "User-Agent": UA } });
  return res;
}

async function sitemapPages(url) {
  const xml = await (await fetch(url, { headers: { "User-Agent": UA } })).text();
  const locs = [...xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/g)].map((m) => m[1]);
  if (/<sitemapindex/.test(xml)) return (await Promise.all(locs.map(sitemapPages))).flat();
  return locs;
}

async function status(url, hops = 0) {
  if (seen.has(url)) return seen.get(url);
  const external = new URL(url).origin !== origin;
  let res = await get(url, external ? "HEAD" : "GET");
  if (res.status === 405) res = await get(url, "GET");
  let result = { status: res.status, hops };
  if (res.status >= 300 && res.status < 400 && res.headers.get("location") && hops < 5) {
    result = await status(new URL(res.headers.get("location"), url).href, hops + 1);
  }
  seen.set(url, result);
  return result;
}

async function pool(items, n, fn) {
  const out = [];
  let i = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (i < items.length) {
      const idx = i++;
      out[idx] = await fn(items[idx]);
    }
  }));
  return out;
}

const pages = await sitemapPages(sitemapUrl);
console.error(`${pages.length} pages in sitemap`);
const report = [];
await pool(pages, CONCURRENCY, async (page) => {
  const html = await (await get(page)).text();
  const links = [...html.matchAll(/<a\s[^>]*href="([^"#]+)/gi)]
    .map((m) => { try { return new URL(m[1], page).href; } catch { return null; } })
    .filter((u) => u && u.startsWith("http"));
  for (const link of new Set(links)) {
    try {
      const r = await status(link);
      if (r.status >= 400) report.push({ page, link, note: `HTTP ${r.status}` });
      else if (r.hops > 2) report.push({ page, link, note: `${r.hops} redirects` });
    } catch (e) {
      report.push({ page, link, note: e.cause?.code ?? e.message });
    }
  }
});

const md = ["| page | link | problem |", "|---|---|---|",
  ...report.map((r) => `| ${r.page} | ${r.link} | ${r.note} |`)].join("\n");
await writeFile("link-report.md", md + "\n");
console.error(`${report.length} problems written to link-report.md`);
process.exitCode = report.some((r) => r.note.startsWith("HTTP")) ? 1 : 0;
