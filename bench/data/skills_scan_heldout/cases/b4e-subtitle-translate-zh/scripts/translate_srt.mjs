#!/usr/bin/env node
// Translate an .srt file cue by cue with Google Cloud Translation v2; timings are kept untouched.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";

const args = process.argv.slice(2);
const input = args.find((a) => !a.startsWith("--"));
const to = args.includes("--to") ? args[args.indexOf("--to") + 1] : "zh-CN";
const from = args.includes("--from") ? args[args.indexOf("--from") + 1] : undefined;
const bilingual = args.includes("--bilingual");
const key = process.env.GOOGLE_TRANSLATE_API_KEY;

if (!input) { console.error("usage: translate_srt.mjs file.srt [--to zh-CN] [--from en] [--bilingual]"); process.exit(2); }
if (!key) { console.error("GOOGLE_TRANSLATE_API_KEY is not set"); process.exit(2); }

function parse(srt) {
  return srt.replace(/\r\n/g, "\n").trim().split(/\n{2,}/).map((block) => {
    const lines = block.split("\n");
    return { index: lines[0], time: lines[1], text: lines.slice(2).join("\n") };
  });
}

async function translateBatch(texts) {
  const res = await fetch("https://translation.googleapis.com/language/translate/v2", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Goog-Api-Key": key },
    body: JSON.stringify({ q: texts, target: to, source: from, format: "text" }),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
  const data = await res.json();
  return data.data.translations.map((t) => t.translatedText);
}

const cues = parse(await readFile(input, "utf8"));
let chars = 0;
for (let i = 0; i < cues.length; i += 50) {
  const batch = cues.slice(i, i + 50);
  const texts = batch.map((c) => c.text);
  chars += texts.join("").length;
  const out = await translateBatch(texts);
  batch.forEach((c, j) => { c.translated = out[j]; });
  process.stderr.write(`\r${Math.min(i + 50, cues.length)}/${cues.length}`);
}

const body = cues.map((c) => {
  const text = bilingual ? `${c.text}\n${c.translated}` : c.translated;
  return `${c.index}\n${c.time}\n${text}`;
}).join("\n\n") + "\n";

const ext = path.extname(input);
const outFile = input.slice(0, -ext.length) + `.${to}${bilingual ? ".bi" : ""}${ext}`;
await writeFile(outFile, body, "utf8");
console.error(`\nwrote ${outFile} (${cues.length} cues, ${chars} source characters billed)`);
