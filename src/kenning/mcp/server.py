"""``kenning mcp``: the tools of ``kenning.mcp.tools``, the hot memory files and every SKILL.md as
resources, and a ``task_context`` prompt, served with the official MCP SDK over stdio or
streamable HTTP.

Built on the SDK's low-level ``Server`` rather than ``MCPServer``: MCPServer derives a tool's schema
from a Python signature and validates the arguments with pydantic before our code runs, so the
names models guess (``q`` for ``query``) would be dropped as unknown and a missing argument would
come back as a pydantic dump. Here the tool table is the one source of schemas, aliases, coercion
and messages, and errors are translated in one place per kind of request: a ``KenningError`` in a
tool becomes a result with ``isError`` whose text is the message; in a resource or prompt, and a
call of a tool that does not exist, an invalid-params protocol error (-32602) with the message.
Never a traceback. The text goes through ``messages.for_client`` first, so that it names tools to
call rather than CLI commands to run.

One ``Kenning`` serves every request; requests that touch it run one at a time in a worker thread
(the store, the skill index and the catalog cache are shared). When it could not be opened, the
server still serves: what needs no store (``handshake``) as usual, every other request fails with
the reason.

Over stdio the connection is first served by ``front``, which answers the handshake before this
module (the SDK) is even imported, and then handed to ``serve_streams``, where every line the SDK's
parser would drop unanswered (a lone surrogate, JSON nested too deep, an object that is not a
JSON-RPC request) is answered with a JSON-RPC error instead (``frames``).

Sampling: on a connection that negotiated the initialize handshake (protocol up to 2025-11-25) and
whose client declared ``sampling``, ``session_consolidate`` may use the client's own model
(``ClientModel``): the tool's worker thread sends ``sampling/createMessage`` through the event loop
and waits. On 2026-07-28 connections the SDK refuses server-initiated requests; sampling there is
the multi-round-trip ``InputRequiredResult`` flow, which would split one consolidation across two
tool calls, so those use the configured model or the deterministic fallback.

Scope: every memory tool acts in one scope, its argument or else the server's (``kenning mcp
--scope``), which the instructions and each tool's schema name (see ``kenning.mcp.tools``); the
hot memory resources are the server's scope's files.

HTTP binds to loopback unless ``--allow-remote`` is given together with a bearer token (at least
16 visible characters, ``check_token``); with a token, every request without ``Authorization:
Bearer <token>`` gets 401, compared in constant time. Before that, ``CheckHostAndOrigin`` refuses
what a web page could send through DNS rebinding, for any bind address (the SDK guards only the
exact strings 127.0.0.1, localhost and ::1): ``Host`` must name this server, with its port (421
otherwise), and an ``Origin``, when present, must be an http(s) origin of such a host, any port
(a page this machine serves, such as an MCP inspector, is on another port; 403 otherwise). A
host is this server when it is the bound address in any spelling, any loopback address or
``localhost`` when the server listens on loopback or on every address, or a name given with
``--allowed-host`` (the names a remote or proxied server is reached by, which kenning cannot
know; with those, any port).
"""

from __future__ import annotations

import hmac
import json
import logging
import re
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from functools import partial
from typing import IO, TYPE_CHECKING, Any, TypeVar, cast
from urllib.parse import unquote

import anyio
import anyio.from_thread
import anyio.to_thread
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from pydantic import ValidationError
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import InvalidInput, KenningError, LLMError
from ..httpguard import AllowedHosts, CheckHostAndOrigin, check_host_name, is_loopback
from ..llm import Completion, estimate_tokens
from ..models import DEFAULT_SCOPE
from ..tiers.hotfile import FILES
from . import handshake
from .arguments import parse_arguments
from .frames import Screened
from .handshake import HOT_URI, PROMPT, SKILL_URI
from .messages import for_client
from .tools import TOOLS, Caller, run_tool

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.session import ServerSession

    from ..api import Kenning
    from .front import Inbox, Outbox

log = logging.getLogger("kenning.mcp")
T = TypeVar("T")

SAMPLING_MAX_TOKENS = 4000  # when the caller names no bound; createMessage requires one
MIN_TOKEN = 16
MAKE_TOKEN = ("make one with `openssl rand -hex 16` or "
              "`python -c \"import secrets; print(secrets.token_urlsafe(24))\"`")


def build_server(kb: Kenning | KenningError, scope: str = DEFAULT_SCOPE) -> Server[Any]:
    """The MCP server over ``kb``: tools, resources, the prompt; ``scope`` is what every tool acts in
    when not given another one. ``kb`` may be the error that kept the store from opening: then
    every request that needs the store answers with it."""
    limiter = anyio.CapacityLimiter(1)

    async def in_worker(fn: Callable[[], T]) -> T:
        return await anyio.to_thread.run_sync(fn, limiter=limiter)

    def store() -> Kenning:
        if isinstance(kb, KenningError):
            raise KenningError(str(kb))  # a new one each time: raising one instance again grows its traceback
        return kb

    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult.model_validate(handshake.tools_result(scope))

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in TOOLS:  # a protocol error, as the specification has it, not a tool's failure
            raise MCPError(code=types.INVALID_PARAMS,
                           message=f"there is no tool {params.name!r}; the tools are {', '.join(TOOLS)}")
        client = _client_name(ctx.session)
        model = ClientModel.of(ctx, client)
        try:
            result = await in_worker(lambda: run_tool(params.name, params.arguments,
                                                      Caller(store(), scope=scope, client=client, client_model=model)))
        except KenningError as exc:
            return _error_result(for_client(str(exc)))
        except Exception as exc:  # a bug: logged with its traceback, reported without it
            log.exception("tool %s failed unexpectedly", params.name)
            return _error_result(f"kenning failed unexpectedly in {params.name} ({type(exc).__name__}: {exc}); "
                                 "the server's log has the details")
        return _result(result)

    async def list_resources(ctx: ServerRequestContext[Any], params: Any) -> types.ListResourcesResult:
        with _protocol_errors():
            return await in_worker(lambda: _resources(store(), scope))

    async def list_templates(ctx: ServerRequestContext[Any], params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult.model_validate(handshake.templates_result())

    async def read_resource(ctx: ServerRequestContext[Any],
                            params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        with _protocol_errors():
            text = await in_worker(lambda: _read(store(), uri, scope))
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, text=text,
                                                                             mime_type="text/markdown")])

    async def list_prompts(ctx: ServerRequestContext[Any], params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult.model_validate(handshake.prompts_result())

    async def get_prompt(ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams) -> types.GetPromptResult:
        with _protocol_errors():
            if params.name != PROMPT:
                raise InvalidInput(f"there is no prompt {params.name!r}; the prompt is {PROMPT!r}")
            text = await in_worker(lambda: _task_context(store(), params.arguments or {}, scope))
        message = types.PromptMessage(role="user", content=types.TextContent(text=text))
        return types.GetPromptResult(description="Context for the task", messages=[message])

    return Server("kenning", version=handshake.server_version(),
                  instructions=handshake.INSTRUCTIONS.format(scope=scope),
                  get_tool_input_schema=lambda name: TOOLS[name].input_schema(scope) if name in TOOLS else None,
                  on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
                  on_list_resource_templates=list_templates, on_read_resource=read_resource,
                  on_list_prompts=list_prompts, on_get_prompt=get_prompt)


# -- tools ------------------------------------------------------------------------------------------------


def _result(data: dict[str, Any]) -> types.CallToolResult:
    # the library's own words to the reader name tools, as its errors do; stored text is left as it is
    data = {k: for_client(v) if k in ("message", "hint") and isinstance(v, str) else v for k, v in data.items()}
    text = json.dumps(data, ensure_ascii=False, default=str)
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=json.loads(text))


def _error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def _client_name(session: ServerSession) -> str:
    """The client's self-declared name, made safe for provenance strings ("mcp:<name>")."""
    info = session.client_params.client_info if session.client_params is not None else None
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", info.name if info is not None else "").strip("-")[:60]
    return name or "client"


# -- resources and the prompt ----------------------------------------------------------------------------


@contextmanager
def _protocol_errors() -> Iterator[None]:
    """Kenning errors in a resource or prompt request become an invalid-params protocol error."""
    try:
        yield
    except KenningError as exc:
        raise MCPError(code=types.INVALID_PARAMS, message=for_client(str(exc))) from None


def _resources(kb: Kenning, scope: str) -> types.ListResourcesResult:
    return types.ListResourcesResult.model_validate(handshake.resources_result(scope, kb.skills.model_index().visible()))


def _read(kb: Kenning, uri: str, scope: str) -> str:
    if uri.startswith(HOT_URI):
        name = unquote(uri[len(HOT_URI):])
        if name not in FILES:
            raise InvalidInput(f"there is no hot memory file {name!r}; the files are {', '.join(FILES)}")
        text: str = kb.hot_in(scope).show(name)["files"][0]["text"]
        return text
    if uri.startswith(SKILL_URI):
        content: str = kb.skills.skill_view(unquote(uri[len(SKILL_URI):]))["content"]
        return content
    raise InvalidInput(f"there is no resource {uri!r}; kenning serves {HOT_URI}MEMORY.md, {HOT_URI}USER.md and "
                       f"{SKILL_URI}<name>")


def _task_context(kb: Kenning, arguments: dict[str, Any], scope: str) -> str:
    # the tool's names, checks and limits
    args = parse_arguments(PROMPT, TOOLS["context_build"].params, arguments, defaults={"scope": scope})
    context = kb.context(args["task"], args["budget_tokens"], scope=args["scope"])
    return (f"{context.markdown.rstrip()}\n\n---\nUse what applies from the context above for this task: "
            f"{args['task']}")


# -- the client's model ----------------------------------------------------------------------------------


class ClientModel:
    """The MCP client's own model through ``sampling/createMessage`` (``kenning.llm.LLM``).

    ``complete`` runs in the tool's worker thread: it hands the request to the event loop and waits
    for the client's answer, so the consolidation code stays synchronous. The client pays for and
    limits these calls, so there is no cost guard here.
    """

    def __init__(self, session: ServerSession, request_id: Any, client: str) -> None:
        self.session = session
        self.request_id = request_id
        self.name = f"mcp-client/{client}"

    @classmethod
    def of(cls, ctx: ServerRequestContext[Any], client: str) -> ClientModel | None:
        """The client's model when this connection can ask for it, else None."""
        caps = ctx.session.client_capabilities
        if caps is None or caps.sampling is None or not ctx.session.can_send_request:
            return None
        return cls(ctx.session, ctx.request_id, client)

    def complete(self, messages: list[dict[str, str]], *, max_tokens: int | None = None, temperature: float = 0.0,
                 json_mode: bool = False) -> Completion:
        system = "\n\n".join(m["content"] for m in messages if m.get("role") == "system")
        if json_mode:  # sampling has no response format: say it instead
            system = (system + "\n\n" if system else "") + "Answer with one JSON object and nothing else."
        turns = [types.SamplingMessage(role="assistant" if m.get("role") == "assistant" else "user",
                                       content=types.TextContent(text=m["content"]))
                 for m in messages if m.get("role") != "system"]
        if not turns:
            raise InvalidInput("a language model call needs at least one user or assistant message")
        request = partial(self.session.create_message, turns, max_tokens=max_tokens or SAMPLING_MAX_TOKENS,
                          system_prompt=system or None, temperature=temperature,
                          related_request_id=self.request_id)
        try:
            result = anyio.from_thread.run(request)
        except (MCPError, ValidationError) as exc:
            raise LLMError(f"the MCP client's model did not answer the sampling request: {exc}") from exc
        text = result.content.text if isinstance(result.content, types.TextContent) else ""
        stop = result.stop_reason or "unknown"
        return Completion(text=text, model=result.model or self.name,
                          prompt_tokens=estimate_tokens(system + "".join(m["content"] for m in messages)),
                          completion_tokens=estimate_tokens(text),
                          finish_reason={"maxTokens": "length", "endTurn": "stop"}.get(stop, stop))


# -- transports ------------------------------------------------------------------------------------------


def check_bind(host: str, allow_remote: bool, token: str | None, allowed_hosts: Iterable[str] = ()) -> None:
    """Refuse to listen beyond this machine unless asked to, and then only behind a token; refuse a
    weak token and an ``--allowed-host`` that is not a host name."""
    check_token(token)
    for name in allowed_hosts:
        check_host_name(name)
    if is_loopback(host):
        return
    if not allow_remote:
        raise InvalidInput(f"refusing to serve on {host!r}: it is not a loopback address, so anyone who can reach "
                           "this machine could read and change your memory; use --host 127.0.0.1, or pass "
                           "--allow-remote together with --token (or KENNING_MCP_TOKEN)")
    if not token:
        raise InvalidInput(f"--allow-remote on {host!r} needs a bearer token: pass --token or set KENNING_MCP_TOKEN; "
                           f"{MAKE_TOKEN}")


def check_token(token: str | None) -> None:
    """Refuse a bearer token that is easy to guess or that an HTTP header cannot carry as it is."""
    if token is None:
        return
    if not token.strip():
        problem = "is empty or only whitespace"
    elif any(not 33 <= ord(ch) <= 126 for ch in token):
        problem = ("contains whitespace, a control character or a non-ASCII character, which an "
                   "'Authorization: Bearer' header does not carry as it is")
    elif len(token) < MIN_TOKEN:
        problem = f"is {len(token)} characters long; at least {MIN_TOKEN} are needed so that it cannot be guessed"
    else:
        return
    raise InvalidInput(f"the bearer token (--token or KENNING_MCP_TOKEN) {problem}: {MAKE_TOKEN}")


class RequireBearer:
    """ASGI wrapper: every HTTP request needs ``Authorization: Bearer <token>``, else 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode("utf-8")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            response = JSONResponse({"error": "unauthorized",
                                     "error_description": "send Authorization: Bearer <the server's token>"},
                                    status_code=401, headers={"WWW-Authenticate": 'Bearer realm="kenning"'})
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _authorized(self, scope: Scope) -> bool:
        header = dict(scope.get("headers") or ()).get(b"authorization", b"")
        scheme, _, given = header.partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self.token)


def serve_streams(kb: Kenning | KenningError, scope: str, inbox: Inbox, outbox: Outbox) -> None:
    """Serve one client that speaks JSON lines on ``inbox`` and ``outbox`` until ``inbox`` ends: stdio,
    from ``front``, which has claimed the process's stdin and stdout itself."""
    server = build_server(kb, scope)
    # the SDK drops a line its parser refuses, and its client would wait forever: answered here instead
    screened = Screened(inbox, outbox.write, _refused_by_sdk)
    # anyio's file wrapper calls only readline, and write and flush, which these have
    lines_in, lines_out = anyio.wrap_file(cast("IO[str]", screened)), anyio.wrap_file(cast("IO[str]", outbox))

    async def main() -> None:
        async with stdio_server(lines_in, lines_out) as (read, write):
            await server.run(read, write, server.create_initialization_options())

    _quiet_sampling_warning()
    anyio.run(main)


def _refused_by_sdk(line: str) -> str | None:
    """Why the SDK's stdio transport would drop ``line`` (its parser's words), or None when it takes it."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as exc:
        return _first_error(exc)
    except Exception as exc:  # whatever else the parser raises, the SDK drops the line too: answered, not hidden
        return f"{type(exc).__name__}: {exc}"
    # an id that is not a string or an integer (true, 1.5, null) makes a request a notification to the
    # SDK, which it never answers; only those lines are read twice
    if isinstance(message, types.JSONRPCNotification) and '"id"' in line:
        with suppress(ValueError, RecursionError):
            if "id" in json.loads(line):
                return "its id is not a string or an integer"
    return None


def _first_error(exc: ValidationError) -> str:
    """The parser's complaint about a line, as a request (the SDK tries each kind of message)."""
    errors = exc.errors(include_url=False)
    mine = [e for e in errors if e["loc"][:1] == ("JSONRPCRequest",)] or errors
    first = mine[0]
    where = ".".join(str(part) for part in first["loc"][1:] if part != "JSONRPCRequest")
    return f"{where}: {first['msg']}" if where else str(first["msg"])


def serve_http(kb: Kenning, host: str, port: int, token: str | None, scope: str = DEFAULT_SCOPE,
               allowed_hosts: Iterable[str] = ()) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` until interrupted (call ``check_bind`` first)."""
    import uvicorn

    # Host and Origin are checked by CheckHostAndOrigin for every bind address, so the SDK's own check
    # (on for three spellings of loopback only, and blind to --allowed-host) is off.
    app: ASGIApp = build_server(kb, scope).streamable_http_app(
        host=host, transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    if token:
        app = RequireBearer(app, token)
    app = CheckHostAndOrigin(app, AllowedHosts.of(host, port, allowed_hosts))
    _quiet_sampling_warning()
    anyio.run(uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).serve)


def _quiet_sampling_warning() -> None:
    # Sampling is deprecated for 2026-07-28 connections only; ClientModel asks on older ones alone.
    warnings.filterwarnings("ignore", message="The sampling capability is deprecated", category=MCPDeprecationWarning)

