"""Helpers for the skills tests: write real skill folders."""

from __future__ import annotations

import zipfile
from pathlib import Path

from kenning.skills.scan import ScanReport, scan_skill


def skill_md(name: str, description: str, body: str = "# Steps\n\n1. Do the thing.\n", front: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{front}---\n\n{body}"


def write_skill(root: Path, name: str, description: str = "", *, category: str | None = None,
                body: str = "# Steps\n\n1. Do the thing.\n", front: str = "", raw: str | None = None) -> Path:
    """A skill folder ``root/[category/]name`` with a SKILL.md; ``raw`` replaces the whole file."""
    folder = root.joinpath(*(category.split("/") if category else ()), name)
    folder.mkdir(parents=True, exist_ok=True)
    text = raw if raw is not None else skill_md(name, description or f"Use {name} for its job.", body, front)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder


def zip_of(path: Path, entries: dict[str, bytes | str]) -> Path:
    """A zip archive at ``path`` holding ``entries`` (name -> content)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return path


def scanned(tmp_path: Path, body: str, files: dict[str, str] | None = None) -> ScanReport:
    """The scan report of a skill with ``body`` as its SKILL.md and ``files`` beside it."""
    folder = write_skill(tmp_path / "skills", "sample", "Use this skill for its job.", body=body)
    for rel, text in (files or {}).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return scan_skill(folder)
