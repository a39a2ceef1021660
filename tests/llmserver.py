"""A scripted OpenAI-compatible chat server for tests: real HTTP on 127.0.0.1, no model.

Import the fixture into a test module (pytest finds it by name)::

    from llmserver import Delay, Fail, Reply, scripted_llm  # noqa: F401  (scripted_llm is a fixture)

    def test_consolidation_asks_the_model(scripted_llm):
        server = scripted_llm(Reply('{"facts": []}'), Fail(503, retry_after="0"), Reply("ok"))
        llm = server.client()          # an OpenAIChat on it: fast retries, a cost guard of its own
        llm.complete([{"role": "user", "content": "hi"}])
        server.requests[0].body["messages"]            # every request received, in order
        server.requests[0].headers["authorization"]    # header names are lower-case

``scripted_llm(*steps, repeat_last=False)`` starts a ``ScriptedLLM`` on a free port (stopped after
the test) and returns it. Each request to ``POST /v1/chat/completions`` takes the next step:

* ``Reply(content, finish_reason="stop", prompt_tokens=10, completion_tokens=5, usage=True,
  model=None)``: HTTP 200 with one choice; ``usage=False`` leaves out the usage object, ``model``
  defaults to the model the request named.
* ``Fail(status, body="scripted failure", retry_after=None)``: that HTTP status, with a
  ``Retry-After`` header when given.
* ``Delay(seconds, then=Reply("{}"))``: sleep (cut short when the server stops), then answer
  ``then``, which the client may no longer be waiting for.
* a callable ``(ScriptedRequest) -> Reply | Fail | Delay``: the answer decided from the request.

When the steps run out, ``repeat_last=True`` repeats the last one for ever; otherwise the server
answers HTTP 400 "llmserver: script exhausted", which clients do not retry, so a test that asks
more than it scripted fails at once and says why. Other paths answer 404.

``ScriptedLLM`` has ``base_url`` (``http://127.0.0.1:PORT/v1``), ``requests`` (a list of
``ScriptedRequest(path, headers, body, raw)``; ``body`` is the parsed JSON or None),
``client(**overrides)`` (an ``OpenAIChat``; defaults: model "scripted-model", timeout 5 s,
max_retries 2, backoff 0.01 s capped at 0.05 s, ``CostGuard`` on a private ``HourWindow``),
``config(**overrides)`` (an ``LLMConfig`` pointing at the server, for ``make_llm``; pass
``make_llm(config, guard=CostGuard(window=HourWindow()))`` to keep a test off the hourly window
that the whole process shares) and ``close()``.
It is also a context manager for use outside pytest.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from kenning.config import LLMConfig
from kenning.llm import CostGuard, HourWindow, OpenAIChat


@dataclass(frozen=True)
class Reply:
    content: str
    finish_reason: str = "stop"
    prompt_tokens: int = 10
    completion_tokens: int = 5
    usage: bool = True
    model: str | None = None


@dataclass(frozen=True)
class Fail:
    status: int
    body: str = "scripted failure"
    retry_after: str | None = None


@dataclass(frozen=True)
class Delay:
    seconds: float
    then: Reply | Fail = field(default_factory=lambda: Reply("{}"))


@dataclass(frozen=True)
class ScriptedRequest:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # the parsed JSON body, None when it was not JSON
    raw: bytes

    @property
    def messages(self) -> list[dict[str, str]]:
        return list(self.body["messages"]) if isinstance(self.body, dict) else []


Step = Reply | Fail | Delay | Callable[[ScriptedRequest], "Reply | Fail | Delay"]


class ScriptedLLM:
    """One scripted server on a free port of 127.0.0.1, serving from a background thread."""

    def __init__(self, steps: tuple[Step, ...] | list[Step], *, repeat_last: bool = False) -> None:
        self.requests: list[ScriptedRequest] = []
        self._steps = list(steps)
        self._repeat_last = repeat_last
        self._lock = threading.Lock()
        self.stopping = threading.Event()  # cuts Delay steps short on close()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.scripted = self  # type: ignore[attr-defined]
        self.port = int(self._httpd.server_address[1])
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"llmserver-{self.port}", daemon=True)
        self._thread.start()

    def take(self, request: ScriptedRequest) -> Reply | Fail | Delay:
        """Record ``request`` and return the step that answers it."""
        with self._lock:
            self.requests.append(request)
            if self._steps and (len(self._steps) > 1 or not self._repeat_last):
                step = self._steps.pop(0)
            elif self._steps:
                step = self._steps[0]
            else:
                return Fail(400, f"llmserver: script exhausted after {len(self.requests) - 1} requests")
        return step(request) if callable(step) else step

    def client(self, **overrides: Any) -> OpenAIChat:
        options: dict[str, Any] = {"model": "scripted-model", "timeout": 5.0, "max_retries": 2,
                                   "backoff": 0.01, "max_backoff": 0.05,
                                   "guard": CostGuard(window=HourWindow())}
        options.update(overrides)
        return OpenAIChat(self.base_url, **options)

    def config(self, **overrides: Any) -> LLMConfig:
        options: dict[str, Any] = {"base_url": self.base_url, "model": "scripted-model", "timeout": 5.0}
        options.update(overrides)
        return LLMConfig(**options)

    def close(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedLLM:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        scripted: ScriptedLLM = self.server.scripted  # type: ignore[attr-defined]
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not self.path.endswith("/chat/completions"):
            self._send(404, b"llmserver: only POST /v1/chat/completions is served", "text/plain")
            return
        request = ScriptedRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, body, raw)
        step = scripted.take(request)
        if isinstance(step, Delay):
            scripted.stopping.wait(step.seconds)
            step = step.then
        if isinstance(step, Fail):
            extra = {"Retry-After": step.retry_after} if step.retry_after is not None else {}
            self._send(step.status, step.body.encode(), "text/plain", extra)
            return
        model = step.model or (body.get("model") if isinstance(body, dict) else None) or "scripted-model"
        payload: dict[str, Any] = {
            "id": f"chatcmpl-{len(scripted.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": step.content},
                         "finish_reason": step.finish_reason}],
        }
        if step.usage:
            payload["usage"] = {"prompt_tokens": step.prompt_tokens, "completion_tokens": step.completion_tokens,
                                "total_tokens": step.prompt_tokens + step.completion_tokens}
        self._send(200, json.dumps(payload).encode(), "application/json")

    def _send(self, status: int, data: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
            pass


@pytest.fixture
def scripted_llm() -> Iterator[Callable[..., ScriptedLLM]]:
    """``scripted_llm(*steps, repeat_last=False) -> ScriptedLLM``; every server stops after the test."""
    started: list[ScriptedLLM] = []

    def start(*steps: Step, repeat_last: bool = False) -> ScriptedLLM:
        server = ScriptedLLM(steps, repeat_last=repeat_last)
        started.append(server)
        return server

    yield start
    for server in started:
        server.close()
