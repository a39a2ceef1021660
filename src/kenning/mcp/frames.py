"""Lines of the stdio stream that the MCP SDK's parser refuses: answered here instead of dropped.

The SDK's stdio transport hands a line it cannot parse to the session as an exception, and the
session drops it: a client whose request held a lone surrogate (``"\\udcff"``: valid JSON, but not
text), bytes that are not UTF-8, JSON nested deeper than the SDK's parser goes, or an object that
is not a JSON-RPC message (``"params": "x"``, ``"jsonrpc": "1.0"``, an id of ``true``) would wait
for its answer forever. So ``Screened`` puts every line to the SDK's own parser first (the check
``server`` passes in) and answers one it refuses as JSON-RPC says, with the request's id when it
has a usable one, else ``null``:

* -32700 parse error: not JSON, or JSON the SDK's parser does not take (nested too deep);
* -32602 invalid params: a string in the params that is not text (a lone surrogate), named by
  where it is (``argument 'query' of tools/call memory_recall``);
* -32600 invalid request: JSON that is not a JSON-RPC 2.0 request (a batch, a wrong version, an
  id that is not a string or an integer, params that are not an object).

Notifications and responses are never answered (JSON-RPC forbids it): a refused one is logged.
Nothing here imports the SDK: the front uses ``lone_surrogate`` before the SDK has loaded.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, Protocol

log = logging.getLogger("kenning.mcp")
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
SHAPE = 'a request is {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {...}}, one per line'


class Lines(Protocol):
    def readline(self) -> str: ...


class Screened:
    """The lines of ``lines`` the SDK can parse; each one it cannot (``refused`` says why, None when
    it can) is answered through ``answer`` and left out. A blank line is left out unanswered."""

    def __init__(self, lines: Lines, answer: Callable[[str], object], refused: Callable[[str], str | None]) -> None:
        self._lines = lines
        self._answer = answer
        self._refused = refused

    def readline(self) -> str:
        while True:
            line = self._lines.readline()
            if not line:
                return line  # the end of the stream
            if not line.strip():
                continue  # nothing to answer, and the SDK would drop it anyway
            problem = self._refused(line)
            if problem is None:
                return line
            error = refusal(line, problem)
            if error is not None:
                self._answer(json.dumps(error, ensure_ascii=True))


def refusal(line: str, problem: str) -> dict[str, Any] | None:
    """The JSON-RPC error answering ``line``, which the SDK's parser refused for ``problem`` (its own
    words), or None when ``line`` is a notification or a response, which get no answer."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return _error(None, PARSE_ERROR, f"kenning could not read a line as JSON ({problem}); send one JSON-RPC "
                                         "message per line, as UTF-8 JSON")
    if not isinstance(message, dict):
        kind = "a batch (a JSON array)" if isinstance(message, list) else f"a JSON {type(message).__name__}"
        return _error(None, INVALID_REQUEST, f"a line held {kind}, not a JSON-RPC message: {SHAPE}")
    unanswered = _unanswered(message)
    if unanswered is not None:
        log.warning("kenning mcp: dropped a %s it cannot read (%s)", unanswered, problem)
        return None
    return _request_refusal(message, problem)


def _request_refusal(message: dict[str, Any], problem: str) -> dict[str, Any]:
    """The error answering a request (an object with an id, or with neither method nor result)."""
    given = message.get("id")
    usable = isinstance(given, str | int) and not isinstance(given, bool)
    request_id = given if usable else None
    found = lone_surrogate(message)
    if found is not None:
        where, at, char = found
        code = INVALID_PARAMS if where.startswith("params") else INVALID_REQUEST
        return _error(request_id, code, _not_text(_where(message, where), at, char))
    if "id" in message and not usable:
        return _error(None, INVALID_REQUEST, f"the request's id {json.dumps(given)} is not a string or an integer, "
                                             f"which is what an id must be: {SHAPE}")
    if problem.startswith("Invalid JSON"):  # JSON that Python reads but the SDK's stricter parser does not
        fix = "nest its arrays and objects less deeply" if "recursion" in problem else "send it as standard JSON"
        return _error(request_id, PARSE_ERROR, f"kenning could not read this request as JSON ({problem}); {fix}")
    return _error(request_id, INVALID_REQUEST, f"the message is not a JSON-RPC 2.0 request ({problem}): {SHAPE}")


def _unanswered(message: dict[str, Any]) -> str | None:
    """"notification" or "response" for a message JSON-RPC never answers, else None."""
    if "method" in message:
        return None if "id" in message else "notification"
    return "response" if "result" in message or "error" in message else None


def lone_surrogate(value: object) -> tuple[str, int, str] | None:
    """The first string in ``value`` (keys too) holding a lone surrogate, which is not text and which
    the SDK's parser refuses: (where: ``params.arguments.query`` or ``… (a key)``, its position in
    the string, the character), or None. Walked with a stack: JSON may nest deeper than recursion."""
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            at = _surrogate_at(item)
            if at is not None:
                return where, at, item[at]
        elif isinstance(item, dict):
            for key, inner in reversed(list(item.items())):
                path = f"{where}.{key}" if where else str(key)
                stack.append((path, inner))
                stack.append((f"{path} (a key)", key))
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", inner) for i, inner in reversed(list(enumerate(item))))
    return None


def _surrogate_at(text: str) -> int | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def _where(message: dict[str, Any], path: str) -> str:
    """``path`` as a client reads it: the argument of the tool called, when it is one."""
    params = message.get("params")
    prefix = "params.arguments."
    if message.get("method") == "tools/call" and isinstance(params, dict) and path.startswith(prefix):
        return f"argument {path[len(prefix):]!r} of tools/call {str(params.get('name'))!r}"
    return path


def _not_text(where: str, at: int, char: str) -> str:
    return (f"{where} holds a lone surrogate (\\u{ord(char):04x}, at character {at}), which is not text: bytes that "
            "were not UTF-8, or half of a UTF-16 surrogate pair. Send it as UTF-8 text (a character beyond U+FFFF "
            "as its own UTF-8 bytes, or as both halves of its \\u escape pair)")


def _error(request_id: str | int | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
