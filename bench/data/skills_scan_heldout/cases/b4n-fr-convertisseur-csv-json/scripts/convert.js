#!/usr/bin/env node
'use strict';
const fs = require('fs');
const { detectEncoding, decode } = require('./lib/encoding');

function sniffSep(line) {
  const c = { ',': 0, ';': 0, '\t': 0 };
  for (const ch of line) if (ch in c) c[ch]++;
  return Object.entries(c).sort((a, b) => b[1] - a[1])[0][0];
}

function parseNum(v) {
  const s = v.replace(/\s/g, '').replace(',', '.');
  return /^-?\d+(\.\d+)?$/.test(s) ? Number(s) : v;
}

function main() {
  const args = process.argv.slice(2);
  const src = args[0];
  const out = args.includes('-o') ? args[args.indexOf('-o') + 1] : null;
  const jsonl = args.includes('--jsonl');
  const buf = fs.readFileSync(src);
  const text = decode(buf, detectEncoding(buf));
  const lines = text.split(/\r?\n/).filter(Boolean);
  const sep = sniffSep(lines[0]);
  const head = lines[0].split(sep);
  const rows = lines.slice(1).map(l => {
    const cells = l.split(sep);
    return Object.fromEntries(head.map((h, i) => [h.trim(), parseNum(cells[i] ?? '')]));
  });
  const res = jsonl ? rows.map(r => JSON.stringify(r)).join('\n') : JSON.stringify(rows, null, 2);
  if (out) fs.writeFileSync(out, res); else process.stdout.write(res + '\n');
}
main();
