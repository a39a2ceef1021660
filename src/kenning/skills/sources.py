"""Where skills come from, in order of precedence, and the bounded walk that finds them.

    project   <project>/.agents/skills, <project>/.kenning/skills, <project>/.claude/skills
    user      $KENNING_HOME/skills                              (where kenning writes by default)
    builtin   shipped inside the kenning package                (read-only)
    extra     [skills] extra_dirs in kenning.toml               (read-only)

Each folder is a *root*; a skill is any folder below a root holding a ``SKILL.md`` (or ``skill.md``,
which the Agent Skills reference also reads: loaded with a warning to rename it), and the folders
between the root and the skill are its category (``devops/docker-deploy``). The walk is bounded
(depth 6, 2000 folders per root), skips hidden folders, ``node_modules`` and ``__pycache__``, does not
look inside a skill for more skills, and follows a symbolic link only when its target lies inside
one of the roots (``.claude/skills/pdf -> ../../.agents/skills/pdf`` shares one skill between two
clients), so a link cannot pull a foreign tree into the library; each folder is walked once, so a
loop ends. A link that is not followed is a "skipped" diagnostic, counted by ``skills_list``.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .model import SKILL_FILE, Diagnostic

SOURCE_NAMES = ("project", "user", "builtin", "extra")
PROJECT_DIRS = (".agents/skills", ".kenning/skills", ".claude/skills")
LOWER_SKILL_FILE = "skill.md"  # read when there is no SKILL.md, as the reference reads it
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
    """A folder holding a SKILL.md, as reached from its root (links not resolved): ``path``; its
    resolved path ``real`` (one folder reached from two roots is one skill); ``file``, the name of
    its skill file (``SKILL.md``, or ``skill.md`` when that is all it has)."""

    source: Source
    path: Path
    category: str | None
    file: str = SKILL_FILE
    real: Path | None = None


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


@dataclass(frozen=True)
class Scan:
    """What one walk of a root found: skill folders, diagnostics, and every other folder it read
    (the root and the categories: a skill added or removed changes one of their modification times)."""

    found: list[Found]
    notes: list[Diagnostic]
    folders: list[Path]


def walk(source: Source, roots: Sequence[Path] = ()) -> tuple[list[Found], list[Diagnostic]]:
    """Every skill folder under one root, bounded as the module docstring says; a link may lead
    into ``source.root`` or any of ``roots`` (resolved paths)."""
    done = scan(source, roots)
    return done.found, done.notes


def real_roots(sources: Sequence[Source]) -> tuple[Path, ...]:
    """The resolved roots of ``sources`` that exist: where a link in any of them may lead."""
    return tuple(s.root.resolve() for s in sources if s.root.is_dir())


def scan(source: Source, roots: Sequence[Path] = ()) -> Scan:
    """``walk`` that also reports the folders read. One ``scandir`` per folder and no path
    resolution except for links."""
    root = source.root
    if not root.is_dir():
        return Scan([], [], [])
    real_root = root.resolve()
    walker = _Walker(source, (real_root, *roots))
    stack: list[tuple[Path, Path, int]] = [(root, real_root, 0)]  # (path, real path, depth)
    links: list[tuple[Path, Path, int]] = []  # walked after the real folders: a skill is found by its own path
    seen = {real_root}
    while stack or links:
        if not stack:
            link = links.pop(0)
            if link[1] not in seen:
                seen.add(link[1])
                stack.append(link)
            continue
        folder, real, depth = stack.pop()
        walker.visited += 1
        if walker.visited > MAX_FOLDERS:
            walker.note(root, "warning", f"stopped after {MAX_FOLDERS} folders; skills further in were not loaded "
                                         "(move unrelated folders out of the skills root)")
            break
        for child, child_real, is_link in walker.visit(folder, real, depth):
            if is_link:
                links.append((child, child_real, depth + 1))
            elif child_real not in seen:
                seen.add(child_real)
                stack.append((child, child_real, depth + 1))
    walker.found.sort(key=lambda f: f.path.as_posix())
    return Scan(walker.found, walker.notes, walker.folders)


class _Walker:
    """The state of one walk: what was found and noticed, and how many folders were read."""

    def __init__(self, source: Source, roots: tuple[Path, ...]) -> None:
        self.source = source
        self.roots = roots  # resolved: this source's root first, then every root a link may lead into
        self.found: list[Found] = []
        self.notes: list[Diagnostic] = []
        self.folders: list[Path] = []
        self.visited = 0

    def note(self, path: Path, level: str, message: str) -> None:
        self.notes.append(Diagnostic(path, self.source.name, level, message))

    def inside_a_root(self, path: Path) -> bool:
        return any(inside(path, root) for root in self.roots)

    def visit(self, folder: Path, real: Path, depth: int) -> list[tuple[Path, Path, bool]]:
        """Record ``folder`` if it is a skill; else the sub-folders to walk into: (path, real path, is a
        link). ``real`` is the folder's resolved path, so a plain sub-folder's is ``real / name``."""
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name, reverse=True)
        except OSError as exc:
            self.note(folder, "warning", f"cannot read folder: {exc.strerror or exc}")
            return []
        skill_file = self._skill_file(folder, entries)
        if skill_file is not None and depth == 0:
            self.note(folder, "skipped", f"{skill_file.name} sits directly in the skills root; move it into a "
                                         "folder named after the skill")
        elif skill_file is not None:
            if self._skill_file_ok(folder, skill_file):
                parts = folder.relative_to(self.source.root).parts
                self.found.append(Found(self.source, folder, "/".join(parts[:-1]) or None, skill_file.name, real))
            return []  # a skill's own folders hold its files, not more skills
        self.folders.append(folder)
        if depth >= MAX_DEPTH:
            return []
        out = []
        for entry in entries:
            if entry.name.startswith(".") or entry.name in _SKIP:
                continue
            child = Path(entry.path)
            try:
                if entry.is_symlink():
                    target = self._link_target(child)
                    if target is not None:
                        out.append((child, target, True))
                elif entry.is_dir(follow_symlinks=False):
                    out.append((child, real / entry.name, False))
            except OSError:
                continue
        return out

    def _skill_file(self, folder: Path, entries: list[os.DirEntry[str]]) -> os.DirEntry[str] | None:
        """The folder's SKILL.md, else its skill.md (with a warning to rename it)."""
        upper = next((e for e in entries if e.name == SKILL_FILE), None)
        lower = next((e for e in entries if e.name == LOWER_SKILL_FILE), None)
        if upper is not None and lower is not None:
            self.note(folder, "warning", f"both {SKILL_FILE} and {LOWER_SKILL_FILE}; {LOWER_SKILL_FILE} is not "
                                         "read: delete it or merge it into SKILL.md")
        elif lower is not None:
            self.note(folder, "warning", f"the skill file is named {LOWER_SKILL_FILE}; read, but rename it to "
                                         f"{SKILL_FILE}, the name the Agent Skills format and most clients use")
        return upper or lower

    def _link_target(self, link: Path) -> Path | None:
        """Where a link to a folder leads, when the walk may follow it; else None (with a
        diagnostic when the link was meant for skills: a folder elsewhere, a broken link, a loop)."""
        try:
            os.stat(link)  # follows the link: says whether it ends anywhere
            target = link.resolve()
        except (OSError, RuntimeError) as exc:  # RuntimeError: resolve's word for a loop before Python 3.13
            if isinstance(exc, RuntimeError) or exc.errno == errno.ELOOP:
                self.note(link, "skipped", "link that leads back to itself (a loop); not followed: remove it")
            else:
                self.note(link, "skipped", f"broken link: its target {os.readlink(link)} does not exist; "
                                           "remove or repoint it")
            return None
        if not target.is_dir():
            return None  # a linked file among the folders: not a skill
        if not self.inside_a_root(target):
            self.note(link, "skipped", f"link to {target}, a folder outside every skills root; not followed: "
                                       "move that folder into a skills root, or add its parent to [skills] "
                                       "extra_dirs in kenning.toml")
            return None
        return target

    def _skill_file_ok(self, folder: Path, entry: os.DirEntry[str]) -> bool:
        if entry.is_symlink():
            try:
                target = Path(entry.path).resolve()
            except (OSError, RuntimeError):
                target = None
            if target is None or not self.inside_a_root(target):
                self.note(folder, "skipped", f"{entry.name} is a link to a file outside every skills root; "
                                             "not followed: copy the file into the skill folder")
                return False
        if not entry.is_file():
            self.note(folder, "skipped", f"{entry.name} is not a regular file")
            return False
        return True
