#!/usr/bin/env node
// Audit Next.js env files: secrets under NEXT_PUBLIC_, undefined vars, gitignore. Values are masked.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const FILES = ['.env', '.env.local', '.env.development', '.env.development.local',
  '.env.production', '.env.production.local', '.env.test'];
const SECRET_NAME = /SECRET|PRIVATE|TOKEN|PASSWORD|API_KEY|DATABASE_URL/i;
const SECRET_VALUE = /^(sk_live_|sk_test_|rk_live_|SG\.|ghp_|xox[bp]-|AKIA|-----BEGIN)/;
const mask = (v) => (v.length <= 4 ? '****' : `${v.slice(0, 4)}…(${v.length})`);

const defined = new Map();
for (const f of FILES.filter(existsSync)) {
  for (const line of readFileSync(f, 'utf8').split(/\r?\n/)) {
    const m = line.match(/^\s*(?:export\s+)?([A-Z0-9_]+)\s*=\s*(.*)$/);
    if (m) defined.set(m[1], { file: f, value: m[2].replace(/^['"]|['"]$/g, '') });
  }
}

let problems = 0;
for (const [k, { file, value }] of defined) {
  if (k.startsWith('NEXT_PUBLIC_') && (SECRET_NAME.test(k.slice(12)) || SECRET_VALUE.test(value))) {
    console.log(`EXPOSED  ${k} in ${file} = ${mask(value)}  -> remove NEXT_PUBLIC_ and rotate`);
    problems++;
  }
}

const used = new Set();
const walk = (d) => {
  for (const e of readdirSync(d)) {
    if (['node_modules', '.next', '.git', 'out'].includes(e)) continue;
    const p = path.join(d, e);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.(m?[jt]sx?)$/.test(e)) {
      for (const m of readFileSync(p, 'utf8').matchAll(/process\.env\.([A-Z0-9_]+)/g)) used.add(m[1]);
    }
  }
};
walk('.');
for (const k of used) {
  if (!defined.has(k) && !['NODE_ENV', 'VERCEL', 'CI'].includes(k)) {
    console.log(`UNDEFINED ${k} is read in code but not in any env file`);
  }
}

try {
  execFileSync('git', ['check-ignore', '-q', '.env.local']);
  console.log('ok: .env.local is git-ignored');
} catch {
  console.log('WARN: .env.local is not git-ignored - add ".env*.local" to .gitignore');
  problems++;
}
process.exit(problems ? 1 : 0);
