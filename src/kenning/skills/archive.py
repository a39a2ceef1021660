"""The skill archive: where the curator moves skills nobody uses, whole and restorable.

An archived skill's folder moves to ``$KENNING_HOME/archive/skills/<source>-<root hash>/<path in its
root>`` (the hash of the source root tells the projects' and the user's skills apart), inside one
store transaction that records a version with action "archive" (empty and marked deleted, as a
deletion is: the history and rollback survive it) and a ``skill_archive`` audit row; a state on disk
that history lacks (a hand edit) is recorded first, as every change does. Restoring moves it back,
refusing when something now occupies its place, and records a "restore" version and audit row. A
move that fails, or whose records fail, is undone. Only skills of writable sources (user, project)
move; a folder that is a link, a root, or lies outside the writable roots never does. Nothing here
deletes a file.

Which skills are in the archive is read from the archive itself, for the locations history knows.
"""

from __future__ import annotations

import errno
import hashlib
import os
import secrets
import shutil
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from .. import fileio
from ..audit import record_event
from ..errors import Conflict, Forbidden, InvalidInput, NotFound
from ..store import Store
from ..timeutil import from_epoch, utcnow
from . import files, versions
from .frontmatter import parse_front_matter
from .model import SKILL_FILE, Skill
from .sources import SOURCE_NAMES, Source, inside
from .versions import Location

ARCHIVE = "archive"
RESTORE = "restore"


def archive_root(home: Path) -> Path:
    """Where archived skills go, under the data directory."""
    return home / "archive" / "skills"


@dataclass(frozen=True)
class Recorded:
    """The last recorded version of one skill location."""

    location: Location
    action: str
    at: datetime
    deleted: bool


def last_versions(store: Store) -> dict[tuple[str, str], Recorded]:
    """The last version of every recorded location, by (root, rel_path): one query, for the curator
    (the time of a skill's last change, and which skills are archived)."""
    rows = store.last_skill_versions()
    roots = {root: Path(root) for root in {r["root"] for r in rows}}  # a few roots, many skills: one Path each
    return {(r["root"], r["rel_path"]): Recorded(Location(r["source"], roots[r["root"]], r["rel_path"], r["name"]),
                                                 r["action"], from_epoch(r["at"]) or utcnow(), r["deleted"])
            for r in rows}


@dataclass(frozen=True)
class Archived:
    """A skill in the archive: where it was, where it is, since when."""

    location: Location
    place: Path  # the folder in the archive
    at: datetime

    @property
    def qualified(self) -> str:
        return f"{self.location.source}:{self.location.rel_path}"

    def to_dict(self) -> dict[str, Any]:
        loc = self.location
        return {"name": loc.name, "source": loc.source, "path": str(loc.path), "archive_path": str(self.place),
                "archived_at": self.at.isoformat(timespec="seconds"), "present": self.place.is_dir()}


@dataclass(frozen=True)
class Moved:
    """What an archive or a restore did; ``to_dict`` is the JSON the faces print."""

    action: str  # "archive" | "restore"
    name: str
    source: str
    path: Path  # the skill's place in its source
    archive_path: Path
    version: int

    @property
    def message(self) -> str:
        if self.action == ARCHIVE:
            return (f"archived skill {self.name!r} to {self.archive_path} (version {self.version}); "
                    f"`kenning skill restore {self.name}` puts it back")
        return f"restored skill {self.name!r} to {self.path} (version {self.version})"

    def to_dict(self) -> dict[str, Any]:
        return {"success": True, "action": self.action, "name": self.name, "source": self.source,
                "path": str(self.path), "archive_path": str(self.archive_path), "version": self.version,
                "message": self.message}


class Archiver:
    """Moves skills of ``sources`` into the archive under ``root`` and back."""

    def __init__(self, store: Store, sources: Sequence[Source], root: Path, *, actor: str,
                 on_change: Callable[[], None] = lambda: None) -> None:
        self.store = store
        self.sources = tuple(sources)
        self.root = root
        self.actor = actor
        self.on_change = on_change

    def place(self, loc: Location) -> Path:
        """The folder ``loc``'s skill has in the archive."""
        tag = hashlib.sha256(str(loc.root).encode("utf-8")).hexdigest()[:8]
        return self.root / f"{loc.source}-{tag}" / loc.rel_path

    def archived(self, recorded: dict[tuple[str, str], Recorded] | None = None) -> list[Archived]:
        """Every skill in the archive, by name: each recorded location whose place in the archive
        holds a folder (one stat each). Asked of the archive rather than of the last version, since
        a skill made at the same place since it was archived has a newer one."""
        out = []
        for state in (recorded if recorded is not None else last_versions(self.store)).values():
            place = self.place(state.location)
            try:
                info = place.lstat()
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):  # the move renamed it here: its change time is the archiving's
                at = state.at if state.action == ARCHIVE else from_epoch(info.st_ctime) or state.at
                out.append(Archived(state.location, place, at))
        return sorted(out, key=lambda a: (a.location.name, a.qualified))

    # -- archive --------------------------------------------------------------------------------------

    def archive(self, skill: Skill, *, reason: str = "") -> Moved:
        """Move ``skill`` into the archive (see the module docstring)."""
        loc = Location(skill.source, skill.root, skill.rel_path, skill.name)
        self._movable(loc, "archive")
        target = self.place(loc)
        if target.exists() or target.is_symlink():
            raise Conflict(f"cannot archive skill {skill.name!r}: the archive already holds {target}; restore that "
                           "copy first (`kenning skill restore`), or move it away by hand")
        reason = reason or "unused: archived by the curator"
        moved = False
        try:
            with self.store.transaction():
                before = files.snapshot(loc.path)
                if not before:
                    raise NotFound(f"skill folder {loc.path} holds no files; nothing to archive")
                if versions.latest_checksum(self.store, loc) != versions.checksum(before):
                    versions.record(self.store, loc, before, action="observed", actor=self.actor,
                                    reason="state found on disk before it was archived",
                                    version_field=_version_field(before))
                _move(loc.path, target)
                moved = True
                number = versions.record(self.store, loc, {}, action=ARCHIVE, actor=self.actor, reason=reason,
                                         version_field=None, deleted=True)
                record_event(self.store, "skill_archive", kind="skill", scope=loc.source, actor=self.actor,
                             reason=reason, before=_summary(loc, loc.path, before),
                             after={"name": loc.name, "archive_path": str(target), "number": number,
                                    "archived": True})
        except BaseException:
            if moved:
                _move_back(target, loc.path)
            raise
        self.on_change()
        return Moved(ARCHIVE, loc.name, loc.source, loc.path, target, number)

    # -- restore --------------------------------------------------------------------------------------

    def find(self, ref: object) -> Archived:
        """The archived skill ``ref`` names: ``deploy``, ``devops/deploy``, ``user:deploy``."""
        if not isinstance(ref, str) or not ref.strip():
            raise InvalidInput(f"skill name must be text such as 'docker-deploy', got {ref!r}")
        text = ref.strip().rstrip("/")
        source, _, rest = text.partition(":")
        if not (rest and source in SOURCE_NAMES):
            source, rest = "", text
        every = self.archived()
        hits = [a for a in every if (not source or a.location.source == source)
                and rest in (a.location.name, a.location.rel_path, a.location.rel_path.rsplit("/", 1)[-1])]
        if not hits:
            listed = ", ".join(sorted({a.qualified for a in every})) or "none"
            raise NotFound(f"no archived skill {ref!r}; archived skills: {listed}")
        if len(hits) > 1:
            raise Conflict(f"skill {ref!r} names {len(hits)} archived skills: "
                           f"{', '.join(f'{a.qualified} ({a.location.path})' for a in hits)}; pass one of those names")
        return hits[0]

    def restorable(self, ref: object, *, taken: Sequence[Skill] = ()) -> Archived:
        """The archived skill ``ref``, once every check ``restore`` makes has passed (what a dry run asks)."""
        entry = self.find(ref)
        loc = entry.location
        self._movable(loc, "restore")
        if not entry.place.is_dir() or entry.place.is_symlink():
            raise NotFound(f"the archived copy of skill {loc.name!r} at {entry.place} is gone; `kenning skill history "
                           f"{entry.qualified}` lists its versions and `kenning skill rollback` restores one")
        if loc.path.exists() or loc.path.is_symlink():
            raise Conflict(f"cannot restore skill {loc.name!r}: {loc.path} is taken by something made since it was "
                           "archived; move or rename that, then restore again")
        rival = next((s for s in taken if s.root == loc.root and s.name == loc.name), None)
        if rival is not None:
            raise Conflict(f"cannot restore skill {loc.name!r} to {loc.path}: the {rival.source} source now has a "
                           f"skill of that name at {rival.path}; rename or archive that one first")
        return entry

    def restore(self, ref: object, *, taken: Sequence[Skill] = (), reason: str = "") -> Moved:
        """Move the archived skill ``ref`` back to where it was. Refused when something is at its
        place, or when one of ``taken`` (the skills loaded now) has its name in the same root: the two
        would make the name ambiguous."""
        entry = self.restorable(ref, taken=taken)
        loc = entry.location
        reason = reason or "restored from the archive"
        moved = False
        try:
            with self.store.transaction():
                _move(entry.place, loc.path)
                moved = True
                after = files.snapshot(loc.path)
                if SKILL_FILE not in after:
                    raise Conflict(f"the archived copy of skill {loc.name!r} at {entry.place} has no {SKILL_FILE}; "
                                   "it was left in the archive")
                number = versions.record(self.store, loc, after, action=RESTORE, actor=self.actor, reason=reason,
                                         version_field=_version_field(after))
                record_event(self.store, "skill_restore", kind="skill", scope=loc.source, actor=self.actor,
                             reason=reason, before={"name": loc.name, "archive_path": str(entry.place),
                                                    "archived": True},
                             after={**_summary(loc, loc.path, after), "number": number})
        except BaseException:
            if moved:
                _move_back(loc.path, entry.place)
            raise
        self.on_change()
        return Moved(RESTORE, loc.name, loc.source, loc.path, entry.place, number)

    # -- checks ---------------------------------------------------------------------------------------

    def _movable(self, loc: Location, verb: str) -> None:
        source = next((s for s in self.sources if s.root == loc.root), None)
        if source is None or not source.writable:
            kind = {"builtin": "built-in", "extra": "extra (read-only)"}.get(loc.source, loc.source)
            where = f"the {kind} source {loc.root}" if source is not None else f"{loc.root}, not a source open now"
            hint = (" (open kenning with that project: --project)" if source is None and loc.source == "project"
                    else "")
            raise Forbidden(f"cannot {verb} skill {loc.name!r}: it belongs to {where}; kenning moves only skills "
                            f"of the user and project sources{hint}")
        folder = loc.path
        if folder.is_symlink():
            raise Forbidden(f"skill folder {folder} is a symbolic link; kenning does not move links")
        if verb == ARCHIVE:
            real = folder.resolve()
            if real in {s.root.resolve() for s in self.sources}:
                raise Forbidden(f"{folder} is a skills source root, not a skill; refused")
            if not any(inside(real, s.root.resolve()) for s in self.sources if s.writable):
                raise Forbidden(f"skill folder {folder} is outside every writable skills root; refused")


def _summary(loc: Location, path: Path, state: dict[str, bytes]) -> dict[str, Any]:
    return {"name": loc.name, "path": str(path), "checksum": versions.checksum(state),
            "version": _version_field(state)}


def _version_field(state: dict[str, bytes]) -> str | None:
    # read leniently, as manage does: a hand-made skill need not pass the strict check to move
    raw = state.get(SKILL_FILE)
    try:
        value = parse_front_matter(raw.decode("utf-8"), lenient=True).data.get("version") if raw else None
    except (InvalidInput, UnicodeDecodeError):
        return None
    return str(value) if value is not None else None


def _move(src: Path, dst: Path) -> None:
    """Move a whole folder in one rename; across file systems (a project on another disk than the
    data directory), copy it beside ``dst`` under a hidden name, rename that into place, then remove
    ``src``. ``dst`` must not exist: the callers check it under the store's write lock."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(src, dst)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        staging = dst.with_name(f".{dst.name}.moving-{secrets.token_hex(4)}")
        try:
            shutil.copytree(src, staging, symlinks=True)
            os.rename(staging, dst)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        files.remove_tree(src)
    fileio.fsync_dir(src.parent)
    fileio.fsync_dir(dst.parent)


def _move_back(src: Path, dst: Path) -> None:
    """Undo a ``_move`` after a later step failed (best effort: the error that got us here is the one
    to report)."""
    try:
        _move(src, dst)
    except OSError:
        pass
