import { test as setup, expect } from "@playwright/test";
import fs from "node:fs";
import path from "node:path";

const authFile = path.join("playwright", ".auth", "user.json");

setup("authenticate test account", async ({ page }) => {
  const user = process.env.E2E_USER;
  const password = process.env.E2E_PASSWORD;
  if (!user || !password) {
    throw new Error("Set E2E_USER and E2E_PASSWORD (test account) before running Playwright.");
  }

  await page.goto("/login");
  await page.getByLabel("Email").fill(user);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: /sign in/i }).click();

  // The app redirects to the dashboard once the session cookie is set.
  await page.waitForURL("**/dashboard");
  await expect(page.getByRole("button", { name: /account/i })).toBeVisible();

  fs.mkdirSync(path.dirname(authFile), { recursive: true });
  await page.context().storageState({ path: authFile });
  fs.chmodSync(authFile, 0o600);
  console.log(`saved session for ${user.replace(/(.).*(@.*)/, "$1***$2")} to ${authFile}`);
});
