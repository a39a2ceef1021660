"""The inspector of ``kenning ui`` served from a thread of the test process, on 127.0.0.1 and a free
port, over a store the test opened (so it shares the session's embedding model); and plain HTTP
requests to it with exactly the headers a test chooses."""

from __future__ import annotations

import asyncio
import http.client
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.cookies import SimpleCookie
from urllib.parse import urlencode

import uvicorn

from kenning import Kenning
from kenning.ui.app import Inspector, build_app


@dataclass
class Served:
    ui: Inspector
    port: int

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The address ``kenning ui`` prints."""
        return f"{self.base}/?token={self.ui.token}"

    def request(self, method: str, path: str, *, headers: dict[str, str] | None = None,
                form: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
        """(status, headers with lower-case names, body); Host is 127.0.0.1:PORT unless given."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        sent = {"Host": f"127.0.0.1:{self.port}", **(headers or {})}
        body = None
        if form is not None:
            body = urlencode(form)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
            sent["Content-Length"] = str(len(body.encode()))
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in sent.items():
            conn.putheader(name, value)
        conn.endheaders(body.encode() if body is not None else None)
        answer = conn.getresponse()
        out = (answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read().decode())
        conn.close()
        return out

    def login(self) -> str:
        """The session cookie's ``name=value``, got as a browser gets it: from the printed address."""
        status, headers, _ = self.request("GET", f"/?token={self.ui.token}")
        assert status == 303, status
        cookie = SimpleCookie(headers["set-cookie"])
        (name, morsel), = cookie.items()
        return f"{name}={morsel.value}"


@contextmanager
def serve_ui(kb: Kenning, scope: str = "default") -> Iterator[Served]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    app, ui = build_app(kb, "127.0.0.1", port, scope)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the inspector did not start")
        time.sleep(0.02)
    try:
        yield Served(ui, port)
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
