"""What `kenning install` writes works from a client's point of view: a temporary HOME and project,
and PATH=/usr/bin:/bin (a client started from a desktop does not see this virtual environment).
Every MCP server entry is started with exactly the command line written in the client's file and
lists its tools through the SDK client; every hook command is run by a shell, as clients run
them, on a sample payload, and exits 0. The default install touches no committed project file,
and install + uninstall leave the project tree as it was, with no backup inside it."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters
from click.testing import CliRunner

from agentclients import agent_clients  # noqa: F401  (a fixture: the real Codex, from npm)
from kenning.cli import cli
from kenning.integrations import clients
from kenning.integrations.codex_trust import hooks_list

CLIENT_PATH = "/usr/bin:/bin"


@pytest.fixture
def person(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A user with no KENNING_HOME (the default data directory under their HOME) and a git project
    holding committed client files."""
    home = tmp_path / "home"
    project = home / "work" / "app"
    project.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("KENNING_HOME", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".mcp.json").write_text('{"mcpServers": {"db": {"command": "db-mcp", "args": ["--ro"]}}}\n')
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"model": "opus"}\n')
    return {"home": home, "project": project, "data": home / ".kenning"}


def run(*args: str) -> Any:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, [*args, "--json"], prog_name="kenning")
    assert result.exit_code == 0, result.output + repr(result.exception)
    return json.loads(result.stdout)


def tree(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*")) if ".git" not in p.relative_to(folder).parts}


def client_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    return {"PATH": CLIENT_PATH, "HOME": str(home), "LANG": "C.UTF-8", **(extra or {})}


def list_tools(entry: dict[str, Any], home: Path, cwd: Path) -> set[str]:
    """Start the server as the client would, from exactly the entry it was given."""
    assert os.path.isabs(entry["command"]), entry
    params = StdioServerParameters(command=entry["command"], args=entry["args"], cwd=cwd,
                                   env=client_env(home, entry.get("env")))
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(
            Client(params, read_timeout_seconds=120)) as connected:
        return {tool.name for tool in portal.call(connected.list_tools).tools}


def run_hook(command: str, payload: dict[str, Any], home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A hook as clients run it: the command in a shell, the event's JSON on stdin."""
    return subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload), capture_output=True, text=True,
                          timeout=180, env=client_env(home), cwd=cwd)


def claude_hook_commands(settings: Path) -> dict[str, str]:
    hooks = json.loads(settings.read_text())["hooks"]
    return {event: groups[-1]["hooks"][0]["command"] for event, groups in hooks.items()}


def test_claude_code_default_install_runs_from_a_bare_path_and_touches_no_committed_file(
        person: dict[str, Path], tmp_path: Path) -> None:
    home, project = person["home"], person["project"]
    before = tree(project)
    report = run("install", "claude-code", "--project", str(project))

    assert report["scope"] == "local" and report["checked"].startswith("kenning")
    assert report["checked_with_path"] == CLIENT_PATH
    committed = {".mcp.json", ".claude/settings.json"}
    assert {k: v for k, v in tree(project).items() if k in committed} == {k: before[k] for k in committed}
    assert any("git does not ignore .claude/settings.local.json" in note for note in report["notes"])
    entry = json.loads((home / ".claude.json").read_text())["projects"][str(project)]["mcpServers"]["kenning"]
    assert entry["command"] == report["command"] and "env" not in entry  # no KENNING_HOME chosen: none written
    assert "memory_recall" in list_tools(entry, home, project)

    commands = claude_hook_commands(project / ".claude" / "settings.local.json")
    assert set(commands) == {"SessionStart", "PreCompact", "SessionEnd"}
    start = run_hook(commands["SessionStart"], {"session_id": "s1", "cwd": str(project),
                                                "hook_event_name": "SessionStart", "source": "startup"},
                     home, project)
    assert start.returncode == 0 and start.stdout.startswith("# Context for: app"), start.stderr
    transcript = tmp_path / "s1.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {
        "role": "user", "content": "Remember that the release train leaves on Thursdays."}}) + "\n")
    for event in ("PreCompact", "SessionEnd"):
        done = run_hook(commands[event], {"session_id": "s1", "transcript_path": str(transcript),
                                          "cwd": str(project), "hook_event_name": event}, home, project)
        assert done.returncode == 0 and "kenning:" in done.stdout, done.stderr
    assert "release train" in (person["data"] / "HISTORY.md").read_text(encoding="utf-8")

    run("uninstall", "claude-code", "--project", str(project))

    assert tree(project) == before  # settings.local.json and the .claude it would have needed: gone
    assert not list(project.rglob("*kenning-backup*"))


@pytest.mark.parametrize("client", ["codex", "cursor"])
def test_codex_and_cursor_default_installs_run_from_a_bare_path(client: str, person: dict[str, Path],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KENNING_CODEX_BIN", "/nonexistent/codex")  # trusting is tested with the real Codex
    home, project = person["home"], person["project"]
    before = tree(project)
    report = run("install", client, "--project", str(project))

    assert report["scope"] == "user" and report["checked"].startswith("kenning")
    assert tree(project) == before
    if client == "codex":
        entry = tomllib.loads((home / ".codex" / "config.toml").read_text())["mcp_servers"]["kenning"]
        assert entry["required"] is True and entry["startup_timeout_sec"] == clients.CODEX_STARTUP_TIMEOUT
    else:
        entry = json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]["kenning"]
    assert "memory_recall" in list_tools(entry, home, project)
    hooks_file = home / (".codex" if client == "codex" else ".cursor") / "hooks.json"
    hooks = json.loads(hooks_file.read_text())["hooks"]
    assert len(hooks) == 3
    for event, entries in hooks.items():
        command = (entries[-1]["hooks"][0] if client == "codex" else entries[-1])["command"]
        sample = ({"session_id": "s1", "cwd": str(project), "hook_event_name": event, "transcript_path": None}
                  if client == "codex" else
                  {"conversation_id": "c1", "hook_event_name": event, "workspace_roots": [str(project)],
                   "transcript_path": None})
        done = run_hook(command, sample, home, project)
        assert done.returncode == 0 and not done.stderr, (event, done.stderr)
        if "session-start" in command:
            answer = json.loads(done.stdout)  # both take the context as JSON
            assert "# Context for: app" in json.dumps(answer, ensure_ascii=False), answer
    if client == "codex":
        assert any("trust kenning's three hooks" in note for note in report["notes"])  # no codex on this PATH

    run("uninstall", client, "--project", str(project))

    assert tree(project) == before
    assert not (home / (".codex" if client == "codex" else ".cursor")).exists()


def test_a_shared_install_writes_portable_entries_that_do_nothing_without_kenning(person: dict[str, Path]) -> None:
    home, project = person["home"], person["project"]
    report = run("install", "claude-code", "--shared", "--project", str(project))

    assert report["scope"] == "project" and report["command"] == "kenning"
    assert any("each teammate needs kenning" in note for note in report["notes"])
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["kenning"]
    assert entry == {"type": "stdio", "command": "kenning", "args": ["mcp"], "alwaysLoad": True}  # no personal path
    for event, command in claude_hook_commands(project / ".claude" / "settings.json").items():
        done = run_hook(command, {"session_id": "s1", "cwd": str(project), "hook_event_name": event}, home, project)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), event  # kenning is not on this PATH


def test_the_built_in_skills_are_available_whatever_path_says(person: dict[str, Path]) -> None:
    env = client_env(person["home"])
    done = subprocess.run([clients.this_kenning().argv[0], "skill", "list", "--json"], capture_output=True,
                          text=True, timeout=120, env=env, cwd=person["project"])
    assert done.returncode == 0, done.stderr
    builtin = [s for s in json.loads(done.stdout)["skills"] if s["source"] == "builtin"]
    assert builtin and all(s["available"] for s in builtin), builtin


def test_a_codex_install_has_codex_trust_kennings_hooks_and_uninstall_takes_the_trust_out(
        person: dict[str, Path], agent_clients: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Codex skips an untrusted hook without a word; install asks the real Codex (app-server
    hooks/list) for each hook's key and hash and records the trust where Codex keeps it."""
    home, project = person["home"], person["project"]
    monkeypatch.setenv("KENNING_CODEX_BIN", str(agent_clients.codex))
    monkeypatch.setenv("PATH", f"{agent_clients.node_dir}:{os.environ['PATH']}")  # codex.js runs under node
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    original = b'model = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'
    config.write_bytes(original)

    report = run("install", "codex", "--project", str(project))

    trusted = tomllib.loads(config.read_text())["hooks"]["state"]
    assert len(trusted) == 3 and all(v["trusted_hash"].startswith("sha256:") for v in trusted.values())
    listed = hooks_list(str(agent_clients.codex), home / ".codex", project)
    ours = [h for entry in listed["data"] for h in entry["hooks"] if "hook" in h["command"] and "kenning" in h["command"]]
    assert sorted(h["trustStatus"] for h in ours) == ["trusted"] * 3, ours
    assert not any("trust kenning's three hooks" in note for note in report["notes"])
    again = run("install", "codex", "--project", str(project))
    assert not again["changed"]

    run("uninstall", "codex", "--project", str(project))

    assert config.read_bytes() == original and not (home / ".codex" / "hooks.json").exists()


def test_install_refuses_a_command_that_does_not_run_and_writes_nothing(person: dict[str, Path], tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A virtual environment whose interpreter is gone (moved, or its Python upgraded away): its
    kenning script's shebang points nowhere, so a client would get exit 127 at every start."""
    venv_bin = tmp_path / "old-venv" / "bin"
    venv_bin.mkdir(parents=True)
    script = venv_bin / "kenning"
    script.write_text(f"#!{tmp_path}/gone/python\nimport kenning\n")
    script.chmod(0o755)
    monkeypatch.setattr("sys.executable", str(venv_bin / "python"))
    home, project = person["home"], person["project"]
    before_home, before_project = tree(home), tree(project)

    result = CliRunner().invoke(cli, ["install", "claude-code", "--project", str(project)], prog_name="kenning")

    assert result.exit_code == 2, result.output
    assert str(script) in result.output and "PATH=/usr/bin:/bin" in result.output
    assert "nothing was written" in " ".join(result.output.split())
    assert tree(home) == before_home and tree(project) == before_project
