"""Notes search keeps recall's relevance floor by default: what a query about nothing the notes hold
gets back reads as unlikely, and a raised floor gets nothing (and says how near the best came); a
note in the other language still comes back, and the CLI option, the MCP argument and the
context's notes section all take a floor."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import pytest
from click.testing import CliRunner

from kenning import Kenning
from kenning.cli import cli
from kenning.errors import InvalidInput
from kenning.retrieval.relevance import DEFAULT_MIN_RELEVANCE
from kenning.tiers.notes import Note
from test_mcp import Connection, sampled, server_home, stdio  # noqa: F401  (the MCP client fixture)

DAY = "2026-11-30"
NOTES = {
    "staging": "Deployed the web app to staging at 14:00; the health check was flaky for a minute.",
    "lunch": "Lunch with the design team; they want the new logo by Friday.",
    "rollback": "Rolled back the billing release because the canary error rate doubled.",
    "backup-en": "The nightly database backup on db-backup-01 failed twice this week: the disk was full.",
    "backup-zh": "数据库备份每天凌晨两点运行，备份文件保存在对象存储里。",
    "homepage-zh": "和产品团队讨论了新版首页的设计稿。",
}


@pytest.fixture
def noted(kb: Kenning) -> Kenning:
    for text in NOTES.values():
        kb.notes.write(text, DAY)
    return kb


def texts(hits: Sequence[Note]) -> list[str]:
    return [h.text for h in hits]


UNLIKELY = 0.1  # a floor a caller raises to trade recall for silence


def test_a_query_about_nothing_the_notes_hold_reads_as_unlikely_and_says_how_near_the_best_came(
        noted: Kenning) -> None:
    for query in ("quantum banana telescope", "量子香蕉望远镜"):
        assert all(h.relevance < UNLIKELY for h in noted.notes.search(query, days_back=None))
        hits = noted.notes.search(query, days_back=None, min_relevance=UNLIKELY)
        assert hits == [] and hits.best_dropped is not None and hits.best_dropped < UNLIKELY
        assert hits.empty_reason().startswith("nothing relevant: best note scored 0.0")
        everything = noted.notes.search(query, days_back=None, min_relevance=0)
        assert len(everything) == len(NOTES) and everything.empty_reason() == ""


def test_no_notes_at_all_is_nothing_matches(kb: Kenning) -> None:
    hits = kb.notes.search("why did we roll back", days_back=None)
    assert hits == [] and hits.empty_reason() == "nothing matches"


@pytest.mark.parametrize("floor", [DEFAULT_MIN_RELEVANCE, UNLIKELY])
def test_every_hit_reaches_the_floor_and_the_floor_comes_before_k(noted: Kenning, floor: float) -> None:
    question = "why was the billing release rolled back?"
    hits = noted.notes.search(question, days_back=None, k=10, min_relevance=floor)
    assert hits and texts(hits)[0] == NOTES["rollback"]
    assert all(h.relevance >= floor for h in hits)
    ranked = noted.notes.search(question, days_back=None, k=10, min_relevance=0)
    relevant = [h for h in ranked if h.relevance >= floor]
    assert texts(hits) == texts(relevant)  # the same order; only the irrelevant ones are gone
    assert floor == DEFAULT_MIN_RELEVANCE or len(hits) < len(NOTES)
    # k counts relevant notes: the best relevant one comes back even when an irrelevant one outranks it
    for k in range(1, len(relevant) + 1):
        assert texts(noted.notes.search(question, days_back=None, k=k, min_relevance=floor)) == texts(relevant[:k])


@pytest.mark.parametrize(("query", "note", "best"), [
    # a Chinese task and an English note (relevance ~0.39), and the other way round
    ("网页应用部署到预发环境后健康检查怎么样", "staging", "staging"),
    ("为什么回滚了计费服务的发布", "rollback", "rollback"),  # (~0.12)
    ("这周的数据库备份失败了吗", "backup-en", "backup-en"),  # (~0.76, the Chinese one ~0.75)
    ("when does the database backup run", "backup-zh", "backup-en"),  # English task, Chinese note (~0.16)
])
def test_a_note_in_the_other_language_still_comes_back_at_the_default_floor(
        noted: Kenning, query: str, note: str, best: str) -> None:
    hits = noted.notes.search(query, days_back=None)
    found = {h.text: h.relevance for h in hits}
    assert NOTES[note] in found and found[NOTES[note]] >= DEFAULT_MIN_RELEVANCE
    # the floor (0.01) keeps some notes near the task too (for a Chinese query, unrelated notes
    # measured 0.001-0.07); relevance still puts the one that answers above them
    assert max(found, key=lambda text: found[text]) == NOTES[best]
    assert found.get(NOTES["lunch"], 0.0) < found[NOTES[note]] / 2


@pytest.mark.parametrize("bad", [-0.1, 1.5, True, "0.5", math.nan])
def test_a_bad_floor_is_refused(noted: Kenning, bad: object) -> None:
    with pytest.raises(InvalidInput, match="min_relevance must be a number from 0 to 1"):
        noted.notes.search("backup", min_relevance=bad)  # type: ignore[arg-type]


def test_the_context_shows_only_relevant_notes_each_with_its_id(noted: Kenning) -> None:
    ctx = noted.context("网页应用部署到预发环境后健康检查怎么样", 4000)
    notes = next(s for s in ctx.sections if s.name == "notes")
    staging = next(s["id"] for s in notes.sources if noted.notes.get(s["id"]).text == NOTES["staging"])
    assert f"{NOTES['staging']} ({staging})" in notes.text and staging.startswith(f"daily/{DAY}.md#")
    assert NOTES["lunch"] not in ctx.markdown
    assert "## Notes" not in noted.context("quantum banana telescope", 4000).markdown


def test_the_session_layout_keeps_its_notes_without_the_floor(kb: Kenning) -> None:
    # a session's task is a folder name: no note is "relevant" to it by the floor, the best ones still show
    kb.notes.write("Looked into the webshop cart rounding bug; it is in money.py.", DAY)
    ctx = kb.context("webshop", 4000, layout="session")
    assert "cart rounding bug" in ctx.markdown


def test_the_command_line_takes_min_relevance(noted: Kenning) -> None:
    runner = CliRunner(env={"COLUMNS": "200"})
    home = str(noted.settings.home)

    def run(*args: str) -> str:
        result = runner.invoke(cli, ["--home", home, "note", "search", *args, "--days-back", "100000"])
        assert result.exit_code == 0, result.output
        return result.output

    assert json.loads(run("quantum banana telescope", "--min-relevance", str(UNLIKELY), "--json")) == []
    assert "nothing relevant: best note scored" in run("quantum banana telescope", "--min-relevance", str(UNLIKELY))
    every = json.loads(run("quantum banana telescope", "--min-relevance", "0", "--json"))
    assert len(every) == len(NOTES) and all(0 <= h["relevance"] < UNLIKELY for h in every)
    assert "relevance" in run("why was the billing release rolled back")
    strict = json.loads(run("why was the billing release rolled back", "--min-relevance", "0.99", "--json"))
    assert strict == []
    bad = runner.invoke(cli, ["--home", home, "note", "search", "backup", "--min-relevance", "2"])
    assert bad.exit_code == 2 and "min-relevance" in bad.output
    assert "--min-relevance" in runner.invoke(cli, ["note", "search", "--help"]).output


def test_mcp_notes_search_takes_min_relevance_and_says_when_nothing_is_relevant(
        stdio: Connection) -> None:  # noqa: F811
    stdio.ok("notes_write", text=NOTES["rollback"])
    hits = stdio.ok("notes_search", query="why was the billing release rolled back?")["hits"]
    assert hits[0]["text"] == NOTES["rollback"] and hits[0]["relevance"] >= DEFAULT_MIN_RELEVANCE
    empty = stdio.ok("notes_search", query="quantum banana telescope", min_relevance=UNLIKELY)
    assert empty["count"] == 0 and empty["message"].startswith("nothing relevant: best note scored")
    every = stdio.ok("notes_search", query="quantum banana telescope", min_relevance=0)
    assert every["count"] == 1 and "message" not in every
    assert "min_relevance" in stdio.error("notes_search", query="backup", min_relevance=3)
