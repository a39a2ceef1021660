"""A scripted language model for real agent clients: Anthropic Messages (Claude Code) and OpenAI
Responses (Codex), streamed as the real APIs stream them, over HTTP on a Unix socket; no model.

It listens on a Unix socket so that a client in a loopback-only network namespace reaches it
(``loopback_ns.py`` forwards a TCP port there)::

    with FakeModel(tmp / "model.sock", [Reply(Call("mcp__kenning__memory_recall", {"query": "x"})),
                                        Reply("done")]) as model:
        ...                           # run the client against http://127.0.0.1:PORT
        model.turns[0].tool_names     # what the client offered in its first request
        model.turns[1].tool_results   # the text of the tool results it sent back

Requests:

* ``POST /v1/messages`` (Anthropic; with ``stream: true`` answered as server-sent events
  message_start, content_block_start / delta / stop, message_delta, message_stop; else one JSON
  message) and ``POST /v1/responses`` (OpenAI; response.created, response.output_item.added / done,
  response.completed) are *turns*: each takes the next step of the script.
* ``POST /v1/messages/count_tokens`` gets a rough count; ``HEAD`` and ``GET`` anything get 200 with
  no body (Claude Code probes ``HEAD /``); any other POST gets 404. None of them takes a step.

A step is a ``Reply(*blocks)`` (a block is text, or a ``Call(name, arguments)`` of a tool by the name
the client offered it under, e.g. ``mcp__kenning__memory_recall``), or a callable
``(ModelRequest) -> Reply`` deciding from the request. When the steps run out the model answers
``exhausted`` (default: a plain "done."), so a client's extra request (a title, a summary) gets
an answer and the test sees it in ``turns``. Every request is in ``requests``, in order.
"""

from __future__ import annotations

import json
import socketserver
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Call:
    """A tool call, by the tool's name as the client offered it."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reply:
    blocks: tuple[str | Call, ...]

    def __init__(self, *blocks: str | Call) -> None:
        object.__setattr__(self, "blocks", blocks)


@dataclass(frozen=True)
class ModelRequest:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # parsed JSON, None when there was none or it was not JSON
    raw: bytes
    at: float  # time.monotonic() when it arrived

    @property
    def api(self) -> str | None:
        """"anthropic", "responses", or None for a request that is not a turn."""
        if self.method != "POST":
            return None
        path = self.path.split("?", 1)[0]
        return {"/v1/messages": "anthropic", "/v1/responses": "responses"}.get(path)

    @property
    def streaming(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))

    @property
    def tools(self) -> dict[str, dict[str, Any]]:
        """The tools offered, by full name; a Responses ``namespace`` of tools (Codex groups an MCP
        server's tools so) gives ``<namespace>__<tool>`` names."""
        out: dict[str, dict[str, Any]] = {}
        offered = self.body.get("tools") if isinstance(self.body, dict) else None
        for tool in offered or []:
            if tool.get("type") == "namespace":
                for inner in tool.get("tools") or []:
                    out[f"{tool['name']}__{inner.get('name')}"] = {**inner, "namespace": tool["name"]}
            elif "name" in tool:
                out[tool["name"]] = tool
        return out

    @property
    def tool_names(self) -> list[str]:
        return list(self.tools)

    @property
    def text(self) -> str:
        """Every string in the request body, joined: where to look for what reached the model."""
        return "\n".join(_strings(self.body))

    @property
    def tool_results(self) -> list[str]:
        """The text of each tool result the request carries back to the model."""
        if not isinstance(self.body, dict):
            return []
        if self.api == "anthropic":  # user messages carry tool_result blocks (a system message is a string)
            blocks = [b for m in self.body.get("messages") or [] if isinstance(m.get("content"), list)
                      for b in m["content"]]
            return ["\n".join(_strings(b.get("content"))) for b in blocks
                    if isinstance(b, dict) and b.get("type") == "tool_result"]
        items = self.body.get("input")
        return ["\n".join(_strings(i.get("output"))) for i in (items if isinstance(items, list) else [])
                if isinstance(i, dict) and i.get("type") == "function_call_output"]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


Step = Reply | Callable[[ModelRequest], Reply]


class FakeModel:
    """One scripted model on the Unix socket ``path``, serving from a background thread."""

    def __init__(self, path: Path, steps: Sequence[Step], *, exhausted: Reply = Reply("done.")) -> None:
        self.path = path
        self.requests: list[ModelRequest] = []
        self._steps = list(steps)
        self._exhausted = exhausted
        self._lock = threading.Lock()
        path.unlink(missing_ok=True)
        self._server = _UnixHTTPServer(str(path), _Handler)
        self._server.model = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fakemodel", daemon=True)
        self._thread.start()

    @property
    def turns(self) -> list[ModelRequest]:
        """The requests that asked the model for a turn, in order."""
        with self._lock:
            return [r for r in self.requests if r.api is not None]

    def take(self, request: ModelRequest) -> Reply | None:
        with self._lock:
            self.requests.append(request)
            if request.api is None:
                return None
            step = self._steps.pop(0) if self._steps else self._exhausted
        return step(request) if callable(step) else step

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        self.path.unlink(missing_ok=True)

    def __enter__(self) -> FakeModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the real APIs: clients reuse their connection

    def address_string(self) -> str:  # a Unix socket's peer has no address
        return "unix"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def do_HEAD(self) -> None:
        self._record(b"")
        self._send(200, b"", "text/plain", head=True)

    def do_GET(self) -> None:
        self._record(b"")
        self._send(200, b"", "text/plain")

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        request, reply = self._record(raw)
        if reply is None:
            if request.path.split("?", 1)[0] == "/v1/messages/count_tokens":
                self._send(200, json.dumps({"input_tokens": max(1, len(raw) // 4)}).encode(), "application/json")
            else:  # recorded all the same: a test can see what else a client asked for
                self._send(404, f"fakemodel: {request.path} is not served".encode(), "text/plain")
        elif not isinstance(request.body, dict):
            self._send(400, b"fakemodel: a turn needs a JSON object body", "text/plain")
        elif request.api == "anthropic":
            self._anthropic(request, reply)
        else:
            self._responses(request, reply)

    def _record(self, raw: bytes) -> tuple[ModelRequest, Reply | None]:
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = ModelRequest(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body, raw,
                               time.monotonic())
        model: FakeModel = self.server.model  # type: ignore[attr-defined]
        return request, model.take(request)

    # -- Anthropic Messages ------------------------------------------------------------------------

    def _anthropic(self, request: ModelRequest, reply: Reply) -> None:
        n = len(self.server.model.requests)  # type: ignore[attr-defined]
        content: list[dict[str, Any]] = []
        for i, block in enumerate(reply.blocks):
            if isinstance(block, Call):
                content.append({"type": "tool_use", "id": f"toolu_{n:03d}_{i}", "name": block.name,
                                "input": block.arguments})
            else:
                content.append({"type": "text", "text": block})
        stop = "tool_use" if any(isinstance(b, Call) for b in reply.blocks) else "end_turn"
        usage = {"input_tokens": max(1, len(request.raw) // 4), "output_tokens": 10}
        message = {"id": f"msg_{n:03d}", "type": "message", "role": "assistant",
                   "model": request.body.get("model", "fake-model"), "content": content, "stop_reason": stop,
                   "stop_sequence": None, "usage": usage}
        if not request.streaming:
            self._send(200, json.dumps(message).encode(), "application/json")
            return
        events: list[tuple[str, dict[str, Any]]] = [
            ("message_start", {"type": "message_start", "message": {**message, "content": [], "stop_reason": None,
                                                                    "usage": {**usage, "output_tokens": 1}}})]
        for i, part in enumerate(content):  # each block as the API streams it: empty, one delta, stop
            start: dict[str, Any]
            if part["type"] == "text":
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": part["text"]}
            else:
                start = {**part, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(part["input"])}
            events += [("content_block_start", {"type": "content_block_start", "index": i, "content_block": start}),
                       ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}),
                       ("content_block_stop", {"type": "content_block_stop", "index": i})]
        events += [("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                      "usage": {"output_tokens": 10}}),
                   ("message_stop", {"type": "message_stop"})]
        self._stream(events)

    # -- OpenAI Responses --------------------------------------------------------------------------

    def _responses(self, request: ModelRequest, reply: Reply) -> None:
        n = len(self.server.model.requests)  # type: ignore[attr-defined]
        tools = request.tools
        output: list[dict[str, Any]] = []
        for i, block in enumerate(reply.blocks):
            if isinstance(block, Call):
                spec = tools.get(block.name, {})
                item: dict[str, Any] = {"type": "function_call", "id": f"fc_{n:03d}_{i}",
                                        "call_id": f"call_{n:03d}_{i}", "arguments": json.dumps(block.arguments),
                                        "status": "completed"}
                if "namespace" in spec:  # a namespaced tool is called by its own name within the namespace
                    item.update(name=spec["name"], namespace=spec["namespace"])
                else:
                    item["name"] = block.name
            else:
                item = {"type": "message", "id": f"msg_{n:03d}_{i}", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": block, "annotations": []}]}
            output.append(item)
        response = {"id": f"resp_{n:03d}", "object": "response", "status": "in_progress",
                    "model": request.body.get("model", "fake-model"), "output": []}
        usage = {"input_tokens": max(1, len(request.raw) // 4), "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": max(1, len(request.raw) // 4) + 10}
        events: list[tuple[str, dict[str, Any]]] = [
            ("response.created", {"type": "response.created", "response": response})]
        for i, item in enumerate(output):
            events += [("response.output_item.added", {"type": "response.output_item.added", "output_index": i,
                                                       "item": {**item, "status": "in_progress"}}),
                       ("response.output_item.done", {"type": "response.output_item.done", "output_index": i,
                                                      "item": item})]
        events.append(("response.completed", {"type": "response.completed",
                                              "response": {**response, "status": "completed", "output": output,
                                                           "usage": usage}}))
        self._stream(events)

    # -- the wire ----------------------------------------------------------------------------------

    def _stream(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        data = b"".join(f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode() for name, payload in events)
        self._send(200, data, "text/event-stream")

    def _send(self, status: int, data: bytes, content_type: str, *, head: bool = False) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if not head:
                self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client went away mid-answer
            pass

