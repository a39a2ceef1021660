"""Agent client hooks: ``kenning hook session-start|pre-compact|session-end --client C`` reads the
event's JSON on stdin, as Claude Code, Codex or Cursor send it (``hookspecs`` has the sources).

* session-start: the context for the working directory (its folder name, and the git branch unless
  it is main/master, as the task) within a token budget, in the form the client adds to the
  session: Markdown on stdout (Claude Code), ``{"hookSpecificOutput": {"hookEventName":
  "SessionStart", "additionalContext"}}`` (Codex), ``{"additional_context"}`` (Cursor); shrunk
  until the client passes it on whole (``HookSpec.context_limit``).
* pre-compact, session-end: consolidate what the session's transcript holds beyond the last
  consolidation: the text of user and assistant messages becomes ``{"role", "content", "at"?}``
  messages for ``kb.consolidate``. Transcripts: Claude Code's JSON lines; Codex's rollout JSONL
  (``response_item`` messages); Cursor's JSON lines (``{"role", "message": {"content"}}``, not a
  documented format: lines of another shape give no messages, so nothing is consolidated). How far
  each transcript was consolidated is kept in ``$KENNING_HOME/hooks/transcripts.json``, so a
  compaction and then the session's end do not consolidate the same messages twice, and a failed
  consolidation is retried by the next hook. An event without a transcript (no
  ``transcript_path``, Cursor with transcripts off, a file that was never written, as after
  ``claude mcp list``) has nothing to consolidate: logged at INFO, no output. With ``detach`` the
  consolidation runs in a process of its own session and the hook returns at once (Codex kills a
  SessionEnd hook after 3 s).

A hook must never get in the agent's way: the command logs every error to
``$KENNING_HOME/logs/hooks.log``, prints one line on stderr and exits 0 (exit 2 from PreCompact
would even block compaction).
"""

from __future__ import annotations

import json
import logging
import logging.handlers
import re
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import fileio
from ..errors import InvalidInput
from ..timeutil import utcnow
from . import hookspecs

if TYPE_CHECKING:
    from ..api import Kenning

EVENTS = hookspecs.MOMENTS
STATE_FILE = Path("hooks") / "transcripts.json"
LOG_FILE = Path("logs") / "hooks.log"
KEEP_STATE_DAYS = 90
MAX_MESSAGE_CHARS = 100_000  # what kenning.consolidate accepts per message
LIMIT_MARGIN = 0.95  # of a client's context limit: the text must arrive whole, with room to spare
MAX_OUTPUT_CHARS = int(hookspecs.SPECS["claude-code"].context_limit * LIMIT_MARGIN)
_BOOKKEEPING = ("<command-", "<local-command-")  # Claude Code's slash commands and their output
# what Codex puts in user messages itself, for rollouts without per-item provenance
_CODEX_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<turn_aborted>")
_CURSOR_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.DOTALL)

log = logging.getLogger("kenning.hooks")


@dataclass(frozen=True)
class HookInput:
    """The fields of a hook's input that kenning uses."""

    session_id: str | None
    cwd: Path | None
    transcript: Path | None


@dataclass(frozen=True)
class HookResult:
    """What the hook prints for the client (may be empty) and one line for the log."""

    output: str
    summary: str


def run(event: str, raw: str, open_kb: Callable[[Path | None], Kenning], home: Path, *, budget: int,
        client: str = "claude-code", detach: bool = False) -> HookResult:
    """Handle one hook event of ``client``. ``open_kb(project_dir)`` opens the store, only once the
    input was read and there is work, so bad input or a missing transcript never loads the model."""
    spec = hookspecs.spec(client)
    if event not in EVENTS:
        raise InvalidInput(f"unknown hook event {event!r}; use one of: {', '.join(EVENTS)}")
    hook = parse_input(raw, client)
    if event == "session-start":
        unit_size = _utf8_size if spec.context_unit == "bytes" else len
        text = session_context(open_kb(hook.cwd), hook.cwd or Path.cwd(), budget,
                               limit=int(spec.context_limit * LIMIT_MARGIN), size=unit_size)
        return HookResult(context_output(client, text), text.splitlines()[0] if text else "empty context")
    missing = _no_transcript(hook)
    if missing:
        return HookResult(_consolidation_output(client, ""), missing)
    if detach:
        pid = start_detached(event, raw, home, client)
        return HookResult(_consolidation_output(client, ""), f"consolidating {hook.transcript} in process {pid}")
    line = consolidate_transcript(open_kb(hook.cwd), hook, home / STATE_FILE, client)
    return HookResult(_consolidation_output(client, line), line)


def parse_input(raw: str, client: str = "claude-code") -> HookInput:
    if not raw.strip():
        raise InvalidInput("no hook input on stdin: the client sends the event as a JSON object "
                           """(by hand: echo '{"cwd": "."}' | kenning hook session-start)""")
    try:
        data = json.loads(raw)
    except ValueError:
        raise InvalidInput("the hook input on stdin is not JSON; the client sends a JSON object") from None
    if not isinstance(data, dict):
        raise InvalidInput(f"the hook input must be a JSON object, not {type(data).__name__}")
    if client == "cursor":  # no cwd: the workspace's folders; the conversation's id in every event
        roots = data.get("workspace_roots")
        fields = {"session_id": data.get("conversation_id") or data.get("session_id"),
                  "cwd": roots[0] if isinstance(roots, list) and roots else None,
                  "transcript_path": data.get("transcript_path")}
    else:  # Claude Code and Codex share these names
        fields = {k: data.get(k) for k in ("session_id", "cwd", "transcript_path")}
    for name, value in fields.items():
        if value is not None and not isinstance(value, str):
            raise InvalidInput(f"the hook input's {name} must be a string, not {type(value).__name__}")
    cwd = Path(fields["cwd"]).expanduser() if fields["cwd"] else None
    transcript = Path(fields["transcript_path"]).expanduser() if fields["transcript_path"] else None
    return HookInput(fields["session_id"], cwd if cwd is not None and cwd.is_dir() else None, transcript)


# -- session start ---------------------------------------------------------------------------------


def session_context(kb: Kenning, cwd: Path, budget: int, *, limit: int = MAX_OUTPUT_CHARS,
                    size: Callable[[str], int] = len) -> str:
    """The session layout of the context for ``cwd`` (hot memory, then what matches the project and
    the recent sessions, then the skill index), with ``size(text) <= limit``: past its limit a
    client passes on only a preview (Claude Code saves the rest to a file, Codex keeps head and
    tail). The layout holds a character ceiling; a limit in bytes narrows that ceiling until the
    text fits."""
    from ..context import MIN_CHARS

    task = session_task(cwd)
    ceiling = limit
    text = kb.context(task, budget, layout="session", max_chars=ceiling).markdown.rstrip("\n")
    for _ in range(5):
        if size(text) <= limit or ceiling <= MIN_CHARS:
            break
        ceiling = max(MIN_CHARS, int(ceiling * limit / size(text) * 0.95))
        text = kb.context(task, budget, layout="session", max_chars=ceiling).markdown.rstrip("\n")
    return text


def context_output(client: str, text: str) -> str:
    """The session-start context as ``client`` reads it on stdout."""
    if client == "codex":
        return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}})
    if client == "cursor":
        return json.dumps({"additional_context": text})
    return text


def _consolidation_output(client: str, line: str) -> str:
    # Cursor reads a hook's stdout as JSON; Claude Code and Codex show a line in their debug views
    return "{}" if client == "cursor" else line


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8"))


def session_task(cwd: Path) -> str:
    """What the session is probably about: the project folder, and a topic branch when there is one."""
    name = cwd.name or str(cwd)
    branch = git_branch(cwd)
    return f"{name} (git branch {branch})" if branch and branch not in ("main", "master") else name


def git_branch(cwd: Path) -> str | None:
    """The checked-out branch, read from .git/HEAD (no git process: a hook must be quick)."""
    for folder in (cwd, *cwd.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
                pointer = dot_git.read_text(encoding="utf-8").strip().removeprefix("gitdir:").strip()
                dot_git = (folder / pointer).resolve()
            elif not dot_git.is_dir():
                continue
            head = (dot_git / "HEAD").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return head.removeprefix("ref: refs/heads/") if head.startswith("ref: refs/heads/") else None
    return None


# -- consolidation ---------------------------------------------------------------------------------


def _no_transcript(hook: HookInput) -> str | None:
    """Why there is nothing to consolidate (logged at INFO), or None when there is a transcript."""
    if hook.transcript is None:
        return "no transcript_path in the hook input: nothing to consolidate"
    if not hook.transcript.is_file():
        return f"no transcript at {hook.transcript}: nothing to consolidate"
    return None


def start_detached(event: str, raw: str, home: Path, client: str) -> int:
    """Run this hook again, without ``--detach``, in a session of its own with the same input, and
    return its process id without waiting: a client that kills the hook's process group at its
    timeout does not reach it. It logs to hooks.log like any hook."""
    argv = [sys.executable, "-m", "kenning", "--home", str(home), "hook", event, "--client", client]
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True, close_fds=True)
    assert child.stdin is not None
    child.stdin.write(raw.encode("utf-8"))  # a hook input is a few hundred bytes: the pipe holds it
    child.stdin.close()
    return child.pid


def consolidate_transcript(kb: Kenning, hook: HookInput, state_path: Path, client: str = "claude-code") -> str:
    """Consolidate the transcript's messages that no earlier hook consolidated."""
    if hook.transcript is None:
        raise InvalidInput("the hook input has no transcript_path: nothing to consolidate")
    key = str(hook.transcript.resolve())
    with fileio.locked(state_path):  # a PreCompact and a SessionEnd of one session must not both take the same lines
        state = _load_state(state_path)
        offset = int(state.get(key, {}).get("offset", 0))
        lines, end = read_new_lines(hook.transcript, offset)
        messages = transcript_messages(lines, client)
        if not messages:
            _save_state(state_path, state, key, end, hook.session_id)
            return "kenning: nothing new to consolidate"
        report = kb.consolidate(messages)
        if not report.success:  # the model failed: leave the offset, so the next hook tries again
            return f"kenning: consolidation changed nothing: {report.error}"
        _save_state(state_path, state, key, end, hook.session_id)
    mode = f"with {report.model}" if report.mode == "model" else "without a model"
    return f"kenning: consolidated {len(messages)} messages {mode}: {len(report.written)} written"


def read_new_lines(path: Path, offset: int) -> tuple[list[str], int]:
    """The complete lines after byte ``offset``, and the offset after them."""
    try:
        with path.open("rb") as fh:
            size = fh.seek(0, 2)
            if offset > size:  # the transcript was rewritten: start again from the top
                offset = 0
            fh.seek(offset)
            data = fh.read()
    except FileNotFoundError:
        raise InvalidInput(f"the transcript {path} does not exist") from None
    end = data.rfind(b"\n") + 1  # the last line may still be being written
    return data[:end].decode("utf-8", errors="replace").splitlines(), offset + end


def transcript_messages(lines: Iterable[str], client: str = "claude-code") -> list[dict[str, str]]:
    """User and assistant text from a client's transcript lines, one message per turn. Tool calls,
    tool results, thinking, side chains, meta entries, injected context and compaction summaries
    are left out."""
    parse = {"codex": _codex_message, "cursor": _cursor_message}.get(client, _claude_message)
    out: list[dict[str, str]] = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = parse(entry) if isinstance(entry, dict) else None
        if message is None:
            continue
        if out and out[-1]["role"] == message["role"]:  # one reply is written as several lines
            out[-1]["content"] = (out[-1]["content"] + "\n\n" + message["content"])[:MAX_MESSAGE_CHARS]
        else:
            out.append(message)
    return out


def _claude_message(entry: dict[str, Any]) -> dict[str, str] | None:
    if entry.get("type") not in ("user", "assistant"):
        return None
    if entry.get("isSidechain") or entry.get("isMeta") or entry.get("isCompactSummary"):
        return None
    body = entry.get("message")
    if not isinstance(body, dict) or body.get("role") not in ("user", "assistant"):
        return None
    text = _text(body.get("content")).strip()
    if text.startswith(_BOOKKEEPING):
        return None
    return _message(body["role"], text, entry.get("timestamp"))


def _codex_message(entry: dict[str, Any]) -> dict[str, str] | None:
    """A rollout line ``{"timestamp", "type": "response_item", "payload": {"type": "message", "role",
    "content": [{"type": "input_text"|"output_text", "text"}]}}``; the same conversation is also
    logged as ``event_msg`` lines, which are skipped so nothing counts twice."""
    body = entry.get("payload")
    if entry.get("type") != "response_item" or not isinstance(body, dict) or body.get("type") != "message":
        return None
    role = body.get("role")
    metadata = entry.get("metadata")
    if role not in ("user", "assistant") or (isinstance(metadata, dict) and metadata.get("compaction_output")):
        return None
    content = body.get("content")
    passthrough = body.get("internal_chat_message_metadata_passthrough")
    origins = passthrough.get("content_item_metadata") if isinstance(passthrough, dict) else None
    texts = []
    for i, item in enumerate(content if isinstance(content, list) else []):
        text = item.get("text") if isinstance(item, dict) else None
        if not isinstance(text, str) or item.get("type") not in ("input_text", "output_text"):
            continue
        if role == "user" and (_injected_by_codex(origins, i) or text.lstrip().startswith(_CODEX_INJECTED)):
            continue  # AGENTS.md, the environment, hook context: Codex's, not the person's
        texts.append(text)
    return _message(role, "\n".join(texts).strip(), entry.get("timestamp"))


def _injected_by_codex(origins: Any, index: int) -> bool:
    if not isinstance(origins, list) or index >= len(origins) or not isinstance(origins[index], dict):
        return False
    provenance = origins[index].get("provenance")
    return isinstance(provenance, dict) and provenance.get("type") not in (None, "user")


def _cursor_message(entry: dict[str, Any]) -> dict[str, str] | None:
    """A line ``{"role", "message": {"content": [{"type": "text", "text"}]}}``; a user's words sit in
    ``<user_query>`` beside what Cursor attached."""
    body = entry.get("message")
    role = entry.get("role") or (body.get("role") if isinstance(body, dict) else None)
    if role not in ("user", "assistant"):
        return None
    text = _text(body.get("content") if isinstance(body, dict) else entry.get("content"))
    query = _CURSOR_QUERY.search(text) if role == "user" else None
    return _message(role, (query.group(1) if query else text).strip(), entry.get("timestamp"))


def _message(role: str, text: str, stamp: Any) -> dict[str, str] | None:
    if not text:
        return None
    message = {"role": role, "content": text.replace("\x00", "")[:MAX_MESSAGE_CHARS]}
    if isinstance(stamp, str) and _is_time(stamp):
        message["at"] = stamp
    return message


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [block.get("text") for block in content if isinstance(block, dict) and block.get("type") == "text"]
        return "\n".join(text for text in texts if isinstance(text, str))
    return ""


def _is_time(value: str) -> bool:
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def _load_state(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("%s is unreadable (%s); every transcript counts as not consolidated yet", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def _save_state(path: Path, state: dict[str, Any], key: str, offset: int, session_id: str | None) -> None:
    now = utcnow()
    state[key] = {"offset": offset, "session_id": session_id, "at": now.isoformat()}
    cutoff = now - timedelta(days=KEEP_STATE_DAYS)
    kept = {k: v for k, v in state.items() if isinstance(v, dict) and _after(v.get("at"), cutoff)}
    fileio.atomic_write(path, (json.dumps(kept, indent=2) + "\n").encode("utf-8"))


def _after(stamp: Any, cutoff: datetime) -> bool:
    try:
        return isinstance(stamp, str) and datetime.fromisoformat(stamp) >= cutoff
    except ValueError:
        return False


# -- logging ---------------------------------------------------------------------------------------


@contextmanager
def logging_to(home: Path) -> Iterator[Path | None]:
    """Send kenning's log records to ``$KENNING_HOME/logs/hooks.log`` while a hook runs (a hook's
    stderr is seen by nobody); yields the log's path, or None when it cannot be written."""
    path = home / LOG_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=1,
                                                                         encoding="utf-8")
    except OSError:
        yield None
        return
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("kenning")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield path
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        handler.close()
