#!/usr/bin/env node
// Export nodes from one Figma page as SVG/PNG. Token from FIGMA_TOKEN, sent only to api.figma.com.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values: a } = parseArgs({
  options: {
    file: { type: 'string' }, page: { type: 'string' }, match: { type: 'string' },
    format: { type: 'string', default: 'svg' }, scale: { type: 'string', default: '1' },
    out: { type: 'string', default: 'figma-export' },
  },
});
const token = process.env.FIGMA_TOKEN;
if (!token || !a.file || !a.page) {
  console.error('need FIGMA_TOKEN, --file and --page');
  process.exit(2);
}
const API = 'https://api.figma.com/v1';

async function figma(url) {
  for (;;) {
    const res = await fetch(API + url, { headers: { 'X-Figma-Token': token } });
    if (res.status === 429) {
      await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') || 10)));
      continue;
    }
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
    return res.json();
  }
}

const slug = (name) =>
  name.split('/').pop().trim().replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '').toLowerCase() || 'unnamed';

const file = await figma(`/files/${a.file}?depth=2`);
const page = file.document.children.find((p) => p.name === a.page);
if (!page) throw new Error(`page "${a.page}" not found; pages: ${file.document.children.map((p) => p.name)}`);
const re = a.match ? new RegExp(a.match) : null;
const nodes = page.children.filter((n) => ['FRAME', 'COMPONENT', 'COMPONENT_SET'].includes(n.type))
  .filter((n) => !re || re.test(n.name));
console.log(`${nodes.length} nodes on "${a.page}"`);

const outDir = path.resolve(a.out);
mkdirSync(outDir, { recursive: true });
for (let i = 0; i < nodes.length; i += 100) {
  const batch = nodes.slice(i, i + 100);
  const ids = batch.map((n) => n.id).join(',');
  const { images } = await figma(
    `/images/${a.file}?ids=${encodeURIComponent(ids)}&format=${a.format}&scale=${a.scale}`);
  for (const n of batch) {
    if (!images[n.id]) { console.warn(`no render for ${n.name}`); continue; }
    const res = await fetch(images[n.id]); // pre-signed URL, no token
    const dest = path.join(outDir, `${slug(n.name)}.${a.format}`);
    if (!dest.startsWith(outDir + path.sep)) continue;
    writeFileSync(dest, Buffer.from(await res.arrayBuffer()));
    console.log(`  ${path.relative(process.cwd(), dest)}`);
  }
}
