"""``kenning mcp`` over stdio, answering the handshake before anything has loaded.

Clients such as Claude Code and Codex start their MCP servers and send the first model request
without waiting for them: a server that has not answered ``tools/list`` by then is missing from it.
Importing the MCP SDK alone takes about a second, twice that on a busy machine. So the stdio server
starts with a front that needs neither the SDK nor the store:

1. it claims stdin and stdout (``Wire``): while it serves, fd 0 reads the null device and fd 1
   writes to stderr, so that a stray print or a child process cannot corrupt the stream;
2. a reader thread answers ``initialize``, ``ping``, ``tools/list``, ``prompts/list``,
   ``resources/templates/list`` and ``resources/list`` itself, from ``handshake``, and queues every
   other message (Claude Code shows none of a server's tools until initialize and the tool, prompt
   and resource listings have all answered); for ``resources/list`` it reads the skill folders as the
   library does (``handshake.early_skills``), and leaves it to the SDK when that cannot give the
   library's answer;
3. meanwhile the main thread imports the SDK (``server``) and opens the store;
4. then the connection is handed over: the SDK's session reads the client's ``initialize`` again,
   under a private id (its answer, already given, is dropped), and ``notifications/initialized``,
   then the queue and the rest of the stream, and answers everything from then on.

A tool call therefore waits for the load, and a store that could not be opened answers every tool
call with the reason instead of a server that exits (``resources/list``, answered early, lists the
files anyway; reading one then gives the reason). Only the initialize handshake is answered
early: a client that opens with anything else (the 2026-07-28 per-request protocol) is served by
the SDK once it has loaded.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import KenningError, StoreError
from . import handshake
from .frames import lone_surrogate
from .messages import for_client

if TYPE_CHECKING:
    from ..api import Kenning
    from ..skills.sources import Source

log = logging.getLogger("kenning.mcp")
REPLAY_ID = "kenning-front-initialize"  # the client's initialize, given to the SDK again under this id
EARLY: dict[str, Callable[[str], dict[str, Any]]] = {
    "ping": lambda scope: {},
    "tools/list": handshake.tools_result,
    "prompts/list": lambda scope: handshake.prompts_result(),
    "resources/templates/list": lambda scope: handshake.templates_result(),
}


def serve(open_kb: Callable[[], Kenning], scope: str,
          skill_sources: Callable[[], tuple[Source, ...]] | None = None) -> None:
    """Serve one client over stdin and stdout until it closes stdin (see the module docstring);
    ``open_kb`` opens the store, after the front has started; ``skill_sources`` gives the skill
    roots the store's library will read (without it the SDK answers ``resources/list``)."""
    front = Front(Wire(), scope, skill_sources)
    front.start()
    if skill_sources is not None:  # before the SDK: imported in the reader thread alongside it, twice as slow
        handshake.import_listing()
    from . import server  # the SDK, imported while the front answers

    kb = _load(open_kb)
    try:
        inbox, outbox = front.hand_over()
        server.serve_streams(kb, scope, inbox, outbox)
    finally:
        if not isinstance(kb, KenningError):
            kb.close()


def _load(open_kb: Callable[[], Kenning]) -> Kenning | KenningError:
    """The open store, or the error every tool call is to answer with (also logged on stderr, which
    clients keep in their MCP log)."""
    try:
        return open_kb()
    except KenningError as exc:
        reason = str(exc)
    except Exception as exc:  # anything else opening can raise (an unreadable folder): served as the reason too
        log.exception("kenning mcp could not open its store")
        reason = f"{type(exc).__name__}: {exc}"
    message = for_client(f"kenning could not open its store, so no tool can run: {reason.rstrip('.')}. Fix that, "
                         "then restart this MCP server (reconnect it in the client)")
    log.error("%s", message)
    return StoreError(message)


class Wire:
    """The process's stdin and stdout, claimed for the JSON-RPC stream: fd 0 then reads the null
    device and fd 1 writes to stderr, so that only ``send`` writes to the client."""

    def __init__(self) -> None:
        sys.stdout.flush()
        self._in = os.fdopen(os.dup(0), "rb")
        self._out = os.fdopen(os.dup(1), "wb")
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
        os.dup2(2, 1)
        self._lock = threading.Lock()  # the front and then the SDK write; a line is never torn

    def lines(self) -> Iterator[str]:
        for raw in self._in:
            # bytes that are not UTF-8 become lone surrogates, which ``frames`` refuses by name, rather
            # than U+FFFD, which would be stored in their place
            yield raw.decode("utf-8", errors="surrogateescape")

    def send(self, line: str) -> None:
        with self._lock:
            self._out.write(line.rstrip("\n").encode("utf-8") + b"\n")
            self._out.flush()


class Front:
    """Answers the handshake on a ``Wire`` until ``hand_over``, and queues every other message."""

    def __init__(self, wire: Wire, scope: str, skill_sources: Callable[[], tuple[Source, ...]] | None = None) -> None:
        self.wire = wire
        self.scope = scope
        self.skill_sources = skill_sources
        self.queue: queue.Queue[str | None] = queue.Queue()  # None: the client closed stdin
        self._lock = threading.Lock()
        self._state = "opening"  # then "answering" (initialize answered), "waiting" (all for the SDK), "handed"
        self._replay: list[str] = []
        self._initialized: dict[str, Any] | None = None  # the initialize result sent

    def start(self) -> None:
        threading.Thread(target=self._read, name="kenning-mcp-front", daemon=True).start()

    def hand_over(self) -> tuple[Inbox, Outbox]:
        """The streams the SDK is to serve: the replay, then what was queued and what comes next."""
        with self._lock:
            self._state = "handed"
            return Inbox(list(self._replay), self.queue), Outbox(self.wire, self._initialized)

    def _read(self) -> None:
        try:
            for line in self.wire.lines():
                with self._lock:  # hand_over waits for the line being answered
                    if not self._answered(line):
                        self.queue.put(line)
        finally:
            self.queue.put(None)

    def _answered(self, line: str) -> bool:
        """Whether ``line`` was answered here or kept for the replay; if not, the SDK answers it."""
        if self._state in ("waiting", "handed"):
            return False
        message = _message(line)
        method, request_id = message.get("method"), message.get("id")
        is_request = isinstance(request_id, str | int) and not isinstance(request_id, bool)
        if self._state == "opening":
            params = message.get("params")
            if method != "initialize" or not is_request or not _initialize_params(params):
                self._state = "waiting"
                return False
            assert isinstance(params, dict)
            self._initialized = handshake.initialize_result(params["protocolVersion"], self.scope)
            self._send(request_id, self._initialized)
            self._replay.append(json.dumps({**message, "id": REPLAY_ID}))
            self._state = "answering"
            return True
        if method == "notifications/initialized" and "id" not in message:
            self._replay.append(line)
            return True
        if is_request and isinstance(method, str) and method in EARLY:
            self._send(request_id, EARLY[method](self.scope))
            return True
        if is_request and method == "resources/list":
            resources = self._resources()
            if resources is not None:
                self._send(request_id, resources)
            return resources is not None
        return False

    def _resources(self) -> dict[str, Any] | None:
        """The resources/list answer the loaded library would give, or None to leave it to the SDK."""
        if self.skill_sources is None:
            return None
        try:
            skills = handshake.early_skills(self.skill_sources())
        except KenningError:
            return None  # a kenning.toml the library refuses, say: the SDK answers with the library's message
        except Exception:  # a bug here must not end the reader thread (and the connection): logged, left to the SDK
            log.exception("kenning mcp could not list its resources early")
            return None
        return None if skills is None else handshake.resources_result(self.scope, skills)

    def _send(self, request_id: object, result: dict[str, Any]) -> None:
        self.wire.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}, ensure_ascii=False))


def _message(line: str) -> dict[str, Any]:
    """A JSON-RPC message as a dict, or {} for anything else (the SDK answers that, or ``frames`` when
    the SDK's parser refuses it: nested too deep, a string that is not text)."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or lone_surrogate(message) is not None:
        return {}
    return message


def _initialize_params(params: object) -> bool:
    """Whether ``params`` are what the SDK takes for ``initialize`` (else its error is the answer)."""
    if not isinstance(params, dict):
        return False
    info = params.get("clientInfo")
    return (isinstance(params.get("protocolVersion"), str) and isinstance(params.get("capabilities"), dict)
            and isinstance(info, dict) and isinstance(info.get("name"), str)
            and isinstance(info.get("version"), str))


class Inbox:
    """What the SDK reads, a line at a time: the replayed handshake, then the front's queue."""

    def __init__(self, replay: list[str], lines: queue.Queue[str | None]) -> None:
        self._replay = replay
        self._lines = lines
        self._ended = False

    def readline(self) -> str:
        if self._replay:
            return self._replay.pop(0)
        if self._ended:
            return ""
        line = self._lines.get()
        if line is None:
            self._ended = True
            return ""
        return line


class Outbox:
    """What the SDK writes: to the wire, but for its answer to the replayed ``initialize`` (the client
    has had the front's), which is checked against the front's and dropped."""

    def __init__(self, wire: Wire, sent: dict[str, Any] | None) -> None:
        self._wire = wire
        self._sent = sent
        self._dropped = sent is None  # nothing was replayed: nothing to drop

    def write(self, text: str) -> int:
        if not self._dropped:
            answer = _message(text)
            if answer.get("id") == REPLAY_ID:
                self._dropped = True
                if answer.get("result") != self._sent:  # the SDK changed what it answers: handshake must follow
                    log.warning("kenning mcp: the SDK answers initialize with %s, the front answered %s",
                                answer.get("result", answer.get("error")), self._sent)
                return len(text)
        self._wire.send(text)
        return len(text)

    def flush(self) -> None:
        pass  # every line is flushed as it is sent
