#!/usr/bin/env node
// Summarise `terraform show -json` output: counts per action, and every delete/replace by address.
import { readFileSync } from "node:fs";

const file = process.argv[2];
if (!file) {
  console.error("usage: plan-summary.mjs tfplan.json");
  process.exit(2);
}

const plan = JSON.parse(readFileSync(file, "utf8"));
const groups = { create: [], update: [], replace: [], delete: [], read: [] };

for (const rc of plan.resource_changes ?? []) {
  const a = rc.change.actions.join(",");
  if (a === "no-op") continue;
  if (a === "create") groups.create.push(rc.address);
  else if (a === "update") groups.update.push(rc.address);
  else if (a === "delete") groups.delete.push(rc.address);
  else if (a === "read") groups.read.push(rc.address);
  else if (a.includes("delete") && a.includes("create")) groups.replace.push(rc.address);
  else groups.update.push(`${rc.address} (${a})`);
}

const line = (k) => `${k.padEnd(8)} ${String(groups[k].length).padStart(4)}`;
console.log(`Terraform ${plan.terraform_version} plan summary`);
for (const k of ["create", "update", "replace", "delete"]) console.log(line(k));

for (const k of ["delete", "replace"]) {
  if (groups[k].length === 0) continue;
  console.log(`\n!! ${k.toUpperCase()} (data in these resources is lost):`);
  for (const addr of groups[k]) console.log(`   - ${addr}`);
}

if (groups.update.length) {
  console.log("\nUpdated in place:");
  for (const addr of groups.update.slice(0, 30)) console.log(`   ~ ${addr}`);
  if (groups.update.length > 30) console.log(`   ... and ${groups.update.length - 30} more`);
}

const outputs = Object.keys(plan.output_changes ?? {});
if (outputs.length) console.log(`\nOutputs changing: ${outputs.join(", ")}`);

process.exitCode = groups.delete.length + groups.replace.length > 0 ? 3 : 0;
