"""The inspector's web application: who may use it, how a page is served, how an error is shown.

Access: the server makes a random token at start and prints it in its URL. A request carrying
``?token=`` with that token gets a new session (a random id in an HttpOnly, SameSite=Strict cookie)
and is redirected to the same page without the token. The token then opens no other session: the
printed address may be read where it passed (another user's process list, as the browser's
argument; the browser's history), so it is spent on first use and a new one is made, whose address
``serve`` hands to ``renewed`` (``kenning ui`` prints it on stderr) for a second browser. A spent
token with the session it opened goes on to the page; without, 403 saying it was used. Any other
request without a live session gets 403 with a page saying to open the printed URL. Only the
package's CSS is served without one.
Before that, ``httpguard.CheckHostAndOrigin`` (the check of ``kenning mcp --http``) refuses a
``Host`` that is not this server and an ``Origin`` of another host.

Writes: every change is a POST whose form carries the session's form token (an HMAC of the session
id, so a page of another origin cannot know it) and whose ``Origin``, when sent, is this server's
own port; a GET only reads. Every page is rendered by Jinja2 with autoescaping, and sent with a
Content-Security-Policy of ``default-src 'self'``: no inline script or style, nothing from outside.

One ``Kenning`` serves every request; handlers run one at a time in a worker thread (the store and
the skill index are shared), and a ``KenningError`` becomes an error page with its message.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import anyio.to_thread
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import Conflict, Forbidden, InvalidInput, KenningError, NotFound
from ..httpguard import AllowedHosts, CheckHostAndOrigin

if TYPE_CHECKING:
    from ..api import Kenning

HERE = Path(__file__).parent
COOKIE = "kenning_ui"
SESSION_KEY = "kenning.ui.session"  # where RequireSession leaves the session id in the ASGI scope
MAX_FORM = 1_000_000  # bytes: a SKILL.md or a long fact fits, a flood does not
CSP = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
_STATUS = ((InvalidInput, 400), (NotFound, 404), (Conflict, 409), (Forbidden, 403))


def _new_token() -> str:
    return secrets.token_urlsafe(24)


@dataclass
class Page:
    """What a handler gets: the request's query and form fields, and the server's state."""

    ui: Inspector
    request: Request
    form: Mapping[str, str]
    session: str

    @property
    def kb(self) -> Kenning:
        return self.ui.kb

    def arg(self, name: str, default: str = "") -> str:
        """A query or form field, stripped ('' when absent)."""
        value = self.form.get(name)
        if value is None:
            value = self.request.query_params.get(name, default)
        return value.strip()

    def render(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        return self.ui.render(template, self, status, **context)


Handler = Callable[[Page], Response]


@dataclass
class Inspector:
    """The server's state: its store, default scope, token, sessions and templates."""

    kb: Kenning
    scope: str
    token: str = field(default_factory=_new_token)  # the one that opens the next session
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    sessions: set[str] = field(default_factory=set)  # SHA-256 of each live session id
    spent: set[str] = field(default_factory=set)  # SHA-256 of each token used: told apart from a wrong one
    renewed: Callable[[str], None] | None = None  # gets each token made when the one before is spent
    lock: threading.Lock = field(default_factory=threading.Lock)
    env: Environment = field(init=False)

    def __post_init__(self) -> None:
        self.env = Environment(loader=FileSystemLoader(HERE / "templates"),
                               autoescape=select_autoescape(default=True, default_for_string=True))
        self.env.filters["difflines"] = _diff_lines

    def form_token(self, session: str) -> str:
        return hmac.new(self.secret, session.encode(), hashlib.sha256).hexdigest()

    def new_session(self) -> str:
        session = secrets.token_urlsafe(24)
        self.sessions.add(_digest(session))
        return session

    def knows(self, session: str | None) -> bool:
        return bool(session) and _digest(session or "") in self.sessions

    def open_session(self, given: str) -> str | None:
        """A new session when ``given`` is the token, which is then spent and replaced; else None."""
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return None
        self.spent.add(_digest(self.token))
        self.token = _new_token()
        if self.renewed is not None:
            self.renewed(self.token)
        return self.new_session()

    def was_spent(self, given: str) -> bool:
        return _digest(given) in self.spent

    def render(self, template: str, page: Page, status: int = 200, **context: Any) -> HTMLResponse:
        html = self.env.get_template(template).render(
            csrf=self.form_token(page.session), path=page.request.url.path, default_scope=self.scope, **context)
        return HTMLResponse(html, status_code=status)

    def endpoint(self, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        """An async endpoint running ``handler`` in a worker thread, one at a time; for a POST, after
        the form token and the Origin's port are checked."""

        async def run(request: Request) -> Response:
            session = str(request.scope.get(SESSION_KEY, ""))
            form: dict[str, str] = {}
            if request.method == "POST":
                body = await _body(request)
                if body is None:
                    return _refused(413, f"That form is larger than {MAX_FORM:,} bytes, so it was not read.")
                form = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
                problem = self._csrf_problem(request, form, session)
                if problem:
                    return _refused(403, problem)
            page = Page(self, request, form, session)
            return await anyio.to_thread.run_sync(self._call, handler, page)

        run.__name__ = handler.__name__
        return run

    def _csrf_problem(self, request: Request, form: Mapping[str, str], session: str) -> str:
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).port != request.url.port:
            return "This change came from a page of another origin, so it was refused."
        if not hmac.compare_digest(form.get("csrf", ""), self.form_token(session)):
            return "This form is out of date (its form token does not match your session): reload the page and try again."
        return ""

    def _call(self, handler: Handler, page: Page) -> Response:
        with self.lock:
            try:
                return handler(page)
            except KenningError as exc:
                status = next((code for kind, code in _STATUS if isinstance(exc, kind)), 500)
                return page.render("error.html", status, message=str(exc), code=status)


async def _body(request: Request) -> bytes | None:
    """The request's body, or None past ``MAX_FORM`` bytes (stopped there, never held whole)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_FORM:
        return None
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_FORM:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _diff_lines(text: str) -> list[tuple[str, str]]:
    """A unified diff's lines, each with the class that colours it."""
    out = []
    for line in text.splitlines():
        kind = ("file" if line.startswith(("+++", "---")) else "add" if line.startswith("+")
                else "del" if line.startswith("-") else "hunk" if line.startswith("@@") else "")
        out.append((kind, line))
    return out


def _digest(session: str) -> str:
    return hashlib.sha256(session.encode()).hexdigest()


def _refused(status: int, message: str) -> HTMLResponse:
    return HTMLResponse(_PLAIN.format(title="Refused", message=message), status_code=status)


_PLAIN = ('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>kenning ui: {title}</title>'
          '<meta name="viewport" content="width=device-width, initial-scale=1">'
          '<link rel="stylesheet" href="/static/ui.css"><link rel="icon" href="/static/icon.svg"></head><body><main class="plain"><h1>{title}</h1>'
          '<p>{message}</p></main></body></html>')
NO_SESSION = ("This inspector opens only with the address <code>kenning ui</code> printed when it started "
              "(the one ending in <code>?token=…</code>): open that address, or start <code>kenning ui</code> again.")
SPENT = ("That address has opened a session already, and it opens only one: an address seen elsewhere (in a list "
         "of processes, in a browser's history) must not open another. Go on in the browser it opened, or open "
         "the next address <code>kenning ui</code> printed when this one was used (or start it again).")


class RequireSession:
    """ASGI wrapper: the token in the URL opens a session; without a live session, 403."""

    def __init__(self, app: ASGIApp, ui: Inspector) -> None:
        self.app = app
        self.ui = ui

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        given = request.query_params.get("token")
        if given is not None:
            response = self._login(request, given)
        elif scope["path"].startswith("/static/") and request.method in ("GET", "HEAD"):
            response = None
        elif self.ui.knows(request.cookies.get(COOKIE)):
            scope[SESSION_KEY] = request.cookies[COOKIE]
            response = None
        else:
            response = HTMLResponse(_PLAIN.format(title="Use the printed address", message=NO_SESSION),
                                    status_code=403)
        if response is not None:
            await response(scope, receive, _secured(send))
            return
        await self.app(scope, receive, _secured(send))

    def _login(self, request: Request, given: str) -> Response:
        rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
        response = RedirectResponse(request.url.path + (f"?{urlencode(rest)}" if rest else ""), status_code=303)
        session = self.ui.open_session(given)
        if session is not None:
            response.set_cookie(COOKIE, session, httponly=True, samesite="strict", path="/")
        elif self.ui.knows(request.cookies.get(COOKIE)):
            pass  # the address opened again in the browser it logged in (its history): the session goes on
        elif self.ui.was_spent(given):
            return HTMLResponse(_PLAIN.format(title="Address already used", message=SPENT), status_code=403)
        else:
            return HTMLResponse(_PLAIN.format(title="Wrong token", message=NO_SESSION), status_code=403)
        return response


def _secured(send: Send) -> Send:
    """``send`` adding the headers every answer carries: the CSP, no sniffing, no caching, no referrer
    to other sites."""

    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            headers["Content-Security-Policy"] = CSP
            headers["X-Content-Type-Options"] = "nosniff"
            headers["Referrer-Policy"] = "same-origin"  # "no-referrer" would make the browser send Origin: null
            headers.setdefault("Cache-Control", "no-store")
        await send(message)

    return wrapped


def build_app(kb: Kenning, host: str, port: int, scope: str, token: str | None = None) -> tuple[ASGIApp, Inspector]:
    """The inspector as an ASGI app for ``host:port``, and its state (whose ``token`` opens it)."""
    from . import memories, records, skills

    ui = Inspector(kb, scope) if token is None else Inspector(kb, scope, token=token)
    routes: list[BaseRoute] = [Mount("/static", StaticFiles(directory=HERE / "static"), name="static")]
    for module in (memories, records, skills):
        for path, handler, methods in module.ROUTES:
            routes.append(Route(path, ui.endpoint(handler), methods=list(methods)))
    app: ASGIApp = Starlette(routes=routes)
    app = RequireSession(app, ui)
    return CheckHostAndOrigin(app, AllowedHosts.of(host, port)), ui


def redirect(path: str, **query: str) -> RedirectResponse:
    """After a POST: see the result with a GET (303), so a reload does not send the form again."""
    given = {k: v for k, v in query.items() if v}
    return RedirectResponse(path + (f"?{urlencode(given)}" if given else ""), status_code=303)


def serve(kb: Kenning, host: str, port: int, scope: str, ready: Callable[[str], None],
          renewed: Callable[[str], None] | None = None) -> None:
    """Serve the inspector on ``host:port`` (0: a free port) until interrupted; ``ready`` gets the URL
    with the token once the socket listens, before the first request can arrive, and ``renewed``
    the URL with the next token each time one is used."""
    import socket

    import anyio
    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise InvalidInput(f"cannot listen on {host}:{port} ({exc.strerror}); pick another --port, or leave it "
                           "out for a free one") from None
    sock.listen(64)
    bound = sock.getsockname()[1]
    app, ui = build_app(kb, host, bound, scope)
    shown = f"[{host.strip('[]')}]" if family == socket.AF_INET6 else host
    if renewed is not None:
        ui.renewed = lambda token: renewed(f"http://{shown}:{bound}/?token={token}")
    ready(f"http://{shown}:{bound}/?token={ui.token}")
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    try:
        anyio.run(partial(server.serve, sockets=[sock]))
    finally:
        sock.close()
