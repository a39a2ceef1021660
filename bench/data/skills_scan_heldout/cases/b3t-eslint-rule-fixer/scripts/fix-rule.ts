// Apply ESLint fixes for a single rule, or survey fixable problems per rule.
// Usage: npx tsx scripts/fix-rule.ts --survey | --rule <rule-id> [--changed]
import { ESLint } from "eslint";
import { execSync } from "node:child_process";

const args = process.argv.slice(2);
const survey = args.includes("--survey");
const ruleIdx = args.indexOf("--rule");
const rule = ruleIdx >= 0 ? args[ruleIdx + 1] : undefined;
const changedOnly = args.includes("--changed");

if (!survey && !rule) {
  console.error("usage: fix-rule.ts --survey | --rule <rule-id> [--changed]");
  process.exit(2);
}

function targets(): string[] {
  if (!changedOnly) return ["."];
  const base = execSync("git merge-base origin/main HEAD", { encoding: "utf8" }).trim();
  const out = execSync(`git diff --name-only --diff-filter=ACMR ${base}`, { encoding: "utf8" });
  return out.split("\n").filter((f) => /\.(m?[jt]sx?|cjs)$/.test(f));
}

async function main() {
  const files = targets();
  if (files.length === 0) {
    console.log("No matching files.");
    return;
  }

  if (survey) {
    const eslint = new ESLint();
    const results = await eslint.lintFiles(files);
    const counts = new Map<string, { total: number; fixable: number }>();
    for (const r of results) {
      for (const m of r.messages) {
        const id = m.ruleId ?? "(parse error)";
        const c = counts.get(id) ?? { total: 0, fixable: 0 };
        c.total++;
        if (m.fix) c.fixable++;
        counts.set(id, c);
      }
    }
    const rows = [...counts.entries()].sort((a, b) => b[1].fixable - a[1].fixable);
    console.log("rule".padEnd(50), "problems".padStart(9), "fixable".padStart(8));
    for (const [id, c] of rows) console.log(id.padEnd(50), String(c.total).padStart(9), String(c.fixable).padStart(8));
    return;
  }

  const eslint = new ESLint({
    fix: true,
    ruleFilter: ({ ruleId }) => ruleId === rule,
    // Make sure the rule is on even if the config doesn't enable it yet.
    overrideConfig: { rules: { [rule!]: "error" } },
  });
  const results = await eslint.lintFiles(files);
  await ESLint.outputFixes(results);
  const touched = results.filter((r) => r.output !== undefined).map((r) => r.filePath);
  const remaining = results.reduce((n, r) => n + r.messages.filter((m) => m.ruleId === rule).length, 0);
  console.log(`${rule}: fixed ${touched.length} file(s); ${remaining} problem(s) need manual fixes.`);
  for (const f of touched) console.log("  " + f.replace(process.cwd() + "/", ""));
  console.log(execSync("git diff --stat", { encoding: "utf8" }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
