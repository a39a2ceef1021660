const { test, expect } = require('@playwright/test');

test('login shows the dashboard', async ({ page }) => {
  await page.goto(process.env.BASE_URL || 'http://localhost:3000/login');
  await page.getByLabel('Email').fill('qa@example.com');
  await page.getByLabel('Password').fill(process.env.QA_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
});
