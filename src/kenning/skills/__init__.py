"""Skills: kenning's procedural memory, folders of ``SKILL.md`` + references, templates, scripts, assets.

    model         Skill, Requirements, Diagnostic, SkillVersion (frozen dataclasses)
    frontmatter   SKILL.md read leniently (with diagnostics), checked strictly before writes
    sources       project > user > built-in > extra roots, and the bounded walk over them
    index         the loaded library: precedence, shadowing, duplicates, lookup
    availability  platforms, binaries and environment variables a skill needs
    files         safe paths inside a skill, atomic writes, snapshots
    patch         fuzzy old -> new replacement
    duplicates    near-duplicates by meaning, checked before create
    versions      every state of a skill, in kenning.db (history, diff, rollback)
    usage         views and reported outcomes, in kenning.db
    manage        the write operations, each one transaction
    library       ``Skills``, what ``Kenning.skills`` is

    with Kenning.open() as kb:
        kb.skills.skills_list()["skills"]
        kb.skills.skill_view("kenning-memory")["content"]
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .library import MANAGE_ACTIONS, SkillDiff, Skills
    from .model import Diagnostic, Requirements, Skill, SkillVersion
    from .usage import OUTCOMES, UsageEvent, UsageStats

# public name -> the module defining it. Imported on first use: ``library`` pulls in numpy, the store and
# the gate (a third of a second), which ``from kenning.skills.frontmatter import X`` must not pay for.
_EXPORTS = {
    "Skills": "library", "SkillDiff": "library", "MANAGE_ACTIONS": "library",
    "Skill": "model", "Requirements": "model", "Diagnostic": "model", "SkillVersion": "model",
    "UsageStats": "usage", "UsageEvent": "usage", "OUTCOMES": "usage",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kenning.skills' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # looked up once
    return value


__all__ = [
    "Skills",
    "Skill",
    "Requirements",
    "Diagnostic",
    "SkillVersion",
    "SkillDiff",
    "UsageStats",
    "UsageEvent",
    "MANAGE_ACTIONS",
    "OUTCOMES",
]
