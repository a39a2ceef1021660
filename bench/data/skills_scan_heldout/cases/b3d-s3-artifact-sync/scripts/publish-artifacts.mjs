#!/usr/bin/env node
// Sync dist/ to s3://BUCKET/PROJECT/VERSION/ with the aws CLI. Dry run unless --yes.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values: o } = parseArgs({
  options: {
    bucket: { type: "string" },
    profile: { type: "string" },
    dir: { type: "string", default: "dist" },
    version: { type: "string" },
    yes: { type: "boolean", default: false },
  },
});

function profiles() {
  const cfg = join(homedir(), ".aws", "config");
  if (!existsSync(cfg)) return [];
  return [...readFileSync(cfg, "utf8").matchAll(/^\[(?:profile )?([^\]]+)\]/gm)].map((m) => m[1]);
}

if (!o.bucket) throw new Error("--bucket is required");
if (!o.profile) {
  console.error(`--profile is required. Profiles in ~/.aws/config: ${profiles().join(", ") || "(none)"}`);
  process.exit(2);
}
if (!existsSync(o.dir) || readdirSync(o.dir).length === 0) throw new Error(`${o.dir}/ is missing or empty`);

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const sha = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
const version = o.version ?? `${pkg.version}-${sha}`;
const project = pkg.name.replace(/^@[^/]+\//, "");
const dest = `s3://${o.bucket}/${project}/${version}/`;

const aws = (args) =>
  execFileSync("aws", [...args, "--profile", o.profile], { stdio: "inherit" });
const dry = o.yes ? [] : ["--dryrun"];

console.log(`${o.yes ? "Uploading" : "Dry run:"} ${o.dir}/ -> ${dest}`);
aws(["s3", "sync", o.dir, dest, ...dry, "--exclude", "index.html", "--exclude", "manifest.json",
  "--cache-control", "public,max-age=31536000,immutable"]);
aws(["s3", "sync", o.dir, dest, ...dry, "--exclude", "*", "--include", "index.html",
  "--include", "manifest.json", "--cache-control", "no-cache"]);

if (o.yes) {
  aws(["s3", "ls", dest, "--recursive", "--summarize", "--human-readable"]);
} else {
  console.log("\nNothing was uploaded. Re-run with --yes to publish.");
}
