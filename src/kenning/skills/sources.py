"""Where skills come from, in order of precedence, and the bounded walk that finds them.

    project   <project>/.agents/skills, <project>/.kenning/skills, <project>/.claude/skills
    user      $KENNING_HOME/skills                              (where kenning writes by default)
    builtin   shipped inside the kenning package                (read-only)
    extra     [skills] extra_dirs in kenning.toml               (read-only)

Each folder is a *root*; a skill is any folder below a root holding a ``SKILL.md``, and the folders
between the root and the skill are its category (``devops/docker-deploy``). The walk is bounded
(depth 6, 2000 folders per root), skips hidden folders, ``node_modules`` and ``__pycache__``, does not
look inside a skill for more skills, and follows a symbolic link only when its target stays inside
the same root, so a link cannot pull a foreign tree (or a loop) into the library.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .model import SKILL_FILE, Diagnostic

SOURCE_NAMES = ("project", "user", "builtin", "extra")
PROJECT_DIRS = (".agents/skills", ".kenning/skills", ".claude/skills")
BUILTIN_ROOT = Path(__file__).resolve().parent / "builtin"
MAX_DEPTH = 6
MAX_FOLDERS = 2000
_SKIP = frozenset({"node_modules", "__pycache__"})


@dataclass(frozen=True)
class Source:
    """One root folder of skills. ``name`` is the source it belongs to (several project roots share
    "project"); earlier sources win over later ones."""

    name: str
    root: Path
    writable: bool

    def to_dict(self) -> dict[str, object]:
        return {"source": self.name, "root": str(self.root), "writable": self.writable,
                "exists": self.root.is_dir()}


@dataclass(frozen=True)
class Found:
    """A folder holding a SKILL.md, as reached from its root (links not resolved)."""

    source: Source
    path: Path
    category: str | None


def default_sources(project_dir: Path | None, user_root: Path, extra_dirs: Sequence[Path] = ()) -> tuple[Source, ...]:
    """The roots in order of precedence; one folder reached twice (a project inside the data
    directory, an extra dir naming the user root) counts once, for the earlier source, except that
    the user root stays "user"."""
    user = Source("user", _absolute(user_root), True)
    project = [Source("project", _absolute(project_dir / d), True) for d in PROJECT_DIRS] if project_dir else []
    ordered = [*project, user, Source("builtin", BUILTIN_ROOT, False),
               *(Source("extra", _absolute(d), False) for d in extra_dirs)]
    out: list[Source] = []
    seen = {user.root}
    for source in ordered:
        if source is not user and source.root in seen:
            continue
        seen.add(source.root)
        out.append(source)
    return tuple(out)


def _absolute(path: Path) -> Path:
    return Path(os.path.abspath(path.expanduser()))


def inside(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or below it (both already resolved)."""
    return path == root or root in path.parents


def walk(source: Source) -> tuple[list[Found], list[Diagnostic]]:
    """Every skill folder under one root, bounded as the module docstring says."""
    root = source.root
    if not root.is_dir():
        return [], []
    real_root = root.resolve()
    found: list[Found] = []
    notes: list[Diagnostic] = []
    stack: list[tuple[Path, int]] = [(root, 0)]
    links: list[tuple[Path, int]] = []  # walked after the real folders, so a skill is found by its own path
    seen = {real_root}
    visited = 0
    while stack or links:
        if not stack:
            link, link_depth = links.pop(0)
            if link.resolve() not in seen:
                seen.add(link.resolve())
                stack.append((link, link_depth))
            continue
        folder, depth = stack.pop()
        visited += 1
        if visited > MAX_FOLDERS:
            notes.append(Diagnostic(root, source.name, "warning",
                                    f"stopped after {MAX_FOLDERS} folders; skills further in were not loaded "
                                    "(move unrelated folders out of the skills root)"))
            break
        if depth > 0 and (folder / SKILL_FILE).exists():
            if _skill_file_ok(folder, real_root, source, notes):
                parts = folder.relative_to(root).parts
                found.append(Found(source, folder, "/".join(parts[:-1]) or None))
            continue  # a skill's own folders hold its files, not more skills
        if depth >= MAX_DEPTH:
            continue
        for child, is_link in _subfolders(folder, real_root, source, notes):
            if is_link:
                links.append((child, depth + 1))
            elif child.resolve() not in seen:
                seen.add(child.resolve())
                stack.append((child, depth + 1))
    if (root / SKILL_FILE).exists():
        notes.append(Diagnostic(root, source.name, "skipped",
                                "SKILL.md sits directly in the skills root; move it into a folder named "
                                "after the skill"))
    found.sort(key=lambda f: f.path.as_posix())
    return found, notes


def _skill_file_ok(folder: Path, real_root: Path, source: Source, notes: list[Diagnostic]) -> bool:
    skill_md = folder / SKILL_FILE
    if not inside(skill_md.resolve(), real_root):
        notes.append(Diagnostic(folder, source.name, "skipped",
                                "SKILL.md is a link to a file outside the skills root; not followed"))
        return False
    if not skill_md.is_file():
        notes.append(Diagnostic(folder, source.name, "skipped", "SKILL.md is not a regular file"))
        return False
    return True


def _subfolders(folder: Path, real_root: Path, source: Source, notes: list[Diagnostic]) -> list[tuple[Path, bool]]:
    """The folders to walk into, each with whether it is a link (to a folder inside the root)."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name, reverse=True)
    except OSError as exc:
        notes.append(Diagnostic(folder, source.name, "warning", f"cannot read folder: {exc.strerror or exc}"))
        return []
    out = []
    for entry in entries:
        if entry.name.startswith(".") or entry.name in _SKIP:
            continue
        try:
            if not entry.is_dir(follow_symlinks=True):
                continue
        except OSError:
            continue
        child = Path(entry.path)
        is_link = entry.is_symlink()
        if is_link and not inside(child.resolve(), real_root):
            notes.append(Diagnostic(child, source.name, "warning",
                                    "link to a folder outside the skills root; not followed"))
            continue
        out.append((child, is_link))
    return out
