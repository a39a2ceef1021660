"""What a writer that never finished leaves in the skill folders, settled when the library loads.

A change writes its files and then commits its version and audit row in one transaction
(``manage``); a process killed in between (SIGKILL, power loss) leaves the files with no record,
and one killed inside ``fileio.atomic_write`` leaves its temporary file. So:

- a skill in a writable source whose location has no history at all (a create killed after its
  SKILL.md was in place, or a skill made by hand) gets its files recorded as an "observed" version
  with a ``skill_observed`` audit row, on every load that finds one. A killed edit leaves a skill
  whose files differ from its last version, as a hand edit does: the next change records that
  state first, as always.
- temporary files (``.<name>.<random>.tmp``) and folders a delete renamed away
  (``.<name>.deleted-<hex>``) are settled once per ``Skills``, when they are older than an hour
  (``fileio.abandoned``: a younger one may belong to a live writer, perhaps of another store sharing
  the project's skills). A temporary file is removed. A renamed-away folder whose deletion was
  recorded (killed while removing it, so perhaps half removed) is removed, after recording any file
  in it that history lacks; one whose deletion was not recorded (killed before the commit) is put
  back where it was if that place is still free, since for the database the deletion never
  happened. Anything else is left for a person: nothing is removed that history does not hold.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from .. import fileio
from ..errors import Conflict
from ..store import Store
from ..timeutil import to_epoch, utcnow
from . import files, versions
from .index import SkillIndex
from .model import SKILL_FILE, Skill
from .sources import MAX_FOLDERS, Source
from .versions import Location

OBSERVED_REASON = "found on disk with no recorded version (made by hand, or a change interrupted before it was recorded)"
TRASH_REASON = "found in the folder of a deletion interrupted while removing it"


class Repairs:
    """The repairs of one library: temporaries once, unrecorded skills whenever a load finds some."""

    def __init__(self, store: Store, sources: tuple[Source, ...], actor: str) -> None:
        self.store = store
        self.sources = tuple(s for s in sources if s.writable)
        self.actor = actor
        self._swept = False
        self._known: set[tuple[str, str]] = set()  # locations seen with a history
        self._checked: SkillIndex | None = None  # the last index looked at (the loader keeps it while unchanged)

    def sweep_once(self) -> None:
        if self._swept:
            return
        self._swept = True
        for source in self.sources:
            sweep(self.store, source, self.actor)

    def record_unrecorded(self, index: SkillIndex) -> list[Skill]:
        """Record the files of every writable skill with no history; the skills recorded."""
        if index is self._checked:
            return []
        self._checked = index
        roots = {s.root for s in self.sources}
        mine = [s for s in index.skills if s.root in roots]
        if all(_key(s) in self._known for s in mine):
            return []
        self._known = versions.recorded_locations(self.store)
        if all(_key(s) in self._known for s in mine):
            return []
        done: list[Skill] = []
        with self.store.transaction():
            self._known = versions.recorded_locations(self.store)  # again, now that no one else writes
            for skill in mine:
                if _key(skill) not in self._known and self._observe(skill):
                    self._known.add(_key(skill))
                    done.append(skill)
        return done

    def _observe(self, skill: Skill) -> bool:
        try:
            state = files.snapshot(skill.path)
        except (Conflict, OSError):
            return False  # too large to keep versions of, or gone: `kenning skill check` still lists it
        if not state:
            return False
        loc = Location(skill.source, skill.root, skill.rel_path, skill.name)
        _observe(self.store, loc, state, self.actor, OBSERVED_REASON, skill.version)
        return True


def _observe(store: Store, loc: Location, state: dict[str, bytes], actor: str, reason: str,
             version_field: str | None) -> int:
    """Record ``state`` as found on disk, with its audit row (inside the caller's transaction, if any)."""
    with store.transaction():
        number = versions.record(store, loc, state, action="observed", actor=actor, reason=reason,
                                 version_field=version_field)
        store.append_audit({
            "at": to_epoch(utcnow()), "action": "skill_observed", "item_id": None, "kind": "skill",
            "scope": loc.source, "actor": actor, "reason": reason, "before": None,
            "after": {"name": loc.name, "path": str(loc.path), "checksum": versions.checksum(state),
                      "version": version_field, "number": number},
        })
    return number


def _key(skill: Skill) -> tuple[str, str]:
    return (str(skill.root), skill.rel_path)


def sweep(store: Store, source: Source, actor: str, now: float | None = None) -> None:
    """Settle the abandoned temporaries under one writable root (a bounded walk, no links)."""
    if not source.root.is_dir():
        return
    stack, visited = [source.root], 0
    while stack and visited < MAX_FOLDERS:
        folder = stack.pop()
        visited += 1
        fileio.remove_abandoned_temporaries(folder, now)
        try:
            entries = [e for e in os.scandir(folder) if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            origin = files.trash_origin(path)
            if origin is not None:
                _settle_trash(store, source, path, origin, actor, now)
            elif not entry.name.startswith("."):
                stack.append(path)


def _settle_trash(store: Store, source: Source, trash: Path, origin: Path, actor: str, now: float | None) -> None:
    """Finish a deletion that was recorded, or undo one that was not (see the module docstring)."""
    if not fileio.abandoned(trash, now):
        return
    loc = Location(source.name, source.root, origin.relative_to(source.root).as_posix(), origin.name)
    try:
        state = files.snapshot(trash)
    except (Conflict, OSError):
        return  # cannot tell what it holds: left for a person
    known = versions.recorded_files(store, loc)
    covered = all((path, hashlib.sha256(data).hexdigest()) in known for path, data in state.items())
    if versions.latest_deleted(store, loc):
        if not covered:
            with store.transaction():
                _observe(store, loc, state, actor, TRASH_REASON, None)
                versions.record(store, loc, {}, action="delete", actor=actor, reason=TRASH_REASON,
                                version_field=None, deleted=True)
        files.remove_trash(trash)
    elif SKILL_FILE in state and not origin.exists() and not origin.is_symlink():
        try:
            os.replace(trash, origin)
        except OSError:
            pass  # made meanwhile: left for the next load
    elif covered:
        files.remove_trash(trash)
