#!/usr/bin/env node
// Summarise Turborepo run summaries (.turbo/runs/*.json, produced by `turbo run ... --summarize`).
// Read-only: it only reads files under .turbo/runs in the current repo.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const dir = join(process.cwd(), ".turbo", "runs");
let files;
try {
  files = readdirSync(dir).filter((f) => f.endsWith(".json"));
} catch {
  console.error(`No ${dir}. Run: npx turbo run build --summarize`);
  process.exit(1);
}
files.sort((a, b) => statSync(join(dir, a)).mtimeMs - statSync(join(dir, b)).mtimeMs);
const selected = process.argv.includes("--all") ? files : files.slice(-1);

const previous = new Map(); // taskId -> task summary from an earlier run
for (const f of files.slice(0, files.length - selected.length)) {
  for (const t of JSON.parse(readFileSync(join(dir, f), "utf8")).tasks ?? []) previous.set(t.taskId, t);
}

function diffKeys(a = {}, b = {}) {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => a[k] !== b[k]);
}

for (const f of selected) {
  const run = JSON.parse(readFileSync(join(dir, f), "utf8"));
  const tasks = run.tasks ?? [];
  const hits = tasks.filter((t) => t.cache?.status === "HIT").length;
  console.log(`\n${f}: ${hits}/${tasks.length} cache hits`);
  for (const t of tasks) {
    const status = t.cache?.status ?? "?";
    const src = t.cache?.source ? ` (${t.cache.source})` : "";
    console.log(`  ${status.padEnd(4)} ${t.taskId.padEnd(40)} ${t.hash}${src}`);
    const prev = previous.get(t.taskId);
    if (status === "MISS" && prev) {
      const files = diffKeys(prev.inputs, t.inputs);
      const env = diffKeys(prev.environmentVariables?.specified, t.environmentVariables?.specified);
      if (files.length) console.log(`       inputs changed: ${files.slice(0, 8).join(", ")}${files.length > 8 ? " …" : ""}`);
      // env values in summaries are hashes, not plaintext; we print only the key names
      if (env.length) console.log(`       env changed: ${env.join(", ")}`);
      if (!files.length && !env.length) console.log("       no input/env diff: check dependsOn or global hash");
    }
    previous.set(t.taskId, t);
  }
}
