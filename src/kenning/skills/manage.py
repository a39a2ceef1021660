"""Changing skills safely: create, patch, edit, delete, write_file, remove_file, rollback, install.

Every change runs inside one store transaction, which also serialises kenning writers across
processes: the folder is read, the new state computed and strictly validated, the state found on
disk recorded first when history does not have it yet (a hand edit), the files written atomically,
the result read back and checked (and the old files put back if it does not hold), then the new
version and an audit row are stored and the transaction commits. A failure anywhere leaves the old
files and the database as they were. A writer killed between its files and its commit leaves files
with no record; ``repair`` finds and records them on the next load. A deleted folder is renamed
away first and removed only after the commit; an install (``kenning.skills.install``) renames a
prepared folder into place the same way. Built-in and extra sources are read-only; a skill
folder that is a link, a source root, or anything outside the writable roots is never deleted.

Text written through these operations (SKILL.md, a patch's new text, linked files, an installed
skill's files, the reason) passes the write gate for secrets only (``Gate.scrub(secrets_only=True)``):
keys and passwords are masked, example addresses and phone numbers in instructions are left alone;
a file that is not UTF-8 is masked in the encoding it reads as, and a binary one that seems to hold a
secret is refused (``masking``). Every answer lists what was masked, by file and line, and its
message says so.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import fileio
from ..errors import Conflict, Forbidden, InvalidInput, NotFound
from ..gate import Gate
from ..store import Store
from ..timeutil import to_epoch, utcnow
from . import files, versions
from .duplicates import DuplicateFinder, Similar
from .frontmatter import (READ_MAX_BYTES, check_category, check_name, parse_front_matter, text_to_write,
                          validate_skill_md)
from .index import Loader, SkillIndex
from .masking import Masked, Masker, sentence
from .model import SKILL_FILE, Skill
from .patch import apply_patch
from .sources import Source, inside
from .versions import Location

WRITE_TARGETS = ("user", "project")


@dataclass(frozen=True)
class Change:
    """What a write did; ``to_dict`` is the JSON ``skill_manage`` answers with."""

    action: str
    name: str
    source: str
    path: Path
    version: int
    message: str
    similar: tuple[Similar, ...] = ()
    replaced: int | None = None
    masked: tuple[Masked, ...] = ()  # what the gate masked, by file and line

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"success": True, "action": self.action, "name": self.name, "source": self.source,
                               "path": str(self.path), "version": self.version,
                               "message": self.message + sentence(self.masked),
                               "masked": [m.to_dict() for m in self.masked]}
        if self.replaced is not None:
            out["replaced"] = self.replaced
        if self.similar:
            out["similar"] = [s.to_dict() for s in self.similar]
        return out


@dataclass
class _Pending:
    """A change in progress: the files before it, the number its version gets, what was masked, and
    how to undo the change on disk when that is better than writing ``before`` back."""

    masker: Masker
    before: dict[str, bytes] = field(default_factory=dict)
    number: int = 0
    restore: Callable[[], None] | None = None


def _version_field(files_now: dict[str, bytes]) -> str | None:
    # read leniently: a hand-made state recorded as a baseline need not pass the strict check
    raw = files_now.get(SKILL_FILE)
    try:
        value = parse_front_matter(raw.decode("utf-8"), lenient=True).data.get("version") if raw else None
    except (InvalidInput, UnicodeDecodeError):
        return None
    return str(value) if value is not None else None


def _precedence_note(index: SkillIndex, source: Source, name: str) -> str:
    """What a new skill in ``source`` means for a skill of the same name in another source: the one
    whose source comes first is the one every lookup, catalog and context uses."""
    roots = [s.root for s in index.sources]
    other = next((s for s in index.visible() if s.name == name and s.root != source.root), None)
    if other is None or other.root not in roots or source.root not in roots:
        return ""
    if roots.index(other.root) < roots.index(source.root):
        return (f"; it is hidden by the {other.source} skill {name!r} at {other.path}, whose source comes first: "
                f"lookups and the catalog use that one (name this one {source.name}:{name})")
    return f"; it now hides the {other.source} skill {name!r} at {other.path}"


def _text(data: object, what: str) -> str:
    if not isinstance(data, str):
        raise InvalidInput(f"{what} must be text, got {type(data).__name__}")
    return data


class Manager:
    """The write operations over the skills of ``sources``."""

    def __init__(self, store: Store, sources: tuple[Source, ...], loader: Loader, finder: DuplicateFinder,
                 actor: str, on_change: Callable[[], None], gate: Gate) -> None:
        self.store = store
        self.sources = sources
        self.loader = loader
        self.finder = finder
        self.actor = actor
        self.on_change = on_change
        self.gate = gate

    def masker(self) -> Masker:
        """The redaction of one write (an install masks its files with it in quarantine, before
        they are scanned, and hands it to ``install``)."""
        return Masker(self.gate.scrub("skill", secrets_only=True))

    # -- where writes may go ----------------------------------------------------------------------

    def _writable(self, skill: Skill | Location, verb: str) -> None:
        root = skill.root
        source = next((s for s in self.sources if s.root == root), None)
        if source is None or not source.writable:
            kind = {"builtin": "built-in", "extra": "extra (read-only)"}.get(skill.source, skill.source)
            raise Forbidden(
                f"cannot {verb} skill {skill.name!r}: it is in the {kind} source {root}, which kenning does "
                "not change; create your own copy with `kenning skill create` (user skills win over built-in ones)"
            )

    def target_root(self, target: object) -> Source:
        """The root a new skill goes to: the user's, or the project's first existing skills folder
        (``.agents/skills`` when the project has none yet)."""
        if target not in WRITE_TARGETS:
            raise InvalidInput(f"target {target!r} is not one of {', '.join(WRITE_TARGETS)}")
        roots = [s for s in self.sources if s.name == target and s.writable]
        if not roots:
            raise InvalidInput(f"there is no {target} skills folder (open kenning with a project directory)")
        return next((s for s in roots if s.root.is_dir()), roots[0])

    # -- the transaction every change runs in ---------------------------------------------------------

    @contextmanager
    def _changing(self, loc: Location, action: str, reason: str, masker: Masker) -> Iterator[_Pending]:
        """Yields the skill's files as they are now; the body writes the new state to disk. Records the
        old state if history lacks it, checks and records the new one (version and audit rows in the
        transaction that commits after the files are in place), and restores the old files if
        anything fails."""
        with self.store.transaction():
            existed = loc.path.is_dir()
            pending = _Pending(masker, files.snapshot(loc.path) if existed else {})
            before = pending.before
            if before and versions.latest_checksum(self.store, loc) != versions.checksum(before):
                versions.record(self.store, loc, before, action="observed", actor=self.actor,
                                reason="state found on disk before this change", version_field=_version_field(before))
            try:
                yield pending
                after = files.snapshot(loc.path) if loc.path.is_dir() else {}
                self._check_written(loc, before, after)
                pending.number = self._record(loc, action, reason, before, after, masker)
            except BaseException:
                self._put_back(loc.path, before, existed, pending.restore)
                raise
        self.loader.invalidate()
        self.on_change()

    @staticmethod
    def _check_written(loc: Location, before: dict[str, bytes], after: dict[str, bytes]) -> None:
        """Read back what was written: a SKILL.md that changed must still pass the strict check (one
        that was already lenient-only on disk does not block changes to other files)."""
        if not after:
            return
        if SKILL_FILE not in after:
            raise Conflict(f"skill folder {loc.path} lost its SKILL.md during the change; the old files were put back")
        if after[SKILL_FILE] != before.get(SKILL_FILE):
            validate_skill_md(after[SKILL_FILE].decode("utf-8", errors="replace"), loc.path.name)

    def _record(self, loc: Location, action: str, reason: str, before: dict[str, bytes],
                after: dict[str, bytes], masker: Masker) -> int:
        reason = masker.text(reason, None)
        masker.audit(self.gate, loc.source, loc.name)
        number = versions.record(self.store, loc, after, action=action, actor=self.actor, reason=reason,
                                 version_field=_version_field(after), deleted=not after)

        def summary(state: dict[str, bytes]) -> dict[str, Any]:
            return {"name": loc.name, "path": str(loc.path), "checksum": versions.checksum(state),
                    "version": _version_field(state)}

        self.store.append_audit({
            "at": to_epoch(utcnow()), "action": f"skill_{action}", "item_id": None, "kind": "skill",
            "scope": loc.source, "actor": self.actor, "reason": reason,
            "before": summary(before) if before else None,
            "after": {**summary(after), "number": number} if after else {"name": loc.name, "number": number,
                                                                           "deleted": True},
        })
        return number

    @staticmethod
    def _put_back(folder: Path, before: dict[str, bytes], existed: bool,
                  restore: Callable[[], None] | None = None) -> None:
        """Restore a folder to ``before`` after a failed change (best effort: the error that got us
        here is the one to report)."""
        try:
            if restore is not None:
                restore()
                return
            if not existed:
                if folder.is_dir():
                    files.remove_tree(folder)
                return
            _write_state(folder, before)
        except OSError:
            pass

    # -- operations ---------------------------------------------------------------------------------

    def create(self, index: SkillIndex, name: object, content: object, *, category: object = None,
               target: object = "user", force: bool = False, reason: str = "") -> Change:
        name = check_name(name)
        cat = check_category(category)
        masker = self.masker()
        text = text_to_write(masker.text(_text(content, "content"), SKILL_FILE))  # never a BOM
        front = validate_skill_md(text, name)
        source = self.target_root(target)
        folder = source.root.joinpath(*(cat.split("/") if cat else ()), name)
        if folder.is_symlink() or folder.exists() and not _left_empty(folder):
            raise Conflict(f"skill folder {folder} already exists; change it with edit or patch")
        same_root = [s for s in index.skills if s.root == source.root and s.name == name]
        if same_root:
            raise Conflict(f"skill {name!r} already exists in the {source.name} source at {same_root[0].path}; "
                           "change it with edit or patch, or choose another name")
        description = str(front.data["description"]).strip()
        similar = self.finder.similar(name, description, index.skills)
        if similar and not force:
            listed = "; ".join(f"{s.skill.name!r} ({s.skill.source}, {s.similarity:.2f} alike): "
                               f"{s.skill.description[:120]}" for s in similar[:5])
            raise Conflict(f"skill {name!r} looks like a near-duplicate of {listed}; improve the existing skill "
                           "with patch or edit instead, or pass force to create it anyway")
        loc = Location(source.name, source.root, folder.relative_to(source.root).as_posix(), name)
        with self._changing(loc, "create", reason, masker) as pending:
            if pending.before or folder.exists() and not _left_empty(folder):  # made by someone else since
                raise Conflict(f"skill folder {folder} already exists; change it with edit or patch")
            files.atomic_write(folder / SKILL_FILE, text.encode("utf-8"))
        message = f"created skill {name!r} in the {source.name} source"
        if similar:
            message += f" (forced past {len(similar)} near-duplicate(s))"
        message += _precedence_note(index, source, name)
        return Change("create", name, source.name, folder, pending.number, message, tuple(similar),
                      masked=tuple(masker.found))

    def edit(self, skill: Skill, content: object, *, reason: str = "") -> Change:
        self._writable(skill, "edit")
        masker = self.masker()
        text = text_to_write(masker.text(_text(content, "content"), SKILL_FILE))  # never a BOM
        validate_skill_md(text, skill.path.name)
        with self._changing(self._loc(skill), "edit", reason, masker) as pending:
            files.atomic_write(skill.skill_md, text.encode("utf-8"))
        return self._done("edit", skill, pending, "replaced SKILL.md")

    def patch(self, skill: Skill, old: object, new: object, *, replace_all: bool = False,
              file_path: object = None, reason: str = "") -> Change:
        self._writable(skill, "patch")
        rel, target = (SKILL_FILE, skill.skill_md) if file_path in (None, "", SKILL_FILE) else \
            files.linked_file(skill.path, file_path)
        if target.is_file():  # its size before its bytes (a missing file is reported below)
            files.file_size(target, rel, READ_MAX_BYTES if rel == SKILL_FILE else files.MAX_FILE_BYTES)
        masker = self.masker()
        with self._changing(self._loc(skill), "patch", reason, masker) as pending:
            before = pending.before
            if rel not in before:
                raise NotFound(f"skill {skill.name!r} has no file {rel!r}")
            try:
                current = before[rel].decode("utf-8")
            except UnicodeDecodeError:
                raise InvalidInput(f"file {rel!r} is not UTF-8 text; replace it with write_file") from None
            masked = masker.passage(new, rel) if isinstance(new, str) else new  # only the text being written
            patched = apply_patch(current, old, masked, replace_all=replace_all, what=rel)
            if isinstance(new, str) and masked != new:  # the same passages with the caller's words: where
                given = apply_patch(current, old, new, replace_all=replace_all, what=rel)  # the masks landed
                masker.placed(given.text, patched.text, rel)
            if rel == SKILL_FILE:
                try:
                    validate_skill_md(patched.text, skill.path.name)
                except InvalidInput as exc:
                    raise InvalidInput(f"the patch would leave SKILL.md broken, so nothing was changed: {exc}") \
                        from None
            data = (text_to_write(patched.text) if rel == SKILL_FILE else patched.text).encode("utf-8")
            self._check_size(rel, data)
            files.atomic_write(target, data)
        how = "" if patched.exact else ", matched ignoring whitespace"
        count = "1 passage" if patched.count == 1 else f"{patched.count} passages"
        return self._done("patch", skill, pending, f"replaced {count} of {rel}{how}", patched.count)

    def write_file(self, skill: Skill, file_path: object, content: object, *, reason: str = "") -> Change:
        self._writable(skill, "change")
        rel, target = files.linked_file(skill.path, file_path)
        masker = self.masker()
        data = _masked_bytes(content, masker, rel)
        self._check_size(rel, data)
        if target.is_dir():
            raise Conflict(f"{rel!r} is a folder in skill {skill.name!r}; give a file path")
        with self._changing(self._loc(skill), "write_file", reason, masker) as pending:
            files.atomic_write(target, data)
        return self._done("write_file", skill, pending, f"wrote {rel} ({len(data):,} bytes)")

    def remove_file(self, skill: Skill, file_path: object, *, reason: str = "") -> Change:
        self._writable(skill, "change")
        rel, target = files.linked_file(skill.path, file_path)
        if not target.is_file():
            raise NotFound(f"skill {skill.name!r} has no file {rel!r}")
        with self._changing(self._loc(skill), "remove_file", reason, self.masker()) as pending:
            files.remove_file(target, skill.path)
        return self._done("remove_file", skill, pending, f"removed {rel}")

    def delete(self, skill: Skill, *, reason: str = "") -> Change:
        self._writable(skill, "delete")
        folder = skill.path
        roots = {s.root.resolve() for s in self.sources}
        if folder.is_symlink():
            raise Forbidden(f"skill folder {folder} is a symbolic link; kenning does not delete links, "
                            "remove it by hand")
        real = folder.resolve()
        if real in roots:
            raise Forbidden(f"{folder} is a skills source root, not a skill; refused")
        if not any(inside(real, s.root.resolve()) for s in self.sources if s.writable):
            raise Forbidden(f"skill folder {folder} is outside every writable skills root; refused")
        with self._changing(self._loc(skill), "delete", reason, self.masker()) as pending:
            trash = files.move_aside(folder)
            pending.restore = functools.partial(os.replace, trash, folder)  # on failure, hidden files too
        files.remove_trash(trash)  # only once the deletion is recorded: until then it can be undone
        return self._done("delete", skill, pending,
                          f"deleted skill {skill.name!r}; `kenning skill rollback` can bring it back")

    def rollback(self, loc: Location, number: int, *, reason: str = "") -> Change:
        self._writable(loc, "roll back")
        state = versions.files_of(self.store, loc, number)
        if state is None:
            raise NotFound(f"skill {loc.name!r} has no version {number}; `kenning skill history {loc.name}` lists them")
        if not state:
            raise InvalidInput(f"version {number} of skill {loc.name!r} is its deletion; roll back to an earlier "
                               "version, or delete the skill")
        try:
            validate_skill_md(state.get(SKILL_FILE, b"").decode("utf-8"), loc.path.name)
        except (InvalidInput, UnicodeDecodeError) as exc:
            raise InvalidInput(f"version {number} of skill {loc.name!r} has a SKILL.md kenning would not write "
                               f"({exc}); restore it by hand or edit the skill") from None
        if loc.path.is_symlink():
            raise Forbidden(f"skill folder {loc.path} is a symbolic link; kenning does not write through links")
        masker = self.masker()
        with self._changing(loc, "rollback", reason or f"rollback to version {number}", masker) as pending:
            _write_state(loc.path, state)
        return Change("rollback", loc.name, loc.source, loc.path, pending.number,
                      f"restored version {number} of skill {loc.name!r} as version {pending.number}",
                      masked=tuple(masker.found))

    def install(self, loc: Location, staged: Path, *, expected: str, action: str = "install",
                reason: str = "", masker: Masker | None = None) -> Change:
        """Put the prepared skill folder ``staged`` at ``loc`` in one rename (``kenning.skills.install``
        prepares it beside ``loc.path``, on the same file system), replacing the folder there, if any,
        which is renamed aside first and removed once the change is recorded. ``expected`` is the
        checksum (``versions.checksum``) of the files that were scanned: other files are refused, so
        what lands is what was scanned. ``masker``: the one that masked the staged files (what it
        masked is audited and answered). Recorded as version ``action`` ("install" or "update")."""
        self._writable(loc, action)
        folder = loc.path
        if folder.is_symlink():
            raise Forbidden(f"skill folder {folder} is a symbolic link; kenning does not install through links")
        if staged.parent != folder.parent or staged.is_symlink() or not staged.is_dir():
            raise InvalidInput(f"{staged} is not a prepared folder beside {folder}; nothing was installed")
        if versions.checksum(files.snapshot(staged)) != expected:
            raise Conflict(f"the files prepared for skill {loc.name!r} in {staged} changed after they were scanned; "
                           "nothing was installed: install it again")
        trash: Path | None = None
        masker = masker or self.masker()
        with self._changing(loc, action, reason, masker) as pending:
            if folder.exists():
                trash = files.move_aside(folder)
            pending.restore = functools.partial(_undo_install, folder, trash)
            os.replace(staged, folder)
            fileio.fsync_dir(folder.parent)
            if versions.checksum(files.snapshot(folder)) != expected:
                raise Conflict(f"skill folder {folder} changed while it was being installed; the old files were "
                               "put back")
        if trash is not None:
            files.remove_trash(trash)  # only once the change is recorded: until then it can be undone
        verb = {"install": "installed", "update": "updated"}.get(action, action)
        return Change(action, loc.name, loc.source, folder, pending.number,
                      f"{verb} skill {loc.name!r} in the {loc.source} source (version {pending.number})",
                      masked=tuple(masker.found))

    # -- helpers --------------------------------------------------------------------------------------

    @staticmethod
    def _loc(skill: Skill) -> Location:
        return Location(skill.source, skill.root, skill.rel_path, skill.name)

    @staticmethod
    def _done(action: str, skill: Skill, pending: _Pending, message: str, replaced: int | None = None) -> Change:
        return Change(action, skill.name, skill.source, skill.path, pending.number,
                      f"{message} (skill {skill.name!r}, version {pending.number})", replaced=replaced,
                      masked=tuple(pending.masker.found))

    @staticmethod
    def _check_size(rel: str, data: bytes) -> None:
        if rel == SKILL_FILE:
            return  # validate_skill_md counts characters
        if len(data) > files.MAX_FILE_BYTES:
            raise InvalidInput(f"file {rel!r} would be {len(data):,} bytes; the limit is "
                               f"{files.MAX_FILE_BYTES:,} (1 MiB) a file")


def _left_empty(folder: Path) -> bool:
    """Whether ``folder`` is a directory with no visible file in it: what a create killed before its
    SKILL.md was in place leaves (perhaps with its temporary file), which a new create may use."""
    if not folder.is_dir() or folder.is_symlink():
        return False
    for _dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        if any(not f.startswith(".") for f in filenames):
            return False
    return True


def _masked_bytes(content: object, masker: Masker, rel: str) -> bytes:
    """The bytes of a linked file to write, secrets masked (``Masker.data``: text in the encoding it
    reads as; a binary asset is written as given, or refused when it seems to hold a secret)."""
    if isinstance(content, bytes | bytearray):
        return masker.data(bytes(content), rel)
    if isinstance(content, str):
        return masker.text(content, rel).encode("utf-8")
    raise InvalidInput(f"file_content must be text or bytes, got {type(content).__name__}")


def _undo_install(folder: Path, trash: Path | None) -> None:
    """Take back a failed install: the new folder away, the old one (renamed aside) back in place."""
    if folder.exists() and not folder.is_symlink():
        files.remove_tree(folder)
    if trash is not None:
        os.replace(trash, folder)


def _write_state(folder: Path, state: dict[str, bytes]) -> None:
    """Make ``folder`` hold exactly the files of ``state`` (visible files only; hidden ones stay)."""
    folder.mkdir(parents=True, exist_ok=True)
    current = files.snapshot(folder)
    for rel, data in state.items():
        if current.get(rel) != data:
            files.atomic_write(folder / rel, data)
    for rel in set(current) - set(state):
        files.remove_file(folder / rel, folder)
