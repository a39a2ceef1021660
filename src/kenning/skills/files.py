"""Files inside a skill folder: safe relative paths, atomic writes, snapshots for versions.

A path given by a caller is refused when it is absolute, starts at a drive (``C:``) or home
(``~``), contains ``..``, or resolves (through links) outside the skill. Writes go to a temporary
file in the same folder, are fsynced and then renamed over the target, so a reader sees the old
file or the new one, never half of one; a removed folder is first renamed away in one step (to
``.<name>.deleted-<hex>``, removed once the change is recorded).

A file's size is read (``stat``) before its bytes, and a file over the limit is refused without
reading it: a 600 MB file dropped into a skill costs a ``stat``, not 600 MB of memory.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import stat
from pathlib import Path

from .. import fileio
from ..errors import Conflict, Forbidden, InvalidInput
from .model import LINKED_DIRS, MAX_FILE_BYTES, SKILL_FILE
from .sources import inside

MAX_SNAPSHOT_FILES = 500
LISTED_FILES = 200  # a skill view lists at most this many of a skill's files, and counts the rest
MAX_SNAPSHOT_BYTES = 32 << 20
TRASH_MARK = ".deleted-"  # .<name>.deleted-<hex>: a folder being removed
_DRIVE = re.compile(r"^[A-Za-z]:")


def clean_rel_path(file_path: object) -> str:
    """``file_path`` as a relative POSIX path inside a skill, or Forbidden/InvalidInput saying why not."""
    if not isinstance(file_path, str) or not file_path.strip():
        raise InvalidInput(f"file path must be a path inside the skill such as 'references/api.md', got {file_path!r}")
    raw = file_path.strip()
    if "\x00" in raw:
        raise Forbidden(f"file path {raw!r} contains a NUL byte")
    if raw.startswith(("/", "\\", "~")) or _DRIVE.match(raw):
        raise Forbidden(f"file path {raw!r} is absolute; give it relative to the skill folder, "
                        "e.g. 'references/api.md'")
    parts = [p for p in re.split(r"[\\/]+", raw) if p not in ("", ".")]
    if ".." in parts:
        raise Forbidden(f"file path {raw!r} contains '..'; only files inside the skill can be reached")
    if not parts:
        raise InvalidInput(f"file path {raw!r} names no file")
    return "/".join(parts)


def inside_skill(skill_dir: Path, rel: str) -> Path:
    """The file ``rel`` of the skill; Forbidden when links would lead it outside the skill."""
    target = skill_dir / rel
    if not inside(target.resolve(), skill_dir.resolve()):
        raise Forbidden(f"file path {rel!r} leads outside the skill {skill_dir.name!r} (through a link); refused")
    return target


def linked_file(skill_dir: Path, file_path: object) -> tuple[str, Path]:
    """A file kenning may write or remove: in the skill's own folder (but SKILL.md) or under
    references/, templates/, scripts/ or assets/; no hidden names (versions do not keep them), not
    a link."""
    rel = clean_rel_path(file_path)
    parts = rel.split("/")
    if rel == SKILL_FILE:
        raise Forbidden(f"to change {SKILL_FILE}, use edit or patch")
    if len(parts) == 1 and parts[0] in LINKED_DIRS:
        raise Forbidden(f"{rel!r} is one of the skill's folders; name a file inside it, e.g. '{rel}/notes.md'")
    if len(parts) > 1 and parts[0] not in LINKED_DIRS:
        raise Forbidden(f"file path {rel!r} must be in the skill's own folder or inside one of "
                        f"{', '.join(d + '/' for d in LINKED_DIRS)}")
    if any(p.startswith(".") for p in parts):
        raise Forbidden(f"file path {rel!r} has a hidden name (starting with '.'); use a visible name")
    target = inside_skill(skill_dir, rel)
    if target.is_symlink():
        raise Forbidden(f"file {rel!r} of skill {skill_dir.name!r} is a symbolic link; change it by hand")
    return rel, target


def _mode_for(path: Path, data: bytes) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        executable = path.parent.name == "scripts" and data.startswith(b"#!")
        return 0o755 if executable else 0o644


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, keeping its mode (a new script with a shebang is executable)."""
    fileio.atomic_write(path, data, _mode_for(path, data))


def remove_file(path: Path, skill_dir: Path) -> None:
    """Remove one file, then the folders it leaves empty (up to the skill folder)."""
    path.unlink()
    folder = path.parent
    while folder != skill_dir and inside(folder, skill_dir):
        try:
            folder.rmdir()
        except OSError:
            break
        folder = folder.parent
    fileio.fsync_dir(folder)


def move_aside(folder: Path) -> Path:
    """Rename a whole skill folder away in one step, so no reader sees half of it; returns where it
    went (``.<name>.deleted-<hex>`` beside it), to be removed with ``remove_trash`` once the change
    is recorded. Its modification time is set to now: the age of a leftover counts from here."""
    trash = folder.with_name(f".{folder.name}{TRASH_MARK}{secrets.token_hex(4)}")
    os.replace(folder, trash)
    fileio.fsync_dir(folder.parent)
    try:
        os.utime(trash)
    except OSError:
        pass  # only the age of a leftover depends on it
    return trash


def remove_trash(trash: Path) -> None:
    shutil.rmtree(trash, ignore_errors=True)


def remove_tree(folder: Path) -> None:
    """Remove a whole skill folder at once (renamed away first)."""
    remove_trash(move_aside(folder))


def trash_origin(trash: Path) -> Path | None:
    """The folder a ``move_aside`` leftover was, or None when ``trash`` is not one."""
    name = trash.name
    if not name.startswith(".") or TRASH_MARK not in name:
        return None
    base, _, tag = name[1:].rpartition(TRASH_MARK)
    return trash.with_name(base) if base and len(tag) == 8 and all(c in "0123456789abcdef" for c in tag) else None


def file_size(path: Path, rel: str, limit: int, what: str = "file") -> int:
    """The size of ``path`` from ``stat``; InvalidInput naming it, its size and ``limit`` when over."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InvalidInput(f"cannot read {what} {rel!r}: {exc.strerror or exc}") from None
    if size > limit:
        raise InvalidInput(f"{what} {rel!r} is {size:,} bytes; the limit is {limit:,} ({fileio.size_text(limit)}), "
                           "so it was not read")
    return size


def read_limited(path: Path, rel: str, limit: int, what: str = "file") -> bytes:
    """The bytes of ``path``, its size checked first, and at most ``limit`` read even if it grows
    meanwhile (``fileio.read_limited``)."""
    return fileio.read_limited(path, limit, what=f"{what} {rel!r}")


def snapshot(skill_dir: Path) -> dict[str, bytes]:
    """Every visible regular file of a skill, by relative path (links and hidden names left out).
    Sizes come from ``stat`` first: a folder over the limits is refused before a byte is read."""
    out: dict[str, bytes] = {}
    total = 0
    for dirpath, dirnames, filenames in os.walk(skill_dir):
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith(".") and not os.path.islink(os.path.join(dirpath, d)))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            try:
                st = path.lstat()
            except OSError:
                continue  # gone meanwhile
            if name.startswith(".") or not stat.S_ISREG(st.st_mode):
                continue
            rel = path.relative_to(skill_dir).as_posix()
            total += st.st_size
            if len(out) >= MAX_SNAPSHOT_FILES or total > MAX_SNAPSHOT_BYTES:
                raise Conflict(_too_large(skill_dir, rel, st.st_size, len(out) >= MAX_SNAPSHOT_FILES))
            with path.open("rb") as fh:
                data = fh.read(st.st_size + MAX_SNAPSHOT_BYTES - total + 1)
            if len(data) != st.st_size:  # written to while we read: count what is there now
                total += len(data) - st.st_size
                if total > MAX_SNAPSHOT_BYTES:
                    raise Conflict(_too_large(skill_dir, rel, len(data), False))
            out[rel] = data
    return out


def _too_large(skill_dir: Path, rel: str, size: int, by_count: bool) -> str:
    if by_count:
        what = f"holds more than {MAX_SNAPSHOT_FILES} files"
    else:
        what = (f"would hold more than {MAX_SNAPSHOT_BYTES:,} bytes ({fileio.size_text(MAX_SNAPSHOT_BYTES)}) "
                f"with {rel!r} ({size:,} bytes)")
    return (f"skill folder {skill_dir} {what}: too large to keep versions of, so nothing was read or changed; "
            "move large files out of the skill, or change it by hand")


def linked_files(skill_dir: Path, cap: int = LISTED_FILES) -> tuple[dict[str, list[str]], int]:
    """Every visible file of the skill but SKILL.md, as relative paths grouped by top folder (``"."``
    for the skill's own folder, where real skills keep files SKILL.md tells the agent to read; the
    four Agent Skills folders always present), at most ``cap`` of them; and how many more there are.
    Links leading out of the skill and hidden names are left out."""
    out: dict[str, list[str]] = {d: [] for d in LINKED_DIRS}
    real_dir = skill_dir.resolve()
    listed = more = 0
    for dirpath, dirnames, filenames in os.walk(skill_dir):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(skill_dir).as_posix()
            if name.startswith(".") or rel == SKILL_FILE or not inside(path.resolve(), real_dir):
                continue
            if listed >= cap:
                more += 1
                continue
            parts = rel.split("/")
            out.setdefault(parts[0] if len(parts) > 1 else ".", []).append(rel)
            listed += 1
    return out, more
