"""Claude Code hooks: ``kenning hook session-start|pre-compact|session-end`` reads the event's JSON on
stdin (https://code.claude.com/docs/en/hooks: ``session_id``, ``transcript_path``, ``cwd``, ...).

* session-start: the context for the working directory (its folder name, and the git branch unless
  it is main/master, as the task) within a token budget, as Markdown on stdout, which Claude Code
  adds to the session's context.
* pre-compact, session-end: consolidate what the session's transcript (Claude Code's JSON lines)
  holds beyond the last consolidation: the text of user and assistant messages becomes
  ``{"role", "content"}`` messages for ``kb.consolidate``. How far each transcript was consolidated
  is kept in ``$KENNING_HOME/hooks/transcripts.json``, so a compaction and then the session's end do
  not consolidate the same messages twice, and a failed consolidation is retried by the next hook.

A hook must never get in the agent's way: the command logs every error to
``$KENNING_HOME/logs/hooks.log``, prints one line and exits 0 (exit 2 from PreCompact would even
block compaction).
"""

from __future__ import annotations

import json
import logging
import logging.handlers
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import fileio
from ..errors import InvalidInput
from ..timeutil import utcnow

if TYPE_CHECKING:
    from ..api import Kenning

EVENTS = ("session-start", "pre-compact", "session-end")
STATE_FILE = Path("hooks") / "transcripts.json"
LOG_FILE = Path("logs") / "hooks.log"
KEEP_STATE_DAYS = 90
MAX_MESSAGE_CHARS = 100_000  # what kenning.consolidate accepts per message
MAX_OUTPUT_CHARS = 9_500  # Claude Code passes hook output of up to 10,000 characters on whole
_BOOKKEEPING = ("<command-", "<local-command-")  # slash commands and their output, not conversation

log = logging.getLogger("kenning.hooks")


@dataclass(frozen=True)
class HookInput:
    """The fields of Claude Code's hook input that kenning uses."""

    session_id: str | None
    cwd: Path | None
    transcript: Path | None


def run(event: str, raw: str, open_kb: Callable[[Path | None], Kenning], home: Path, *, budget: int) -> str:
    """Handle one hook event; the text to print. ``open_kb(project_dir)`` opens the store, only once
    the input has been read, so bad input never loads the model."""
    if event not in EVENTS:
        raise InvalidInput(f"unknown hook event {event!r}; use one of: {', '.join(EVENTS)}")
    hook = parse_input(raw)
    kb = open_kb(hook.cwd)
    if event == "session-start":
        return session_context(kb, hook.cwd or Path.cwd(), budget)
    return consolidate_transcript(kb, hook, home / STATE_FILE)


def parse_input(raw: str) -> HookInput:
    if not raw.strip():
        raise InvalidInput("no hook input on stdin: Claude Code sends the event as a JSON object "
                           """(by hand: echo '{"cwd": "."}' | kenning hook session-start)""")
    try:
        data = json.loads(raw)
    except ValueError:
        raise InvalidInput("the hook input on stdin is not JSON; Claude Code sends a JSON object") from None
    if not isinstance(data, dict):
        raise InvalidInput(f"the hook input must be a JSON object, not {type(data).__name__}")
    fields = {k: data.get(k) for k in ("session_id", "cwd", "transcript_path")}
    for name, value in fields.items():
        if value is not None and not isinstance(value, str):
            raise InvalidInput(f"the hook input's {name} must be a string, not {type(value).__name__}")
    cwd = Path(fields["cwd"]).expanduser() if fields["cwd"] else None
    transcript = Path(fields["transcript_path"]).expanduser() if fields["transcript_path"] else None
    return HookInput(fields["session_id"], cwd if cwd is not None and cwd.is_dir() else None, transcript)


# -- session start ---------------------------------------------------------------------------------


def session_context(kb: Kenning, cwd: Path, budget: int) -> str:
    """The context for ``cwd`` as Markdown, shrunk until Claude Code takes it whole (text over
    10,000 characters goes to a file, and only a preview reaches the model)."""
    from ..context import MIN_BUDGET

    task = session_task(cwd)
    text = kb.context(task, budget).markdown.rstrip("\n")
    for _ in range(3):
        if len(text) <= MAX_OUTPUT_CHARS or budget <= MIN_BUDGET:
            break
        budget = max(MIN_BUDGET, int(budget * MAX_OUTPUT_CHARS / len(text) * 0.9))
        text = kb.context(task, budget).markdown.rstrip("\n")
    return text


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


def consolidate_transcript(kb: Kenning, hook: HookInput, state_path: Path) -> str:
    """Consolidate the transcript's messages that no earlier hook consolidated."""
    if hook.transcript is None:
        raise InvalidInput("the hook input has no transcript_path: nothing to consolidate")
    key = str(hook.transcript.resolve())
    with fileio.locked(state_path):  # a PreCompact and a SessionEnd of one session must not both take the same lines
        state = _load_state(state_path)
        offset = int(state.get(key, {}).get("offset", 0))
        lines, end = read_new_lines(hook.transcript, offset)
        messages = transcript_messages(lines)
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


def transcript_messages(lines: Iterable[str]) -> list[dict[str, str]]:
    """User and assistant text from Claude Code transcript lines, one message per turn. Tool calls,
    tool results, thinking, side chains, meta entries and compaction summaries are left out."""
    out: list[dict[str, str]] = []
    for line in lines:
        message = _message(line)
        if message is None:
            continue
        if out and out[-1]["role"] == message["role"]:  # one reply is written as several lines
            out[-1]["content"] = (out[-1]["content"] + "\n\n" + message["content"])[:MAX_MESSAGE_CHARS]
        else:
            out.append(message)
    return out


def _message(line: str) -> dict[str, str] | None:
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    if not isinstance(entry, dict) or entry.get("type") not in ("user", "assistant"):
        return None
    if entry.get("isSidechain") or entry.get("isMeta") or entry.get("isCompactSummary"):
        return None
    body = entry.get("message")
    if not isinstance(body, dict) or body.get("role") not in ("user", "assistant"):
        return None
    text = _text(body.get("content")).strip()
    if not text or text.startswith(_BOOKKEEPING):
        return None
    message = {"role": str(body["role"]), "content": text.replace("\x00", "")[:MAX_MESSAGE_CHARS]}
    stamp = entry.get("timestamp")
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
