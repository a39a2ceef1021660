"""Skill versions in ``kenning.db``: every state of a skill folder that kenning wrote, or found on
disk just before changing it (a hand edit, a skill that was never recorded).

A skill's history is keyed by where it lives (source root + path inside it), numbered from 1. A
version lists its files; their bytes sit in ``skill_blobs`` under their SHA-256, so an unchanged
reference file costs nothing in the next version. Deleting a skill records a last, empty version
marked deleted, so its history (and a rollback) survive it. The tables come from migration 2 and are
append-only, like the audit log. This is the only module with SQL about skill versions.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ..store import Store
from ..timeutil import from_epoch, to_epoch, utcnow
from .model import SkillVersion


@dataclass(frozen=True)
class Location:
    """Where a skill lives: the key of its history."""

    source: str
    root: Path
    rel_path: str
    name: str

    @property
    def path(self) -> Path:
        return self.root / self.rel_path


def checksum(files: dict[str, bytes]) -> str:
    """SHA-256 over the sorted paths and the hashes of their contents."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.encode() + b"\0" + hashlib.sha256(files[path]).digest())
    return digest.hexdigest()


def latest_checksum(store: Store, loc: Location) -> str | None:
    with store.transaction() as conn:
        row = conn.execute(
            "SELECT checksum, deleted FROM skill_versions WHERE root = ? AND rel_path = ? ORDER BY number DESC LIMIT 1",
            (str(loc.root), loc.rel_path),
        ).fetchone()
    return None if row is None or row[1] else str(row[0])


def recorded_locations(store: Store) -> set[tuple[str, str]]:
    """Every (root, rel_path) that has a history."""
    with store.transaction() as conn:
        rows = conn.execute("SELECT root, rel_path FROM skill_versions GROUP BY root, rel_path").fetchall()
    return {(str(r[0]), str(r[1])) for r in rows}


def recorded_files(store: Store, loc: Location) -> set[tuple[str, str]]:
    """Every (path, SHA-256) any recorded state of the skill at ``loc`` had."""
    with store.transaction() as conn:
        rows = conn.execute(
            "SELECT DISTINCT f.path, f.sha256 FROM skill_version_files f JOIN skill_versions v ON v.id = f.version_id "
            "WHERE v.root = ? AND v.rel_path = ?", (str(loc.root), loc.rel_path)).fetchall()
    return {(str(r[0]), str(r[1])) for r in rows}


def last_writers(store: Store, skip_actions: tuple[str, ...] = ()) -> dict[tuple[str, str], tuple[str, str]]:
    """For every recorded location, by (root, rel_path): the action and actor of its last version,
    versions whose action is in ``skip_actions`` passed over. One query (``trust`` asks it of the
    whole library)."""
    marks = ", ".join("?" for _ in skip_actions)
    skip = f"WHERE action NOT IN ({marks})" if skip_actions else ""
    with store.transaction() as conn:
        rows = conn.execute(
            "SELECT v.root, v.rel_path, v.action, v.actor FROM skill_versions v "
            f"JOIN (SELECT root, rel_path, max(number) AS n FROM skill_versions {skip} GROUP BY root, rel_path) last "
            "ON last.root = v.root AND last.rel_path = v.rel_path AND last.n = v.number", skip_actions).fetchall()
    return {(str(r[0]), str(r[1])): (str(r[2]), str(r[3])) for r in rows}


def latest_deleted(store: Store, loc: Location) -> bool:
    """Whether the last recorded state of the skill at ``loc`` is its deletion."""
    with store.transaction() as conn:
        row = conn.execute("SELECT deleted FROM skill_versions WHERE root = ? AND rel_path = ? "
                           "ORDER BY number DESC LIMIT 1", (str(loc.root), loc.rel_path)).fetchone()
    return bool(row and row[0])


def record(
    store: Store,
    loc: Location,
    files: dict[str, bytes],
    *,
    action: str,
    actor: str,
    reason: str,
    version_field: str | None,
    deleted: bool = False,
) -> int:
    """Store one state of the skill at ``loc``; returns its number. Joins the caller's transaction.

    The checksum is of the files as they are (it tells a later hand edit); the stored bytes pass the
    store's edge like every other text (secrets masked, as in the skill files kenning writes), so a
    key pasted into a hand-made skill is not kept in the database."""
    edge = store.redactor
    with store.transaction() as conn:
        number = _next_number(conn, loc)
        cur = conn.execute(
            "INSERT INTO skill_versions (name, source, root, rel_path, number, action, checksum, version_field, "
            "at, actor, reason, deleted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (loc.name, loc.source, str(loc.root), loc.rel_path, number, action, checksum(files), version_field,
             to_epoch(utcnow()), actor, edge.text(reason, what="the reason"), int(deleted)),
        )
        version_id = int(cur.lastrowid or 0)
        for path, raw in sorted(files.items()):
            data = edge.data(raw, secrets_only=True)
            sha = hashlib.sha256(data).hexdigest()
            conn.execute("INSERT OR IGNORE INTO skill_blobs (sha256, content) VALUES (?, ?)", (sha, data))
            conn.execute(
                "INSERT INTO skill_version_files (version_id, path, sha256, size) VALUES (?, ?, ?, ?)",
                (version_id, path, sha, len(data)),
            )
    return number


def _next_number(conn: sqlite3.Connection, loc: Location) -> int:
    row = conn.execute(
        "SELECT max(number) FROM skill_versions WHERE root = ? AND rel_path = ?", (str(loc.root), loc.rel_path)
    ).fetchone()
    return int(row[0] or 0) + 1


def history(store: Store, loc: Location) -> list[SkillVersion]:
    """Every recorded state of the skill at ``loc``, oldest first."""
    with store.transaction() as conn:
        rows = conn.execute(
            "SELECT id, number, name, source, action, checksum, version_field, at, actor, reason, deleted "
            "FROM skill_versions WHERE root = ? AND rel_path = ? ORDER BY number",
            (str(loc.root), loc.rel_path),
        ).fetchall()
        sizes: dict[int, list[tuple[str, int]]] = {}
        for vid, path, size in conn.execute(
            "SELECT f.version_id, f.path, f.size FROM skill_version_files f JOIN skill_versions v "
            "ON v.id = f.version_id WHERE v.root = ? AND v.rel_path = ? ORDER BY f.path",
            (str(loc.root), loc.rel_path),
        ):
            sizes.setdefault(int(vid), []).append((str(path), int(size)))
    return [
        SkillVersion(
            number=int(r[1]), name=r[2], source=r[3], path=loc.path, action=r[4], checksum=r[5],
            version_field=r[6], at=from_epoch(r[7]) or utcnow(), actor=r[8], reason=r[9],
            deleted=bool(r[10]), files=tuple(sizes.get(int(r[0]), ())),
        )
        for r in rows
    ]


def files_of(store: Store, loc: Location, number: int) -> dict[str, bytes] | None:
    """The files of version ``number`` (None when there is no such version)."""
    with store.transaction() as conn:
        row = conn.execute(
            "SELECT id FROM skill_versions WHERE root = ? AND rel_path = ? AND number = ?",
            (str(loc.root), loc.rel_path, number),
        ).fetchone()
        if row is None:
            return None
        pairs = conn.execute(
            "SELECT f.path, b.content FROM skill_version_files f JOIN skill_blobs b ON b.sha256 = f.sha256 "
            "WHERE f.version_id = ? ORDER BY f.path",
            (row[0],),
        ).fetchall()
    return {str(path): bytes(content) for path, content in pairs}


def locations_named(store: Store, name: str) -> list[Location]:
    """Every location that has recorded a skill called ``name`` (for skills no longer on disk),
    most recently changed first."""
    with store.transaction() as conn:
        rows = conn.execute(
            "SELECT source, root, rel_path, max(at) AS last FROM skill_versions WHERE name = ? "
            "GROUP BY root, rel_path ORDER BY last DESC",
            (name,),
        ).fetchall()
    return [Location(r[0], Path(r[1]), r[2], name) for r in rows]
