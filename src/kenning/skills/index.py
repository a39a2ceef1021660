"""The loaded library: every skill of every root, which one wins each name, and lookup.

Precedence is the order of the roots (``sources.default_sources``): for each name the first root
holding it wins and the same name in later roots is *shadowed* (``skills_list`` reports it). Two
skills of one name inside one root are *duplicates*: looking the name up refuses, naming both paths
and the qualified names that pick one. Lookup tries, in order: a path (``category/name``, a folder
on disk), the folder name, the front-matter name; ``source:`` in front (``project:deploy``,
``user:devops/deploy``) restricts it to one source.

Files are the truth: ``Loader`` checks a manifest of the folders and SKILL.md files it read on each
call (one ``stat`` each), and re-walks the roots and re-parses the changed SKILL.md files when
anything moved, so a hand edit is seen on the next call.
"""

from __future__ import annotations

import difflib
import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from ..errors import Conflict, InvalidInput, NotFound
from .frontmatter import READ_MAX_BYTES, parse_front_matter, skill_from_front_matter
from .model import SKILL_FILE, Diagnostic, Skill
from .sources import LOWER_SKILL_FILE, SOURCE_NAMES, Found, Source, real_roots, scan
from .watch import FolderWatch


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


Stamp = tuple[int, int, int] | None  # (mtime_ns, size, inode), None when the path is gone
_SKILL_FILES = (SKILL_FILE, LOWER_SKILL_FILE)


def stamp_of(path: str) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


@dataclass(frozen=True)
class Manifest:
    """The state of every folder a load read and every SKILL.md it parsed. When none of them changed,
    the library is the same: adding, removing or renaming a skill changes a folder's modification
    time, and editing a SKILL.md changes the file's (in place or by replacement). Checking it costs
    one ``stat`` per path, far less than walking the folders again."""

    entries: tuple[tuple[str, Stamp], ...]

    @cached_property
    def digest(self) -> str:
        """A short fingerprint of the whole state (keys the on-disk catalog snapshot)."""
        return hashlib.sha256(repr(self.entries).encode("utf-8")).hexdigest()[:32]

    def unchanged(self) -> bool:
        return all(stamp_of(path) == stamp for path, stamp in self.entries)


@dataclass(frozen=True)
class _Scanned:
    manifest: Manifest
    scans: tuple[tuple[Found, Stamp], ...]
    notes: tuple[Diagnostic, ...]


class Loader:
    """Builds a ``SkillIndex``: the same object while the manifest holds, else a fresh walk that
    re-parses only the SKILL.md files whose size, modification time or inode changed."""

    def __init__(self, sources: tuple[Source, ...]) -> None:
        self.sources = sources
        self._parsed: dict[Path, tuple[Stamp, Skill | None, tuple[Diagnostic, ...]]] = {}
        self._index: SkillIndex | None = None
        self._scanned: _Scanned | None = None
        self.manifest = Manifest(())
        self._watch: FolderWatch | None = None
        self._watched: Manifest | None = None  # the manifest the folder watch vouches for
        self._stat_only: tuple[tuple[str, Stamp], ...] = ()  # paths a folder watch cannot see

    def invalidate(self) -> None:
        self._parsed.clear()
        self._index = None
        self._scanned = None
        self._unwatch()

    def _still(self, manifest: Manifest) -> bool:
        """Whether the files still match ``manifest``: asked of the folder watch when it covers it
        (plus a ``stat`` of the few paths it cannot see), else a ``stat`` of every path."""
        if self._watch is not None and self._watched is manifest:
            return not self._watch.changed() and all(stamp_of(p) == s for p, s in self._stat_only)
        return manifest.unchanged()

    def _unwatch(self) -> None:
        if self._watch is not None:
            self._watch.close()
        self._watch, self._watched = None, None

    def _watch_for(self, manifest: Manifest) -> None:
        """Watch the folders of ``manifest``. The watch starts after the walk, so the manifest is
        checked once more; if something moved in between, no watch (the next call walks again)."""
        self._unwatch()
        folders, stat_only = [], []
        for path, stamp in manifest.entries:
            is_file = os.path.basename(path) in _SKILL_FILES
            if stamp is None or (is_file and os.path.islink(path)):
                stat_only.append((path, stamp))  # a missing root, a linked SKILL.md
            else:
                folders.append(os.path.dirname(path) if is_file else path)
        watch = FolderWatch.start(dict.fromkeys(folders))
        if watch is not None and manifest.unchanged():
            self._watch, self._watched, self._stat_only = watch, manifest, tuple(stat_only)
        elif watch is not None:
            watch.close()

    def current_manifest(self) -> Manifest:
        """The manifest of the folders as they are now; walks them when something changed, but parses nothing."""
        if self._index is not None and self._still(self.manifest):
            return self.manifest
        if self._scanned is None or not self._still(self._scanned.manifest):
            self._scanned = self._scan()
            self._watch_for(self._scanned.manifest)
        return self._scanned.manifest

    def load(self) -> SkillIndex:
        if self._index is not None and self._still(self.manifest):
            return self._index
        scanned = self._scanned if self._scanned is not None and self._still(self._scanned.manifest) else self._scan()
        self._scanned = None
        skills: list[Skill] = []
        notes = list(scanned.notes)
        parsed: dict[Path, tuple[Stamp, Skill | None, tuple[Diagnostic, ...]]] = {}
        for item, stamp in scanned.scans:
            cached = self._parsed.get(item.path)
            if cached is None or cached[0] != stamp or stamp is None:
                skill, skill_notes = load_skill(item, stamp)
                cached = (stamp, skill, skill_notes)
            parsed[item.path] = cached
            notes += cached[2]
            if cached[1] is not None:
                skills.append(cached[1])
        self._parsed = parsed
        self.manifest = scanned.manifest
        self._index = SkillIndex(self.sources, tuple(skills), tuple(notes))
        if self._watched is not self.manifest:
            self._watch_for(self.manifest)
        return self._index

    def _scan(self) -> _Scanned:
        """Walk every root. A link may lead into any root, so one skill folder can be reached from
        two (``.claude/skills/pdf`` linking to ``.agents/skills/pdf``): it is one skill, loaded
        where it is first reached in precedence order, with an "info" note at the other place."""
        entries: list[tuple[str, Stamp]] = []
        found: list[tuple[Found, Stamp]] = []
        notes: list[Diagnostic] = []
        first: dict[Path, Found] = {}  # resolved skill folder -> where it was first reached
        roots = real_roots(self.sources)
        for source in self.sources:
            entries.append((str(source.root), stamp_of(str(source.root))))  # a root may appear later
            done = scan(source, roots)
            notes += done.notes
            entries += ((str(f), stamp_of(str(f))) for f in done.folders[1:])
            for item in done.found:
                real = item.real or item.path
                if real in first:
                    earlier = first[real]
                    notes.append(Diagnostic(item.path, source.name, "info",
                                            f"the same folder as the {earlier.source.name} skill {earlier.path} "
                                            "(through a link); loaded once, from there"))
                    continue
                first[real] = item
                skill_md = str(item.path / item.file)
                stamp = stamp_of(skill_md)
                entries.append((skill_md, stamp))
                found.append((item, stamp))
        return _Scanned(Manifest(tuple(entries)), tuple(found), tuple(notes))


def load_skill(item: Found, stamp: Stamp) -> tuple[Skill | None, tuple[Diagnostic, ...]]:
    """Parse one SKILL.md leniently: the skill (None when skipped) and the diagnostics."""
    source, file = item.source.name, item.file

    def note(level: str, message: str) -> Diagnostic:
        return Diagnostic(item.path, source, level, message)

    if stamp is None:
        return None, (note("skipped", f"cannot read {file}: it disappeared or is not accessible"),)
    size = stamp[1]
    if size > READ_MAX_BYTES:
        return None, (note("skipped", f"{file} is {size:,} bytes; more than {READ_MAX_BYTES:,} is not read"),)
    try:
        with (item.path / file).open("rb") as fh:
            data = fh.read(READ_MAX_BYTES + 1)  # at most the limit, even if it grew since the stat
        if len(data) > READ_MAX_BYTES:
            return None, (note("skipped", f"{file} grew past {READ_MAX_BYTES:,} bytes while being read"),)
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, (note("skipped", f"{file} is not UTF-8 text; save it as UTF-8"),)
    except OSError as exc:
        return None, (note("skipped", f"cannot read {file}: {exc.strerror or exc}"),)
    try:
        fm = parse_front_matter(text, lenient=True)
        skill, warnings = skill_from_front_matter(
            fm, path=item.path, source=source, root=item.source.root, category=item.category, file=item.file
        )
    except InvalidInput as exc:
        return None, (note("skipped", str(exc)),)
    return skill, tuple(note("warning", w) for w in warnings)
