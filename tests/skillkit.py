"""Helpers for the skills tests: write real skill folders."""

from __future__ import annotations

import zipfile
from pathlib import Path


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
