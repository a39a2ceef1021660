"""Codex runs a hook that is not managed by an administrator only once the person has trusted it
(``/hooks`` in Codex), and skips an untrusted one without a word. Trust is an entry
``[hooks.state."<key>"] trusted_hash = "<hash>"`` in the user's ``config.toml``, where the key
names the hooks file, event and position, and the hash is Codex's own of the definition; both
come from Codex itself: ``codex app-server`` (JSON-RPC lines on stdio: ``initialize``, the
``initialized`` notification, then ``hooks/list``). Asking Codex, rather than copying its hashing,
keeps this right when Codex changes how it hashes. Seen with codex-cli 0.171.0; see
``kenning.integrations.hookspecs`` for what was verified.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Any

from ..errors import KenningError

TIMEOUT = 30.0  # seconds for Codex to start and list its hooks


class CodexUnavailable(KenningError):
    """Codex could not be asked: not installed here, or it did not answer."""


def find_codex() -> str | None:
    return os.environ.get("KENNING_CODEX_BIN") or shutil.which("codex")


def hooks_list(codex: str, codex_home: Path, cwd: Path, *, timeout: float = TIMEOUT) -> dict[str, Any]:
    """The result of ``hooks/list`` for ``cwd``, from the Codex at ``codex``."""
    env = {**os.environ, "CODEX_HOME": str(codex_home)}
    try:
        process = subprocess.Popen([codex, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True, env=env, cwd=cwd)
    except OSError as exc:
        raise CodexUnavailable(f"could not start `{codex} app-server`: {exc}") from None
    assert process.stdin is not None and process.stdout is not None
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_read_lines, args=(process.stdout, lines), daemon=True).start()
    try:
        for message in ({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "kenning",
                                                                                    "version": "1"}}},
                        {"method": "initialized"},
                        {"id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}}):
            process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        process.stdin.flush()
        return _answer(lines, 2, time.monotonic() + timeout)
    except (OSError, ValueError) as exc:
        raise CodexUnavailable(f"`{codex} app-server` did not answer hooks/list: {exc}") from None
    finally:
        process.kill()
        process.wait()


def _read_lines(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)  # the server exited


def _answer(lines: queue.Queue[str | None], wanted: int, deadline: float) -> dict[str, Any]:
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise CodexUnavailable("`codex app-server` did not answer hooks/list in time") from None
        if line is None:
            raise CodexUnavailable("`codex app-server` exited without answering hooks/list")
        try:
            message = json.loads(line)
        except ValueError:
            continue  # not a protocol line
        if isinstance(message, dict) and message.get("id") == wanted:
            if "error" in message:
                raise CodexUnavailable(f"`codex app-server` refused hooks/list: {message['error']}")
            result = message.get("result")
            return result if isinstance(result, dict) else {}
