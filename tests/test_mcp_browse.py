"""memory_list, memory_get and memory_update through the MCP SDK's client and a real `kenning mcp` (stdio)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import mcp.types as types
import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters
from test_mcp import KENNING, Connection


@pytest.fixture(scope="module")
def mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Connection]:
    home = tmp_path_factory.mktemp("browse") / "home"
    params = StdioServerParameters(command=KENNING[0], args=[*KENNING[1:], "mcp", "--scope", "project:web"],
                                   cwd=home.parent, env={"KENNING_HOME": str(home), **_python_path()})
    client = Client(params, mode="legacy", read_timeout_seconds=120)
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(client) as connected:
        yield Connection(portal, connected)


def _python_path() -> dict[str, str]:
    """The caller's PYTHONPATH (a worktree's src), which the SDK does not pass on to the server it starts."""
    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}


def tools(mcp: Connection) -> dict[str, types.Tool]:
    return {t.name: t for t in mcp.portal.call(mcp.client.list_tools).tools}


def remember(mcp: Connection, text: str, **args: Any) -> dict[str, Any]:
    return dict(mcp.ok("memory_remember", content=text, **args)["fact"])


def test_the_tools_say_they_read_or_keep_history(mcp: Connection) -> None:
    listed = tools(mcp)
    for name in ("memory_list", "memory_get"):
        hints = listed[name].annotations
        assert hints is not None and hints.read_only_hint is True and hints.destructive_hint is False, name
    hints = listed["memory_update"].annotations
    assert hints is not None and hints.read_only_hint is False and hints.destructive_hint is False
    assert listed["memory_list"].input_schema["properties"]["scope"]["default"] == "project:web"
    assert listed["memory_update"].input_schema["required"] == ["id"]


def test_memory_list_pages_through_the_servers_scope_with_filters(mcp: Connection) -> None:
    made = [remember(mcp, f"service {name} listens on port {port}", tags=["ports"])
            for name, port in (("auth", 7001), ("billing", 7002), ("search", 7003))]
    remember(mcp, "the wiki lives elsewhere", scope="user:ada")
    first = mcp.ok("memory_list", tag="ports", page_size=2)
    assert [i["id"] for i in first["items"]] == [made[2]["id"], made[1]["id"]]
    assert (first["total"], first["next_offset"], first["scope"]) == (3, 2, "project:web")
    assert "next page: offset=2" in first["message"]
    second = mcp.ok("memory_list", tags="ports", limit="2", next_offset=first["next_offset"])
    assert [i["id"] for i in second["items"]] == [made[0]["id"]] and second["next_offset"] is None
    assert [i["content"] for i in mcp.ok("memory_list", scope="user:ada")["items"]] == ["the wiki lives elsewhere"]
    assert mcp.ok("memory_list", kind="lesson")["total"] == 0
    said = mcp.error("memory_list", expired="yes")
    assert "expired must be one of exclude, only, include" in said
    assert "sort must be one of recent, importance, accessed" in mcp.error("memory_list", order="newest")


def test_memory_get_shows_history_and_audit_and_not_another_scopes_item(mcp: Connection) -> None:
    old = remember(mcp, "the cache is memcached")
    new = mcp.ok("memory_supersede", id=old["id"], content="the cache is Redis 7")["fact"]
    got = mcp.ok("memory_get", item_id=old["id"], include_audit=True)
    assert got["item"]["id"] == old["id"] and got["item"]["superseded_by"] == new["id"]
    assert [f["id"] for f in got["history"]] == [old["id"], new["id"]]
    assert {e["action"] for e in got["audit"]} >= {"remember", "superseded"}
    assert "audit" not in mcp.ok("memory_get", id=new["id"])
    lesson = mcp.ok("lesson_record", action="a", context="b", outcome="positive", insight="c")["lesson"]
    assert mcp.ok("memory_get", id=lesson["id"])["history"] == [mcp.ok("memory_get", id=lesson["id"])["item"]]
    elsewhere = remember(mcp, "Ada reads the release notes", scope="user:ada")
    assert "no item with id" in mcp.error("memory_get", id=elsewhere["id"])
    assert mcp.ok("memory_get", id=elsewhere["id"], scope="user:ada")["item"]["id"] == elsewhere["id"]


def test_memory_update_edits_in_place_or_supersedes_and_refuses_what_does_not_fit(mcp: Connection) -> None:
    fact = remember(mcp, "deploys need one reviewer", tags=["deploy"])
    done = mcp.ok("memory_update", id=fact["id"], category="pitfall", tags="deploy, review", pin="true",
                  expires="30d")
    assert done["replaced"] is None and done["item"]["pinned"] is True and done["item"]["tags"] == ["deploy", "review"]
    assert done["message"].startswith("updated tags, category") and "expires_at" in done["message"]
    assert mcp.ok("memory_update", id=fact["id"], expires_at="never")["item"]["expires_at"] is None
    assert mcp.ok("memory_update", id=fact["id"], category="pitfall")["message"] == f"nothing changed in {fact['id']}"
    newer = mcp.ok("memory_update", id=fact["id"], new_content="deploys need two reviewers")
    assert newer["replaced"] == fact["id"] and newer["item"]["supersedes"] == fact["id"]
    assert newer["item"]["pinned"] is True and newer["item"]["category"] == "pitfall"
    entity = mcp.ok("entity_upsert", name="Grace", kind="person")["entity"]
    changed = mcp.ok("memory_update", id=entity["id"], kind="engineer", alias=["Amazing Grace"],
                     attrs={"team": "infra"}, note="runs the deploys")["item"]
    assert (changed["entity_kind"], changed["aliases"], changed["attributes"], changed["notes"]) == (
        "engineer", ["Amazing Grace"], {"team": "infra"}, "runs the deploys")
    assert mcp.ok("entity_get", name="amazing grace")["entity"]["id"] == entity["id"]
    assert "insight cannot be edited on entity" in mcp.error("memory_update", id=entity["id"], insight="x")
    assert "needs something to change" in mcp.error("memory_update", id=entity["id"])
    assert "importance must be at most 1" in mcp.error("memory_update", id=newer["item"]["id"], importance=3)
    other = remember(mcp, "Ada likes tea", scope="user:ada")
    assert "no item with id" in mcp.error("memory_update", id=other["id"], tags=["x"])


def test_memory_update_masks_a_secret_in_new_tags(mcp: Connection) -> None:
    fact = remember(mcp, "the deploy bot posts to the ops channel")
    tags = mcp.ok("memory_update", id=fact["id"], tags=["ops", "key AKIAIOSFODNN7EXAMPLE"])["item"]["tags"]
    assert "AKIAIOSFODNN7EXAMPLE" not in str(tags) and tags[0] == "ops"
