"""Skill drafts proposed by consolidation: never registered automatically.

A draft is a ``SKILL.md`` kept under ``$KENNING_HOME/drafts/skills/<name>/`` with a ``draft.json``
saying where it came from. That folder belongs to no skills source, so the catalog, search and
lookups never see it. A person lists drafts (``kenning skill drafts``), approves one (which goes
through the normal strict ``skill_manage("create")``, near-duplicate check included) or rejects it
(the draft moves to ``drafts/rejected/``, so nothing is lost). Every step is audited.

A draft of an edit remembers the SKILL.md it was based on (its text and SHA-256). Approving it
when the skill has changed since (a hand edit, another approved draft, a deletion), or approving a
draft of a new skill whose name has been taken since, would silently undo someone's work: it is
refused with ``DraftConflict``, which carries both differences (base -> draft, base -> current).
``force`` applies it anyway; the text it replaces stays in the skill's history as a version.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import audit, fileio
from ..errors import Conflict, InvalidInput, NotFound
from ..timeutil import utcnow
from .answer import SkillDraft

if TYPE_CHECKING:
    from ..skills import Skill, Skills
    from ..store import Store

_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_CHARS = 100_000  # of a draft's SKILL.md, as of any SKILL.md kenning writes
_MAX_BYTES = MAX_CHARS * 4  # what that many characters can take in UTF-8
_SOURCE_ORDER = ("project", "user")  # which copy of a skill wins, as in skills.sources


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

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "skill": self.skill or self.name, "action": self.action,
                "description": self.description, "path": str(self.path),
                "created_at": self.created_at.isoformat(timespec="seconds"), "origin": self.origin,
                "base_checksum": self.base_checksum}


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


def skill_md(draft: SkillDraft) -> str:
    return f"---\nname: {draft.name}\ndescription: {json.dumps(draft.description, ensure_ascii=False)}\n---\n\n{draft.body.strip()}\n"


class Drafts:
    def __init__(self, home: Path, store: Store, *, actor: str = "api") -> None:
        self.root = home / "drafts" / "skills"
        self.rejected = home / "drafts" / "rejected"
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
        audit.record_event(self.store, "skill_draft", kind="skill", actor=self.actor, reason=origin,
                           after={"name": folder_name, "skill": skill_name, "action": action, "path": str(folder),
                                  "masked": dict(masked.found)})
        return self._load(folder)

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
        if not self.root.is_dir():
            return []
        return [self._load(p) for p in sorted(self.root.iterdir()) if (p / "SKILL.md").is_file()]

    def get(self, name: str) -> Draft:
        folder = self._folder(name)
        return self._load(folder)

    def approve(self, name: str, skills: Skills, *, force: bool = False) -> dict[str, Any]:
        """Apply the draft through the strict ``create`` (or ``edit`` of the existing skill); the
        draft is removed after. DraftConflict when the skill changed since the draft was written
        (or a new skill's name was taken since), unless ``force``: then the current text is kept
        in the skill's history and the draft applied over it."""
        folder = self._folder(name)
        draft = self._load(folder)
        content = (_read(folder / "SKILL.md") or b"").decode("utf-8", errors="replace")
        target = self._target(draft, folder, skills)
        conflict = self._conflict(draft, folder, content, target)
        if conflict is not None and not force:
            raise conflict
        reason = "approved skill draft" + (" over changes made since it was written" if conflict else "")
        writable = target is not None and any(s.root == target.root and s.writable for s in skills.sources)
        if target is not None and (draft.action == "edit" or writable):
            result = skills.skill_manage("edit", target.qualified, content=content, reason=reason)
        else:  # a new skill, an edit of one deleted since, or a user copy over a read-only one
            skill_name = draft.skill if draft.action == "edit" else folder.name
            result = skills.skill_manage("create", skill_name, content=content, force=force, reason=reason)
        shutil.rmtree(folder)
        audit.record_event(self.store, "skill_draft_approve", kind="skill", actor=self.actor,
                           reason="forced past a conflict" if conflict else "",
                           after={"name": folder.name, "path": result.get("path")})
        return result

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
                           before={"name": folder.name}, after={"path": str(target)})
        return draft

    def _folder(self, name: object) -> Path:
        if not isinstance(name, str) or not _NAME.match(name.strip()):
            raise InvalidInput(f"draft name must be lowercase letters, digits and hyphens, got {name!r}")
        folder = self.root / name.strip()
        if not (folder / "SKILL.md").is_file():
            names = ", ".join(d.name for d in self.list()) or "none"
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
                     str(base["sha256"]) if isinstance(base, dict) and "sha256" in base else None)


_HOW = ("; nothing was changed. Compare the differences, then edit the draft, reject it, or approve it with "
        "--force (force=True): the current text stays in the skill's history as a version")


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
