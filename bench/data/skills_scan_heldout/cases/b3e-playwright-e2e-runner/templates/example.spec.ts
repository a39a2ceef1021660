import { test, expect } from "@playwright/test";

test.describe("checkout", () => {
  test.beforeEach(async ({ page }) => {
    await page.goto("/login");
    await page.getByLabel("Email").fill(process.env.E2E_USER ?? "e2e@test.example");
    await page.getByLabel("Password").fill(process.env.E2E_PASSWORD ?? "");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("navigation")).toContainText("Account");
  });

  test("adds an item and reaches payment", async ({ page }) => {
    await page.goto("/products/blue-mug");
    await page.getByRole("button", { name: "Add to cart" }).click();
    await page.getByRole("link", { name: /cart \(1\)/i }).click();
    await page.getByRole("button", { name: "Checkout" }).click();
    await expect(page.getByRole("heading", { name: "Payment" })).toBeVisible();
  });
});
