"""Each agent client's lifecycle hooks as kenning uses them: the file, its shape, the client's events
for kenning's three moments (context at session start, consolidation before compaction and at
session end) and the exact entries to merge. Pure data and pure functions: ``install`` writes them.

===========  ========================================  ============================  =============
client       file (user; project)                      events                        entry
===========  ========================================  ============================  =============
claude-code  ~/.claude/settings.json;                  SessionStart, PreCompact,     matcher group
             .claude/settings.json (+ .local.json)     SessionEnd
codex        $CODEX_HOME/hooks.json (~/.codex);        SessionStart, PreCompact,     matcher group
             .codex/hooks.json                         SessionEnd
cursor       ~/.cursor/hooks.json; .cursor/hooks.json  sessionStart, preCompact,     handler, and
                                                       sessionEnd                    "version": 1
===========  ========================================  ============================  =============

Sources:

* Claude Code, https://code.claude.com/docs/en/hooks: ``{"hooks": {event: [{"matcher"?, "hooks":
  [{"type": "command", "command", "timeout"?}]}]}}`` in the settings files; stdin JSON with
  ``session_id``, ``transcript_path``, ``cwd``; SessionStart stdout joins the context, cut to a
  preview past 10,000 characters; SessionEnd gets 1.5 s unless a hook sets more (at most 60 s).
* Codex, https://developers.openai.com/codex/hooks: hooks live next to each config layer, in
  ``hooks.json`` or as ``[hooks]`` tables of ``config.toml`` (a layer with both is merged with a
  warning); ``~/.codex`` (``$CODEX_HOME``) and ``<repo>/.codex``, the latter only in a trusted
  project. Same event / matcher group / handler shape as Claude Code. Enabled by default: the
  feature key is ``[features] hooks`` (``codex_hooks`` is its deprecated alias). Non-managed hooks
  run only once reviewed and trusted; trust is kept per hook against a hash of its definition.
* Cursor, https://cursor.com/docs/hooks: ``{"version": 1, "hooks": {event: [{"command",
  "timeout"?}]}}`` (no matcher groups) in ``~/.cursor/hooks.json`` (run from ``~/.cursor``) or
  ``<project>/.cursor/hooks.json`` (run from the project root, trusted workspaces only). Every
  agent hook gets ``conversation_id``, ``workspace_roots`` and ``transcript_path`` (null when
  transcripts are off; its format is not documented); sessionStart may answer
  ``{"additional_context": ...}``; sessionStart and sessionEnd are fire-and-forget; preCompact
  only observes. No output limit and no default timeout are documented.

Verified with codex-cli 0.171.0 (``codex exec`` offline against a fake Responses server, in a
network namespace of its own, with HOME and CODEX_HOME in temporary folders):

* ``hooks`` is a stable feature, on by default. SessionStart runs in ``codex exec`` (source
  startup, resume, and compact after a compaction), PreCompact before an automatic compaction
  (``trigger: "auto"``), SessionEnd when exec ends (``reason: "other"``). Each gets
  ``session_id``, ``transcript_path`` (the rollout JSONL under ``$CODEX_HOME/sessions``) and
  ``cwd``.
* SessionStart stdout, plain text or ``{"hookSpecificOutput": {"hookEventName": "SessionStart",
  "additionalContext": ...}}``, becomes a developer message; past 10,000 UTF-8 bytes (2,500 tokens
  of 4 bytes) only a head and tail reach the model.
* The default timeout is 600 s; SessionEnd defaults to 1 s and a larger ``timeout`` is cut to 3 s
  (``hooks/list`` reports 3 for 60), after which the hook is killed: kenning detaches that
  consolidation (``--detach``).
* A hooks.json with any top-level key but ``hooks`` and ``description`` is refused as a whole.
* An untrusted hook is skipped without a word (``--dangerously-bypass-hook-trust`` runs it for one
  invocation). Trust is ``[hooks.state."<key>"] trusted_hash = "<hash>"`` in the user's
  ``config.toml``; key and hash come from Codex's own ``codex app-server`` (JSON lines on stdio:
  ``initialize``, the ``initialized`` notification, then ``hooks/list`` with ``{"cwds": [dir]}``;
  each hook has ``key`` such as ``/home/me/.codex/hooks.json:session_start:0:0``, ``currentHash``
  ``sha256:…``, ``trustStatus``, ``command``). Written there, the hooks ran in the next ``codex
  exec`` without the bypass flag. (``config/batchWrite`` with ``hooks.state.<key>`` as a dotted
  ``keyPath`` splits the key at its dots and Codex ignores the result.) See ``codex_trust``.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import InvalidInput

CLIENTS = ("claude-code", "codex", "cursor")
MOMENTS = ("session-start", "pre-compact", "session-end")  # the EVENT argument of `kenning hook`
SESSION_START_BUDGET = 2000  # tokens: about 8,000 characters, inside every client's output limit


@dataclass(frozen=True)
class HookEvent:
    """One client event and what kenning runs for it."""

    name: str  # the client's event: "SessionStart", "sessionStart", ...
    moment: str  # the `kenning hook` EVENT it runs: one of MOMENTS
    timeout: int | None  # seconds; None keeps the client's default
    detach: bool = False  # consolidate in a process of its own: the client kills the hook sooner


@dataclass(frozen=True)
class HookSpec:
    """A client's hooks file and what kenning puts in it."""

    client: str
    source: str  # the document the format was taken from
    places: Mapping[str, tuple[str, ...]]  # scope -> path under its base ("~" home, "codex" $CODEX_HOME, "." project)
    events: tuple[HookEvent, ...]
    grouped: bool  # hooks[event] holds matcher groups {"hooks": [handler]} (else handlers)
    typed: bool  # a handler says "type": "command"
    top_level: Mapping[str, Any]  # keys the file must hold besides "hooks"
    context_limit: int  # the most session-start context the client passes on whole
    context_unit: Literal["chars", "bytes"]  # what context_limit counts (bytes: UTF-8)


SPECS: dict[str, HookSpec] = {
    "claude-code": HookSpec(
        client="claude-code",
        source="https://code.claude.com/docs/en/hooks",
        places={"user": ("~", ".claude", "settings.json"), "project": (".", ".claude", "settings.json"),
                "local": (".", ".claude", "settings.local.json")},
        events=(HookEvent("SessionStart", "session-start", None),  # the default, 600 s, is plenty
                HookEvent("PreCompact", "pre-compact", 120),  # compaction waits: bounded even with a slow model
                HookEvent("SessionEnd", "session-end", 60)),  # 1.5 s by default; 60 s is the most allowed
        grouped=True, typed=True, top_level={},
        context_limit=10_000, context_unit="chars",
    ),
    "codex": HookSpec(
        client="codex",
        source="https://developers.openai.com/codex/hooks",
        places={"user": ("codex", "hooks.json"), "project": (".", ".codex", "hooks.json")},
        events=(HookEvent("SessionStart", "session-start", None),
                HookEvent("PreCompact", "pre-compact", 120),
                HookEvent("SessionEnd", "session-end", 3, detach=True)),  # 3 s is Codex's cap (0.171.0)
        grouped=True, typed=True, top_level={},
        context_limit=10_000, context_unit="bytes",
    ),
    "cursor": HookSpec(
        client="cursor",
        source="https://cursor.com/docs/hooks",
        places={"user": ("~", ".cursor", "hooks.json"), "project": (".", ".cursor", "hooks.json")},
        # Cursor documents no default timeout: say one. sessionEnd is fire-and-forget and comes
        # when a window closes, so its consolidation must not depend on Cursor waiting for it.
        events=(HookEvent("sessionStart", "session-start", 60),
                HookEvent("preCompact", "pre-compact", 120),
                HookEvent("sessionEnd", "session-end", 60, detach=True)),
        grouped=False, typed=False, top_level={"version": 1},
        context_limit=10_000, context_unit="chars",  # no documented limit: Claude Code's
    ),
}


@dataclass(frozen=True)
class SetKey:
    """Set the key at ``path`` of the hooks file to ``value`` (e.g. ``("version",)`` to 1)."""

    path: tuple[str, ...]
    value: Any


@dataclass(frozen=True)
class AppendEntry:
    """Append ``value`` to the list at ``path`` (e.g. ``("hooks", "SessionStart")``), making it if
    missing: a matcher group for Claude Code and Codex, a handler for Cursor."""

    path: tuple[str, ...]
    value: dict[str, Any]


def spec(client: str) -> HookSpec:
    try:
        return SPECS[client]
    except KeyError:
        raise InvalidInput(f"unknown client {client!r}; use one of: {', '.join(CLIENTS)}") from None


def hook_file(client: str, scope: str, *, home: Path, project: Path, codex_home: Path | None = None) -> Path:
    """The hooks file of ``client`` for ``scope`` (``user``, ``project``; Claude Code also
    ``local``). ``codex_home`` is ``$CODEX_HOME`` when set (default ``home/.codex``)."""
    places = spec(client).places
    if scope not in places:
        raise InvalidInput(f"{client} has no {scope!r} hooks file; use one of: {', '.join(places)}")
    base, *parts = places[scope]
    root = {"~": home, ".": project, "codex": codex_home or home / ".codex"}[base]
    return root.joinpath(*parts)


def hook_args(client: str, event: HookEvent, budget: int = SESSION_START_BUDGET) -> list[str]:
    """The arguments after ``kenning [--home H]`` for one event, e.g. ``hook session-end --client
    codex --detach``."""
    args = ["hook", event.moment]
    if client != "claude-code":  # the default, so entries written before --client existed still match
        args += ["--client", client]
    if event.moment == "session-start":
        args += ["--budget", str(budget)]
    if event.detach:
        args.append("--detach")
    return args


def hook_entries(client: str, command_prefix: str | Sequence[str],
                 budget: int = SESSION_START_BUDGET) -> tuple[SetKey | AppendEntry, ...]:
    """What to merge into ``client``'s hooks file, in order. ``command_prefix`` runs kenning: an
    argv (``["/opt/kenning/bin/kenning", "--home", "/srv/k"]``, quoted here) or shell text that the
    arguments are appended to (``"command -v kenning >/dev/null || exit 0; kenning"``)."""
    s = spec(client)
    prefix = command_prefix if isinstance(command_prefix, str) else shlex.join(command_prefix)
    out: list[SetKey | AppendEntry] = [SetKey((key,), value) for key, value in s.top_level.items()]
    for event in s.events:
        handler: dict[str, Any] = {"type": "command"} if s.typed else {}
        handler["command"] = f"{prefix} {shlex.join(hook_args(client, event, budget))}"
        if event.timeout is not None:
            handler["timeout"] = event.timeout
        out.append(AppendEntry(("hooks", event.name), {"hooks": [handler]} if s.grouped else handler))
    return tuple(out)


def codex_trust(hooks_list: Mapping[str, Any], commands: Sequence[str]) -> dict[str, str]:
    """From the result of Codex's app-server ``hooks/list``: ``{key: currentHash}`` for each hook
    that runs one of ``commands`` and is not trusted yet. Written as ``[hooks.state."<key>"]
    trusted_hash = "<currentHash>"`` in the user's config.toml, Codex runs them without review."""
    wanted = set(commands)
    out: dict[str, str] = {}
    for entry in hooks_list.get("data") or []:
        hooks = entry.get("hooks") if isinstance(entry, Mapping) else None
        for hook in hooks or []:
            if (isinstance(hook, Mapping) and hook.get("command") in wanted
                    and hook.get("trustStatus") in ("untrusted", "modified")
                    and isinstance(hook.get("key"), str) and isinstance(hook.get("currentHash"), str)):
                out[hook["key"]] = hook["currentHash"]
    return out
