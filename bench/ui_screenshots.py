"""Screenshots of every page of ``kenning ui``, at a desktop and a phone width, over a demo store.

Fills a throwaway data directory (facts with a supersede chain, a pinned and an expired one, a
lesson, an entity, hot entries, daily notes and a HISTORY.md paragraph, a skill with three versions,
a safe and a caution skill draft), serves the inspector as ``kenning ui`` does (``kenning.ui.app.serve``
on 127.0.0.1, a free port), and drives the system Chromium headless (Playwright with
``executable_path``; nothing is downloaded) through each page. Writes PNGs to ``bench/results/ui/``
and prints a table of what it captured.

    python bench/ui_screenshots.py
    python bench/ui_screenshots.py --out /tmp/ui --chromium /usr/bin/chromium
"""

from __future__ import annotations

import argparse
import queue
import tempfile
import threading
from pathlib import Path

from kenning import Kenning
from kenning.ui.app import serve

WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
SAFE = "# Steps\n\n1. Build the image with `docker build -t app .`.\n2. Push it to the registry.\n"
CAUTION = "# Steps\n\n1. Run `cat ~/.docker/config.json` to see which registry you are logged in to.\n"


def skill_md(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n{body}"


def fill(kb: Kenning) -> dict[str, str]:
    """A store with something on every page; returns the ids the page list needs."""
    old = kb.remember("the staging database listens on port 5432", category="project", tags=["db", "staging"])
    new = kb.supersede(old.id, "the staging database listens on port 5433", reason="moved in the migration")
    kb.remember("nginx proxy_read_timeout defaults to 60 seconds; raise it for websockets", tags=["nginx"],
                category="pitfall")
    pinned = kb.remember("always deploy from the release branch", category="project", pinned=True)
    kb.remember("Alice prefers short answers with code first", category="user_pref", scope="user:alice")
    gone = kb.remember("the temporary VPN password rotates on Friday")
    kb.expire(gone.id, reason="the VPN was replaced")
    kb.remember("测试环境的数据库在 10.0.0.5 上", tags=["db"])
    kb.lessons.record("ran the migrations by hand", "deploying the web app", "negative",
                      "always run migrations from CI", tags=["deploy"])
    kb.entities.upsert("Alice", kind="person", aliases=["艾丽丝"], attributes={"team": "web"},
                       notes="owns the checkout service")
    kb.hot.add("The user writes Python 3.11 and wants type hints everywhere", "user")
    kb.hot.add("The web repo uses pnpm, not npm", "project")
    kb.hot.add("Never run migrations by hand on staging", "pitfalls")
    kb.notes.write("Looked into the websocket drops: nginx closes idle connections after 60 s.")
    kb.notes.write("Raised proxy_read_timeout to 3600s on staging; drops stopped.")
    kb.notes.history_append("Session on websocket drops: found the nginx timeout, raised it on staging.")
    skills = kb.skills
    skills.skill_manage("create", "docker-push", content=skill_md("docker-push", "Build and push the app image.", SAFE))
    skills.skill_manage("patch", "docker-push", old_string="2. Push it to the registry.",
                        new_string="2. Run the smoke tests.\n3. Push it to the registry.", reason="test first")
    skills.skill_manage("write_file", "docker-push", file_path="references/registries.md",
                        file_content="- staging: registry.staging.internal\n- prod: registry.internal\n")
    kb.drafts.save_text("release-notes", skill_md("release-notes", "Write release notes from merged PRs.", SAFE),
                        origin="mcp:claude-code")
    kb.drafts.save_text("registry-login", skill_md("registry-login", "Check the registry login.", CAUTION),
                        origin="consolidation")
    return {"fact": new.id, "pinned": pinned.id}


def pages(ids: dict[str, str]) -> list[tuple[str, str]]:
    return [("memories", "/"), ("search", "/search?q=websocket+drops+after+a+minute"),
            ("memory", f"/memory/{ids['fact']}"), ("purge", f"/memory/{ids['pinned']}/purge"),
            ("hot", "/hot"), ("skills", "/skills"), ("skill", "/skills/docker-push"),
            ("versions", "/skills/docker-push/versions?from=1&to=2"), ("review", "/review"),
            ("draft", "/review/registry-login"), ("notes", "/notes"), ("audit", "/audit"), ("stats", "/stats")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "ui")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, Kenning.open(Path(tmp) / "home", project_dir=tmp) as kb:
        ids = fill(kb)
        urls: queue.Queue[str] = queue.Queue()
        threading.Thread(target=serve, args=(kb, "127.0.0.1", 0, "default", urls.put), daemon=True).start()
        url = urls.get(timeout=60)
        base = url.split("/?", 1)[0]
        rows = []
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=args.chromium, headless=True)
            for label, (width, height) in WIDTHS.items():
                context = browser.new_context(viewport={"width": width, "height": height},
                                              is_mobile=label == "phone", device_scale_factor=1)
                tab = context.new_page()
                tab.goto(url)
                for name, path in pages(ids):
                    answer = tab.goto(base + path)
                    target = args.out / f"{name}-{label}.png"
                    tab.screenshot(path=str(target), full_page=True)
                    overflow = tab.evaluate("document.documentElement.scrollWidth") > width
                    rows.append((name, label, answer.status if answer else 0, "yes" if overflow else "no", target))
                context.close()
            browser.close()
    print(f"kenning ui screenshots: Chromium {args.chromium}, widths {WIDTHS}")
    print(f"{'page':<10} {'width':<8} {'status':>6} {'too wide':>9}  file")
    for name, label, status, overflow, target in rows:
        print(f"{name:<10} {label:<8} {status:>6} {overflow:>9}  {target}")


if __name__ == "__main__":
    main()
