"""Where each agent client keeps its MCP servers (and, for Claude Code, its hooks), and what kenning
writes there. Nothing here reads or writes a file: ``install`` does that.

=============  =======  ==========================================  ===================================
client         scope    file                                        what kenning sets
=============  =======  ==========================================  ===================================
claude-code    project  <project>/.mcp.json                         mcpServers.kenning
                        <project>/.claude/settings.json             hooks.SessionStart / PreCompact /
                                                                    SessionEnd: one matcher group each
claude-code    user     ~/.claude.json                              mcpServers.kenning
                        ~/.claude/settings.json                     the same three hooks
codex          user     $CODEX_HOME/config.toml (~/.codex)          [mcp_servers.kenning]
codex          project  <project>/.codex/config.toml                [mcp_servers.kenning]
cursor         project  <project>/.cursor/mcp.json                  mcpServers.kenning
cursor         user     ~/.cursor/mcp.json                          mcpServers.kenning
=============  =======  ==========================================  ===================================

Sources followed (read for this module):

* Claude Code MCP scopes, https://code.claude.com/docs/en/mcp: project scope is ``.mcp.json`` at the
  project root (``{"mcpServers": {name: {"type": "stdio", "command", "args", "env"}}}``), user scope
  is the top-level ``mcpServers`` of ``~/.claude.json``.
* Claude Code hooks, https://code.claude.com/docs/en/hooks: hooks live under ``"hooks"`` in
  ``~/.claude/settings.json`` (user) or ``.claude/settings.json`` (project), as
  ``{event: [{"matcher"?, "hooks": [{"type": "command", "command", "timeout"?}]}]}``; a command gets
  the event as JSON on stdin; SessionStart stdout is added to Claude's context; a SessionStart
  matcher left out fires on startup, resume, clear and compact; ``timeout`` is in seconds, and
  SessionEnd hooks get 1.5 s unless a hook sets its own (the budget rises to at most 60 s).
* Codex, https://developers.openai.com/codex/config-reference and /codex/mcp: servers are
  ``[mcp_servers.<name>]`` tables (``command``, ``args``, ``env``) in ``~/.codex/config.toml``
  (``$CODEX_HOME`` moves it), or in ``.codex/config.toml`` of a trusted project.
* Cursor, https://cursor.com/docs/mcp: ``.cursor/mcp.json`` in the project, ``~/.cursor/mcp.json``
  for every project, ``{"mcpServers": {name: {"command", "args", "env"}}}``.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import InvalidInput

CLIENTS = ("claude-code", "codex", "cursor")
SCOPES = ("project", "user")
SERVER_NAME = "kenning"
COMMAND = "kenning"
SESSION_START_BUDGET = 2000  # tokens: Claude Code cuts hook output at 10,000 characters

# event in Claude Code's settings -> (argument of `kenning hook`, timeout in seconds or None)
CLAUDE_HOOKS: dict[str, tuple[str, int | None]] = {
    "SessionStart": ("session-start", None),  # the default (600 s) is plenty for one context build
    "PreCompact": ("pre-compact", 120),  # compaction waits for it: bounded even with a slow model
    "SessionEnd": ("session-end", 60),  # 1.5 s by default; 60 s is the most a hook can raise it to
}

Format = Literal["json", "toml"]


@dataclass(frozen=True)
class JsonKey:
    """Set the object key at ``path`` (e.g. ``("mcpServers", "kenning")``) to ``value``."""

    path: tuple[str, ...]
    value: Any

    @property
    def label(self) -> str:
        return ".".join(self.path)


@dataclass(frozen=True)
class JsonHook:
    """Append the matcher group ``group`` to ``hooks[event]`` in a Claude Code settings file."""

    event: str
    group: dict[str, Any]

    @property
    def label(self) -> str:
        return f"hooks.{self.event}"


@dataclass(frozen=True)
class TomlTable:
    """Make ``[path]`` (e.g. ``[mcp_servers.kenning]``) hold exactly ``value``."""

    path: tuple[str, ...]
    value: dict[str, Any]

    @property
    def label(self) -> str:
        return f"[{'.'.join(self.path)}]"


Change = JsonKey | JsonHook | TomlTable


@dataclass(frozen=True)
class Target:
    """One configuration file and the changes kenning makes in it."""

    path: Path
    format: Format
    changes: tuple[Change, ...]


def check_client(client: str, *, generic: bool = False) -> str:
    known = (*CLIENTS, "generic") if generic else CLIENTS
    if client not in known:
        raise InvalidInput(f"unknown client {client!r}; use one of: {', '.join(known)}")
    return client


def default_scope(client: str) -> str:
    # a project's .codex/config.toml is read only once the project is trusted: the user file always works
    return "user" if client == "codex" else "project"


def server_entry(kenning_home: Path | None, *, stdio_type: bool = False) -> dict[str, Any]:
    """kenning's MCP server: ``kenning mcp`` over stdio, told the data directory when one was chosen
    (a GUI client such as Cursor does not see the shell's ``KENNING_HOME``)."""
    entry: dict[str, Any] = {"type": "stdio"} if stdio_type else {}
    entry.update({"command": COMMAND, "args": ["mcp"]})
    if kenning_home is not None:
        entry["env"] = {"KENNING_HOME": str(kenning_home)}
    return entry


def hook_command(argument: str, kenning_home: Path | None) -> str:
    """The shell command of one hook (shell form works in every Claude Code version; ``args`` is new)."""
    home = f" --home {shlex.quote(str(kenning_home))}" if kenning_home is not None else ""
    budget = f" --budget {SESSION_START_BUDGET}" if argument == "session-start" else ""
    return f"{COMMAND}{home} hook {argument}{budget}"


def claude_hooks(kenning_home: Path | None) -> tuple[JsonHook, ...]:
    out = []
    for event, (argument, timeout) in CLAUDE_HOOKS.items():
        handler: dict[str, Any] = {"type": "command", "command": hook_command(argument, kenning_home)}
        if timeout is not None:
            handler["timeout"] = timeout
        out.append(JsonHook(event, {"hooks": [handler]}))
    return tuple(out)


def codex_home() -> Path:
    raw = os.environ.get("CODEX_HOME")
    return Path(raw).expanduser() if raw else Path.home() / ".codex"


def targets(client: str, scope: str, project: Path, kenning_home: Path | None) -> list[Target]:
    """The files ``kenning install CLIENT --scope SCOPE`` changes, and how."""
    check_client(client)
    if scope not in SCOPES:
        raise InvalidInput(f"unknown scope {scope!r}; use 'project' or 'user'")
    home = Path.home()
    user = scope == "user"
    if client == "claude-code":
        server = JsonKey(("mcpServers", SERVER_NAME), server_entry(kenning_home, stdio_type=True))
        settings = (home / ".claude" if user else project / ".claude") / "settings.json"
        return [Target(home / ".claude.json" if user else project / ".mcp.json", "json", (server,)),
                Target(settings, "json", claude_hooks(kenning_home))]
    if client == "codex":
        path = (codex_home() if user else project / ".codex") / "config.toml"
        return [Target(path, "toml", (TomlTable(("mcp_servers", SERVER_NAME), server_entry(kenning_home)),))]
    path = (home if user else project) / ".cursor" / "mcp.json"
    return [Target(path, "json", (JsonKey(("mcpServers", SERVER_NAME), server_entry(kenning_home)),))]


def generic_config(kenning_home: Path | None) -> dict[str, Any]:
    """The ``mcpServers`` entry most MCP clients read, to paste where a client wants it."""
    return {"mcpServers": {SERVER_NAME: server_entry(kenning_home)}}


def notes(client: str, scope: str) -> list[str]:
    """What a person should know after an install: when the client picks the change up."""
    out = []
    if client == "claude-code" and scope == "project":
        out.append("Claude Code asks once to approve the servers in .mcp.json before it starts them.")
    if client == "codex" and scope == "project":
        out.append("Codex reads .codex/config.toml only in projects you have marked as trusted.")
    out.append(f"Start a new {client} session (or restart it) to load the change.")
    return out

