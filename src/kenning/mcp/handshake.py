"""What ``kenning mcp`` answers without the SDK or the store: the ``initialize`` result, and the
listings that need neither (tools, prompts, resource templates, resources), as JSON-ready dicts
under the protocol's own names.

``server`` hands these very dicts to the SDK, and ``front`` sends them over stdio while the SDK and
the store are still loading, so the early and the late answers cannot drift apart (tests compare
both with what the SDK answers itself). Nothing here imports the SDK.

The resources are the scope's hot memory files and each visible skill's SKILL.md. The library lists
the skills after settling what a killed writer left in the skill folders (``skills.repair``), which
needs the store; ``early_skills`` reads the same roots (``skill_sources``) with the library's own
loader (front matter parsed as the library parses it: no second parser to drift, and no catalog
cache, whose descriptions are shortened to a budget) and gives up when there is anything to settle
that could change the list, so that the early answer is the one the library would give.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..models import DEFAULT_SCOPE
from ..tiers.hotfile import FILES, USER_FILE
from .tools import TOOLS

if TYPE_CHECKING:
    from ..skills.model import Skill
    from ..skills.sources import Source

# the SDK's HANDSHAKE_PROTOCOL_VERSIONS (mcp_types.version), oldest first: what the initialize handshake
# negotiates; the SDK answers a version it does not know with the newest of them
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
# what the SDK derives from the handlers server.build_server registers
CAPABILITIES = {"prompts": {"listChanged": False}, "resources": {"subscribe": False, "listChanged": False},
                "tools": {"listChanged": False}}
HOT_URI = "kenning://hot/"
SKILL_URI = "kenning://skills/"
PROMPT = "task_context"
INSTRUCTIONS = (
    "kenning is your lasting memory and skills library. At the start of a session or task call "
    "context_build(task). Before a multi-step task call skills_search and follow the skill you open with "
    "skill_view. When the user states a durable preference or fact call memory_remember; after something "
    "failed or succeeded unexpectedly call lesson_record. At the end of a session call session_consolidate "
    "with the conversation. Skills you create or change are drafts until a person approves them. "
    "Memories (facts, lessons, entities, notes, hot memory) live in scopes: every memory tool acts in the "
    "scope {scope!r} unless you pass scope, and an id from another scope is not found there; skills are shared."
)


def negotiated(requested: object) -> str:
    """The protocol version the server answers a client's ``initialize`` with (as the SDK picks it)."""
    return requested if isinstance(requested, str) and requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]


def initialize_result(requested: object, scope: str = DEFAULT_SCOPE) -> dict[str, Any]:
    return {"protocolVersion": negotiated(requested), "capabilities": CAPABILITIES,
            "serverInfo": {"name": "kenning", "version": server_version()},
            "instructions": INSTRUCTIONS.format(scope=scope)}


def tools_result(scope: str = DEFAULT_SCOPE) -> dict[str, Any]:
    return {"tools": [spec.listing(scope) for spec in TOOLS.values()]}


def prompts_result() -> dict[str, Any]:
    arguments = [{"name": "task", "description": "The task in a sentence.", "required": True},
                 {"name": "budget_tokens", "description": "Most tokens (default 4000)."}]
    return {"prompts": [{"name": PROMPT, "title": "Context for a task", "arguments": arguments,
                         "description": "What kenning knows for a task (hot memory, skills, facts, lessons, "
                                        "entities, notes) as a message to start from."}]}


def templates_result() -> dict[str, Any]:
    return {"resourceTemplates": [{"uriTemplate": SKILL_URI + "{name}", "name": "skill", "title": "A skill",
                                   "description": "A skill's SKILL.md, by name", "mimeType": "text/markdown"}]}


def resources_result(scope: str, skills: Iterable[Skill]) -> dict[str, Any]:
    """The hot memory files of ``scope``, then each skill's SKILL.md by name (the first of a name)."""
    where = "" if scope == DEFAULT_SCOPE else f" of scope {scope}"
    out = [{"uri": HOT_URI + name, "name": name, "title": f"Hot memory{where}: {name}", "mimeType": "text/markdown",
            "description": "Loaded into every session" + (": the user's preferences" if name == USER_FILE
                                                          else ": project knowledge and pitfalls")}
           for name in FILES]
    seen: set[str] = set()
    for skill in sorted(skills, key=lambda s: s.name):
        if skill.name not in seen:
            seen.add(skill.name)
            out.append({"uri": SKILL_URI + skill.name, "name": skill.name, "title": f"Skill: {skill.name}",
                        "description": skill.description, "mimeType": "text/markdown"})
    return {"resources": out}


def skill_sources(home: Path | None, project_dir: Path | None) -> tuple[Source, ...]:
    """The skill roots the store's library will read, chosen as ``Kenning.open`` and ``Kenning.skills``
    choose them from the data directory's settings and the project (default: the working directory)."""
    from ..config import load_settings
    from ..skills.sources import default_sources

    settings = load_settings(home)
    if project_dir is not None:
        project: Path | None = project_dir.expanduser().resolve()
    else:
        try:
            project = Path.cwd()
        except FileNotFoundError:  # removed under us: no project, as for Kenning
            project = None
    return default_sources(project, settings.skills_dir, settings.skill_extra_dirs)


def import_listing() -> None:
    """Import what ``skill_sources`` and ``early_skills`` read with (the settings, yaml, the loader)."""
    for name in ("config", "skills.files", "skills.index"):
        importlib.import_module(f"kenning.{name}")


def early_skills(sources: tuple[Source, ...]) -> list[Skill] | None:
    """The skills the library lists (``SkillIndex.visible``), read from ``sources`` without the store;
    None when a writable root or category folder holds a folder a killed delete left, which the
    library's repair may put back as a skill (whether it does depends on the store's history)."""
    from ..skills.files import trash_origin
    from ..skills.index import Loader
    from ..skills.model import SKILL_FILE

    loader = Loader(sources)
    try:
        index = loader.load()
        writable = tuple(str(s.root) for s in sources if s.writable)
        # the manifest holds every folder the walk read: roots and categories, where a deleted skill's folder sat
        folders = [path for path, stamp in loader.manifest.entries if stamp is not None
                   and not path.endswith(os.sep + SKILL_FILE) and path.startswith(writable)]
        for folder in folders:
            try:
                names = os.listdir(folder)
            except OSError:
                continue  # gone since the walk: nothing of it is listed either way
            if any(trash_origin(Path(folder, name)) is not None for name in names):
                return None
        return index.visible()
    finally:
        loader.invalidate()  # closes its folder watch: this loader is used once


def server_version() -> str:
    from .. import __version__  # not importlib.metadata: that costs 20 ms of the first answer

    return __version__
