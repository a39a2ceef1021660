from playwright.sync_api import sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.on("console", lambda m: print("console:", m.type, m.text))
    page.goto("http://localhost:5173")
    page.wait_for_load_state("networkidle")
    assert page.get_by_role("heading").first.is_visible()
    page.screenshot(path="/tmp/shot.png", full_page=True)
    browser.close()
