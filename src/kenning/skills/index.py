"""The loaded library: every skill of every root, which one wins each name, and lookup.

Precedence is the order of the roots (``sources.default_sources``): for each name the first root
holding it wins and the same name in later roots is *shadowed* (``skills_list`` reports it). Two
skills of one name inside one root are *duplicates*: looking the name up refuses, naming both paths
and the qualified names that pick one. Lookup tries, in order: a path (``category/name``, a folder
on disk), the folder name, the front-matter name; ``source:`` in front (``project:deploy``,
``user:devops/deploy``) restricts it to one source.

Files are the truth: ``Loader`` re-walks the roots on each call and re-parses only the SKILL.md
files whose size or modification time changed, so a hand edit is seen on the next call.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import Conflict, InvalidInput, NotFound
from .frontmatter import READ_MAX_BYTES, parse_front_matter, skill_from_front_matter
from .model import SKILL_FILE, Diagnostic, Skill
from .sources import SOURCE_NAMES, Found, Source, walk


@dataclass(frozen=True)
class Shadowed:
    skill: Skill
    by: Skill

    def to_dict(self) -> dict[str, str]:
        return {"name": self.skill.name, "source": self.skill.source, "path": str(self.skill.path),
                "shadowed_by": self.by.source, "winner_path": str(self.by.path)}


@dataclass(frozen=True)
class SkillIndex:
    """Every skill loaded from ``sources`` (in precedence order) and what was noticed loading them."""

    sources: tuple[Source, ...]
    skills: tuple[Skill, ...]
    diagnostics: tuple[Diagnostic, ...]

    def _by_root(self, skills: Iterable[Skill]) -> dict[Path, list[Skill]]:
        out: dict[Path, list[Skill]] = {}
        for skill in skills:
            out.setdefault(skill.root, []).append(skill)
        return out

    def _winners(self) -> dict[str, list[Skill]]:
        """For each name, the skills of the first root that has it (more than one: duplicates)."""
        out: dict[str, list[Skill]] = {}
        for skill in self.skills:
            group = out.setdefault(skill.name, [])
            if not group or group[0].root == skill.root:
                group.append(skill)
        return out

    def visible(self) -> list[Skill]:
        """The skills a model sees: each name once, from the highest source (both of a duplicate pair)."""
        return [s for group in self._winners().values() for s in group]

    def shadowed(self) -> list[Shadowed]:
        winners = self._winners()
        return [Shadowed(s, winners[s.name][0]) for s in self.skills if s.root != winners[s.name][0].root]

    def duplicates(self) -> list[list[Skill]]:
        return [group for group in self._winners().values() if len(group) > 1]

    def resolve(self, ref: object) -> Skill:
        """The skill ``ref`` names (see the module docstring); NotFound or Conflict when it cannot
        name exactly one."""
        if not isinstance(ref, str) or not ref.strip():
            raise InvalidInput(f"skill name must be text such as 'docker-deploy', got {ref!r}")
        ref = ref.strip()
        source, _, rest = ref.partition(":")
        pool: Sequence[Skill] = self.skills
        if rest and source in SOURCE_NAMES:
            pool = [s for s in self.skills if s.source == source]
        else:
            source, rest = "", ref
        rest = rest.strip().rstrip("/")
        for match in (self._by_path, self._by_folder, self._by_name):
            candidates = match(pool, rest)
            if candidates:
                return self._pick(ref, candidates)
        raise NotFound(self._not_found(ref, rest, source))

    @staticmethod
    def _by_path(pool: Sequence[Skill], ref: str) -> list[Skill]:
        if "/" not in ref and not ref.startswith(("~", ".")):
            return []
        on_disk = Path(os.path.abspath(Path(ref).expanduser()))
        if on_disk.name == SKILL_FILE:
            on_disk = on_disk.parent
        return [s for s in pool if s.rel_path == ref or s.path == on_disk]

    @staticmethod
    def _by_folder(pool: Sequence[Skill], ref: str) -> list[Skill]:
        return [s for s in pool if s.folder == ref]

    @staticmethod
    def _by_name(pool: Sequence[Skill], ref: str) -> list[Skill]:
        return [s for s in pool if s.name == ref]

    def _pick(self, ref: str, candidates: list[Skill]) -> Skill:
        first_root = candidates[0].root
        same_root = [s for s in candidates if s.root == first_root]
        if len(same_root) == 1:
            return same_root[0]
        paths = " and ".join(str(s.path) for s in same_root)
        options = " or ".join(repr(s.qualified) for s in same_root)
        raise Conflict(
            f"skill {ref!r} is ambiguous: {len(same_root)} skills of that name in the {same_root[0].source} "
            f"source ({first_root}): {paths}; pass {options} (source:category/name), or rename one"
        )

    def _not_found(self, ref: str, rest: str, source: str) -> str:
        names = sorted({s.name for s in self.skills if not source or s.source == source})
        where = f" in the {source} source" if source else ""
        close = difflib.get_close_matches(rest, names, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        return f"no skill {ref!r}{where}{hint} (`kenning skill list` shows every skill)"


class Loader:
    """Builds a ``SkillIndex``, keeping each parsed SKILL.md until its size or mtime changes."""

    def __init__(self, sources: tuple[Source, ...]) -> None:
        self.sources = sources
        self._parsed: dict[Path, tuple[tuple[int, int, int], Skill | None, tuple[Diagnostic, ...]]] = {}

    def invalidate(self) -> None:
        self._parsed.clear()

    def load(self) -> SkillIndex:
        skills: list[Skill] = []
        notes: list[Diagnostic] = []
        live: set[Path] = set()
        for source in self.sources:
            found, walk_notes = walk(source)
            notes += walk_notes
            for item in found:
                live.add(item.path)
                skill, skill_notes = self._parse(item)
                notes += skill_notes
                if skill is not None:
                    skills.append(skill)
        for gone in set(self._parsed) - live:
            del self._parsed[gone]
        return SkillIndex(self.sources, tuple(skills), tuple(notes))

    def _parse(self, item: Found) -> tuple[Skill | None, tuple[Diagnostic, ...]]:
        skill_md = item.path / SKILL_FILE
        try:
            st = skill_md.stat()
        except OSError as exc:
            return None, (Diagnostic(item.path, item.source.name, "skipped", f"cannot read SKILL.md: {exc}"),)
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        cached = self._parsed.get(item.path)
        if cached is not None and cached[0] == stamp:
            return cached[1], cached[2]
        skill, notes = load_skill(item, st.st_size)
        self._parsed[item.path] = (stamp, skill, notes)
        return skill, notes


def load_skill(item: Found, size: int) -> tuple[Skill | None, tuple[Diagnostic, ...]]:
    """Parse one SKILL.md leniently: the skill (None when skipped) and the diagnostics."""
    source = item.source.name

    def note(level: str, message: str) -> Diagnostic:
        return Diagnostic(item.path, source, level, message)

    if size > READ_MAX_BYTES:
        return None, (note("skipped", f"SKILL.md is {size:,} bytes; more than {READ_MAX_BYTES:,} is not read"),)
    try:
        text = (item.path / SKILL_FILE).read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return None, (note("skipped", "SKILL.md is not UTF-8 text; save it as UTF-8"),)
    except OSError as exc:
        return None, (note("skipped", f"cannot read SKILL.md: {exc.strerror or exc}"),)
    try:
        fm = parse_front_matter(text, lenient=True)
        skill, warnings = skill_from_front_matter(
            fm, path=item.path, source=source, root=item.source.root, category=item.category
        )
    except InvalidInput as exc:
        return None, (note("skipped", str(exc)),)
    return skill, tuple(note("warning", w) for w in warnings)
