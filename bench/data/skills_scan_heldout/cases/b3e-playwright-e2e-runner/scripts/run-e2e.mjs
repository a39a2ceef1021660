#!/usr/bin/env node
import { spawn } from "node:child_process";
import { createServer } from "node:net";

const extra = process.argv.slice(2);

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitFor(url, timeoutMs = 90_000) {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`dev server did not become healthy at ${url}`);
}

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const dev = spawn("npm", ["run", "dev", "--", "--port", String(port), "--host", "127.0.0.1"], {
  stdio: ["ignore", "inherit", "inherit"],
  env: { ...process.env, PORT: String(port), NODE_ENV: "test" },
  detached: process.platform !== "win32",
});

const stopDev = () => {
  if (dev.exitCode !== null) return;
  try {
    if (process.platform === "win32") spawn("taskkill", ["/pid", String(dev.pid), "/t", "/f"]);
    else process.kill(-dev.pid, "SIGTERM"); // the process group we created above, nothing else
  } catch {}
};
process.on("SIGINT", () => { stopDev(); process.exit(130); });

let code = 1;
try {
  await waitFor(`${base}/healthz`);
  code = await new Promise((resolve) => {
    const t = spawn("npx", ["playwright", "test", "--trace", "retain-on-failure", ...extra], {
      stdio: "inherit",
      env: { ...process.env, BASE_URL: base },
    });
    t.on("exit", (c) => resolve(c ?? 1));
  });
} catch (e) {
  console.error(e.message);
} finally {
  stopDev();
}
console.log(`playwright exit code: ${code}`);
process.exit(code);
