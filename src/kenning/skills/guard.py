"""Skills kenning did not vet on the way in (placed by hand, copied, unpacked, synced) are scanned when
first seen, and again when they change; a ``dangerous`` one stays out of what a model is shown (the
catalog, search, ``skill_view``, ``context``) until a person approves it (``kenning skill approve``).

The guard runs when the loaded library changes (``Loader`` saw a folder or SKILL.md move, in this
process or in another), not on every call: for each skill it takes a fingerprint of its files
(``stat`` of each: path, size, modification time, inode) and scans only the skills whose fingerprint
is new (the scanner's own cache, by content hash, makes a rescan of known content cheap). The result
is kept in ``<cache>/skill-guard.json`` keyed by the library's manifest, so a new process with an
unchanged library reads it instead of walking every skill. An edit in place of a linked file alone,
which changes neither SKILL.md nor a folder, is seen at the next change of the library (any skill
added, removed, or its SKILL.md saved) or by ``kenning skill scan``.

Built-in skills ship with kenning and are never held back. An approval names the skill folder and the
content hash it was given for: changing the skill afterwards makes it a new, unapproved state, scanned
again. Approvals are kept in ``$KENNING_HOME/skill-approvals.json``; each one is audited.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import audit, fileio
from ..errors import InvalidInput
from ..store import Store
from ..timeutil import utcnow
from .index import SkillIndex
from .model import Skill
from .scanning.model import SCANNER_VERSION, ScanReport  # the rules (a fifth of a second) load on a scan

_FORMAT = 1
_MAX_FINGERPRINT_ENTRIES = 2000  # the scanner reports a skill with more than 200 files anyway
UNCHECKED = "builtin"  # the source whose skills are never held back


@dataclass(frozen=True)
class Verdict:
    """What the scanner said about one skill folder as it is now."""

    verdict: str
    content_hash: str
    counts: dict[str, int]
    top: tuple[str, ...] = ()  # the most severe findings, one line each

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "content_hash": self.content_hash, "counts": dict(self.counts),
                "top": list(self.top)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verdict:
        return cls(str(data["verdict"]), str(data["content_hash"]),
                   {str(k): int(v) for k, v in dict(data["counts"]).items()}, tuple(str(t) for t in data["top"]))

    @classmethod
    def of(cls, report: ScanReport) -> Verdict:
        top = tuple(f"{f.severity} {f.kind} in {f.file}{'' if f.line is None else f' line {f.line}'}: {f.reason}"
                    for f in report.findings[:3])
        return cls(report.verdict, report.content_hash, report.counts(), top)


@dataclass(frozen=True)
class Guarded:
    """The guard's view of one loaded library: each scanned skill's verdict (by folder), and which of
    them are held back. ``model_index`` is the library without them."""

    verdicts: dict[Path, Verdict]
    held: frozenset[Path]
    approved: frozenset[Path]
    model_index: SkillIndex

    def verdict(self, skill: Skill) -> str | None:
        found = self.verdicts.get(skill.path)
        return found.verdict if found else None


def fingerprint(folder: Path) -> str:
    """The ``stat`` of every file and link under ``folder``: equal while nothing in it was touched."""
    digest = hashlib.sha256()
    count = 0
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames.sort()
        for name in sorted(filenames) + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            digest.update(f"{os.path.relpath(path, folder)}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\n".encode(
                "utf-8", "surrogateescape"))
            count += 1
            if count >= _MAX_FINGERPRINT_ENTRIES:
                return digest.hexdigest()
    return digest.hexdigest()


class SkillGuard:
    """Scans the skills of a library as they appear or change; holds back the dangerous ones."""

    def __init__(self, store: Store, *, cache_dir: Path, approvals_file: Path, actor: str) -> None:
        self.store = store
        self.cache_dir = cache_dir
        self.cache_file = cache_dir / "skill-guard.json"
        self.approvals_file = approvals_file
        self.actor = actor
        # (the index, approvals stamp, result): the index itself, not its id, which a later index may reuse
        self._last: tuple[SkillIndex, str, Guarded] | None = None
        self._known: dict[str, tuple[str, Verdict]] | None = None  # folder -> (fingerprint, verdict)

    def guarded(self, index: SkillIndex, manifest_digest: str) -> Guarded:
        """The guard's view of ``index`` (whose manifest digest is ``manifest_digest``)."""
        stamp = self.approvals_stamp()
        if self._last is not None and self._last[0] is index and self._last[1] == stamp:
            return self._last[2]
        approvals = self._approvals()
        saved = self._read_cache()
        key = f"{manifest_digest}:{SCANNER_VERSION}"
        if saved.get("manifest") == key:
            verdicts = {Path(p): v for p, (_, v) in _known_of(saved).items()}
        else:
            verdicts = self._scan_changed(index, saved)
            self._write_cache(key)
        result = self._result(index, verdicts, approvals)
        self._last = (index, stamp, result)
        return result

    def _scan_changed(self, index: SkillIndex, saved: dict[str, Any]) -> dict[Path, Verdict]:
        if self._known is None:
            self._known = _known_of(saved)
        known: dict[str, tuple[str, Verdict]] = {}
        for skill in index.skills:
            if skill.source == UNCHECKED:
                continue
            where = str(skill.path)
            mark = fingerprint(skill.path)
            old = self._known.get(where)
            if old is not None and old[0] == mark:
                known[where] = old
                continue
            from .scan import scan_skill

            try:
                report = scan_skill(skill.path, cache_dir=self.cache_dir)
            except (InvalidInput, OSError):
                continue  # gone since the load: the next load will not list it
            known[where] = (mark, Verdict.of(report))
        self._known = known
        return {Path(p): v for p, (_, v) in known.items()}

    def _result(self, index: SkillIndex, verdicts: dict[Path, Verdict],
                approvals: dict[str, dict[str, Any]]) -> Guarded:
        approved = frozenset(p for p, v in verdicts.items()
                             if approvals.get(str(p), {}).get("content_hash") == v.content_hash)
        held = frozenset(p for p, v in verdicts.items() if v.verdict == "dangerous" and p not in approved)
        model = index if not held else SkillIndex(index.sources, tuple(s for s in index.skills if s.path not in held),
                                                   index.diagnostics)
        return Guarded(verdicts, held, approved, model)

    # -- approvals ---------------------------------------------------------------------------------

    def approve(self, skill: Skill, report: ScanReport, *, reason: str = "") -> dict[str, Any]:
        """Let ``skill`` in as it is now (``report``: its scan). Audited; recorded by content hash."""
        with fileio.locked(self.approvals_file.with_name(self.approvals_file.name + ".lock")):
            approvals = self._approvals()
            approvals[str(skill.path)] = {"name": skill.name, "content_hash": report.content_hash,
                                          "verdict": report.verdict, "counts": report.counts(),
                                          "at": utcnow().isoformat(timespec="seconds"), "actor": self.actor,
                                          "reason": reason}
            fileio.atomic_write(self.approvals_file, json.dumps(approvals, ensure_ascii=False, indent=1)
                                .encode("utf-8"))
        audit.record_event(self.store, "skill_approve", kind="skill", scope=skill.source, actor=self.actor,
                           reason=reason, after={"name": skill.name, "path": str(skill.path),
                                                 "content_hash": report.content_hash, "verdict": report.verdict,
                                                 "counts": report.counts()})
        self._last = None
        return approvals[str(skill.path)]

    def approvals_stamp(self) -> str:
        try:
            st = self.approvals_file.stat()
        except OSError:
            return ""
        return f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}"

    def _approvals(self) -> dict[str, dict[str, Any]]:
        raw = fileio.read_or_none(self.approvals_file, 8 << 20, what="the skill approvals")
        if raw is None:
            return {}
        try:
            data = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise InvalidInput(f"{self.approvals_file} is not valid JSON; fix it or move it away (every skill it "
                               "approved is then held back again until approved)") from None
        if not isinstance(data, dict):
            raise InvalidInput(f"{self.approvals_file} must hold a JSON object of approvals")
        return {str(k): v for k, v in data.items() if isinstance(v, dict)}

    # -- the cache file ----------------------------------------------------------------------------

    def _read_cache(self) -> dict[str, Any]:
        try:
            data = json.loads(self.cache_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) and data.get("format") == _FORMAT else {}

    def _write_cache(self, manifest: str) -> None:
        known = self._known or {}
        body = {"format": _FORMAT, "manifest": manifest,
                "known": {p: {"fingerprint": f, "verdict": v.to_dict()} for p, (f, v) in known.items()}}
        try:
            fileio.atomic_write(self.cache_file, json.dumps(body, ensure_ascii=False).encode("utf-8"))
        except OSError:
            pass  # a cache that cannot be written is only slower


def _known_of(saved: dict[str, Any]) -> dict[str, tuple[str, Verdict]]:
    """The cache file's skills: folder -> (fingerprint, verdict); a damaged entry is scanned again."""
    out: dict[str, tuple[str, Verdict]] = {}
    for path, entry in dict(saved.get("known", {})).items():
        try:
            out[str(path)] = (str(entry["fingerprint"]), Verdict.from_dict(entry["verdict"]))
        except (KeyError, TypeError, ValueError):
            continue
    return out
