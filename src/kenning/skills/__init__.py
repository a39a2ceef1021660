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

from .library import MANAGE_ACTIONS, SkillDiff, Skills
from .model import Diagnostic, Requirements, Skill, SkillVersion
from .usage import OUTCOMES, UsageEvent, UsageStats

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
