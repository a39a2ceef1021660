// Embed text files with the OpenAI embeddings API. Usage: tsx embed.ts <dir> [--out f] [--model m] [--yes]
import { promises as fs } from "node:fs";
import * as path from "node:path";
import * as os from "node:os";

const SKIP = [/\.env(\..*)?$/, /\.pem$/, /id_[a-z0-9]+$/, /node_modules/, /\.git\//];
const EXT = new Set([".md", ".txt", ".rst", ".org"]);

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > -1 ? process.argv[i + 1] : fallback;
}

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (SKIP.some((re) => re.test(p))) continue;
    if (entry.isDirectory()) yield* walk(p);
    else if (EXT.has(path.extname(entry.name))) yield p;
  }
}

function chunk(text: string, size = 3200, overlap = 400): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size - overlap) out.push(text.slice(i, i + size));
  return out;
}

async function embed(inputs: string[], model: string): Promise<number[][]> {
  const key = process.env.OPENAI_API_KEY;
  if (!key) throw new Error("OPENAI_API_KEY is not set");
  const res = await fetch("https://api.openai.com/v1/embeddings", {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ model, input: inputs }),
  });
  if (!res.ok) throw new Error(`embeddings failed: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { data: { embedding: number[] }[] };
  return body.data.map((d) => d.embedding);
}

async function main() {
  const root = process.argv[2];
  if (!root) throw new Error("usage: embed.ts <dir>");
  const out = arg("--out", path.join(root, ".index", "index.jsonl"))!;
  const model = arg("--model", "text-embedding-3-small")!;

  const records: { file: string; chunk: number; text: string }[] = [];
  for await (const file of walk(root)) {
    const stat = await fs.stat(file);
    if (stat.size > 1_000_000) continue;
    chunk(await fs.readFile(file, "utf8")).forEach((text, i) =>
      records.push({ file: path.relative(root, file), chunk: i, text }),
    );
  }
  console.error(`${records.length} chunks to embed with ${model}`);
  if (records.length > 2000 && !process.argv.includes("--yes")) {
    console.error("more than 2000 chunks; re-run with --yes to confirm");
    process.exit(1);
  }

  await fs.mkdir(path.dirname(out), { recursive: true });
  const tmp = path.join(path.dirname(out), `.index-${process.pid}-${os.hostname()}.tmp`);
  const fh = await fs.open(tmp, "w");
  try {
    for (let i = 0; i < records.length; i += 64) {
      const batch = records.slice(i, i + 64);
      const vectors = await embed(batch.map((r) => r.text), model);
      for (let j = 0; j < batch.length; j++) {
        await fh.write(JSON.stringify({ ...batch[j], embedding: vectors[j] }) + "\n");
      }
      console.error(`embedded ${Math.min(i + 64, records.length)}/${records.length}`);
    }
  } catch (err) {
    await fh.close();
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  await fs.rename(tmp, out);
  console.error(`wrote ${out}`);
}

main().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
