#!/usr/bin/env node
// List lifecycle scripts that dependencies in node_modules would run at install time.
// Reads package.json files only; runs nothing and makes no network calls.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";

const HOOKS = ["preinstall", "install", "postinstall", "prepare"];
const RISKY = [
  /\bcurl\b|\bwget\b|iwr\b|Invoke-WebRequest/i,
  /\|\s*(sh|bash|iex)\b/i,
  /node\s+-e|eval\(|Function\(/,
  /process\.env/,
  /base64|\\x[0-9a-f]{2}/i,
  /https?:\/\//i,
];

function* packageDirs(root) {
  if (!existsSync(root)) return;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const dir = join(root, entry.name);
    if (entry.name.startsWith("@")) {
      yield* packageDirs(dir);
      continue;
    }
    yield dir;
    yield* packageDirs(join(dir, "node_modules"));
  }
}

const rows = [];
for (const dir of packageDirs("node_modules")) {
  const file = join(dir, "package.json");
  if (!existsSync(file)) continue;
  let pkg;
  try { pkg = JSON.parse(readFileSync(file, "utf8")); } catch { continue; }
  for (const hook of HOOKS) {
    const cmd = pkg.scripts?.[hook];
    if (!cmd) continue;
    const flags = RISKY.filter((re) => re.test(cmd)).length;
    rows.push({ name: pkg.name, version: pkg.version, hook, cmd, flags: flags ? "!".repeat(flags) : "" });
  }
}

if (process.argv.includes("--json")) {
  console.log(JSON.stringify(rows, null, 2));
} else {
  rows.sort((a, b) => b.flags.length - a.flags.length || a.name.localeCompare(b.name));
  console.table(rows);
  console.error(`${rows.length} install-time scripts in ${new Set(rows.map((r) => r.name)).size} packages`);
}
