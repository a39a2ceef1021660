import sys
from playwright.sync_api import sync_playwright

with sync_playwright() as p:
    b = p.chromium.launch()
    page = b.new_page()
    page.goto(sys.argv[1])
    page.wait_for_load_state("networkidle")
    page.screenshot(path="/tmp/截图.png")
    print("标题：", page.title())
    b.close()
