"""Copies of a client's config file taken before ``kenning install`` / ``uninstall`` changes it,
kept in ``$KENNING_HOME/backups/``, never beside the file: a project folder gets committed, and a
client config can hold the tokens of the user's other servers.

Each copy ``<time>-<hash of the path>-<file name>`` is readable by its owner only, with a sidecar ``<copy>.json`` recording the file it came from, when, and the copy's
SHA-256, so a person can find and restore one by hand. ``prune`` keeps every copy an install
record still points to (uninstall restores from it), and of the others the newest few per file
and nothing older than a month.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta
from pathlib import Path

from .. import fileio
from ..timeutil import utcnow

FOLDER = "backups"
KEEP_PER_FILE = 5
KEEP_DAYS = 30
LEGACY_MARK = ".kenning-backup-"  # where kenning before 0.2 put its copies: beside the file


def folder(data_home: Path) -> Path:
    return data_home / FOLDER


def save(data_home: Path, original: Path, data: bytes) -> Path:
    """Keep ``data`` (the content of ``original``) and return the copy's path."""
    target_dir = folder(data_home)
    target_dir.mkdir(parents=True, exist_ok=True)
    target_dir.chmod(0o700)
    now = utcnow()
    stem = f"{now.strftime('%Y%m%dT%H%M%S%fZ')}-{_path_hash(original)}-{original.name}"
    target, n = target_dir / stem, 2
    while target.exists():
        target, n = target_dir / f"{stem}-{n}", n + 1
    fileio.atomic_write(target, data, mode=0o600)
    sidecar = {"original": str(original), "saved_at": now.isoformat(), "sha256": hashlib.sha256(data).hexdigest()}
    fileio.atomic_write(_sidecar(target), (json.dumps(sidecar, ensure_ascii=False, indent=2) + "\n").encode("utf-8"),
                        mode=0o600)
    return target


def prune(data_home: Path, keep: set[str], *, now: datetime | None = None) -> list[Path]:
    """Remove the copies nothing points to beyond the newest ``KEEP_PER_FILE`` per file or older
    than ``KEEP_DAYS``; the paths removed."""
    now = now or utcnow()
    by_original: dict[str, list[tuple[datetime, Path]]] = {}
    for sidecar in sorted(folder(data_home).glob("*.json")):
        copy = sidecar.with_suffix("")
        info = _read_sidecar(sidecar)
        if info is None:
            continue
        if not copy.is_file():  # the copy was taken away by hand: its record has nothing to describe
            sidecar.unlink(missing_ok=True)
            continue
        by_original.setdefault(info[0], []).append((info[1], copy))
    removed = []
    for copies in by_original.values():
        copies.sort(reverse=True)  # newest first
        for rank, (saved_at, copy) in enumerate(copies):
            if str(copy) in keep or (rank < KEEP_PER_FILE and now - saved_at <= timedelta(days=KEEP_DAYS)):
                continue
            copy.unlink(missing_ok=True)
            _sidecar(copy).unlink(missing_ok=True)
            removed.append(copy)
    return removed


def is_legacy(path: Path) -> bool:
    """A copy an older kenning left beside the original (``<file>.kenning-backup-<time>``)."""
    return LEGACY_MARK in path.name


def _sidecar(copy: Path) -> Path:
    return copy.with_name(copy.name + ".json")


def _read_sidecar(path: Path) -> tuple[str, datetime] | None:
    raw = fileio.read_or_none(path, 64_000)
    try:
        data = json.loads(raw or b"")
        return str(data["original"]), datetime.fromisoformat(data["saved_at"])
    except (ValueError, KeyError, TypeError):
        return None  # not ours, or damaged: left alone


def _path_hash(path: Path) -> str:
    return hashlib.sha256(str(path).encode("utf-8", "surrogatepass")).hexdigest()[:12]
