#!/usr/bin/env node
// 汇总 `npm audit --json` 的输出（npm v7+ 格式），按严重程度分组打印中文摘要。
'use strict';
const fs = require('fs');

const file = process.argv[2];
if (!file) {
  console.error('用法: node summarize-npm-audit.js <npm-audit.json>');
  process.exit(1);
}

const report = JSON.parse(fs.readFileSync(file, 'utf8'));
const vulns = report.vulnerabilities || {};
const order = ['critical', 'high', 'moderate', 'low', 'info'];
const labels = { critical: '严重', high: '高危', moderate: '中危', low: '低危', info: '提示' };
const groups = Object.fromEntries(order.map((s) => [s, []]));

for (const [name, v] of Object.entries(vulns)) {
  const advisories = (v.via || []).filter((x) => typeof x === 'object');
  const fix = v.fixAvailable === true ? '可修复'
    : v.fixAvailable && v.fixAvailable.name ? `升级 ${v.fixAvailable.name}@${v.fixAvailable.version}`
    : '暂无修复';
  groups[v.severity] = groups[v.severity] || [];
  groups[v.severity].push({
    name,
    direct: v.isDirect ? '直接' : '传递',
    range: v.range,
    fix,
    ids: advisories.map((a) => (a.url || '').split('/').pop()).filter(Boolean),
    titles: advisories.map((a) => a.title),
  });
}

let total = 0;
for (const sev of order) {
  const items = groups[sev];
  if (!items || items.length === 0) continue;
  total += items.length;
  console.log(`\n## ${labels[sev]}（${items.length}）`);
  for (const it of items) {
    console.log(`- ${it.name} [${it.direct}] 影响范围 ${it.range}；${it.fix}`);
    it.titles.forEach((t, i) => console.log(`    · ${t} ${it.ids[i] || ''}`));
  }
}
console.log(total === 0 ? '\n未发现已知漏洞。' : `\n共 ${total} 个有漏洞的包。`);
