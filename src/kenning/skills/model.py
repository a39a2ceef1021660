"""The skill domain objects: Skill (one parsed SKILL.md), its Requirements, a load Diagnostic, a
stored SkillVersion. All frozen; ``to_dict()`` gives what the faces print."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from datetime import datetime
from pathlib import Path
from typing import Any

SKILL_FILE = "SKILL.md"
# The size limits of what is written into a skill; here, in the light module, so that the MCP edge
# can bound its arguments with them without importing yaml and the file helpers
SKILL_MD_MAX_CHARS = 100_000
MAX_FILE_BYTES = 1 << 20  # one file of a skill's own (references/, scripts/, ...)
# the only sub-folders a skill's own files may be written to (the Agent Skills layout)
LINKED_DIRS = ("references", "templates", "scripts", "assets")


@dataclass(frozen=True)
class Requirements:
    """What must be present for a skill to work: every one of ``bins`` on PATH, at least one of
    ``any_bins``, every one of ``env`` set, and this OS among ``platforms`` (when any are named)."""

    bins: tuple[str, ...] = ()
    any_bins: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    platforms: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.bins or self.any_bins or self.env or self.platforms)


@dataclass(frozen=True)
class Skill:
    """One ``SKILL.md``, parsed once. ``name`` is the front-matter name (the folder name when the
    front matter has none); ``folder`` is the folder's own name; ``category`` the sub-folders
    between the source root and the skill ("devops", "devops/aws"), else the front-matter
    ``category``. ``metadata`` is the front matter's ``metadata`` mapping as written (read-only)."""

    name: str
    description: str
    path: Path  # the skill folder
    source: str  # "project" | "user" | "builtin" | "extra"
    root: Path  # the source root the skill was found under
    folder: str
    body: str = ""
    category: str | None = None
    version: str | None = None
    license: str | None = None
    compatibility: str | None = None
    allowed_tools: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    related_skills: tuple[str, ...] = ()
    requires: Requirements = field(default_factory=Requirements)
    always: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
    file: str = SKILL_FILE  # "skill.md" when that is how the file is named (read, with a warning)

    @property
    def skill_md(self) -> Path:
        return self.path / self.file

    @cached_property  # asked of every skill by the list, the curator and trust: computed once
    def rel_path(self) -> str:
        """Where the skill sits inside its source root, e.g. "devops/docker-deploy"."""
        return self.path.relative_to(self.root).as_posix()

    @property
    def qualified(self) -> str:
        """The name that always finds this very skill: ``source:category/folder``."""
        return f"{self.source}:{self.rel_path}"

    @property
    def platforms(self) -> tuple[str, ...]:
        return self.requires.platforms

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "category": self.category,
            "source": self.source,
            "path": str(self.path),
            "version": self.version,
            "license": self.license,
            "compatibility": self.compatibility,
            "allowed_tools": list(self.allowed_tools),
            "tags": list(self.tags),
            "related_skills": list(self.related_skills),
            "platforms": list(self.requires.platforms),
            "requires": {"bins": list(self.requires.bins), "any_bins": list(self.requires.any_bins),
                         "env": list(self.requires.env)},
            "always": self.always,
            "metadata": self.metadata,
        }


@dataclass(frozen=True)
class Diagnostic:
    """Something noticed while loading a skill. ``level`` is "warning" (loaded anyway) or
    "skipped" (not loaded); ``message`` says what and how to fix it."""

    path: Path
    source: str
    level: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "source": self.source, "level": self.level, "message": self.message}


@dataclass(frozen=True)
class SkillVersion:
    """One recorded state of a skill folder. ``number`` counts from 1 per skill location;
    ``action`` is what produced this state ("create", "patch", …, or "observed" for a state
    kenning found on disk, such as a hand edit, and recorded before changing it)."""

    number: int
    name: str
    source: str
    path: Path
    action: str
    checksum: str
    version_field: str | None
    at: datetime
    actor: str
    reason: str
    deleted: bool
    files: tuple[tuple[str, int], ...] = ()  # (relative path, size in bytes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "name": self.name,
            "source": self.source,
            "path": str(self.path),
            "action": self.action,
            "checksum": self.checksum,
            "version": self.version_field,
            "at": self.at.isoformat(timespec="seconds"),
            "actor": self.actor,
            "reason": self.reason,
            "deleted": self.deleted,
            "files": [{"path": p, "size": s} for p, s in self.files],
        }
