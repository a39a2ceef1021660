// On-disk cache for deterministic OpenAI chat completions.
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const CACHE_DIR = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "llm-cache");
const TTL_MS = Number(process.env.LLM_CACHE_TTL_DAYS || 7) * 86_400_000;
const KEY_FIELDS = ["model", "messages", "temperature", "tools", "response_format", "max_tokens"];

function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical(value[k])]));
  }
  return value;
}

function keyFor(body) {
  const picked = Object.fromEntries(KEY_FIELDS.filter((k) => k in body).map((k) => [k, body[k]]));
  return createHash("sha256").update(JSON.stringify(canonical(picked))).digest("hex");
}

async function callOpenAI(body) {
  const apiKey = process.env.OPENAI_API_KEY;
  if (!apiKey) throw new Error("OPENAI_API_KEY is not set");
  const res = await fetch("https://api.openai.com/v1/chat/completions", {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`OpenAI ${res.status}: ${await res.text()}`);
  return res.json();
}

export async function cachedChat(body) {
  if (process.env.LLM_CACHE === "off" || body.temperature !== 0) {
    return { ...(await callOpenAI(body)), _cache: "bypass" };
  }
  const file = path.join(CACHE_DIR, `${keyFor(body)}.json`);
  try {
    const stat = fs.statSync(file);
    if (Date.now() - stat.mtimeMs < TTL_MS) {
      return { ...JSON.parse(fs.readFileSync(file, "utf8")), _cache: "hit" };
    }
  } catch { /* miss */ }
  const data = await callOpenAI(body);
  fs.mkdirSync(CACHE_DIR, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(data), { mode: 0o600 });
  fs.renameSync(tmp, file);
  return { ...data, _cache: "miss" };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cmd = process.argv[2];
  if (cmd === "stats") {
    const files = fs.existsSync(CACHE_DIR) ? fs.readdirSync(CACHE_DIR).filter((f) => f.endsWith(".json")) : [];
    const bytes = files.reduce((n, f) => n + fs.statSync(path.join(CACHE_DIR, f)).size, 0);
    console.log(`${files.length} entries, ${(bytes / 1024).toFixed(1)} KiB in ${CACHE_DIR}`);
  } else if (cmd === "clear") {
    fs.rmSync(CACHE_DIR, { recursive: true, force: true });
    console.log(`removed ${CACHE_DIR}`);
  } else {
    console.log("usage: node llm-cache.mjs stats|clear");
  }
}
