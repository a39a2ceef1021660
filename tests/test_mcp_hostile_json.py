"""`kenning mcp` over stdio answers every request, whatever its line holds: a lone surrogate written
as a JSON escape, bytes that are not UTF-8, JSON nested deeper than the SDK's parser goes, objects
that are not JSON-RPC requests, a line of many megabytes. The SDK's own transport drops a line its
parser refuses, so its client waited forever; each wait here has a deadline, so a dropped line fails
its test rather than hanging the suite. Spoken to as raw bytes, one JSON-RPC message per line."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

KENNING = [sys.executable, "-c", "from kenning.cli import main; main()"]
LOAD_S = 120.0  # the first tool call waits for the store and the embedding model to load
ANSWER_S = 30.0


class Wire:
    """A `kenning mcp` process, written to in raw lines and read from as JSON answers."""

    def __init__(self, home: Path) -> None:
        env = {**{k: v for k, v in os.environ.items() if k != "KENNING_MCP_TOKEN"}, "KENNING_HOME": str(home)}
        self.process = subprocess.Popen([*KENNING, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=env, cwd=home.parent)
        self.answers: queue.Queue[dict[str, Any]] = queue.Queue()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.process.stderr or ()), daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout or ():
            self.answers.put(json.loads(line))

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def answer(self, request_id: Any, timeout: float = ANSWER_S) -> dict[str, Any]:
        """The answer to ``request_id``; fails (never hangs) when none comes within ``timeout``."""
        while True:
            try:
                message = self.answers.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no answer to request {request_id!r} within {timeout:g} s; the server's "
                                     f"log: {b''.join(self.stderr).decode(errors='replace')[-2000:]}") from None
            if "id" in message and message["id"] == request_id:
                return message

    def close(self) -> str:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return b"".join(self.stderr).decode(errors="replace")


def call(request_id: int, tool: str, arguments: str) -> bytes:
    """A tools/call line with ``arguments`` written as given (escapes stay as the client wrote them)."""
    return (f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/call", '
            f'"params": {{"name": "{tool}", "arguments": {arguments}}}}}').encode()


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wire]:
    home = tmp_path_factory.mktemp("hostile") / "home"
    home.mkdir()
    server = Wire(home)
    server.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                       "clientInfo": {"name": "raw", "version": "1"}}}).encode())
    assert "result" in server.answer(1, LOAD_S)
    server.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    server.send(call(2, "memory_recall", '{"query": "anything"}'))
    assert "result" in server.answer(2, LOAD_S)  # loaded: from here every answer comes at once
    yield server
    log = server.close()
    assert "Traceback" not in log, log


def still_serving(wire: Wire, request_id: int) -> None:
    wire.send(f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "ping"}}'.encode())
    assert wire.answer(request_id) == {"jsonrpc": "2.0", "id": request_id, "result": {}}


def test_a_lone_surrogate_escape_in_an_argument_is_answered_with_an_error_naming_it(wire: Wire) -> None:
    wire.send(call(10, "memory_remember", r'{"text": "the lift is out of order \udcff"}'))
    error = wire.answer(10)["error"]
    assert error["code"] == -32602
    assert "argument 'text' of tools/call 'memory_remember'" in error["message"]
    assert "lone surrogate" in error["message"] and "UTF-8" in error["message"]
    wire.send(call(11, "entity_upsert", r'{"name": "Bob", "attributes": {"role": ["ok", "x\ud800"]}}'))
    assert "argument 'attributes.role[1]'" in wire.answer(11)["error"]["message"]
    still_serving(wire, 12)


def test_bytes_that_are_not_utf8_are_refused_by_name_not_stored_as_replacement_characters(wire: Wire) -> None:
    wire.send(call(20, "memory_remember", '{"text": "the boiler code is BYTES"}').replace(b"BYTES", b"\xff\xfe"))
    error = wire.answer(20)["error"]
    assert error["code"] == -32602 and "argument 'text'" in error["message"] and "not UTF-8" in error["message"]
    wire.send(call(21, "memory_recall", '{"query": "boiler code"}'))
    hits = wire.answer(21)["result"]["structuredContent"]["hits"]
    assert not any("boiler" in hit["content"] for hit in hits)  # nothing was stored, mangled or not


@pytest.mark.parametrize(("line", "code", "says"), [
    (b'{"jsonrpc": "2.0", "id": 30, "method": "tools/call", "params": "memory_recall"}', -32600,
     "params: Input should be an object"),
    (b'{"jsonrpc": "1.0", "id": 30, "method": "ping"}', -32600, "jsonrpc"),
    (call(30, "memory_recall", '{"query": ' + "[" * 300 + "]" * 300 + "}"), -32700, "nest its arrays"),
    (b'{"jsonrpc": "2.0", "id": 30, "method": "tools/call", "params": {"name": "memory_recall", '
     b'"arguments": {"query": "a\\udcff"}, "_meta": {"\\ud800": 1}}}', -32602, "argument 'query'"),
], ids=["params not an object", "another version", "nested 300 deep", "surrogates in two places"])
def test_a_request_the_sdks_parser_refuses_is_answered_with_its_id(wire: Wire, line: bytes, code: int,
                                                                    says: str) -> None:
    wire.send(line)
    error = wire.answer(30)["error"]
    assert error["code"] == code and says in error["message"], error
    still_serving(wire, 31)


@pytest.mark.parametrize(("line", "code", "says"), [
    (b"this is not json", -32700, "one JSON-RPC message per line"),
    (b"[" * 5000 + b"]" * 5000, -32700, "as JSON"),
    (b'[{"jsonrpc": "2.0", "id": 40, "method": "ping"}]', -32600, "a batch"),
    (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600, "not a string or an integer"),
    (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', -32600, "not a string or an integer"),
], ids=["not json", "nested past any parser", "a batch", "an id of true", "an id of null"])
def test_a_line_without_a_usable_id_is_answered_with_a_null_id(wire: Wire, line: bytes, code: int,
                                                               says: str) -> None:
    wire.send(line)
    error = wire.answer(None)["error"]
    assert error["code"] == code and says in error["message"], error
    still_serving(wire, 41)


def test_a_huge_line_is_answered_and_the_connection_goes_on(wire: Wire) -> None:
    wire.send(call(50, "memory_recall", '{"query": "' + "deploy " * 1_500_000 + '"}'))  # ~10 MB
    result = wire.answer(50, 120)["result"]
    assert result["isError"] and "at most" in result["content"][0]["text"]
    wire.send(b"{" + b'"a": "' + b"x" * 10_000_000 + b'"')  # ~10 MB that never closes
    assert wire.answer(None, 120)["error"]["code"] == -32700
    still_serving(wire, 51)


def test_a_broken_notification_gets_no_answer_and_breaks_nothing(wire: Wire) -> None:
    wire.send(b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "x"}')
    wire.send(b"")  # a blank line: nothing to answer
    still_serving(wire, 60)
