"""The SQLite store's skill rows: versions with their files (migration 2), usage (2, 7) and pins (7).

A version's files sit in ``skill_blobs`` under the SHA-256 of their (masked) bytes, so an
unchanged file costs nothing in the next version. Versions are numbered per location (source root
+ path inside it) and, like the audit log, only ever added.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from .contract import SkillUsageCounts, SkillUsageEvent, SkillVersionRow
from .sqlite_base import SQLiteBase, marks

_VERSION_COLUMNS = "number, name, source, root, rel_path, action, checksum, version_field, at, actor, reason, deleted"


class SkillRows(SQLiteBase):
    # -- versions -------------------------------------------------------------------------------

    def add_skill_version(self, *, name: str, source: str, root: str, rel_path: str, action: str, checksum: str,
                          version_field: str | None, at: float, actor: str, reason: str, deleted: bool,
                          files: Mapping[str, bytes]) -> int:
        edge = self.redactor
        with self._write() as conn:
            (last,) = conn.execute("SELECT max(number) FROM skill_versions WHERE root = ? AND rel_path = ?",
                                   (root, rel_path)).fetchone()
            number = int(last or 0) + 1
            cur = conn.execute(
                f"INSERT INTO skill_versions ({_VERSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (number, name, source, root, rel_path, action, checksum, version_field, at, actor,
                 edge.text(reason, what="the reason"), int(deleted)),
            )
            version_id = int(cur.lastrowid or 0)
            for path, raw in sorted(files.items()):
                data = edge.data(raw, secrets_only=True)
                sha = hashlib.sha256(data).hexdigest()
                conn.execute("INSERT OR IGNORE INTO skill_blobs (sha256, content) VALUES (?, ?)", (sha, data))
                conn.execute("INSERT INTO skill_version_files (version_id, path, sha256, size) VALUES (?, ?, ?, ?)",
                             (version_id, path, sha, len(data)))
        return number

    def replace_skill_blob(self, sha256: str, content: bytes) -> None:
        data = self.redactor.data(content, secrets_only=True)
        new = hashlib.sha256(data).hexdigest()
        if new == sha256:
            return
        with self._write() as conn:  # the new bytes first, so that no file row points at nothing
            conn.execute("INSERT OR IGNORE INTO skill_blobs (sha256, content) VALUES (?, ?)", (new, data))
            conn.execute("UPDATE skill_version_files SET sha256 = ?, size = ? WHERE sha256 = ?",
                         (new, len(data), sha256))
            conn.execute("DELETE FROM skill_blobs WHERE sha256 = ?", (sha256,))

    def skill_history(self, root: str, rel_path: str, *, last: bool = False) -> list[SkillVersionRow]:
        order = "number DESC LIMIT 1" if last else "number"
        return [_version(r) for r in self._rows(
            f"SELECT {_VERSION_COLUMNS} FROM skill_versions WHERE root = ? AND rel_path = ? ORDER BY {order}",
            (root, rel_path))]

    def skill_version_sizes(self, root: str, rel_path: str) -> dict[int, list[tuple[str, int]]]:
        sizes: dict[int, list[tuple[str, int]]] = {}
        for number, path, size in self._rows(
                "SELECT v.number, f.path, f.size FROM skill_version_files f "
                "JOIN skill_versions v ON v.id = f.version_id WHERE v.root = ? AND v.rel_path = ? ORDER BY f.path",
                (root, rel_path)):
            sizes.setdefault(int(number), []).append((str(path), int(size)))
        return sizes

    def skill_version_files(self, root: str, rel_path: str, number: int) -> dict[str, bytes] | None:
        # one statement: a version with no files (a deletion) still gives one row, of NULLs
        rows = self._rows(
            "SELECT f.path, b.content FROM skill_versions v LEFT JOIN skill_version_files f ON f.version_id = v.id "
            "LEFT JOIN skill_blobs b ON b.sha256 = f.sha256 WHERE v.root = ? AND v.rel_path = ? AND v.number = ? "
            "ORDER BY f.path", (root, rel_path, number))
        if not rows:
            return None
        return {str(path): bytes(content) for path, content in rows if path is not None and content is not None}

    def skill_file_hashes(self, root: str, rel_path: str) -> set[tuple[str, str]]:
        return {(str(p), str(s)) for p, s in self._rows(
            "SELECT DISTINCT f.path, f.sha256 FROM skill_version_files f JOIN skill_versions v ON v.id = f.version_id "
            "WHERE v.root = ? AND v.rel_path = ?", (root, rel_path))}

    def last_skill_versions(self, skip_actions: Sequence[str] = ()) -> list[SkillVersionRow]:
        skip = f"WHERE action NOT IN ({marks(len(skip_actions))})" if skip_actions else ""
        columns = ", ".join(f"v.{c}" for c in _VERSION_COLUMNS.split(", "))
        return [_version(r) for r in self._rows(
            f"SELECT {columns} FROM skill_versions v "
            f"JOIN (SELECT root, rel_path, max(number) AS n FROM skill_versions {skip} GROUP BY root, rel_path) last "
            "ON last.root = v.root AND last.rel_path = v.rel_path AND last.n = v.number", skip_actions)]

    def skill_locations_named(self, name: str) -> list[tuple[str, str, str]]:
        # SQLite takes the bare column (source) from the row that holds max(at)
        return [(str(r[0]), str(r[1]), str(r[2])) for r in self._rows(
            "SELECT source, root, rel_path, max(at) AS last FROM skill_versions WHERE name = ? "
            "GROUP BY root, rel_path ORDER BY last DESC", (name,))]

    # -- usage ----------------------------------------------------------------------------------

    def add_skill_usage(self, *, at: float, name: str, event: str, outcome: str | None, detail: str, actor: str,
                        root: str | None, rel_path: str | None) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT INTO skill_usage (at, name, event, outcome, detail, actor, root, rel_path) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (at, name, event, outcome, self.redactor.text(detail, what="the note"), actor, root, rel_path))

    def skill_usage_counts(self, name: str | None = None, *, by_location: bool = False) -> list[SkillUsageCounts]:
        where, params = ("WHERE name = ?", [name]) if name else ("", [])
        keys = "name, root, rel_path" if by_location else "name"
        shown = keys if by_location else "name, NULL, NULL"
        rows = self._rows(
            f"SELECT {shown}, sum(event = 'view'), sum(outcome = 'helped'), sum(outcome = 'failed'), "
            f"sum(outcome = 'not-relevant'), max(at) FROM skill_usage {where} GROUP BY {keys}", params)
        return [SkillUsageCounts(name=str(r[0]), root=r[1], rel_path=r[2], views=int(r[3] or 0),
                                 helped=int(r[4] or 0), failed=int(r[5] or 0), not_relevant=int(r[6] or 0),
                                 last_at=None if r[7] is None else float(r[7])) for r in rows]

    def skill_usage_events(self, name: str, limit: int) -> list[SkillUsageEvent]:
        rows = self._rows("SELECT at, name, event, outcome, detail, actor FROM skill_usage WHERE name = ? "
                          "ORDER BY id DESC LIMIT ?", (name, limit))
        return [SkillUsageEvent(at=float(r[0]), name=r[1], event=r[2], outcome=r[3], detail=r[4], actor=r[5])
                for r in rows]

    def blank_usage_notes(self, needles: Sequence[str], *, dry_run: bool = False) -> int:
        where = " OR ".join(["instr(lower(detail), lower(?))"] * len(needles))
        if not where:
            return 0
        if dry_run:
            return int(self._rows(f"SELECT count(*) FROM skill_usage WHERE {where}", needles)[0][0])
        with self._write() as conn:
            return int(conn.execute(f"UPDATE skill_usage SET detail = '' WHERE {where}", list(needles)).rowcount)

    # -- pins -----------------------------------------------------------------------------------

    def skill_pins(self) -> dict[tuple[str, str], float]:
        return {(str(r[0]), str(r[1])): float(r[2]) for r in self._rows("SELECT root, rel_path, at FROM skill_pins")}

    def add_skill_pin(self, *, root: str, rel_path: str, name: str, source: str, at: float, actor: str,
                      reason: str) -> bool:
        with self._write() as conn:
            return conn.execute(
                "INSERT OR IGNORE INTO skill_pins (root, rel_path, name, source, at, actor, reason) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (root, rel_path, name, source, at, actor, self.redactor.text(reason, what="the reason"))).rowcount > 0

    def remove_skill_pin(self, root: str, rel_path: str) -> bool:
        with self._write() as conn:
            return conn.execute("DELETE FROM skill_pins WHERE root = ? AND rel_path = ?", (root, rel_path)).rowcount > 0


def _version(r: Any) -> SkillVersionRow:
    return SkillVersionRow(number=int(r[0]), name=r[1], source=r[2], root=r[3], rel_path=r[4], action=r[5],
                           checksum=r[6], version_field=r[7], at=float(r[8]), actor=r[9], reason=r[10],
                           deleted=bool(r[11]))
