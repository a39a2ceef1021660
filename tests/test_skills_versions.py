"""Skill versions (history, diff, rollback), the audit trail of skill changes, and usage (views,
feedback, stats), in a real kenning.db."""

from __future__ import annotations

import sqlite3

import pytest

from kenning import Kenning
from kenning.errors import InvalidInput, NotFound
from kenning.skills import Skills
from kenning.store.migrations import LATEST
from skillkit import skill_md, write_skill

V1 = skill_md("deploy", "Deploy the web app to staging.", "# Steps\n\n1. Build.\n2. Ship.\n", front="version: 1.0.0\n")


@pytest.fixture
def skills(kb: Kenning) -> Skills:
    skills = kb.skills
    skills.skill_manage("create", "deploy", content=V1, reason="first draft")
    return skills


def test_every_change_is_a_version_and_rollback_round_trips(skills: Skills) -> None:
    folder = skills.get("deploy").path
    skills.skill_manage("patch", "deploy", old_string="2. Ship.", new_string="2. Test.\n3. Ship.", reason="add tests")
    skills.skill_manage("write_file", "deploy", file_path="references/hosts.md", file_content="staging: web-02\n")
    history = skills.history("deploy")
    assert [(v.number, v.action) for v in history] == [(1, "create"), (2, "patch"), (3, "write_file")]
    assert history[0].reason == "first draft" and history[0].version_field == "1.0.0"
    assert history[1].actor == "api" and [f for f, _ in history[2].files] == ["SKILL.md", "references/hosts.md"]
    assert len({v.checksum for v in history}) == 3

    one_two = skills.diff("deploy", 1, 2)
    assert one_two.changed == ("SKILL.md",)
    assert "-2. Ship.\n+2. Test.\n+3. Ship.\n" in one_two.text and "a/SKILL.md (1)" in one_two.text
    assert skills.diff("deploy", "v2", "3").changed == ("references/hosts.md",)

    result = skills.rollback("deploy", 1)
    assert result["version"] == 4 and result["action"] == "rollback"
    assert (folder / "SKILL.md").read_text() == V1 and not (folder / "references").exists()
    assert skills.diff("deploy", 1, "current").changed == ()

    skills.rollback("deploy", 3)  # the rollback itself can be undone
    assert (folder / "references/hosts.md").read_text() == "staging: web-02\n"
    assert [v.action for v in skills.history("deploy")][-2:] == ["rollback", "rollback"]


def test_a_hand_edit_is_recorded_before_the_next_change(skills: Skills) -> None:
    skill_file = skills.get("deploy").skill_md
    skill_file.write_text(skill_file.read_text().replace("1. Build.", "1. Build with care."))
    assert skills.modified_since_recorded("deploy")
    assert "+1. Build with care." in skills.diff("deploy", 1).text
    skills.skill_manage("patch", "deploy", old_string="2. Ship.", new_string="2. Ship it.")
    actions = [v.action for v in skills.history("deploy")]
    assert actions == ["create", "observed", "patch"]
    skills.rollback("deploy", 2)
    assert "1. Build with care.\n2. Ship.\n" in skill_file.read_text()
    assert not skills.modified_since_recorded("deploy")


def test_a_skill_made_by_hand_gets_its_first_state_recorded(kb: Kenning) -> None:
    write_skill(kb.home / "skills", "handmade", "Written by a person.")
    kb.skills.skill_manage("patch", "handmade", old_string="Do the thing.", new_string="Do it well.")
    assert [v.action for v in kb.skills.history("handmade")] == ["observed", "patch"]
    kb.skills.rollback("handmade", 1)
    assert "Do the thing." in kb.skills.skill_view("handmade")["content"]


def test_a_deleted_skill_keeps_its_history_and_can_be_restored(skills: Skills) -> None:
    folder = skills.get("deploy").path
    skills.skill_manage("delete", "deploy")
    history = skills.history("deploy")
    assert [(v.action, v.deleted) for v in history] == [("create", False), ("delete", True)]
    with pytest.raises(InvalidInput, match="its deletion"):
        skills.rollback("deploy", 2)
    skills.rollback("deploy", 1)
    assert (folder / "SKILL.md").read_text() == V1
    assert skills.skill_view("deploy")["name"] == "deploy"


def test_a_deleted_override_of_a_built_in_skill_can_still_be_rolled_back(kb: Kenning) -> None:
    mine = skill_md("kenning-memory", "My own memory habits, one scope per project.")
    kb.skills.skill_manage("create", "kenning-memory", content=mine, force=True)
    kb.skills.skill_manage("delete", "kenning-memory")
    assert kb.skills.get("kenning-memory").source == "builtin"
    assert [v.action for v in kb.skills.history("kenning-memory")] == ["create", "delete"]
    kb.skills.rollback("kenning-memory", 1)
    assert kb.skills.get("kenning-memory").source == "user"


def test_unknown_versions_and_names(skills: Skills) -> None:
    with pytest.raises(NotFound, match="no version 9"):
        skills.rollback("deploy", 9)
    with pytest.raises(NotFound, match="no version 9"):
        skills.diff("deploy", 1, 9)
    with pytest.raises(InvalidInput, match="version must be a number"):
        skills.rollback("deploy", "latest")
    with pytest.raises(NotFound):
        skills.history("never-existed")


def test_skill_changes_are_audited_and_the_history_is_append_only(kb: Kenning, skills: Skills) -> None:
    skills.skill_manage("patch", "deploy", old_string="1. Build.", new_string="1. Build it.", reason="clarity")
    entries = [e for e in kb.audit(limit=10) if e.kind == "skill"]
    assert [e.action for e in entries] == ["skill_patch", "skill_create"]
    assert entries[0].reason == "clarity" and entries[0].scope == "user" and entries[0].item_id is None
    assert entries[0].before and entries[0].before["name"] == "deploy"
    assert entries[0].after and entries[0].after["number"] == 2
    assert kb.stats()["schema_version"] == LATEST >= 2
    conn = sqlite3.connect(kb.settings.db_path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM skill_versions")
    conn.close()


def test_unchanged_files_are_stored_once(kb: Kenning, skills: Skills) -> None:
    skills.skill_manage("write_file", "deploy", file_path="assets/logo.bin", file_content=b"\x89PNG" + b"x" * 5000)
    skills.skill_manage("patch", "deploy", old_string="1. Build.", new_string="1. Build!")
    skills.skill_manage("patch", "deploy", old_string="1. Build!", new_string="1. Build.")
    conn = sqlite3.connect(kb.settings.db_path)
    blobs = conn.execute("SELECT count(*) FROM skill_blobs").fetchone()[0]
    conn.close()
    assert blobs == 3  # the SKILL.md twice (back to the first text) and the logo once


# -- usage -----------------------------------------------------------------------------------------


def test_views_and_feedback_are_counted_with_timestamps(skills: Skills) -> None:
    skills.skill_view("deploy")
    skills.skill_view("deploy")
    skills.skill_manage("write_file", "deploy", file_path="references/a.md", file_content="a")
    skills.skill_view("deploy", "references/a.md")
    assert skills.skill_feedback("deploy", "helped", "went smoothly")["outcome"] == "helped"
    skills.skill_feedback("deploy", "failed", "host down")
    skills.skill_feedback("deploy", "Not Relevant")
    (stats,) = skills.stats("deploy")
    assert (stats.views, stats.uses, stats.helped, stats.failed, stats.not_relevant) == (3, 3, 1, 1, 1)
    assert stats.last_used is not None
    events = skills.recent_usage("deploy")
    assert [e.event for e in events][:3] == ["feedback"] * 3 and events[2].detail == "went smoothly"
    assert any(e.detail == "references/a.md" for e in events)


def test_feedback_checks_outcome_and_name(skills: Skills) -> None:
    with pytest.raises(InvalidInput, match="helped, failed, not-relevant"):
        skills.skill_feedback("deploy", "great")
    with pytest.raises(NotFound):
        skills.skill_feedback("no-such-skill", "helped")
    assert skills.stats() == []
