"""skills_catalog: the budgeted index for a system prompt, its caches, and token counting."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from kenning import Kenning
from kenning.errors import InvalidInput
from kenning.skills import Skills
from kenning.skills.catalog import MIN_DESCRIPTION_TOKENS, Entry, build
from kenning.tokens import count_tokens
from skillkit import skill_md, write_skill

LONG = ("Check the service health, read the last deploy log, compare the running image tag with the "
        "release notes, and roll back to the previous tag when the error rate stays above one percent.")


def fill(root: Path, n: int, category: str | None = None) -> None:
    for i in range(n):
        write_skill(root, f"skill-{i:03d}", f"Step {i}: {LONG}", category=category)


# -- token counting --------------------------------------------------------------------------------


def test_tokens_are_counted_by_a_real_tokenizer_and_add_up() -> None:
    assert count_tokens("") == 0
    assert count_tokens("a") == 1
    one, two = "Deploy the web app with docker compose.", "Then check the /health endpoint."
    assert count_tokens(one) + count_tokens(two) == count_tokens(f"{one} {two}")
    assert count_tokens(one + "\n" + two) == count_tokens(one) + count_tokens(two) + 1
    assert count_tokens("internationalisation") > 1  # subword pieces, not words


def test_chinese_is_never_undercounted() -> None:
    text = "部署之前先检查服务的健康状态"
    assert count_tokens(text) >= len(text)
    assert count_tokens("用 docker 部署") == count_tokens("docker") + 3


# -- the budget --------------------------------------------------------------------------------------


def entries(n: int, **kw: object) -> list[Entry]:
    return [Entry(f"skill-{i:03d}", f"Step {i}: {LONG}", ["ops", "data", None][i % 3], **kw)  # type: ignore[arg-type]
            for i in range(n)]


@pytest.mark.parametrize("budget", [60, 150, 400, 900, 3000])
def test_the_catalog_never_exceeds_its_budget_and_counts_what_it_holds(budget: int) -> None:
    catalog = build(entries(40), budget)
    assert catalog.tokens == count_tokens(catalog.text) <= budget
    assert catalog.full + catalog.shortened + catalog.name_only + catalog.omitted == 40


def test_a_tight_budget_shortens_descriptions_evenly_before_dropping_any() -> None:
    full = build(entries(10), 10_000)
    assert full.full == 10 and full.shortened == 0 and "…" not in full.text
    tight = build(entries(10), full.tokens * 2 // 3)
    assert tight.shortened == 10 and tight.name_only == tight.omitted == 0
    lengths = {count_tokens(line.split(": ", 1)[1]) for line in tight.text.splitlines() if line.startswith("- ")}
    assert max(lengths) - min(lengths) <= 2 and min(lengths) >= MIN_DESCRIPTION_TOKENS


def test_then_skills_are_listed_by_name_then_left_out_with_a_count() -> None:
    named = build(entries(40), 300)
    assert named.name_only > 0 and named.omitted == 0 and "by name only: " in named.text
    tiny = build(entries(40), 50)
    assert tiny.omitted > 0 and f"{tiny.omitted} more skills not shown" in tiny.text


def test_a_budget_too_small_for_anything_is_refused() -> None:
    with pytest.raises(InvalidInput, match="budget_tokens"):
        build(entries(3), 10)
    with pytest.raises(InvalidInput, match="budget_tokens"):
        build(entries(3), "2000")  # type: ignore[arg-type]


def test_unavailable_skills_are_marked_not_hidden() -> None:
    catalog = build([Entry("ship-it", "Ship it with docker.", None, ("bin:docker",))], 500)
    assert "- ship-it (unavailable: needs bin:docker): Ship it with docker." in catalog.text


def test_matching_skills_keep_their_whole_description_first() -> None:
    matched = [Entry("the-match", f"Matched: {LONG}", "ops", matched=True)]
    catalog = build(matched + entries(30), 500)
    assert catalog.matched == ("the-match",)
    assert catalog.text.index("### matching this task") < catalog.text.index("### ops")
    assert f"- the-match: Matched: {LONG}" in catalog.text


# -- the library call and its caches -------------------------------------------------------------------


def test_the_catalog_groups_by_category_and_finds_the_task_in_another_language(kb: Kenning) -> None:
    root = kb.settings.skills_dir
    write_skill(root, "postgres-backup", "Back up a PostgreSQL database with pg_dump and verify it restores.",
                category="data")
    write_skill(root, "docker-deploy", "Deploy the web service with docker compose.", category="devops")
    result = kb.skills.skills_catalog(1000, task="给数据库做个备份")
    assert result["success"] and result["matched"][0] == "postgres-backup"
    text = result["text"]
    assert text.index("### matching this task") < text.index("### devops")
    assert "- postgres-backup: Back up a PostgreSQL database" in text and "- kenning-memory:" in text


def test_a_second_call_is_served_from_memory_and_a_new_process_from_disk(kb: Kenning) -> None:
    fill(kb.settings.skills_dir, 5)
    first = kb.skills.skills_catalog(500)
    again = kb.skills.skills_catalog(500)
    assert first["cached"] is False and again["cached"] is True and again["text"] == first["text"]
    snapshots = list(kb.settings.cache_dir.glob("skills-catalog-*.json"))
    assert len(snapshots) == 1
    fresh = Skills(kb.store, kb.embedder, user_root=kb.settings.skills_dir, project_dir=kb.project_dir,
                   cache_dir=kb.settings.cache_dir)
    from_disk = fresh.skills_catalog(500)
    assert from_disk["cached"] is True and from_disk["text"] == first["text"]


def test_a_hand_edit_is_noticed_on_the_next_call(kb: Kenning) -> None:
    fill(kb.settings.skills_dir, 3)
    kb.skills.skills_catalog(800)
    skill_file = kb.settings.skills_dir / "skill-001" / "SKILL.md"
    skill_file.write_text(skill_md("skill-001", "Rewritten by hand: water the office plants."), encoding="utf-8")
    edited = kb.skills.skills_catalog(800)
    assert edited["cached"] is False and "water the office plants" in edited["text"]
    write_skill(kb.settings.skills_dir, "brand-new", "A skill dropped in by hand.", category="misc")
    added = kb.skills.skills_catalog(800)
    assert "- brand-new: A skill dropped in by hand." in added["text"]
    shutil.rmtree(kb.settings.skills_dir / "misc" / "brand-new")
    assert "brand-new" not in kb.skills.skills_catalog(800)["text"]


def test_a_write_through_kenning_clears_both_caches(kb: Kenning) -> None:
    kb.skills.skills_catalog(800)
    assert list(kb.settings.cache_dir.glob("skills-catalog-*.json"))
    kb.skills.skill_manage("create", "release-notes", content=skill_md(
        "release-notes", "Write release notes from the merged pull requests since the last tag."))
    assert not list(kb.settings.cache_dir.glob("skills-catalog-*.json"))
    result = kb.skills.skills_catalog(800)
    assert result["cached"] is False and "- release-notes: Write release notes" in result["text"]


def test_a_damaged_snapshot_is_ignored_and_rewritten(kb: Kenning) -> None:
    kb.skills.skills_catalog(800)
    (snapshot,) = kb.settings.cache_dir.glob("skills-catalog-*.json")
    for damage in ("{not json", json.dumps({"format": 1, "state": "x", "catalogs": []}), "\x00" * 10):
        snapshot.write_text(damage, encoding="utf-8")
        fresh = Skills(kb.store, kb.embedder, user_root=kb.settings.skills_dir, project_dir=kb.project_dir,
                       cache_dir=kb.settings.cache_dir)
        assert fresh.skills_catalog(800)["cached"] is False
    assert json.loads(snapshot.read_text(encoding="utf-8"))["format"] == 1


def test_availability_follows_the_environment(kb: Kenning, monkeypatch: pytest.MonkeyPatch) -> None:
    write_skill(kb.settings.skills_dir, "needs-token", "Post a message with the team's chat token.",
                front="requires:\n  env: [KENNING_TEST_CHAT_TOKEN]\n")
    monkeypatch.delenv("KENNING_TEST_CHAT_TOKEN", raising=False)
    assert "needs-token (unavailable: needs env:KENNING_TEST_CHAT_TOKEN)" in kb.skills.skills_catalog(800)["text"]
    monkeypatch.setenv("KENNING_TEST_CHAT_TOKEN", "x")
    assert "- needs-token: Post a message" in kb.skills.skills_catalog(800)["text"]


def test_a_category_filter_and_bad_arguments(kb: Kenning) -> None:
    fill(kb.settings.skills_dir, 3, category="ops/aws")
    result = kb.skills.skills_catalog(800, category="ops")
    assert result["skills"] == 3 and "kenning-memory" not in result["text"]
    with pytest.raises(InvalidInput, match="budget_tokens"):
        kb.skills.skills_catalog(0)
    with pytest.raises(InvalidInput, match="NUL"):
        kb.skills.skills_catalog(800, task="a\x00b")


def test_an_unwritable_cache_folder_only_costs_speed(kb: Kenning) -> None:
    kb.settings.cache_dir.parent.mkdir(parents=True, exist_ok=True)
    kb.settings.cache_dir.write_text("a file where the folder should be")  # cannot create the folder
    result = kb.skills.skills_catalog(800)
    assert result["success"] and kb.skills.skills_catalog(800)["cached"] is True
    assert os.path.isfile(kb.settings.cache_dir)


def test_an_in_place_edit_of_the_same_size_is_noticed(kb: Kenning) -> None:
    write_skill(kb.settings.skills_dir, "same-size", "Alpha version of the text.", category="misc")
    assert "Alpha version" in kb.skills.skills_catalog(800)["text"]
    path = kb.settings.skills_dir / "misc" / "same-size" / "SKILL.md"
    text = path.read_text(encoding="utf-8").replace("Alpha", "Omega")
    with path.open("r+", encoding="utf-8") as fh:  # written in place: the folders' times do not change
        fh.write(text)
    assert "Omega version" in kb.skills.skills_catalog(800)["text"]
    assert any("Omega version" in s["description"] for s in kb.skills.skills_list()["skills"])
