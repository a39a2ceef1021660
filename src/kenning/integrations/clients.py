"""Where each agent client keeps its MCP servers and hooks, and what kenning writes there. Nothing
here writes a file: ``install`` does that.

Three places per client. The default is the person's own (a personal memory with a personal data
path and an absolute interpreter path belongs to nobody else); ``project`` (``--shared``) writes the
files a team commits, with a portable entry that runs ``kenning`` from PATH and hooks that do
nothing on a machine without kenning.

=============  =======  ===============================================  ===========================
client         scope    file                                             what kenning sets
=============  =======  ===============================================  ===========================
claude-code    local    ~/.claude.json                                   projects.<root>.mcpServers
                        <root>/.claude/settings.local.json (git-ignored)  hooks (three events)
claude-code    user     ~/.claude.json                                   mcpServers.kenning
                        ~/.claude/settings.json                          hooks
claude-code    project  <root>/.mcp.json, <root>/.claude/settings.json   the same, portable
codex          user     $CODEX_HOME/config.toml (~/.codex), hooks.json   [mcp_servers.kenning], hooks
codex          project  <root>/.codex/config.toml, hooks.json            the same, portable
cursor         user     ~/.cursor/mcp.json, ~/.cursor/hooks.json         mcpServers.kenning, hooks
cursor         project  <root>/.cursor/mcp.json, hooks.json              the same, portable
=============  =======  ===============================================  ===========================

``<root>`` is the project's git work tree (the folder holding ``.git``), else the project folder,
with symlinks resolved: the key Claude Code itself files a local server under (seen with
``claude mcp add --scope local`` in Claude Code 2.1.197, run from a sub-folder and through a
symlink).

Sources followed (read for this module):

* Claude Code MCP scopes, https://code.claude.com/docs/en/mcp: local scope (the default of ``claude
  mcp add``) is ``projects.<path>.mcpServers`` in ``~/.claude.json``, private to you in that project;
  project scope is ``.mcp.json`` at the project root, meant for version control, approved once per
  person; user scope is the top-level ``mcpServers`` of ``~/.claude.json``. An entry is
  ``{"type": "stdio", "command", "args", "env"}``.
* Claude Code settings, https://code.claude.com/docs/en/settings: ``.claude/settings.local.json`` is
  the personal, not checked-in project file (Claude Code makes git ignore it when it creates it);
  ``.claude/settings.json`` is shared; ``~/.claude/settings.json`` is every project's.
* Claude Code hooks, https://code.claude.com/docs/en/hooks: ``{"hooks": {event: [{"matcher"?,
  "hooks": [{"type": "command", "command", "timeout"?}]}]}}``; the command runs in a shell with the
  event as JSON on stdin; SessionStart stdout is added to the context; ``timeout`` is in seconds,
  and SessionEnd hooks get 1.5 s unless a hook sets its own (at most 60 s).
* Codex, https://developers.openai.com/codex/config-reference and /codex/mcp: servers are
  ``[mcp_servers.<name>]`` tables (``command``, ``args``, ``env``, ``required``,
  ``startup_timeout_sec``, default 10 s) in ``~/.codex/config.toml`` (``$CODEX_HOME`` moves it), or
  in ``.codex/config.toml`` of a trusted project. ``required = true`` makes Codex wait for the
  server (and fail the start if it cannot start), rather than send the first request without its
  tools.
* Cursor, https://cursor.com/docs/mcp: ``.cursor/mcp.json`` in the project, ``~/.cursor/mcp.json``
  for every project, ``{"mcpServers": {name: {"command", "args", "env"}}}``.
* Codex and Cursor hooks: see ``kenning.integrations.hookspecs``.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import InvalidInput
from . import hookspecs

CLIENTS = ("claude-code", "codex", "cursor")
SCOPES = ("local", "user", "project")
SERVER_NAME = "kenning"
PORTABLE_COMMAND = "kenning"
CODEX_STARTUP_TIMEOUT = 30  # seconds Codex waits for `kenning mcp` (its default, 10, is tight on a busy machine)
CLAUDE_CONNECT_TIMEOUT_MS = "15000"  # Claude Code's MCP_CONNECT_TIMEOUT_MS (default 5000), a string as env values are


Format = Literal["json", "toml"]


@dataclass(frozen=True)
class Launch:
    """The command line a client runs kenning with. ``portable`` is the bare ``kenning`` of a shared
    file (each teammate's own installation, found on PATH); otherwise ``argv`` is absolute, so it
    works from a desktop, another shell or an IDE that has never seen the virtual environment."""

    argv: tuple[str, ...]
    portable: bool = False

    def shell(self, *args: str) -> str:
        return shlex.join([*self.argv, *args])


def this_kenning() -> Launch:
    """The kenning that is running now: its console script beside the interpreter, or else
    ``python -m kenning`` with that interpreter. ``sys.executable`` is kept as it is (a venv's
    ``bin/python`` is a symlink; resolving it would leave the environment)."""
    python = Path(os.path.abspath(sys.executable))
    script = python.parent / ("kenning.exe" if os.name == "nt" else "kenning")
    if script.is_file() and os.access(script, os.X_OK):
        return Launch((str(script),))
    return Launch((str(python), "-m", "kenning"))


def portable_kenning() -> Launch:
    return Launch((PORTABLE_COMMAND,), portable=True)


@dataclass(frozen=True)
class JsonKey:
    """Set the object key at ``path`` (e.g. ``("mcpServers", "kenning")``) to ``value``; with
    ``unless_set``, only where the user has not set it (a setting of theirs, not kenning's entry)."""

    path: tuple[str, ...]
    value: Any
    unless_set: bool = False

    @property
    def label(self) -> str:
        return ".".join(self.path)


@dataclass(frozen=True)
class JsonHook:
    """Append ``group`` (a Claude Code matcher group, or a Cursor / Codex handler) to the list at
    ``hooks[event]`` of a hooks file."""

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
    """The person's own place: Claude Code's local scope (this project, only you); Codex and Cursor
    have no personal per-project file, so their user config."""
    return "local" if client == "claude-code" else "user"


def check_scope(client: str, scope: str) -> str:
    if scope not in SCOPES:
        raise InvalidInput(f"unknown scope {scope!r}; use one of: {', '.join(SCOPES)}")
    if scope == "local" and client != "claude-code":
        raise InvalidInput(f"{client} has no personal per-project config; use --scope user (its default: every "
                           "project, only you) or --shared (the project's committed files)")
    return scope


def project_root(project: Path) -> Path:
    """The git work tree holding ``project`` (where Claude Code files its local servers), else it."""
    folder = Path(os.path.realpath(project.expanduser()))
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


def server_entry(launch: Launch, kenning_home: Path | None) -> dict[str, Any]:
    """kenning's MCP server: ``kenning mcp`` over stdio, told the data directory when one was chosen
    (a GUI client such as Cursor does not see the shell's ``KENNING_HOME``)."""
    entry: dict[str, Any] = {"command": launch.argv[0], "args": [*launch.argv[1:], "mcp"]}
    if kenning_home is not None and not launch.portable:
        entry["env"] = {"KENNING_HOME": str(kenning_home)}
    return entry


def claude_server_entry(launch: Launch, kenning_home: Path | None) -> dict[str, Any]:
    # alwaysLoad: Claude Code waits for the server (up to MCP_CONNECT_TIMEOUT_MS) before the first
    # request and never defers its tools behind tool search; without it the first request of a
    # session on a busy machine went out with none of kenning's tools (seen with 2.1.197)
    return {"type": "stdio", **server_entry(launch, kenning_home), "alwaysLoad": True}


def codex_server_entry(launch: Launch, kenning_home: Path | None) -> dict[str, Any]:
    entry = server_entry(launch, kenning_home)
    if not launch.portable:  # a teammate without kenning would have Codex refuse to start at all
        entry["required"] = True
    entry["startup_timeout_sec"] = CODEX_STARTUP_TIMEOUT
    return entry


def hook_prefix(launch: Launch, kenning_home: Path | None) -> str | list[str]:
    """What runs kenning in a hook command. A portable one does nothing where kenning is not
    installed, so a teammate without it sees no hook error at every start."""
    if launch.portable:
        return f"command -v {PORTABLE_COMMAND} >/dev/null 2>&1 || exit 0; {PORTABLE_COMMAND}"
    return [*launch.argv, *(["--home", str(kenning_home)] if kenning_home is not None else [])]


def hook_changes(client: str, launch: Launch, kenning_home: Path | None) -> tuple[JsonKey | JsonHook, ...]:
    """The client's three hooks (``hookspecs``) as changes to its hooks file."""
    out: list[JsonKey | JsonHook] = []
    for entry in hookspecs.hook_entries(client, hook_prefix(launch, kenning_home)):
        if isinstance(entry, hookspecs.SetKey):
            out.append(JsonKey(entry.path, entry.value))
        else:
            out.append(JsonHook(entry.path[-1], entry.value))
    return tuple(out)


def codex_home() -> Path:
    raw = os.environ.get("CODEX_HOME")
    return Path(raw).expanduser() if raw else Path.home() / ".codex"


def targets(client: str, scope: str, project: Path, kenning_home: Path | None,
            launch: Launch | None = None) -> list[Target]:
    """The files ``kenning install CLIENT --scope SCOPE`` changes, and how. ``launch`` defaults to
    this kenning, or the portable command for the project scope."""
    check_client(client)
    check_scope(client, scope)
    if launch is None:
        launch = portable_kenning() if scope == "project" else this_kenning()
    home, root = Path.home(), project_root(project)
    changes = hook_changes(client, launch, kenning_home)
    if client == "claude-code":  # how long alwaysLoad waits; a cold start on a busy machine takes a few seconds
        changes = (JsonKey(("env", "MCP_CONNECT_TIMEOUT_MS"), CLAUDE_CONNECT_TIMEOUT_MS, unless_set=True), *changes)
    hooks = Target(hookspecs.hook_file(client, scope, home=home, project=root, codex_home=codex_home()), "json",
                   changes)
    if client == "claude-code":
        entry = claude_server_entry(launch, kenning_home)
        if scope == "local":
            server = Target(home / ".claude.json", "json",
                            (JsonKey(("projects", str(root), "mcpServers", SERVER_NAME), entry),))
        else:
            server = Target(home / ".claude.json" if scope == "user" else root / ".mcp.json", "json",
                            (JsonKey(("mcpServers", SERVER_NAME), entry),))
    elif client == "codex":
        table = TomlTable(("mcp_servers", SERVER_NAME), codex_server_entry(launch, kenning_home))
        server = Target(codex_config(scope, root), "toml", (table,))
    else:
        folder = (home if scope == "user" else root) / ".cursor"
        server = Target(folder / "mcp.json", "json", (JsonKey(("mcpServers", SERVER_NAME),
                                                              server_entry(launch, kenning_home)),))
    return [server, hooks]


def codex_config(scope: str, root: Path) -> Path:
    return (codex_home() if scope == "user" else root / ".codex") / "config.toml"


def codex_trust_tables(trust: dict[str, str]) -> tuple[TomlTable, ...]:
    """``[hooks.state."<key>"] trusted_hash = ...``: Codex runs these hooks without review."""
    return tuple(TomlTable(("hooks", "state", key), {"trusted_hash": digest}) for key, digest in sorted(trust.items()))


def generic_config(kenning_home: Path | None, launch: Launch | None = None) -> dict[str, Any]:
    """The ``mcpServers`` entry most MCP clients read, to paste where a client wants it."""
    return {"mcpServers": {SERVER_NAME: server_entry(launch or this_kenning(), kenning_home)}}


def notes(client: str, scope: str) -> list[str]:
    """What a person should know after an install: when the client picks the change up, and for a
    shared install what every teammate needs."""
    out = []
    if scope == "project":
        out.append("These files are meant to be committed: each teammate needs kenning on the PATH their client "
                   "sees (e.g. `pipx install 'kenning[mcp]'` or `uv tool install 'kenning[mcp]'`); without it the "
                   "hooks do nothing and the MCP server shows as failed.")
        if client == "claude-code":
            out.append("Claude Code asks each person once to approve the servers in .mcp.json before it starts them.")
        if client == "codex":
            out.append("Codex reads .codex/config.toml only in projects you have marked as trusted.")
    out.append(f"Start a new {client} session (or restart it) to load the change.")
    return out
