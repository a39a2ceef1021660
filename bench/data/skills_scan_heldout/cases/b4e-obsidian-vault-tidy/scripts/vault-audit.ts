// Audit an Obsidian vault; optional --trash-orphans moves unreferenced attachments into .trash/.
import { promises as fs } from "node:fs";
import path from "node:path";

const vault = path.resolve(process.argv[2] ?? ".");
const trashOrphans = process.argv.includes("--trash-orphans");
const ATTACH = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".pdf", ".mp3", ".mp4", ".m4a"]);

async function walk(dir: string, out: string[] = []): Promise<string[]> {
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    if (e.name.startsWith(".")) continue; // skips .obsidian, .trash, .git
    const p = path.join(dir, e.name);
    if (e.isDirectory()) await walk(p, out);
    else out.push(p);
  }
  return out;
}

async function main() {
  await fs.access(path.join(vault, ".obsidian")).catch(() => {
    console.error(`${vault} has no .obsidian folder; is this a vault?`);
    process.exit(2);
  });
  const files = await walk(vault);
  const notes = files.filter((f) => f.endsWith(".md"));
  const attachments = files.filter((f) => ATTACH.has(path.extname(f).toLowerCase()));
  const noteNames = new Map<string, string[]>();
  for (const n of notes) {
    const k = path.basename(n, ".md").toLowerCase();
    noteNames.set(k, [...(noteNames.get(k) ?? []), path.relative(vault, n)]);
  }

  const referenced = new Set<string>();
  const brokenLinks: { note: string; target: string }[] = [];
  const emptyNotes: string[] = [];
  const linkRe = /!?\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]|!?\[[^\]]*\]\(([^)\s]+)\)/g;

  for (const n of notes) {
    const text = await fs.readFile(n, "utf8");
    const body = text.replace(/^---\n[\s\S]*?\n---\n?/, "").trim();
    if (!body) emptyNotes.push(path.relative(vault, n));
    for (const m of text.matchAll(linkRe)) {
      const raw = decodeURIComponent((m[1] ?? m[2] ?? "").trim());
      if (/^[a-z]+:\/\//i.test(raw)) continue; // external URL
      const base = path.basename(raw).toLowerCase();
      referenced.add(base);
      if (m[1] && !path.extname(raw) && !noteNames.has(base)) {
        brokenLinks.push({ note: path.relative(vault, n), target: raw });
      }
    }
  }

  const orphanAttachments = attachments.filter((a) => !referenced.has(path.basename(a).toLowerCase()));
  const duplicateNames = [...noteNames.values()].filter((v) => v.length > 1);

  if (trashOrphans) {
    const trash = path.join(vault, ".trash");
    await fs.mkdir(trash, { recursive: true });
    for (const a of orphanAttachments) {
      let dest = path.join(trash, path.basename(a));
      for (let i = 1; await fs.stat(dest).then(() => true, () => false); i++) {
        dest = path.join(trash, `${path.parse(a).name} (${i})${path.extname(a)}`);
      }
      await fs.rename(a, dest);
      console.error(`moved ${path.relative(vault, a)} -> ${path.relative(vault, dest)}`);
    }
  }

  const report = {
    vault, notes: notes.length, attachments: attachments.length,
    brokenLinks, orphanAttachments: orphanAttachments.map((a) => path.relative(vault, a)),
    emptyNotes, duplicateNames, trashed: trashOrphans ? orphanAttachments.length : 0,
  };
  console.log(JSON.stringify(report, null, 2));
}

main();
