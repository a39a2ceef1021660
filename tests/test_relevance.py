"""Relevance of recall hits: a probability on one scale for every query and store, a floor that
answers a query about nothing in the store with nothing (and says so), and min_relevance=0 for
the ranking as it was; the CLI option and the MCP argument."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenning import Kenning
from kenning.retrieval import relevance as rel
from kenning import retrieval as kr
from kenning.cli import cli
from kenning.errors import InvalidInput
from kenning.retrieval import Filters
from test_mcp import Connection, sampled, server_home, stdio  # noqa: F401  (the MCP client fixture)

FACTS = [
    "The staging database is backed up every night at 02:00 by a cron job on db-backup-01",
    "Alice reviews every pull request that touches the billing service",
    "The web app ships as blue-green releases behind the nginx load balancer",
    "Our CI runs on GitHub Actions; the nightly job also rebuilds the docs site",
    "The user prefers short answers with code first and explanations after",
    "Production logs are kept for 30 days in Loki, then deleted",
    "用户每周五下午和产品团队开例会",
    "公司的办公室在上海浦东新区",
    "报销单需要在每月 25 号之前提交给财务",
    "新员工入职第一周要完成安全培训",
]


@pytest.fixture
def store(kb: Kenning) -> Kenning:
    kb.remember_many(FACTS)
    return kb


UNLIKELY = 0.1  # a floor a caller raises to trade recall for silence (see the README)


def test_a_query_about_nothing_reads_as_unlikely_and_a_raised_floor_empties_it(store: Kenning) -> None:
    # the default floor keeps weak hits (a cross-language paraphrase looks as weak to the embedder);
    # what it keeps of a query about nothing reads as unlikely
    assert all(h.relevance < UNLIKELY for h in store.recall("quantum banana telescope"))
    hits = store.recall("quantum banana telescope", min_relevance=UNLIKELY)
    assert list(hits) == []
    assert hits.best_dropped is not None and hits.best_dropped < UNLIKELY
    assert hits.empty_reason().startswith("nothing relevant: best candidate scored ")


def test_a_paraphrase_passes_the_floor(store: Kenning) -> None:
    hits = store.recall("when does the staging db get its backup?")
    assert hits and hits[0].item.content == FACTS[0]
    assert hits[0].relevance >= rel.DEFAULT_MIN_RELEVANCE


def test_a_cross_language_hit_passes_the_floor(store: Kenning) -> None:
    chinese = store.recall("where is the company's office?")
    assert chinese and chinese[0].item.content == "公司的办公室在上海浦东新区"
    english = store.recall("数据库备份什么时候运行")
    assert english and english[0].item.content == FACTS[0]


def test_min_relevance_zero_keeps_the_ranking_and_every_hit(store: Kenning) -> None:
    query = "quantum banana telescope"
    hits = store.recall(query, k=5, min_relevance=0)
    plain = kr.recall(store.store, store.embedder, query, k=5, scope="default", filters=Filters(), touch=False)
    assert len(hits) == 5
    assert [h.item.id for h in hits] == [h.item.id for h in plain]
    assert [h.score for h in hits] == pytest.approx([h.score for h in plain])
    assert hits.dropped == [] and hits.empty_reason() == ""


def test_every_hit_carries_relevance_in_its_dict(store: Kenning) -> None:
    for hit in store.recall("backups of the database", k=10, min_relevance=0):
        assert 0.0 <= hit.relevance <= 1.0
        assert hit.to_dict()["relevance"] == round(hit.relevance, 4)
    ranked = store.recall("backups of the database", k=10, min_relevance=0)
    assert ranked[0].relevance == max(h.relevance for h in ranked)


def test_relevance_is_comparable_across_stores(tmp_path: Path, embedder: object, store: Kenning) -> None:
    """The same fact and query score the same relevance whatever else the store holds."""
    with Kenning.open(tmp_path / "alone", embedder=embedder) as alone:  # type: ignore[arg-type]
        alone.remember(FACTS[0])
        lone = alone.recall("when does the staging db get its backup?")[0]
    crowded = store.recall("when does the staging db get its backup?")[0]
    assert lone.item.content == crowded.item.content
    # only the word weights (IDF) depend on the store
    assert abs(lone.relevance - crowded.relevance) < 0.25


@pytest.mark.parametrize("bad", [-0.1, 1.5, True, "high", None])
def test_a_bad_floor_is_refused_with_the_range(store: Kenning, bad: object) -> None:
    with pytest.raises(InvalidInput, match="min_relevance must be a number from 0 to 1"):
        store.recall("backups", min_relevance=bad)  # type: ignore[arg-type]


def test_the_null_gives_every_language_pair_and_the_constants_are_sane() -> None:
    assert set(rel.NULL) == {("en", "en"), ("en", "zh"), ("zh", "en"), ("zh", "zh")}
    assert all(0 < sd < 0.2 and 0.3 < mean < 1 for mean, sd in rel.NULL.values())
    assert 0 < rel.DEFAULT_MIN_RELEVANCE < 1
    assert rel.relevance_of(0.0, 0.0, 0.0, 10) < rel.relevance_of(4.0, 4.0, 0.5, 10)
    # the same evidence says less among more memories: more of them match any question by chance
    assert rel.relevance_of(3.0, 3.0, 0.3, 500) < rel.relevance_of(3.0, 3.0, 0.3, 10)
    assert rel.language("部署到 k8s 集群") == "zh" and rel.language("deploy to the 上海 cluster") == "en"


def _cli(home: Path, *args: str) -> str:
    result = CliRunner(env={"COLUMNS": "200", "KENNING_HOME": str(home)}).invoke(cli, list(args), prog_name="kenning")
    assert result.exit_code == 0, result.output
    return result.output


def test_the_cli_says_nothing_relevant_and_takes_min_relevance(tmp_path: Path) -> None:
    home = tmp_path / "cli-home"
    _cli(home, "remember", FACTS[0])
    _cli(home, "remember", FACTS[6])
    out = _cli(home, "recall", "quantum banana telescope", "--min-relevance", str(UNLIKELY))
    assert "nothing relevant: best candidate scored" in out
    rows = json.loads(_cli(home, "recall", "quantum banana telescope", "--min-relevance", "0", "--json"))
    assert len(rows) == 2 and all(0 <= r["relevance"] <= 1 for r in rows)
    table = _cli(home, "recall", "staging database backup")
    assert "relevance" in table and "staging database" in table
    assert "--min-relevance" in _cli(home, "recall", "--help")


def test_the_cli_refuses_a_floor_outside_zero_to_one(tmp_path: Path) -> None:
    result = CliRunner(env={"KENNING_HOME": str(tmp_path / "h")}).invoke(
        cli, ["recall", "x", "--min-relevance", "2"], prog_name="kenning")
    assert result.exit_code != 0 and "min-relevance" in result.output


# -- the same relevance for skills and notes ---------------------------------------------------------

SKILLS = {
    "docker-deploy": "Deploy a web service with docker compose, check its health endpoint and roll back when it fails.",
    "postgres-backup": "Back up a PostgreSQL database with pg_dump and verify that the archive restores.",
    "invoice-pdf": "Turn an order into a PDF invoice with the company letterhead and send it by email.",
}


def test_no_skill_for_a_task_no_skill_fits(kb: Kenning) -> None:
    from skillkit import write_skill

    for name, description in SKILLS.items():
        write_skill(kb.settings.skills_dir, name, description)
    from kenning.skills.relevance import DEFAULT_SKILL_MIN_RELEVANCE

    finder, index = kb.skills.finder, kb.skills.model_index()
    floor = DEFAULT_SKILL_MIN_RELEVANCE
    assert finder.search(index, "bake sourdough bread at home", 3, min_relevance=floor) == []
    fits = finder.search(index, "save a copy of the postgres db before the migration", 3, min_relevance=floor)
    assert [m.skill.name for m in fits][:1] == ["postgres-backup"]
    assert fits[0].to_dict()["relevance"] == round(fits[0].relevance, 4) >= floor
    assert len(finder.search(index, "bake sourdough bread at home", 3)) == 3  # no floor: as before


def test_notes_search_carries_relevance_and_takes_a_floor(kb: Kenning) -> None:
    notes = kb.notes
    notes.write("Rolled back the web release because the health check failed after the deploy.", "2026-11-29")
    notes.write("Lunch with the design team; they want the new logo by Friday.", "2026-11-29")
    found = notes.search("why was the release rolled back?", days_back=None, min_relevance=rel.DEFAULT_MIN_RELEVANCE)
    assert found and "health check" in found[0].text and found[0].to_dict()["relevance"] >= rel.DEFAULT_MIN_RELEVANCE
    assert all(h.relevance < UNLIKELY for h in notes.search("quantum banana telescope", days_back=None))
    assert notes.search("quantum banana telescope", days_back=None, min_relevance=UNLIKELY) == []
    assert len(notes.search("quantum banana telescope", days_back=None, min_relevance=0)) == 2


def test_mcp_recall_takes_min_relevance_and_says_when_nothing_is_relevant(stdio: Connection) -> None:  # noqa: F811
    fact = stdio.ok("memory_remember", text="The nightly database backup runs at 02:00 on db-backup-01")["fact"]
    hits = stdio.ok("memory_recall", query="when does the database backup run?")["hits"]
    assert hits[0]["id"] == fact["id"] and hits[0]["relevance"] >= rel.DEFAULT_MIN_RELEVANCE
    empty = stdio.ok("memory_recall", query="quantum banana telescope", min_relevance=UNLIKELY)
    assert empty["count"] == 0 and empty["message"].startswith("nothing relevant: best candidate scored")
    every = stdio.ok("memory_recall", query="quantum banana telescope", min_relevance=0)
    assert every["count"] >= 1 and "message" not in every
    assert "min_relevance" in stdio.error("memory_recall", query="backup", min_relevance=3)
