import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { promises as fs } from "node:fs";
import path from "node:path";

const ROOT = await fs.realpath(process.env.NOTES_ROOT ?? path.join(process.cwd(), "notes"));
const MAX_BYTES = 200_000;
const ALLOWED_EXT = new Set([".md", ".txt", ".org"]);

async function safeResolve(rel: string): Promise<string> {
  const joined = path.resolve(ROOT, rel);
  const real = await fs.realpath(joined); // follows symlinks
  if (real !== ROOT && !real.startsWith(ROOT + path.sep)) {
    throw new Error("path escapes NOTES_ROOT");
  }
  if (!ALLOWED_EXT.has(path.extname(real).toLowerCase())) {
    throw new Error("only .md, .txt and .org files are served");
  }
  return real;
}

const fail = (msg: string) => ({ isError: true, content: [{ type: "text" as const, text: msg }] });

const server = new McpServer({ name: "notes", version: "0.2.0" });

server.tool(
  "read_note",
  "Read one note (markdown/text) relative to the notes folder.",
  { path: z.string().min(1).max(300).regex(/^[^\0]+$/, "no NUL bytes") },
  async ({ path: rel }) => {
    try {
      const file = await safeResolve(rel);
      const buf = await fs.readFile(file);
      const text = buf.subarray(0, MAX_BYTES).toString("utf8");
      const suffix = buf.length > MAX_BYTES ? `\n\n[truncated at ${MAX_BYTES} bytes]` : "";
      return { content: [{ type: "text", text: text + suffix }] };
    } catch (e) {
      return fail(e instanceof Error ? e.message : "read failed");
    }
  },
);

server.tool(
  "search_notes",
  "Case-insensitive substring search over note file names and contents.",
  { query: z.string().min(2).max(100), limit: z.number().int().min(1).max(50).default(10) },
  async ({ query, limit }) => {
    const hits: string[] = [];
    const q = query.toLowerCase();
    async function walk(dir: string): Promise<void> {
      for (const ent of await fs.readdir(dir, { withFileTypes: true })) {
        if (hits.length >= limit || ent.name.startsWith(".")) continue;
        const full = path.join(dir, ent.name);
        if (ent.isDirectory()) await walk(full);
        else if (ent.isFile() && ALLOWED_EXT.has(path.extname(ent.name).toLowerCase())) {
          const body = (await fs.readFile(full, "utf8")).slice(0, MAX_BYTES);
          if (ent.name.toLowerCase().includes(q) || body.toLowerCase().includes(q)) {
            hits.push(path.relative(ROOT, full));
          }
        }
      }
    }
    await walk(ROOT);
    return { content: [{ type: "text", text: hits.length ? hits.join("\n") : "no matches" }] };
  },
);

await server.connect(new StdioServerTransport());
console.error(`notes MCP server serving ${ROOT}`); // stderr: stdout is the protocol channel
