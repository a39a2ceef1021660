"""A conversation session whose older messages are consolidated in the background.

``add`` appends a message; when the session holds more than ``memory_window`` messages, all but the
newest ``memory_window // 2`` are handed to a background thread that consolidates them, and the
caller goes on at once. ``new()`` (an agent's "/new") archives every message to
``sessions/<id>.jsonl`` and clears the session at once, consolidating in the background. The
archive is one JSON object a line, each message's text passed through the write gate's redaction
first (secrets and personal data become ``[REDACTED:kind]``; what was masked is audited by kind and
count): a transcript on disk is as clean as the memory made from it.
``wait()`` joins the background work (tests, shutdown) and returns the reports; the threads are
not daemons, so a finishing program still completes its consolidations.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path

from .. import fileio
from ..checks import scope_folder
from ..text import holds
from ..errors import InvalidInput
from ..models import DEFAULT_SCOPE
from ..timeutil import utcnow
from .consolidator import Consolidator, Report
from .messages import Message

DEFAULT_WINDOW = 50


class Session:
    def __init__(self, consolidator: Consolidator, *, scope: str = DEFAULT_SCOPE, memory_window: int = DEFAULT_WINDOW,
                 session_id: str | None = None, on_report: Callable[[Report], None] | None = None) -> None:
        if isinstance(memory_window, bool) or not isinstance(memory_window, int) or memory_window < 2:
            raise InvalidInput(f"memory_window must be a whole number of messages >= 2, got {memory_window!r}")
        self.consolidator = consolidator
        self.scope = scope
        self.memory_window = memory_window
        self.id = session_id or uuid.uuid4().hex[:12]
        self.on_report = on_report
        self.messages: list[Message] = []
        self.reports: list[Report] = []
        self.errors: list[BaseException] = []
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def add(self, role: str, content: str) -> Message:
        """Append a message; past the window, the older part is consolidated in the background."""
        message = Message.of({"role": role, "content": content, "at": utcnow()})
        with self._lock:
            self.messages.append(message)
            older: list[Message] = []
            if len(self.messages) > self.memory_window:
                keep = max(1, self.memory_window // 2)
                older, self.messages = self.messages[:-keep], self.messages[-keep:]
        if older:
            self._archive(older)
            self._background(older)
        return message

    def new(self) -> int:
        """Archive and clear the session at once; its messages are consolidated in the background."""
        with self._lock:
            everything, self.messages = self.messages, []
        if everything:
            self._archive(everything)
            self._background(everything)
        return len(everything)

    def wait(self, timeout: float | None = None) -> list[Report]:
        """Wait for the background consolidations started so far; their reports, oldest first."""
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(timeout)
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()]
            return list(self.reports)

    def _background(self, batch: list[Message]) -> None:
        thread = threading.Thread(target=self._consolidate, args=(batch,), name=f"kenning-consolidate-{self.id}")
        with self._lock:
            self._threads.append(thread)
        thread.start()

    def _consolidate(self, batch: list[Message]) -> None:
        try:
            report = self.consolidator.run(batch, scope=self.scope)
        except BaseException as exc:  # noqa: BLE001 - kept for wait(); a background thread must not die silently
            with self._lock:
                self.errors.append(exc)
            return
        with self._lock:
            self.reports.append(report)
        if self.on_report is not None:
            self.on_report(report)

    def _archive(self, batch: list[Message]) -> None:
        """Append the messages, masked, to ``sessions/<id>.jsonl`` in the scope's folder: the
        transcript is never lost, and it stays in its scope."""
        kb = self.consolidator.kb
        rel = transcript_dir(self.scope) + f"/{self.id}.jsonl"
        path = kb.settings.home / rel
        scrub = kb.gate.scrub("session", mask_only=True)  # "refuse" must not lose what was said: mask it
        masked = [{**m.to_dict(), "content": scrub(m.content, "content")} for m in batch]
        lines = "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in masked).encode("utf-8")
        with fileio.locked(path):
            old = path.read_bytes() if path.exists() else b""
            fileio.atomic_write(path, old + lines)
        kb.gate.audit(scrub, scope=self.scope, path=rel, messages=len(batch))


def transcript_dir(scope: str) -> str:
    """Where a scope's archived transcripts are, relative to the data directory."""
    return "/".join(p for p in (scope_folder(scope), "sessions") if p)


def purge_transcripts(home: Path, scope: str, needles: Sequence[str], *, dry_run: bool = False) -> int:
    """Remove the messages holding one of ``needles`` (any case) from a scope's archived transcripts,
    for ``kenning purge``; how many (with ``dry_run``, would be) removed."""
    removed = 0
    folder = home / transcript_dir(scope)
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        with nullcontext() if dry_run else fileio.locked(path):
            lines = path.read_bytes().decode("utf-8", errors="replace").splitlines(keepends=True)
            kept = [line for line in lines if not holds(_message_text(line), needles)]
            removed += len(lines) - len(kept)
            if not dry_run and len(kept) < len(lines):
                fileio.atomic_write(path, "".join(kept).encode("utf-8"))
    return removed


def _message_text(line: str) -> str:
    try:
        message = json.loads(line)
    except ValueError:
        return line  # a damaged line is judged by its raw text
    return str(message.get("content", "")) if isinstance(message, dict) else line
