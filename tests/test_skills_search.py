"""skills_search: words and meaning over name, description, tags; bilingual; always-skills; vectors
kept in the store; hand edits seen at once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kenning import Kenning
from kenning.errors import InvalidInput
from kenning.skills import Skills
from kenning import passages
from skillkit import write_skill

LIBRARY = {
    "docker-deploy": ("Deploy a web service with docker compose, check its health endpoint and roll back "
                      "when the check fails.", "devops", ""),
    "postgres-backup": ("Back up a PostgreSQL database with pg_dump and verify that the archive restores.",
                        "data", "tags: [database, dump]\n"),
    "git-bisect": ("Find the commit that introduced a regression by bisecting the history with git.", None, ""),
    "invoice-pdf": ("Turn an order into a PDF invoice with the company letterhead and send it by email.",
                    "office", ""),
    "flaky-tests": ("Track down tests that pass and fail at random: rerun, isolate shared state, fix ordering.",
                    None, "tags: [pytest]\n"),
}


@pytest.fixture
def library(kb: Kenning) -> Skills:
    for name, (description, category, front) in LIBRARY.items():
        write_skill(kb.settings.skills_dir, name, description, category=category, front=front)
    return kb.skills


def names(result: dict[str, object]) -> list[str]:
    return [row["name"] for row in result["skills"]]  # type: ignore[index, union-attr]


@pytest.mark.parametrize("task, expected", [
    ("ship the website to production in containers", "docker-deploy"),
    ("save a copy of the db before the migration", "postgres-backup"),
    ("which change made this bug appear?", "git-bisect"),
    ("some unit tests fail only sometimes on CI", "flaky-tests"),
    ("给客户开一张发票", "invoice-pdf"),
    ("数据库备份", "postgres-backup"),
])
def test_a_task_finds_its_skill_across_paraphrase_and_language(library: Skills, task: str, expected: str) -> None:
    result = library.skills_search(task, 3, min_relevance=0)  # the ranking; the floor: test_skill_relevance
    assert result["success"] and names(result)[0] == expected, result
    scores = [row["score"] for row in result["skills"]]
    assert scores == sorted(scores, reverse=True)


def test_each_match_says_why_with_the_tasks_own_words(library: Skills) -> None:
    top = library.skills_search("restore a PostgreSQL dump", 1)["skills"][0]
    assert top["name"] == "postgres-backup"
    assert "meaning: cosine" in top["why"] and "postgresql" in top["why"] and "dump" in top["why"]
    assert top["available"] is True and top["missing"] == [] and top["source"] == "user"


def test_tags_count_as_words(library: Skills) -> None:
    top = library.skills_search("pytest", 1)["skills"][0]
    assert top["name"] == "flaky-tests" and "pytest" in top["why"]


def test_always_skills_come_with_every_answer(kb: Kenning, library: Skills) -> None:
    write_skill(kb.settings.skills_dir, "house-rules", "Conventions of this team: commit style and review etiquette.",
                front="always: true\n")
    result = library.skills_search("back up the database", 2)
    rows = {row["name"]: row for row in result["skills"]}
    assert names(result)[0] == "postgres-backup" and "house-rules" in rows
    assert rows["house-rules"]["always"] is True and "always: true" in rows["house-rules"]["why"]
    assert result["count"] == 3


def test_bad_arguments_are_refused_with_the_reason(library: Skills) -> None:
    with pytest.raises(InvalidInput, match="empty"):
        library.skills_search("   ")
    with pytest.raises(InvalidInput, match="k must be"):
        library.skills_search("deploy", 0)
    with pytest.raises(InvalidInput, match="k must be"):
        library.skills_search("deploy", True)  # type: ignore[arg-type]


def test_an_empty_library_answers_with_the_built_in_skills_only(skills: Skills) -> None:
    result = skills.skills_search("remember what the user prefers", 5)
    assert set(names(result)) <= {"kenning-memory", "kenning-skills"} and result["count"] >= 1


def test_a_hand_edit_is_searched_at_once(kb: Kenning, library: Skills) -> None:
    before = library.skills_search("bake sourdough bread", 1, min_relevance=0)["skills"][0]
    assert "sourdough" not in before["description"]
    write_skill(kb.settings.skills_dir, "invoice-pdf", "Bake sourdough bread: feed the starter, knead, proof overnight.",
                category="office")
    after = library.skills_search("bake sourdough bread", 1)["skills"][0]
    assert after["name"] == "invoice-pdf" and after["description"].startswith("Bake sourdough")


def test_passage_vectors_are_kept_in_the_store_and_reused(kb: Kenning, library: Skills) -> None:
    library.skills_search("deploy", 1)
    with sqlite3.connect(kb.settings.db_path) as conn:
        stored = conn.execute("SELECT count(*) FROM passage_vectors WHERE embedder = ?", (kb.embedder.name,)).fetchone()[0]
    assert stored == len(library.index().visible())
    # a new process has nothing in memory: the vectors come from the store, not from the model
    passages._memory.clear()
    calls: list[int] = []
    real = kb.embedder.embed_passages

    def counting(texts: list[str], progress: object = None) -> object:
        calls.append(len(texts))
        return real(texts, progress=progress)

    kb.embedder.embed_passages = counting  # type: ignore[method-assign]
    try:
        fresh = Skills(kb.store, kb.embedder, user_root=kb.settings.skills_dir, project_dir=kb.project_dir)
        assert names(fresh.skills_search("roll back the release", 1)) == ["docker-deploy"]
    finally:
        del kb.embedder.embed_passages
    assert calls == []


def test_the_project_skill_shadows_the_user_one_in_search(kb: Kenning, project: Path, library: Skills) -> None:
    write_skill(project / ".agents" / "skills", "docker-deploy", "Deploy with the project's own Helm chart to k8s.")
    rows = library.skills_search("deploy the release", 5)["skills"]
    deploys = [r for r in rows if r["name"] == "docker-deploy"]
    assert len(deploys) == 1 and deploys[0]["source"] == "project"
