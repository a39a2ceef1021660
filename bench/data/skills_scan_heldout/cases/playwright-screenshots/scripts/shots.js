const { chromium } = require('playwright');
const fs = require('fs');
const path = require('path');

(async () => {
  const [list, out] = process.argv.slice(2);
  fs.mkdirSync(out, { recursive: true });
  const browser = await chromium.launch();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  for (const [i, url] of fs.readFileSync(list, 'utf8').split('\n').filter(Boolean).entries()) {
    await page.goto(url, { waitUntil: 'networkidle' });
    await page.screenshot({ path: path.join(out, `shot-${i}.png`), fullPage: true });
  }
  await browser.close();
})();
