#!/usr/bin/env node
import { readFile, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";

const [, , src, ...rest] = process.argv;
const opt = (n) => { const i = rest.indexOf(n); return i > -1 ? rest[i + 1] : null; };
const tokens = JSON.parse(await readFile(src, "utf8"));
const { themes = {}, ...base } = tokens;

function flatten(node, prefix = [], out = {}) {
  for (const [k, v] of Object.entries(node)) {
    if (k.startsWith("$")) continue;
    if (v && typeof v === "object" && "$value" in v) out[[...prefix, k].join(".")] = v.$value;
    else if (v && typeof v === "object") flatten(v, [...prefix, k], out);
  }
  return out;
}

function resolve(map, fallback = {}) {
  const out = {};
  const look = (key, stack = []) => {
    if (stack.includes(key)) throw new Error(`alias cycle: ${[...stack, key].join(" -> ")}`);
    const raw = map[key] ?? fallback[key];
    if (raw === undefined) throw new Error(`unknown token ${key}`);
    const m = typeof raw === "string" && raw.match(/^\{(.+)\}$/);
    return m ? look(m[1], [...stack, key]) : raw;
  };
  for (const k of Object.keys(map)) out[k] = look(k);
  return out;
}

const lum = (hex) => {
  const c = hex.replace("#", "").match(/../g).map((h) => parseInt(h, 16) / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
};
const contrast = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };

const flatBase = flatten(base);
const light = resolve(flatBase);
const dark = { ...light, ...resolve(flatten(themes.dark ?? {}), flatBase) };
const cssVar = (k) => `--${k.replace(/\./g, "-")}`;
const block = (vals) => Object.entries(vals).map(([k, v]) => `  ${cssVar(k)}: ${v};`).join("\n");
const darkOnly = Object.fromEntries(Object.entries(dark).filter(([k, v]) => light[k] !== v));

for (const [name, vals] of [["light", light], ["dark", dark]]) {
  for (const t of Object.keys(vals).filter((k) => k.startsWith("color.text."))) {
    for (const s of Object.keys(vals).filter((k) => k.startsWith("color.surface."))) {
      const r = contrast(vals[t], vals[s]);
      if (r < 4.5) console.warn(`warning (${name}): ${t} on ${s} contrast ${r.toFixed(2)}:1`);
    }
  }
}

const css = `/* generated from ${path.basename(src)}; do not edit */\n:root {\n${block(light)}\n}\n` +
  `[data-theme="dark"] {\n${block(darkOnly)}\n}\n` +
  `@media (prefers-color-scheme: dark) {\n  :root:not([data-theme="light"]) {\n${block(darkOnly).replace(/^/gm, "  ")}\n  }\n}\n`;
const ts = `// generated; do not edit\nexport const tokens = ${JSON.stringify(
  Object.fromEntries(Object.keys(light).map((k) => [k, `var(${cssVar(k)})`])), null, 2)} as const;\n` +
  `export type TokenName = keyof typeof tokens;\n`;

for (const [file, body] of [[opt("--css"), css], [opt("--ts"), ts]]) {
  if (!file) continue;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, body);
  console.log(`wrote ${file}`);
}
