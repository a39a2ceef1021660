"""``skills.lock``: what ``kenning skill install`` put into one skills root, to verify and update it.

One lock per root, beside it: ``$KENNING_HOME/skills`` -> ``$KENNING_HOME/skills.lock``, a project's
``.agents/skills`` -> ``.agents/skills.lock`` (committed with the project, so everyone working on it can
``kenning skill verify`` the same skills). TOML, one table per skill::

    version = 1

    [skills.pdf]
    name = "pdf"
    path = "pdf"                        # the skill folder, relative to the skills root
    source = "https://github.com/anthropics/skills"
    kind = "git"                        # "git" | "archive" | "folder"
    ref = "0a1b2c…"                     # the resolved commit (git only)
    track = "main"                      # the ref asked for; "" for the default branch
    subdir = "skills/pdf"               # where the skill sat in the source
    hash = "sha256:…"                   # kenning.skills.versions.checksum of the skill's files
    verdict = "safe"
    scanner_version = "2"
    installed_at = "2026-12-01T12:00:00Z"
    trust = "community"

``hash`` is the checksum skill history uses (``versions.checksum`` over ``files.snapshot``: every
visible regular file, by path and SHA-256), so the lock, ``kenning skill history`` and a re-hash agree.
tomllib reads the file; the writer below knows only this flat shape (strings and one integer), so
no TOML library is needed. A lock a person broke is refused with the line to fix.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from ... import fileio
from ...errors import InvalidInput

LOCK_NAME = "skills.lock"
FORMAT = 1
MAX_LOCK_BYTES = 4 << 20
_HEADER = ("# kenning skills.lock: the skills `kenning skill install` put here, with where each came from\n"
           "# and the hash of its files. `kenning skill verify` checks it; change it through kenning.\n")
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


@dataclass(frozen=True)
class LockEntry:
    """One installed skill, as the lock records it (see the module docstring)."""

    name: str
    path: str
    source: str
    kind: str
    hash: str
    verdict: str
    scanner_version: str
    installed_at: str
    trust: str
    ref: str = ""
    track: str = ""
    subdir: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


_REQUIRED = tuple(f.name for f in fields(LockEntry) if f.name not in ("ref", "track", "subdir"))
_KEYS = tuple(f.name for f in fields(LockEntry))


def lock_path(root: Path) -> Path:
    """The lock of the skills root ``root``: ``skills.lock`` beside it when the root is a ``skills``
    folder, else ``<root name>.lock``."""
    return root.parent / (LOCK_NAME if root.name == "skills" else f"{root.name}.lock")


def read_lock(path: Path) -> dict[str, LockEntry]:
    """The entries of the lock at ``path`` by skill name (none when it does not exist); InvalidInput
    naming the file and line of anything broken."""
    raw = fileio.read_or_none(path, MAX_LOCK_BYTES, what=f"lock file {path}", error=InvalidInput)
    if raw is None:
        return {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"lock file {path} is not UTF-8 text (byte {exc.start}); restore it from version "
                           "control or delete it and install the skills again") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"lock file {path} is not valid TOML: {exc}; fix that line, or restore the file from "
                           "version control") from None
    version = data.get("version", FORMAT)
    if version != FORMAT:
        raise InvalidInput(f"lock file {path} line {_line_of(text, 'version')}: version {version!r} is not one this "
                           f"kenning reads ({FORMAT}); upgrade kenning or install the skills again")
    table = data.get("skills", {})
    if not isinstance(table, dict):
        raise InvalidInput(f"lock file {path} line {_line_of(text, 'skills')}: 'skills' must be a table of "
                           "[skills.<name>] sections")
    return {key: _entry(path, text, key, value) for key, value in table.items()}


def _entry(path: Path, text: str, key: str, value: object) -> LockEntry:
    where = f"lock file {path} line {_line_of(text, f'[skills.{key}]')} ([skills.{key}])"
    if not isinstance(value, dict):
        raise InvalidInput(f"{where}: must be a table of name, path, source, hash …")
    missing = [k for k in _REQUIRED if k not in value]
    if missing:
        raise InvalidInput(f"{where}: missing {', '.join(missing)}; restore the entry, or uninstall and install "
                           "the skill again")
    unknown = sorted(set(value) - set(_KEYS))
    if unknown:
        raise InvalidInput(f"{where}: unknown key(s) {', '.join(unknown)}; remove them")
    bad = [k for k, v in value.items() if not isinstance(v, str)]
    if bad:
        raise InvalidInput(f"{where}: {', '.join(bad)} must be text in double quotes")
    entry = LockEntry(**{k: str(v) for k, v in value.items()})
    if entry.name != key:
        raise InvalidInput(f"{where}: name {entry.name!r} differs from the table's name {key!r}; make them agree")
    if entry.path.startswith("/") or ".." in entry.path.split("/") or not entry.path.strip("/"):
        raise InvalidInput(f"{where}: path {entry.path!r} must be a folder inside the skills root, such as {key!r}")
    return entry


def _line_of(text: str, needle: str) -> int:
    """The first line of ``text`` mentioning ``needle`` (1 when none does: the error is about the whole file)."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith(needle) or (needle.startswith("[") and line.replace(" ", "") == needle):
            return number
    return 1


def render(entries: dict[str, LockEntry]) -> str:
    """The lock file's text: the header, the format version, one table per skill in name order."""
    out = [_HEADER, f"version = {FORMAT}\n"]
    for name in sorted(entries):
        entry = entries[name]
        out.append(f"\n[skills.{_key(name)}]\n")
        for key in _KEYS:
            value = getattr(entry, key)
            if value or key in _REQUIRED:
                out.append(f"{key} = {_string(value)}\n")
    return "".join(out)


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else _string(name)


def _string(value: str) -> str:
    """A TOML basic string: backslash, quote and control characters escaped."""
    out = []
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def write_lock(path: Path, entries: dict[str, LockEntry]) -> None:
    """Replace the lock at ``path`` atomically; no entries left: the file is removed."""
    if not entries:
        path.unlink(missing_ok=True)
        return
    fileio.atomic_write(path, render(entries).encode("utf-8"), 0o644)


def snapshot_bytes(path: Path) -> bytes | None:
    """The lock's bytes as they are now (None: no lock), to put back when a change fails."""
    return fileio.read_or_none(path, MAX_LOCK_BYTES, what=f"lock file {path}", error=InvalidInput)


def put_back(path: Path, raw: bytes | None) -> None:
    """Restore the lock to ``raw`` (from ``snapshot_bytes``)."""
    if raw is None:
        path.unlink(missing_ok=True)
    else:
        fileio.atomic_write(path, raw, 0o644)


def with_entry(entries: dict[str, LockEntry], entry: LockEntry) -> dict[str, LockEntry]:
    return {**entries, entry.name: entry}


def without(entries: dict[str, LockEntry], name: str) -> dict[str, LockEntry]:
    return {k: v for k, v in entries.items() if k != name}


__all__ = ["LOCK_NAME", "LockEntry", "lock_path", "read_lock", "write_lock", "render", "snapshot_bytes", "put_back",
           "with_entry", "without"]
