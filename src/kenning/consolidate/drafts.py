"""Skill drafts proposed by agents (MCP ``skill_manage``) and consolidation: never registered automatically.

A draft is a ``SKILL.md`` kept under ``$KENNING_HOME/drafts/skills/<name>/`` with a ``draft.json``
saying where it came from. That folder belongs to no skills source, so the catalog, search and
lookups never see it. A person reviews drafts (``kenning skill review``), approves one (which goes
through the normal strict ``skill_manage("create")``, near-duplicate check included) or rejects it
(the draft moves to ``drafts/rejected/``, so nothing is lost). Every step is audited.

A draft of an edit remembers the SKILL.md it was based on (its text and SHA-256). Approving it
when the skill has changed since (a hand edit, another approved draft, a deletion), or approving a
draft of a new skill whose name has been taken since, would silently undo someone's work: it is
refused with ``DraftConflict``, which carries both differences (base -> draft, base -> current).
``force`` applies it anyway; the text it replaces stays in the skill's history as a version.

Every draft is scanned by the skill scanner (``Draft.scan``; its ``draft.json`` is left out, being
kenning's own metadata), when it is saved and again whenever it is read, since a person may edit
the draft file: the report is cached by content in the data directory's ``cache/`` folder. What the
verdict allows on approval: ``dangerous`` never (not even with ``force``: edit the draft or reject
it); ``caution`` only once a person has seen the findings and said yes (``accept_caution``); ``safe``
as before. Both refusals are ``UnsafeDraft``. ``review`` puts each draft beside the live skill it
creates or changes (the unified diff and its size) for ``kenning skill review``.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import re
import shutil
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import audit, fileio
from ..errors import Conflict, Forbidden, InvalidInput, NotFound
from ..timeutil import utcnow
from .answer import SkillDraft

if TYPE_CHECKING:
    from ..skills import Skill, Skills
    from ..skills.scan import Finding, ScanReport
    from ..store import Store

_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_CHARS = 100_000  # of a draft's SKILL.md, as of any SKILL.md kenning writes
_MAX_BYTES = MAX_CHARS * 4  # what that many characters can take in UTF-8
_SOURCE_ORDER = ("project", "user")  # which copy of a skill wins, as in skills.sources
SCAN_EXCLUDE = ("draft.json",)  # kenning's metadata beside a draft (with the base text), never loaded by an agent
TOP_FINDINGS = 3  # findings quoted where there is room for a few (the MCP answer, a refusal, the review list)


@dataclass(frozen=True)
class Draft:
    name: str
    description: str
    path: Path
    created_at: datetime
    origin: str
    action: str = "create"  # "create" a new skill, or "edit" (replace the SKILL.md of) an existing one
    skill: str = ""  # the skill the draft is for (its folder may carry a -2 suffix)
    base_checksum: str | None = None  # SHA-256 of the SKILL.md an edit was based on
    scan: ScanReport | None = field(default=None, compare=False)  # the draft folder as it was just read

    @property
    def verdict(self) -> str:
        return self.scan.verdict if self.scan is not None else "unscanned"

    def to_dict(self) -> dict[str, Any]:
        scan = None if self.scan is None else {
            "counts": self.scan.counts(), "findings": [f.to_dict() for f in self.scan.findings],
            "content_hash": self.scan.content_hash, "scanner_version": self.scan.scanner_version}
        return {"name": self.name, "skill": self.skill or self.name, "action": self.action,
                "description": self.description, "path": str(self.path),
                "created_at": self.created_at.isoformat(timespec="seconds"), "origin": self.origin,
                "base_checksum": self.base_checksum, "verdict": self.verdict, "scan": scan}


@dataclass(frozen=True)
class DraftReview:
    """A draft beside the live skill it would change: for an edit, the skill it edits; for a create,
    a skill that has taken the name since (else none). ``diff`` is live -> draft (for a create,
    nothing -> draft); ``conflict`` says why approving is refused until forced, when it is."""

    draft: Draft
    content: str  # the draft's SKILL.md, as read for this review
    live: str | None  # the live skill's qualified name
    live_path: Path | None
    diff: str
    added: int
    removed: int
    conflict: str | None = None
    problem: str | None = None  # why the draft's SKILL.md could not be read (then content and diff are empty)

    def to_dict(self) -> dict[str, Any]:
        return {**self.draft.to_dict(), "content": self.content, "problem": self.problem, "live": self.live,
                "live_path": None if self.live_path is None else str(self.live_path), "diff": self.diff,
                "added": self.added, "removed": self.removed, "conflict": self.conflict}


class DraftConflict(Conflict):
    """Approving a draft would undo what changed since it was written. ``str()`` is the summary and
    both differences; ``summary`` is the one line, ``to_dict()`` what ``--json`` prints."""

    def __init__(self, summary: str, *, draft: str, skill: str, base_to_draft: str, base_to_current: str) -> None:
        self.summary = summary
        self.draft = draft
        self.skill = skill
        self.base_to_draft = base_to_draft
        self.base_to_current = base_to_current
        super().__init__(f"{summary}\n\n{self.diffs()}")

    def diffs(self) -> str:
        same = "(no difference)\n"
        return (f"base -> draft:\n{self.base_to_draft or same}\n"
                f"base -> current:\n{self.base_to_current or same}")

    def to_dict(self) -> dict[str, Any]:
        return {"success": False, "error": "conflict", "message": self.summary, "draft": self.draft,
                "skill": self.skill, "base_to_draft": self.base_to_draft, "base_to_current": self.base_to_current}


class UnsafeDraft(Forbidden):
    """Approving refused by the draft's scan: ``dangerous`` always, ``caution`` until the findings
    are accepted. ``str()`` names the top findings and the way on; ``report`` holds them all."""

    def __init__(self, draft: Draft, report: ScanReport) -> None:
        self.draft = draft
        self.report = report
        self.needs_confirmation = report.verdict != "dangerous"
        name = draft.name
        if self.needs_confirmation:
            how = (f"approving it needs a confirmation that its findings are acceptable: run `kenning skill review "
                   f"approve {name}` in a terminal and answer yes, or pass --yes (accept_caution=True)")
        else:
            how = (f"it is never approved, not even with --force: edit {draft.path / 'SKILL.md'} to take out what was "
                   f"found (the scan runs again), or reject it: kenning skill review reject {name} --reason \"...\"")
        self.summary = f"skill draft {name!r} is {report.verdict} ({_counts(report)}); {how}"
        super().__init__(f"{self.summary}. Findings: {findings_text(report.findings)}")

    def to_dict(self) -> dict[str, Any]:
        return {"success": False, "error": "needs_confirmation" if self.needs_confirmation else "dangerous",
                "message": self.summary, "draft": self.draft.name, "verdict": self.report.verdict,
                "counts": self.report.counts(), "findings": [f.to_dict() for f in self.report.findings]}


def finding_text(f: Finding) -> str:
    """One finding on one line: where, what, what matched and why."""
    where = f.file + (f":{f.line}" if f.line else "")
    return f"{f.severity} {f.kind} at {where}: {f.match!r} ({f.reason})"


def findings_text(findings: tuple[Finding, ...], limit: int = TOP_FINDINGS) -> str:
    """The first ``limit`` findings (most severe first), and how many more there are."""
    text = "; ".join(finding_text(f) for f in findings[:limit]) or "none"
    return text + (f"; and {len(findings) - limit} more" if len(findings) > limit else "")


def _counts(report: ScanReport) -> str:
    return ", ".join(f"{n} {s}" for s, n in report.counts().items() if n) or "no findings"


def skill_md(draft: SkillDraft) -> str:
    return f"---\nname: {draft.name}\ndescription: {json.dumps(draft.description, ensure_ascii=False)}\n---\n\n{draft.body.strip()}\n"


class Drafts:
    def __init__(self, home: Path, store: Store, *, actor: str = "api", cache_dir: Path | None = None) -> None:
        self.root = home / "drafts" / "skills"
        self.rejected = home / "drafts" / "rejected"
        self.cache_dir = cache_dir if cache_dir is not None else home / "cache"  # Settings.cache_dir
        self.store = store
        self.actor = actor

    def save(self, draft: SkillDraft, origin: str) -> Draft:
        """Keep a proposed new skill (a name already taken by a draft gets ``-2``, ``-3`` …)."""
        return self.save_text(draft.name, skill_md(draft), origin=origin)

    def save_text(self, name: str, content: str, *, origin: str, action: str = "create",
                  base: str | None = None) -> Draft:
        """Keep a whole SKILL.md as a draft: of a new skill (``create``) or of a change to the
        existing skill ``name`` (``edit``). Approval validates it strictly; saving only checks the name.
        ``base``: the SKILL.md text an edit was made from (default: the skill's file as it is now,
        found where its history says it lives)."""
        skill_name = name.strip().lower() if isinstance(name, str) else ""
        if not _NAME.match(skill_name) or len(skill_name) > 60:
            raise InvalidInput(f"skill draft name {name!r} must be lowercase letters, digits and single hyphens")
        if action not in ("create", "edit"):
            raise InvalidInput(f"a draft is a 'create' or an 'edit', not {action!r}")
        if not isinstance(content, str) or not content.strip() or len(content) > MAX_CHARS:
            raise InvalidInput(f"a skill draft needs the whole SKILL.md text (at most {MAX_CHARS:,} characters)")
        if base is not None and not isinstance(base, str):
            raise InvalidInput(f"a draft's base must be the SKILL.md text it was made from, got {type(base).__name__}")
        if action == "edit" and base is None:
            base = self._current_text(skill_name)
        # a draft is a file of the data directory like any other: secrets masked before it is written
        # (secrets only, as in skills: their example addresses are normal)
        masked = self.store.redactor.redaction(content, secrets_only=True, what="the skill draft")
        content = masked.text
        if base is not None:
            base = self.store.redactor.text(base, secrets_only=True, what="the skill draft's base")
        folder_name, n = skill_name, 2
        with fileio.locked(self.root / ".drafts"):
            while (self.root / folder_name).exists():
                folder_name, n = f"{skill_name}-{n}", n + 1
            folder = self.root / folder_name
            folder.mkdir(parents=True)
            text = content if action == "edit" else _renamed(content, skill_name, folder_name)
            fileio.atomic_write(folder / "SKILL.md", text.encode("utf-8"))
            meta = {"created_at": utcnow().isoformat(), "origin": self.store.redactor.text(origin, what="the origin"),
                    "action": action, "skill": skill_name,
                    "base": None if action == "create" or base is None else
                    {"sha256": _sha256(base.encode("utf-8")), "text": base}}
            fileio.atomic_write(folder / "draft.json", json.dumps(meta).encode("utf-8"))
        saved = self._load(folder)
        audit.record_event(self.store, "skill_draft", kind="skill", actor=self.actor, reason=origin,
                           after={"name": folder_name, "skill": skill_name, "action": action, "path": str(folder),
                                  "masked": dict(masked.found), **_scan_fields(saved)})
        return saved

    def _current_text(self, name: str) -> str | None:
        """The SKILL.md of skill ``name`` as it is now, found where its history says it lives (the
        project's copy before the user's); None when kenning has never recorded it."""
        from ..skills.versions import locations_named  # the skills package is loaded only when needed

        places = locations_named(self.store, name)
        for loc in sorted(places, key=lambda p: _SOURCE_ORDER.index(p.source) if p.source in _SOURCE_ORDER else 9):
            data = _read(loc.path / "SKILL.md", missing_ok=True)
            if data is not None:
                return data.decode("utf-8", errors="replace")
        return None

    def list(self) -> list[Draft]:
        """Every draft, oldest folder name first, each with its scan."""
        return [self._load(p) for p in self._folders()]

    def get(self, name: str) -> Draft:
        folder = self._folder(name)
        return self._load(folder)

    def review(self, skills: Skills, name: str | None = None) -> builtins.list[DraftReview]:
        """Every draft (or just draft ``name``) beside the live skill it would create or change."""
        folders = [self._folder(name)] if name is not None else self._folders()
        return [self._review(folder, skills) for folder in folders]

    def _review(self, folder: Path, skills: Skills) -> DraftReview:
        from ..skills.diff import file_diff

        try:
            content = _read(folder / "SKILL.md") or b""
        except InvalidInput as exc:  # one oversized draft must not hide the others: listed, with why
            draft = self._load(folder)
            return DraftReview(draft, "", None, None, "", 0, 0, problem=str(exc))
        draft = self._load(folder)
        target = self._target(draft, folder, skills)
        conflict = self._conflict(draft, folder, content.decode("utf-8", errors="replace"), target)
        # an edit is shown against the skill as it is now; a create against nothing, as it will be made
        current = _read(target.skill_md, missing_ok=True) if target is not None and draft.action == "edit" else None
        diff = file_diff("SKILL.md", current, content, "live", "draft")
        added, removed = _diff_stat(diff)
        return DraftReview(draft, content.decode("utf-8", errors="replace"), target.qualified if target else None,
                           target.path if target else None, diff, added, removed,
                           conflict.summary if conflict else None)

    def approve(self, name: str, skills: Skills, *, force: bool = False, accept_caution: bool = False,
                reviewed: str | None = None) -> dict[str, Any]:
        """Apply the draft through the strict ``create`` (or ``edit`` of the existing skill); the
        draft is removed after. Refused with ``UnsafeDraft`` when its scan is ``dangerous`` (always)
        or ``caution`` (unless ``accept_caution``: a person saw the findings and said yes). Refused
        with DraftConflict when the skill changed since the draft was written (or a new skill's name
        was taken since), unless ``force``: then the current text is kept in the skill's history
        and the draft applied over it. ``reviewed``: the scan's content hash the person looked at;
        a draft changed since is refused (Conflict), so what is applied is what was reviewed."""
        folder = self._folder(name)
        skill_file = folder / "SKILL.md"
        draft, report, raw = self._scanned(folder, reviewed)
        if report.verdict == "dangerous":
            audit.record_event(self.store, "skill_draft_block", kind="skill", actor=self.actor,
                               reason="a dangerous draft is never approved", after={"name": folder.name,
                                                                                     **_scan_fields(draft)})
            raise UnsafeDraft(draft, report)
        content = raw.decode("utf-8", errors="replace")
        target = self._target(draft, folder, skills)
        conflict = self._conflict(draft, folder, content, target)
        if conflict is not None and not force:
            raise conflict
        if report.verdict == "caution" and not accept_caution:
            raise UnsafeDraft(draft, report)
        if (_read(skill_file) or b"") != raw:  # edited while it was being scanned: the scan may not be of this
            raise Conflict(f"skill draft {folder.name!r} changed while it was being approved; nothing was changed: "
                           "review it again")
        result = self._apply(draft, folder, content, target, skills, force=force, conflict=conflict is not None)
        shutil.rmtree(folder)
        why = [w for w, on in (("forced past a conflict", conflict is not None),
                               ("caution findings accepted", report.verdict == "caution")) if on]
        audit.record_event(self.store, "skill_draft_approve", kind="skill", actor=self.actor, reason="; ".join(why),
                           after={"name": folder.name, "path": result.get("path"), **_scan_fields(draft)})
        return result

    def _scanned(self, folder: Path, reviewed: str | None) -> tuple[Draft, ScanReport, bytes]:
        """The draft, its scan and its SKILL.md's bytes, read for approval: refused when that file
        is a link or the draft is not the one reviewed."""
        skill_file = folder / "SKILL.md"
        if skill_file.is_symlink():  # what the link points to was never scanned as part of the draft
            raise Forbidden(f"skill draft {folder.name!r}: its SKILL.md is a link to {skill_file.resolve()}; a draft "
                            "is approved from the text it holds: replace the link with that text, or reject the draft")
        raw = _read(skill_file) or b""
        draft = self._load(folder)
        report = draft.scan if draft.scan is not None else self._scan(folder)
        if reviewed is not None and report.content_hash != reviewed:
            raise Conflict(f"skill draft {folder.name!r} changed since it was reviewed; nothing was changed: review it "
                           f"again (kenning skill review show {folder.name})")
        return draft, report, raw

    @staticmethod
    def _apply(draft: Draft, folder: Path, content: str, target: Skill | None, skills: Skills, *, force: bool,
               conflict: bool) -> dict[str, Any]:
        reason = "approved skill draft" + (" over changes made since it was written" if conflict else "")
        writable = target is not None and any(s.root == target.root and s.writable for s in skills.sources)
        if target is not None and (draft.action == "edit" or writable):
            return skills.skill_manage("edit", target.qualified, content=content, reason=reason)
        # a new skill, an edit of one deleted since, or a user copy over a read-only one
        skill_name = draft.skill if draft.action == "edit" else folder.name
        return skills.skill_manage("create", skill_name, content=content, force=force, reason=reason)

    @staticmethod
    def _target(draft: Draft, folder: Path, skills: Skills) -> Skill | None:
        """The skill the draft would change: the one it edits, or the one now holding a new skill's name."""
        try:
            return skills.get(draft.skill if draft.action == "edit" else folder.name)
        except NotFound:
            return None

    def _conflict(self, draft: Draft, folder: Path, content: str, target: Skill | None) -> DraftConflict | None:
        """Why approving would undo someone's work, with both differences; None when it would not."""
        from ..skills.diff import file_diff

        base = self._base(folder)
        current = _read(target.skill_md, missing_ok=True) if target is not None else None
        if draft.action == "create":
            if target is None:
                return None
            why = (f"a skill named {folder.name!r} was made since draft {draft.name!r} was written "
                   f"({target.source}: {target.path})")
        elif current is None:
            why = f"skill {draft.skill!r} was deleted since draft {draft.name!r} was written"
        elif base is None:
            why = (f"draft {draft.name!r} does not record which text of skill {draft.skill!r} it was based on "
                   "(saved by an older kenning), so approving it could undo changes; the difference shown is "
                   "current -> draft")
            return DraftConflict(why + _HOW, draft=draft.name, skill=draft.skill,
                                 base_to_draft=file_diff("SKILL.md", current, content.encode(), "current", "draft"),
                                 base_to_current="")
        elif _sha256(current) == _sha256(base):
            return None
        else:
            why = f"skill {draft.skill!r} changed since draft {draft.name!r} was written"
        return DraftConflict(why + _HOW, draft=draft.name, skill=draft.skill or folder.name,
                             base_to_draft=file_diff("SKILL.md", base, content.encode(), "base", "draft"),
                             base_to_current=file_diff("SKILL.md", base, current, "base", "current"))

    def _base(self, folder: Path) -> bytes | None:
        base = self._meta(folder).get("base")
        text = base.get("text") if isinstance(base, dict) else None
        return text.encode("utf-8") if isinstance(text, str) else None

    def reject(self, name: str, reason: str = "") -> Draft:
        folder = self._folder(name)
        draft = self._load(folder)
        target = self.rejected / f"{folder.name}-{utcnow().strftime('%Y%m%d%H%M%S')}"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(folder), str(target))
        audit.record_event(self.store, "skill_draft_reject", kind="skill", actor=self.actor, reason=reason,
                           before={"name": folder.name}, after={"path": str(target), **_scan_fields(draft)})
        return draft

    def _folders(self) -> builtins.list[Path]:
        if not self.root.is_dir():
            return []
        return [p for p in sorted(self.root.iterdir()) if (p / "SKILL.md").is_file()]

    def _folder(self, name: object) -> Path:
        if not isinstance(name, str) or not _NAME.match(name.strip()):
            raise InvalidInput(f"draft name must be lowercase letters, digits and hyphens, got {name!r}")
        folder = self.root / name.strip()
        if not (folder / "SKILL.md").is_file():
            names = ", ".join(p.name for p in self._folders()) or "none"
            raise NotFound(f"no skill draft {name!r}; drafts: {names}")
        return folder

    @staticmethod
    def _meta(folder: Path) -> dict[str, Any]:
        try:
            meta = json.loads((_read(folder / "draft.json") or b"{}").decode("utf-8"))
        except (InvalidInput, ValueError):
            return {}
        return meta if isinstance(meta, dict) else {}

    def _load(self, folder: Path) -> Draft:
        meta = self._meta(folder)
        try:
            text = (_read(folder / "SKILL.md") or b"").decode("utf-8", errors="replace")
        except InvalidInput:
            text = ""
        m = re.search(r"^description:\s*(.+)$", text, re.M)
        description = m.group(1).strip() if m else ""
        if description.startswith('"'):
            try:
                description = json.loads(description)
            except ValueError:
                pass
        created = meta.get("created_at")
        base = meta.get("base")
        return Draft(folder.name, description, folder,
                     datetime.fromisoformat(created) if isinstance(created, str) else utcnow(),
                     str(meta.get("origin", "")), str(meta.get("action", "create")),
                     str(meta.get("skill", folder.name)),
                     str(base["sha256"]) if isinstance(base, dict) and "sha256" in base else None,
                     self._scan(folder))

    def _scan(self, folder: Path) -> ScanReport:
        """The scan of the draft folder as it is now (cached by content), its metadata left out."""
        from ..skills.scan import scan_skill

        return scan_skill(folder, cache_dir=self.cache_dir, exclude=SCAN_EXCLUDE)


_HOW = ("; nothing was changed. Compare the differences, then edit the draft, reject it, or approve it with "
        "--force (force=True): the current text stays in the skill's history as a version")


def _scan_fields(draft: Draft) -> dict[str, Any]:
    """What an audit row keeps of a draft's scan: the verdict and how many findings of each severity."""
    scan = draft.scan
    if scan is None:
        return {"verdict": draft.verdict}
    return {"verdict": scan.verdict, "findings": len(scan.findings), "counts": scan.counts(),
            "content_hash": scan.content_hash, "scanner_version": scan.scanner_version}


def _diff_stat(diff: str) -> tuple[int, int]:
    """Lines added and removed by one file's unified diff (its two header lines not counted)."""
    lines = diff.splitlines()
    body = lines[next((i for i, line in enumerate(lines) if line.startswith("@@")), len(lines)):]
    added = sum(1 for line in body if line.startswith("+"))
    return added, sum(1 for line in body if line.startswith("-"))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read(path: Path, *, missing_ok: bool = False) -> bytes | None:
    """A draft's or skill's file, its size checked before its bytes are read (None: missing, if allowed)."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        if missing_ok:
            return None
        raise NotFound(f"{path} is gone") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from None
    if size > _MAX_BYTES:
        raise InvalidInput(f"{path} is {size:,} bytes; a SKILL.md or draft file holds at most {_MAX_BYTES:,}, "
                           "so it was not read")
    with path.open("rb") as fh:
        data = fh.read(_MAX_BYTES + 1)
    if len(data) > _MAX_BYTES:
        raise InvalidInput(f"{path} grew past {_MAX_BYTES:,} bytes while being read")
    return data


def _renamed(content: str, old: str, new: str) -> str:
    """A new skill's front-matter name follows its draft folder's (``deploy`` kept as ``deploy-2``)."""
    if old == new:
        return content
    return re.sub(rf"^name:\s*['\"]?{re.escape(old)}['\"]?\s*$", f"name: {new}", content, count=1, flags=re.M)
