"""Every MCP tool's input schema is valid JSON Schema (Draft 2020-12) and says what the tool takes:
an example call of each tool is valid under its schema and does what it says, through the MCP
SDK's client and a real `kenning mcp`; what a schema refuses (a kind that does not exist, a message
without content) the tool refuses too. No schema has anyOf, oneOf, allOf or if at its top, which the
model APIs refuse (Claude Code drops such a tool): memory_forget's "id or stale=true" is said in
words. Tool names fit in the 64 characters clients allow once they add their prefix."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal
from jsonschema import Draft202012Validator
from mcp import Client, StdioServerParameters
from test_mcp import KENNING, SKILL_MD, TOOLS, Connection

from kenning.consolidate.messages import MAX_MESSAGE_CHARS, ROLES
from kenning.mcp import tools
from kenning.skills.files import MAX_FILE_BYTES
from kenning.skills.frontmatter import SKILL_MD_MAX_CHARS

CLIENT_PREFIX = "mcp__kenning__"  # how Claude Code names a tool of the server it knows as "kenning"
NAME_LIMIT = 64  # what the model APIs take as a tool's name
# at a tool schema's top: the Anthropic API refuses the first three, and Claude Code drops a tool with if/then
TOP_LEVEL_REFUSED = {"anyOf", "oneOf", "allOf", "if", "then", "else"}


class Served:
    """A connection, the schemas the server lists, and the tools an example has called."""

    def __init__(self, mcp: Connection) -> None:
        self.mcp = mcp
        self.schemas = {t.name: t.input_schema for t in mcp.portal.call(mcp.client.list_tools).tools}
        self.called: set[str] = set()

    def valid(self, tool: str, args: dict[str, Any]) -> bool:
        return Draft202012Validator(self.schemas[tool]).is_valid(args)

    def call(self, tool: str, /, **args: Any) -> dict[str, Any]:
        """Call ``tool`` with ``args`` once they are checked against its schema."""
        Draft202012Validator(self.schemas[tool]).validate(args)
        self.called.add(tool)
        return self.mcp.ok(tool, **args)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("schemas") / "home"
    params = StdioServerParameters(command=KENNING[0], args=[*KENNING[1:], "mcp"], cwd=home.parent,
                                   env={"KENNING_HOME": str(home)})
    client = Client(params, mode="legacy", read_timeout_seconds=120)
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(client) as connected:
        yield Served(Connection(portal, connected))


def test_every_input_schema_is_valid_draft_2020_12(served: Served) -> None:
    assert set(served.schemas) == TOOLS
    for name, schema in served.schemas.items():
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and set(schema["required"]) <= set(schema["properties"]), name
        assert not TOP_LEVEL_REFUSED & set(schema), name
        for arg, prop in schema["properties"].items():
            assert prop.get("description"), (name, arg)
            if prop["type"] == "array":  # a list's choices are its items' (["fact"]), never the list's own
                assert "enum" not in prop and "type" in prop["items"], (name, arg)


def test_tool_names_fit_with_a_clients_prefix(served: Served) -> None:
    for name in served.schemas:
        full = CLIENT_PREFIX + name
        assert len(full) <= NAME_LIMIT and re.fullmatch(r"[A-Za-z0-9_-]+", full), full


def test_an_example_of_every_tool_is_valid_under_its_schema_and_works(served: Served) -> None:
    call = served.call
    assert {"kenning-memory", "kenning-skills"} <= {s["name"] for s in call("skills_list")["skills"]}
    assert call("skills_list", category="no-such-category")["skills"] == []
    view = call("skill_view", name="kenning-memory")
    assert view["content"].startswith("---\nname: kenning-memory") and view["available"] in (True, False)
    found = call("skills_search", task="keep what I learn about the user across sessions", k=2)["skills"]
    assert found[0]["name"] == "kenning-memory"
    assert call("skill_feedback", name="kenning-memory", outcome="helped", note="said when to recall")["outcome"] == \
        "helped"
    draft = call("skill_manage", action="create", name="web-rollback", content=SKILL_MD.format(name="web-rollback"))
    assert draft["status"] == "draft" and draft["live"] is False

    fact = call("memory_remember", content="The office VPN gateway is vpn-3.example.org", tags=["vpn", "network"],
                category="project", importance=0.6, confidence=0.9, expires_at="30d", pinned=False)["fact"]
    hits = call("memory_recall", query="which VPN gateway does the office use", k=3, kinds=["fact"], tags=["vpn"],
                min_confidence=0.5, since="7d", include_superseded=False, include_expired=False)["hits"]
    assert hits[0]["id"] == fact["id"]
    new = call("memory_supersede", id=fact["id"], content="The office VPN gateway is vpn-4.example.org",
               reason="moved")["fact"]
    assert new["supersedes"] == fact["id"]
    assert call("memory_pin", id=new["id"], reason="asked to keep it")["fact"]["pinned"] is True
    assert call("memory_conflicts")["success"] is True
    listed = call("memory_list", kinds=["fact"], tags=["vpn"], pinned=True, expired="exclude", superseded="include",
                  since="7d", sort="recent", limit=10, offset=0)
    assert [i["id"] for i in listed["items"]] == [new["id"]] and listed["next_offset"] is None
    got = call("memory_get", id=new["id"], audit=True, audit_limit=5)
    assert [f["id"] for f in got["history"]] == [fact["id"], new["id"]] and got["audit"]
    updated = call("memory_update", id=new["id"], category="pitfall", tags=["vpn"], importance=0.8, confidence=1,
                   expires_at="never", pinned=True, reason="re-filed")
    assert updated["item"]["category"] == "pitfall" and updated["replaced"] is None
    stale = call("memory_forget", stale=True, days=0, max_access=1, dry_run=True)
    assert stale["dry_run"] is True and new["id"] not in [f["id"] for f in stale["facts"]]
    assert call("memory_forget", id=new["id"], reason="asked to forget it")["deleted"]["id"] == new["id"]

    lesson = call("lesson_record", action="ran the migration by hand", context="deploying the billing service",
                  outcome="negative", insight="run migrations from CI", tags=["deploy"])["lesson"]
    assert call("lessons_for", task="deploy billing", outcome="negative", k=3)["lessons"][0]["id"] == lesson["id"]
    entity = call("entity_upsert", name="Zhang Wei", kind="person", aliases=["张伟"],
                  attributes={"team": "billing"}, notes="owns the billing service")["entity"]
    assert call("entity_get", name="张伟")["entity"]["id"] == entity["id"]

    [note] = call("notes_write", text="rolled back the 14:00 release: the health check failed")["notes"]
    hits = call("notes_search", query="why did we roll back the release", days_back=7, k=3,
                include_archive=False)["hits"]
    assert hits[0]["id"] == note["id"]
    assert call("hot_memory", action="add", text="Billing deploys need a second reviewer", section="project",
                reason="team rule")["file"] == "MEMORY.md"
    shown = call("hot_memory", action="show", file="MEMORY.md")["files"]
    assert "second reviewer" in shown[0]["text"]

    context = call("context_build", task="deploy the billing service", budget_tokens=1500)
    assert "second reviewer" in context["markdown"] and context["tokens"] <= 1500
    said = [{"role": "user", "content": "remember that the VPN needs a hardware key"},
            {"role": "assistant", "content": "Noted.", "at": "2026-11-30T10:00:05+00:00"}]
    report = call("session_consolidate", messages=said, model="fallback")
    assert report["success"] and report["mode"] == "fallback"
    assert call("memory_recall", query="what does the VPN need", kinds=["fact"])["hits"]

    assert served.called == TOOLS


@pytest.mark.parametrize(("tool", "args", "refused"), [
    ("memory_recall", {"query": "x", "kinds": ["fact", "memo"]}, "kinds must be one of fact, lesson, entity"),
    ("session_consolidate", {"messages": [{"role": "user"}]}, "message content must be text"),
    ("session_consolidate", {"messages": [{"role": "robot", "content": "hi"}]}, "message role must be one of"),
])
def test_what_a_schema_refuses_the_tool_refuses(served: Served, tool: str, args: dict[str, Any],
                                                refused: str) -> None:
    assert not served.valid(tool, args)
    assert refused in served.mcp.error(tool, **args)


def test_the_schemas_take_each_form_of_a_valid_call(served: Served) -> None:
    assert served.valid("memory_recall", {"query": "x", "kinds": ["fact"]})
    assert served.valid("memory_forget", {"id": "f_1a2b3c4d5e6f"})
    assert served.valid("memory_forget", {"stale": True, "days": 30})
    assert not served.valid("memory_forget", {"id": "f_1a2b3c4d5e6f", "days": "thirty"})


def test_forget_says_it_takes_an_id_or_stale_and_refuses_neither(served: Served) -> None:
    # a top-level anyOf would say it to a validator, and would cost the tool in Claude Code
    properties = served.schemas["memory_forget"]["properties"]
    assert "Give either id or stale=true" in properties["id"]["description"]
    assert "Give either id or stale=true" in properties["stale"]["description"]
    for args in ({}, {"stale": False, "dry_run": True}):
        assert "memory_forget needs the id of the item to forget, or stale=true" in served.mcp.error("memory_forget",
                                                                                                   **args)
    assert "takes an id or stale=true, not both" in served.mcp.error("memory_forget", id="f_1a2b3c4d5e6f", stale=True)
    assert served.valid("session_consolidate", {"messages": [{"role": "tool", "content": "exit 0",
                                                              "at": "2026-11-30T10:00:00+00:00"}]})


def test_the_edges_limits_are_the_librarys() -> None:
    # MESSAGE is written out so that listing the tools does not import the consolidation package
    assert tools.SKILL_MD_LIMIT == SKILL_MD_MAX_CHARS and tools.SKILL_FILE_LIMIT == MAX_FILE_BYTES
    assert tools.MESSAGE["properties"]["role"]["enum"] == list(ROLES)
    assert tools.MESSAGE["properties"]["content"]["maxLength"] == MAX_MESSAGE_CHARS


def test_what_the_front_answers_imports_neither_the_sdk_nor_the_store() -> None:
    # everything `kenning mcp` imports before it answers initialize, tools/list, prompts/list and resources/list
    code = textwrap.dedent("""
        import sys, tempfile
        from pathlib import Path
        import kenning.cli.mcp
        from kenning.mcp import front, handshake
        handshake.initialize_result("2025-06-18"), handshake.tools_result(), handshake.prompts_result()
        assert "yaml" not in sys.modules  # only resources/list needs it: the others answer without waiting for it
        skills = handshake.early_skills(handshake.skill_sources(Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())))
        listed = [r["name"] for r in handshake.resources_result("default", skills)["resources"]]
        assert listed[:2] == ["USER.md", "MEMORY.md"] and "kenning-memory" in listed, listed
        heavy = ("mcp", "numpy", "kenning.api", "kenning.store", "kenning.skills.library", "kenning.gate", "rich")
        print(sorted(m for m in heavy if m in sys.modules))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
