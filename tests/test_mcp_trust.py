"""`kenning mcp` keeps what it must not cross, driven by the MCP SDK's client over stdio and raw HTTP:
each tool acts in one scope (the server's or the argument), a web page cannot reach an HTTP
server through DNS rebinding on any loopback spelling, a guessable token is refused at startup,
and an oversized argument is refused before any work is done."""

from __future__ import annotations

import http.client
import json
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from storekit import fingerprint
from test_mcp import KENNING, TOKEN, Connection, free_port, server_env, wait_for_port

from kenning import Kenning
from kenning.errors import InvalidInput
from kenning.mcp.server import AllowedHosts, check_bind


@contextmanager
def stdio_server(home: Path, *args: str) -> Iterator[Connection]:
    params = StdioServerParameters(command=KENNING[0], args=[*KENNING[1:], "mcp", *args], cwd=home.parent,
                                   env={"KENNING_HOME": str(home)})
    client = Client(params, mode="legacy", read_timeout_seconds=120)
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(client) as connected:
        yield Connection(portal, connected)


def one_line(message: str) -> str:
    assert "\n" not in message and len(message) < 400, message
    return message


# -- 1. one scope per call -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bob:
    """A data directory holding a fact, an entity, a lesson, a note and a hot entry of user:bob."""

    home: Path
    fact: str
    entity: str
    lesson: str


@pytest.fixture(scope="module")
def bob(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Bob:
    home = tmp_path_factory.mktemp("trust") / "home"
    with Kenning.open(home, embedder=embedder) as kb:
        fact = kb.remember("Bob's locker code is 4711", scope="user:bob")
        entity = kb.entities.upsert("Bob's bike", kind="thing", attributes={"colour": "red"}, scope="user:bob")
        lesson = kb.lessons.record("oiled the bike chain with cooking oil", "fixing Bob's bike", "negative",
                                   "use chain oil", scope="user:bob")
        kb.notes_in("user:bob").write("Bob changed the garage door code to 2468")
        kb.hot_in("user:bob").add("Bob prefers answers in German", "user")
    return Bob(home, fact.id, entity.id, lesson.id)


@pytest.fixture(scope="module")
def alice(bob: Bob) -> Iterator[Connection]:
    with stdio_server(bob.home, "--scope", "user:alice") as connection:
        yield connection


@pytest.fixture(scope="module")
def unscoped(bob: Bob) -> Iterator[Connection]:
    """A server started without --scope: its scope is 'default'."""
    with stdio_server(bob.home) as connection:
        yield connection


@pytest.mark.parametrize(("server", "scope"), [("alice", "user:alice"), ("unscoped", "default")])
def test_no_tool_touches_an_item_of_another_scope_even_by_id(server: str, scope: str, bob: Bob, embedder: Any,
                                                             request: pytest.FixtureRequest) -> None:
    mcp: Connection = request.getfixturevalue(server)
    for tool, args in [("memory_forget", {"id": bob.fact}), ("memory_forget", {"id": bob.entity}),
                       ("memory_forget", {"id": bob.lesson}),
                       ("memory_supersede", {"id": bob.fact, "content": "Bob's locker code is 0000"}),
                       ("memory_pin", {"id": bob.fact}), ("memory_pin", {"id": bob.fact, "unpin": True})]:
        refused = one_line(mcp.error(tool, **args))
        assert f"no item with id {args['id']!r} in scope {scope!r}" in refused, (tool, refused)
    stale = mcp.ok("memory_forget", stale=True, days=0)  # bob's fact is idle and unpinned, but not this scope's
    assert bob.fact not in [f["id"] for f in stale["facts"]]

    assert mcp.ok("memory_recall", query="Bob's locker code")["hits"] == []
    assert mcp.ok("lessons_for", task="fixing Bob's bike")["lessons"] == []
    assert "no entity named" in mcp.error("entity_get", name="Bob's bike")
    assert mcp.ok("notes_search", query="garage door code")["hits"] == []
    assert "German" not in json.dumps(mcp.ok("hot_memory"))
    assert "German" not in mcp.portal.call(mcp.client.read_resource, "kenning://hot/USER.md").contents[0].text
    assert "no hot entry" in mcp.error("hot_memory", action="remove", old="German").lower()
    context = mcp.ok("context_build", task="open Bob's locker, then Bob's garage; answer Bob")["markdown"]
    assert "4711" not in context and "2468" not in context and "German" not in context

    with Kenning.open(bob.home, embedder=embedder) as kb:
        fact = kb.get(bob.fact)
        assert fact.content == "Bob's locker code is 4711" and fact.scope == "user:bob"
        assert not fact.pinned and fact.superseded_by is None  # type: ignore[attr-defined]
        assert kb.get(bob.entity).scope == kb.get(bob.lesson).scope == "user:bob"


def test_a_server_reads_and_writes_its_own_scope_and_says_which(alice: Connection, unscoped: Connection) -> None:
    assert "'user:alice'" in (alice.client.instructions or "")
    tools = {t.name: t for t in alice.portal.call(alice.client.list_tools).tools}
    scoped = [name for name, t in tools.items() if "scope" in t.input_schema["properties"]]
    assert set(scoped) == {name for name in tools if not name.startswith("skill")}
    assert {tools[name].input_schema["properties"]["scope"]["default"] for name in scoped} == {"user:alice"}
    assert "an id of another scope is not found" in tools["memory_forget"].description

    fact = alice.ok("memory_remember", content="Alice's desk is on the third floor")["fact"]
    assert fact["scope"] == "user:alice"
    assert alice.ok("memory_recall", query="where is Alice's desk")["hits"][0]["id"] == fact["id"]
    assert fact["id"] not in [h["id"] for h in unscoped.ok("memory_recall", query="where is Alice's desk")["hits"]]
    assert alice.ok("lesson_record", action="booked the big room", context="planning Alice's offsite",
                    outcome="positive", insight="book rooms a month ahead")["lesson"]["scope"] == "user:alice"
    assert alice.ok("lessons_for", task="planning Alice's offsite")["lessons"][0]["scope"] == "user:alice"
    assert alice.ok("entity_upsert", name="Alice's laptop", kind="host")["entity"]["scope"] == "user:alice"
    assert alice.ok("entity_get", name="Alice's laptop")["entity"]["scope"] == "user:alice"
    assert "no entity named" in unscoped.error("entity_get", name="Alice's laptop")
    assert "third floor" in alice.ok("context_build", task="find Alice's desk")["markdown"]
    prompt = alice.portal.call(alice.client.get_prompt, "task_context", {"task": "find Alice's desk"})
    assert "third floor" in prompt.messages[0].content.text
    [note] = alice.ok("notes_write", text="Alice moved the standup to 9:30")["notes"]
    assert note["id"].startswith("scopes/user+alice/")
    assert alice.ok("notes_search", query="when is the standup")["hits"][0]["id"] == note["id"]
    assert unscoped.ok("notes_search", query="when is the standup")["hits"] == []
    alice.ok("hot_memory", action="add", text="Alice wants short answers", section="user")
    user_md = alice.portal.call(alice.client.read_resource, "kenning://hot/USER.md").contents[0].text
    assert "short answers" in user_md
    assert "short answers" not in json.dumps(unscoped.ok("hot_memory", file="USER.md"))

    said = [{"role": "user", "content": "remember that Alice's badge number is 1234"}]
    alice.ok("session_consolidate", messages=said, model="fallback")
    hits = alice.ok("memory_recall", query="Alice's badge number")["hits"]
    assert hits and hits[0]["scope"] == "user:alice"


def test_a_scope_given_in_the_call_is_where_the_tool_acts(alice: Connection) -> None:
    # The server's scope is a default, not a wall: a client may name another scope.
    fact = alice.ok("memory_remember", content="Bob parks in bay 12", scope="user:bob")["fact"]
    assert fact["scope"] == "user:bob"
    assert alice.ok("memory_pin", id=fact["id"], scope="user:bob")["fact"]["pinned"] is True
    new = alice.ok("memory_supersede", id=fact["id"], content="Bob parks in bay 14", namespace="user:bob")["fact"]
    hits = alice.ok("memory_recall", query="where does Bob park", scope="user:bob")["hits"]
    assert hits[0]["id"] == new["id"]
    assert alice.ok("memory_forget", id=new["id"], scope="user:bob")["deleted"]["id"] == new["id"]


@pytest.mark.parametrize(("args", "env", "said"), [
    (["--scope", "User:Alice"], {}, "did you mean 'user:alice'"),
    ([], {"KENNING_MCP_SCOPE": "user:"}, "is not valid"),
])
def test_an_invalid_server_scope_is_refused_at_startup(tmp_path: Path, args: list[str], env: dict[str, str],
                                                       said: str) -> None:
    home = tmp_path / "home"
    refused = subprocess.run([*KENNING, "mcp", *args], env={**server_env(home), **env}, capture_output=True,
                             text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert refused.returncode == 2 and said in refused.stderr and "Traceback" not in refused.stderr
    assert not (home / "kenning.db").exists()


# -- 2. Host and Origin over HTTP ----------------------------------------------------------------------------


@dataclass(frozen=True)
class HttpServer:
    bind: str
    address: str  # where to connect
    port: int

    def post(self, host: str | None = None, origin: str | None = None) -> tuple[int, str]:
        """An initialize request with these Host and Origin headers, as a page would send it."""
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "raw", "version": "1"}}})
        headers = {"Host": f"{self.address}:{self.port}" if host is None else host,
                   "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if origin is not None:
            headers["Origin"] = origin
        conn = http.client.HTTPConnection(self.address, self.port, timeout=60)
        try:
            conn.request("POST", "/mcp", body=body, headers=headers)
            response = conn.getresponse()
            return response.status, response.read().decode("utf-8", "replace")
        finally:
            conn.close()


BINDS = [("127.0.0.1", "127.0.0.1", ["--allowed-host", "MCP.example.test"]), ("127.0.0.2", "127.0.0.2", []),
         ("LOCALHOST", "127.0.0.1", [])]


@pytest.fixture(scope="module", params=BINDS, ids=[b[0] for b in BINDS])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    bind, address, extra = request.param
    port = free_port()
    home = tmp_path_factory.mktemp("http") / "home"
    process = subprocess.Popen([*KENNING, "mcp", "--http", "--host", bind, "--port", str(port), *extra],
                               env=server_env(home), cwd=home.parent, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for_port(port, process, host=address)
        yield HttpServer(bind, address, port)
    finally:
        process.terminate()
        process.communicate(timeout=30)


def refusal(status_body: tuple[int, str], status: int) -> str:
    got, body = status_body
    assert got == status, (got, body)
    assert "\n" not in body.strip()
    return str(json.loads(body)["error_description"])


def test_a_forged_host_is_refused_on_every_loopback_spelling(served: HttpServer) -> None:
    port = served.port
    assert "Host 'evil.example:" in refusal(served.post(f"evil.example:{port}"), 421)
    # DNS rebinding: the attacker's name resolves to this machine and the page is its own origin
    refusal(served.post(f"evil.example:{port}", origin=f"http://evil.example:{port}"), 421)
    refusal(served.post(f"127.0.0.1.nip.io:{port}"), 421)
    refusal(served.post(f"{served.address}:{port + 1}"), 421)  # the right address, another port
    refusal(served.post(f"{served.address}:{port}@evil.example"), 421)
    refusal(served.post(""), 421)


def test_a_foreign_origin_is_refused(served: HttpServer) -> None:
    assert "Origin 'http://evil.example'" in refusal(served.post(origin="http://evil.example"), 403)
    refusal(served.post(origin="null"), 403)
    refusal(served.post(origin=f"file://{served.address}"), 403)
    refusal(served.post(origin=f"https://{served.address}.evil.example"), 403)


def test_requests_addressed_to_the_server_are_served(served: HttpServer) -> None:
    port = served.port
    assert served.post()[0] == 200
    assert served.post(f"LOCALHOST:{port}", origin=f"HTTP://LocalHost:{port}")[0] == 200
    assert served.post(f"localhost:{port}", origin="http://localhost:6274")[0] == 200  # a local page, another port
    if served.bind == "127.0.0.1":  # started with --allowed-host MCP.example.test
        assert served.post("mcp.example.test", origin="https://MCP.example.test")[0] == 200
        refusal(served.post("other.example.test"), 421)

    async def session() -> set[str]:
        async with Client(streamable_http_client(f"http://{served.address}:{port}/mcp")) as client:
            return {t.name for t in (await client.list_tools()).tools}

    with start_blocking_portal() as portal:
        assert "memory_recall" in portal.call(session)


def test_allowed_hosts_know_every_spelling_of_the_bound_address() -> None:
    ipv6 = AllowedHosts.of("0:0::1", 8765)
    assert ipv6.host("[::1]:8765") and ipv6.host("localhost:8765") and ipv6.host("[0:0:0:0:0:0:0:1]:8765")
    assert not ipv6.host("::1:8765") and not ipv6.host("[::1]") and not ipv6.host("[::1]x:8765")
    short = AllowedHosts.of("127.1", 80)
    assert short.host("127.0.0.1") and short.host("127.0.0.1:80") and short.origin("http://127.0.0.1:3000")
    wildcard = AllowedHosts.of("0.0.0.0", 9000, ["mcp.example.org"])
    assert wildcard.host("localhost:9000") and wildcard.host("mcp.example.org")
    assert wildcard.host("mcp.example.org:443")  # a name the person gave: any port (a proxy in front)
    assert not wildcard.host("192.168.1.5:9000")  # the machine's other names are not known: --allowed-host them
    remote = AllowedHosts.of("192.168.1.5", 9000)
    assert remote.host("192.168.1.5:9000") and not remote.host("localhost:9000")
    with pytest.raises(InvalidInput, match="not a host name"):
        check_bind("127.0.0.1", False, None, ["*"])
    with pytest.raises(InvalidInput, match="not a host name"):
        check_bind("127.0.0.1", False, None, ["http://mcp.example.org:8765"])


def test_loopback_spelled_differently_needs_no_allow_remote() -> None:
    check_bind("127.1", False, None)
    check_bind("LOCALHOST", False, None)
    check_bind("[0:0::1]", False, None)
    with pytest.raises(InvalidInput, match="not a loopback address"):
        check_bind("127.0.0.1.nip.io", False, None)


# -- 3. tokens -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("token", "said"), [
    ("s3cret", "is 6 characters long; at least 16"),
    (" " * 20, "only whitespace"),
    ("correct horse battery staple", "contains whitespace"),
    ("abcdefghijklmnop\tq", "contains whitespace, a control character"),
    ("abcdefghijklmnop\x07", "a control character"),
])
@pytest.mark.parametrize("given_as", ["option", "env"])
def test_a_weak_token_is_refused_before_the_store_opens(tmp_path: Path, token: str, said: str,
                                                        given_as: str) -> None:
    home = tmp_path / "home"
    args, env = [*KENNING, "mcp", "--http"], server_env(home)
    if given_as == "option":
        args += ["--token", token]
    else:
        env["KENNING_MCP_TOKEN"] = token
    refused = subprocess.run(args, env=env, capture_output=True, text=True, timeout=30)
    message = refused.stderr.strip()
    assert refused.returncode == 2 and said in message and "Traceback" not in message
    assert "openssl rand -hex 16" in message and "secrets.token_urlsafe(24)" in message
    assert "\n" not in message and (token.strip() == "" or token not in message)
    assert not (home / "kenning.db").exists()


# -- 4. argument sizes -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Connection, Path]]:
    """A server on a store nothing else uses, so that an unchanged store shows a refused call did nothing."""
    home = tmp_path_factory.mktemp("sizes") / "home"
    with stdio_server(home) as connection:
        connection.ok("entity_upsert", name="Carol", kind="person", attributes={"team": "web"})
        yield connection, home / "kenning.db"


def rows(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return sum(conn.execute(f"SELECT count(*) FROM \"{t}\"").fetchone()[0] for t in tables)  # noqa: S608
    finally:
        conn.close()


def test_a_3_mb_attribute_is_refused_and_the_store_is_unchanged(fresh: tuple[Connection, Path]) -> None:
    mcp, db = fresh
    before, digest = rows(db), fingerprint(db)
    refused = one_line(mcp.error("entity_upsert", name="Carol", attributes={"blob": "x" * 3_000_000}))
    assert refused.startswith("entity_upsert: attributes is 3,000,011 characters as JSON; at most 20,000")
    as_text = one_line(mcp.error("entity_upsert", name="Carol", attrs=json.dumps({"blob": "x" * 3_000_000})))
    assert "attributes is 3,000,012 characters" in as_text
    assert rows(db) == before and fingerprint(db) == digest

    entity = mcp.ok("entity_upsert", name="Carol", attributes={"desk": "3F-12"})["entity"]
    assert entity["attributes"] == {"team": "web", "desk": "3F-12"}


@pytest.mark.parametrize(("tool", "args", "said"), [
    ("memory_remember", {"content": "y" * 25_000}, "memory_remember: content is 25,000 characters; at most 20,000"),
    ("memory_recall", {"q": "y" * 25_000}, "memory_recall: query is 25,000 characters; at most 20,000"),
    ("memory_recall", {"query": "x", "scope": "s" * 300}, "scope is 300 characters; at most 200"),
    ("memory_forget", {"id": "f_" + "0" * 500}, "id is 502 characters; at most 200"),
    ("memory_recall", {"query": "x", "k": "9" * 500}, "k is 500 characters; at most 200"),
    ("memory_remember", {"content": "x", "tags": ["t" * 90] * 120},
     "tags is 11,161 characters as JSON; at most 10,000"),
    ("hot_memory", {"action": "a" * 300}, "action is 300 characters; at most 200"),
    ("session_consolidate", {"messages": [{"role": "user", "content": "z" * 250_000}]},
     "messages[0] is 250,028 characters as JSON; at most 200,000 are taken per item"),
    ("session_consolidate", {"messages": [{"role": "user", "content": "z" * 190_000}] * 17},
     "messages is 3,230,494 characters as JSON; at most 3,000,000"),
    ("session_consolidate", {"messages": [{"role": "user", "content": "z" * 190_000}] * 22},
     "session_consolidate: the arguments are 4,180,652 characters as JSON; at most 4,000,000"),
    ("memory_recall", {"query": "x", "q" * 5_000_000: 1}, "the arguments are 5,000,018 characters"),
])
def test_an_argument_over_its_limit_is_refused_naming_it(fresh: tuple[Connection, Path], tool: str,
                                                         args: dict[str, Any], said: str) -> None:
    mcp, db = fresh
    before, digest = rows(db), fingerprint(db)
    assert said in one_line(mcp.error(tool, **args))
    assert rows(db) == before and fingerprint(db) == digest


def test_arguments_within_the_limits_are_taken(fresh: tuple[Connection, Path]) -> None:
    mcp, _ = fresh
    long = "The deploy runbook says: " + "check the health endpoint, then the queue depth. " * 300  # ~15k
    assert mcp.ok("memory_remember", content=long)["fact"]["content"] == long.strip()
    messages = [{"role": "user", "content": "remember that the VPN needs a hardware key " + "and so on " * 9_000}]
    assert mcp.ok("session_consolidate", messages=messages, model="fallback")["success"]
