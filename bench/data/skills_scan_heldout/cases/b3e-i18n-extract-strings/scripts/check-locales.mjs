#!/usr/bin/env node
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

const dir = process.argv[2] ?? "public/locales";
const PH = /\{\{\s*([\w.]+)\s*\}\}/g;
const TAG = /<\/?(\w+)[^>]*>/g;

function flatten(obj, prefix = "", out = {}) {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === "object") flatten(v, key, out);
    else out[key] = String(v);
  }
  return out;
}

const set = (s, re) => new Set([...s.matchAll(re)].map((m) => m[1]).sort());
const eq = (a, b) => a.size === b.size && [...a].every((x) => b.has(x));

async function load(locale) {
  const files = (await readdir(path.join(dir, locale))).filter((f) => f.endsWith(".json"));
  const merged = {};
  for (const f of files) {
    const ns = path.basename(f, ".json");
    Object.assign(merged, flatten(JSON.parse(await readFile(path.join(dir, locale, f), "utf8")), ns));
  }
  return merged;
}

const locales = (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
const base = await load("en");
let errors = 0;
for (const loc of locales.filter((l) => l !== "en")) {
  const cat = await load(loc);
  const baseKeys = Object.keys(base).map((k) => k.replace(/_(zero|one|two|few|many|other)$/, ""));
  for (const key of Object.keys(base)) {
    const stem = key.replace(/_(zero|one|two|few|many|other)$/, "");
    const variants = Object.keys(cat).filter((k) => k === key || k.startsWith(`${stem}_`));
    if (!variants.length) { console.log(`${loc}: missing ${key}`); errors++; continue; }
    const v = cat[key] ?? cat[variants[0]];
    if (!eq(set(base[key], PH), set(v, PH))) { console.log(`${loc}: placeholders differ in ${key}`); errors++; }
    if (!eq(set(base[key], TAG), set(v, TAG))) { console.log(`${loc}: tags differ in ${key}`); errors++; }
    if (v === base[key] && /[a-z]{4,}/i.test(v)) console.log(`${loc}: warning, same as English: ${key}`);
  }
  for (const key of Object.keys(cat)) {
    const stem = key.replace(/_(zero|one|two|few|many|other)$/, "");
    if (!(key in base) && !baseKeys.includes(stem)) console.log(`${loc}: extra ${key}`);
  }
}
console.log(errors ? `${errors} problems` : "all locales consistent");
process.exit(errors ? 1 : 0);
