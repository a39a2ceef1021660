"""Getting a skill's files out of a source into quarantine, checking each one on the way.

A source (a folder, a git checkout, a zip or ``.skill`` archive) is first listed as ``Member``s:
every entry's path, kind (file, folder, link, other) and size, nothing read yet. Entry names are
refused when absolute, with a drive, a backslash, a NUL or ``..`` (zip-slip): the whole source is
refused, since one such entry says what it was made for. ``discover`` finds the skills in the list
(folders holding a SKILL.md; not inside another skill, not under hidden folders or node_modules).

``extract`` then copies one skill into an empty quarantine folder, checking WHILE it copies, before
anything lands in a skills root: a link or a device file refuses the skill (a link could point
anywhere, and a skill's history keeps regular files only); more than ``MAX_FILES`` files, a file over
``MAX_FILE_BYTES`` (counted as it is read, not from what an archive header claims) or more than
``MAX_SKILL_BYTES`` in all refuse it too. Hidden entries (``.git``, ``.DS_Store``, ``.env``) are left
out and listed: kenning's versions, views and catalog never see hidden files, so installing them
would put files in place that nothing reviews or restores; so are node_modules and __pycache__
(installed dependencies and compiled caches, not the skill's own text).
"""

from __future__ import annotations

import functools
import os
import stat
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from ...errors import Forbidden, InvalidInput
from ..files import MAX_SNAPSHOT_BYTES
from ..model import MAX_FILE_BYTES, SKILL_FILE
from ..scan import MAX_FILES

MAX_SKILL_BYTES = MAX_SNAPSHOT_BYTES  # what a skill's history can hold (files.snapshot)
MAX_MEMBERS = 20_000  # entries a source may list at all (a folder walk stops here)
_SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__"})
_CHUNK = 1 << 16


@dataclass(frozen=True)
class Member:
    """One entry of a source: ``rel`` is its clean POSIX path inside the source; ``kind`` is "file",
    "dir", "link" or "other" (a device, a pipe, a socket); ``size`` what the source says (the bytes
    are counted again as they are read); ``executable`` whether any execute bit is set."""

    rel: str
    kind: str
    size: int
    executable: bool
    open: Callable[[], IO[bytes]] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Extracted:
    """What ``extract`` copied: how many files and bytes, and the hidden entries it left out."""

    files: int
    bytes: int
    left_out: tuple[str, ...]


def clean_member_name(name: str, where: str) -> str:
    """An entry name as a relative POSIX path; Forbidden for anything that could land outside."""
    if "\0" in name:
        raise Forbidden(f"{where}: an entry name holds a NUL byte; refused, nothing was installed")
    if "\\" in name:
        raise Forbidden(f"{where}: entry {name!r} holds a backslash, which some systems read as a folder "
                        "separator; refused, nothing was installed")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise Forbidden(f"{where}: entry {name!r} is an absolute path; refused, nothing was installed")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise Forbidden(f"{where}: entry {name!r} leads outside the archive ('..'); refused, nothing was installed")
    return "/".join(parts)


# -- listing a source -------------------------------------------------------------------------------


def zip_members(archive: zipfile.ZipFile, where: str) -> list[Member]:
    """Every entry of an open zip archive (a ``.skill`` file is one), names checked."""
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise InvalidInput(f"{where} lists {len(infos):,} entries; the limit is {MAX_MEMBERS:,}")
    out: list[Member] = []
    seen: set[str] = set()
    for info in infos:
        rel = clean_member_name(info.filename, where)
        if info.flag_bits & 0x1:
            raise InvalidInput(f"{where}: entry {info.filename!r} is encrypted; kenning cannot scan it")
        mode = info.external_attr >> 16
        kind = "dir" if info.is_dir() else _kind(mode) if stat.S_IFMT(mode) else "file"
        if not rel:
            continue
        if rel in seen and kind != "dir":
            raise Forbidden(f"{where}: entry {rel!r} appears twice, so what is scanned need not be what lands; "
                            "refused, nothing was installed")
        seen.add(rel)
        out.append(Member(rel, kind, info.file_size, bool(mode & 0o111), functools.partial(archive.open, info)))
    _check_file_folder_clash(out, where)
    return out


def _check_file_folder_clash(members: list[Member], where: str) -> None:
    """InvalidInput naming both entries when one is a file (or a link) and another puts something
    under it, or names it as a folder: a path cannot be both (a folder on disk cannot hold either)."""
    not_dirs = {m.rel for m in members if m.kind != "dir"}
    for m in members:
        parts = m.rel.split("/")
        above = ["/".join(parts[:i]) for i in range(1, len(parts))] + ([m.rel] if m.kind == "dir" else [])
        clash = next((a for a in above if a in not_dirs), None)
        if clash is not None:
            shown = m.rel + "/" if m.kind == "dir" else m.rel
            raise InvalidInput(f"{where}: entry {clash!r} is a file, and entry {shown!r} makes it a folder; a path "
                               "cannot be both, so the archive is refused and nothing was installed: rebuild it "
                               "without one of them")


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    return "link" if stat.S_ISLNK(mode) else "other"


def folder_members(root: Path, where: str, under: str = "") -> list[Member]:
    """Every entry under ``root / under`` (links not followed), by path relative to ``root``; the
    folders ``.git``, node_modules and __pycache__ are listed but not walked into."""
    out: list[Member] = []
    for dirpath, dirnames, filenames in os.walk(root / under if under else root, followlinks=False):
        here = Path(dirpath)
        skipped = sorted(d for d in dirnames if d in _SKIP_DIRS)
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for name in [*sorted(filenames), *dirnames, *skipped]:
            path = here / name
            try:
                st = path.lstat()
            except OSError:
                continue  # gone meanwhile
            rel = path.relative_to(root).as_posix()
            out.append(Member(rel, _kind(st.st_mode), st.st_size, bool(st.st_mode & 0o111),
                              functools.partial(_open_no_follow, path)))
            if len(out) > MAX_MEMBERS:
                raise InvalidInput(f"{where} holds more than {MAX_MEMBERS:,} entries; give the skill's own folder "
                                   "(SOURCE#subdir) rather than a whole tree")
    return out


def _open_no_follow(path: Path) -> IO[bytes]:
    """Open a file for reading, refusing a link that replaced it since it was listed."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    return os.fdopen(fd, "rb")


# -- the skills in a source --------------------------------------------------------------------------


def discover(members: Iterable[Member], under: str = "") -> list[str]:
    """The skill folders among ``members`` below ``under`` ("" for the source's top), as paths
    inside the source: folders holding a SKILL.md file, outermost first (a skill's own sub-folders
    hold its files, not more skills), none under a hidden folder or node_modules."""
    prefix = f"{under}/" if under else ""
    found: list[str] = []
    for m in members:
        if m.kind != "file" or not m.rel.startswith(prefix):
            continue
        parts = m.rel[len(prefix):].split("/")
        if parts[-1] != SKILL_FILE or any(p.startswith(".") or p in _SKIP_DIRS for p in parts[:-1]):
            continue
        found.append(prefix + "/".join(parts[:-1]) if len(parts) > 1 else under)
    found.sort(key=lambda r: (r.count("/"), r))
    outer: list[str] = []
    for rel in found:
        if not any(rel == o or rel.startswith(o + "/") or o == "" for o in outer):
            outer.append(rel)
    return sorted(outer)


# -- copying one skill into quarantine ------------------------------------------------------------------


def extract(members: Iterable[Member], skill_dir: str, dest: Path, where: str) -> Extracted:
    """Copy the skill at ``skill_dir`` (inside the source) into the empty folder ``dest``, checking
    every entry as the module docstring says; on any refusal ``dest`` is left partly filled (it is in
    quarantine, and the caller removes it)."""
    dest.mkdir(parents=True, exist_ok=False)
    prefix = f"{skill_dir}/" if skill_dir else ""
    count = total = 0
    left_out: list[str] = []
    for m in members:
        if not m.rel.startswith(prefix) or m.rel == skill_dir:
            continue
        rel = m.rel[len(prefix):]
        parts = rel.split("/")
        hidden = next((i for i, p in enumerate(parts) if p.startswith(".") or p in _SKIP_DIRS), None)
        if hidden is not None:
            shown = "/".join(parts[: hidden + 1])
            if shown not in left_out:
                left_out.append(shown)
            continue
        if m.kind == "link":
            raise Forbidden(f"{where}: {rel!r} is a symbolic link; kenning does not install links (one could point "
                            "at any file on this machine): replace it with the file it points to")
        if m.kind == "other":
            raise Forbidden(f"{where}: {rel!r} is a device, pipe or socket, not a file; refused")
        target = dest.joinpath(*parts)
        if m.kind == "dir":
            target.mkdir(parents=True, exist_ok=True)
            continue
        count += 1
        if count > MAX_FILES:
            raise InvalidInput(f"{where}: the skill {skill_dir or '(top)'!r} holds more than {MAX_FILES} files, too "
                               "many to review; refused")
        if m.size > MAX_FILE_BYTES:
            raise InvalidInput(_too_big(where, rel, m.size))
        total += _copy(m, rel, target, where, MAX_SKILL_BYTES - total)
    return Extracted(count, total, tuple(left_out))


def _copy(member: Member, rel: str, target: Path, where: str, room: int) -> int:
    """Copy one file, counting its bytes as they come: past the per-file limit or the room left for
    the whole skill, it stops and refuses."""
    target.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    written = 0
    with member.open() as src, os.fdopen(os.open(target, flags, 0o755 if member.executable else 0o644), "wb") as out:
        while True:
            block = src.read(_CHUNK)
            if not block:
                break
            written += len(block)
            if written > MAX_FILE_BYTES:
                raise InvalidInput(f"{where}: file {rel!r} holds more than {MAX_FILE_BYTES:,} bytes (1 MiB, the limit "
                                   f"of a skill's file; counted while unpacking, the source said {member.size:,}); "
                                   "refused")
            if written > room:
                raise InvalidInput(f"{where}: the skill's files add up to more than {MAX_SKILL_BYTES:,} bytes "
                                   f"(reached at {rel!r}); refused")
            out.write(block)
    return written


def _too_big(where: str, rel: str, size: int) -> str:
    return (f"{where}: file {rel!r} is {size:,} bytes; a skill's file may hold at most {MAX_FILE_BYTES:,} "
            "(1 MiB); refused")
