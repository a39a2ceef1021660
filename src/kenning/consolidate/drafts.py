"""Skill drafts proposed by consolidation: never registered automatically.

A draft is a ``SKILL.md`` kept under ``$KENNING_HOME/drafts/skills/<name>/`` with a ``draft.json``
saying where it came from. That folder belongs to no skills source, so the catalog, search and
lookups never see it. A person lists drafts (``kenning skill drafts``), approves one (which goes
through the normal strict ``skill_manage("create")``, near-duplicate check included) or rejects it
(the draft moves to ``drafts/rejected/``, so nothing is lost). Every step is audited.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import audit, fileio
from ..errors import InvalidInput, NotFound
from ..timeutil import utcnow
from .answer import SkillDraft

if TYPE_CHECKING:
    from ..skills import Skills
    from ..store import Store

_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Draft:
    name: str
    description: str
    path: Path
    created_at: datetime
    origin: str
    action: str = "create"  # "create" a new skill, or "edit" (replace the SKILL.md of) an existing one
    skill: str = ""  # the skill the draft is for (its folder may carry a -2 suffix)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "skill": self.skill or self.name, "action": self.action,
                "description": self.description, "path": str(self.path),
                "created_at": self.created_at.isoformat(timespec="seconds"), "origin": self.origin}


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

    def save_text(self, name: str, content: str, *, origin: str, action: str = "create") -> Draft:
        """Keep a whole SKILL.md as a draft: of a new skill (``create``) or of a change to the
        existing skill ``name`` (``edit``). Approval validates it strictly; saving only checks the name."""
        base = name.strip().lower() if isinstance(name, str) else ""
        if not _NAME.match(base) or len(base) > 60:
            raise InvalidInput(f"skill draft name {name!r} must be lowercase letters, digits and single hyphens")
        if action not in ("create", "edit"):
            raise InvalidInput(f"a draft is a 'create' or an 'edit', not {action!r}")
        if not isinstance(content, str) or not content.strip() or len(content) > 100_000:
            raise InvalidInput("a skill draft needs the whole SKILL.md text (at most 100,000 characters)")
        folder_name, n = base, 2
        with fileio.locked(self.root / ".drafts"):
            while (self.root / folder_name).exists():
                folder_name, n = f"{base}-{n}", n + 1
            folder = self.root / folder_name
            folder.mkdir(parents=True)
            text = content if action == "edit" else _renamed(content, base, folder_name)
            fileio.atomic_write(folder / "SKILL.md", text.encode("utf-8"))
            meta = {"created_at": utcnow().isoformat(), "origin": origin, "action": action, "skill": base}
            fileio.atomic_write(folder / "draft.json", json.dumps(meta).encode("utf-8"))
        audit.record_event(self.store, "skill_draft", kind="skill", actor=self.actor, reason=origin,
                           after={"name": folder_name, "skill": base, "action": action, "path": str(folder)})
        return self._load(folder)

    def list(self) -> list[Draft]:
        if not self.root.is_dir():
            return []
        return [self._load(p) for p in sorted(self.root.iterdir()) if (p / "SKILL.md").is_file()]

    def get(self, name: str) -> Draft:
        folder = self._folder(name)
        return self._load(folder)

    def approve(self, name: str, skills: Skills, *, force: bool = False) -> dict[str, Any]:
        """Apply the draft through the strict ``create`` (or ``edit`` of the existing skill); the
        draft is removed after."""
        folder = self._folder(name)
        draft = self._load(folder)
        content = (folder / "SKILL.md").read_text(encoding="utf-8")
        if draft.action == "edit":
            result = skills.skill_manage("edit", draft.skill, content=content, reason="approved skill draft")
        else:
            result = skills.skill_manage("create", folder.name, content=content, force=force,
                                         reason="approved skill draft")
        shutil.rmtree(folder)
        audit.record_event(self.store, "skill_draft_approve", kind="skill", actor=self.actor,
                           after={"name": folder.name, "path": result.get("path")})
        return result

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

    def _load(self, folder: Path) -> Draft:
        try:
            meta = json.loads((folder / "draft.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {}
        text = (folder / "SKILL.md").read_text(encoding="utf-8", errors="replace")
        m = re.search(r"^description:\s*(.+)$", text, re.M)
        description = m.group(1).strip() if m else ""
        if description.startswith('"'):
            try:
                description = json.loads(description)
            except ValueError:
                pass
        created = meta.get("created_at")
        return Draft(folder.name, description, folder,
                     datetime.fromisoformat(created) if isinstance(created, str) else utcnow(),
                     str(meta.get("origin", "")), str(meta.get("action", "create")),
                     str(meta.get("skill", folder.name)))


def _renamed(content: str, old: str, new: str) -> str:
    """A new skill's front-matter name follows its draft folder's (``deploy`` kept as ``deploy-2``)."""
    if old == new:
        return content
    return re.sub(rf"^name:\s*['\"]?{re.escape(old)}['\"]?\s*$", f"name: {new}", content, count=1, flags=re.M)
