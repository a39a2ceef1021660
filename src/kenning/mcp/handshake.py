"""What ``kenning mcp`` answers without the SDK or the store: the ``initialize`` result, and the
listings that need neither (tools, prompts, resource templates), as JSON-ready dicts under the
protocol's own names.

``server`` hands these very dicts to the SDK, and ``front`` sends them over stdio while the SDK and
the store are still loading, so the early and the late answers cannot drift apart (tests compare
both with what the SDK answers itself). Nothing here imports the SDK.
"""

from __future__ import annotations

from typing import Any

from ..models import DEFAULT_SCOPE
from .tools import TOOLS

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


def server_version() -> str:
    from .. import __version__  # not importlib.metadata: that costs 20 ms of the first answer

    return __version__
