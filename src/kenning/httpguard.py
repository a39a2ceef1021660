"""Which requests a server on this machine answers, by their ``Host`` and ``Origin`` headers: the
guard against DNS rebinding and cross-site requests shared by ``kenning mcp --http`` and ``kenning ui``.

A host is the server's when it is the bound address in any spelling, any loopback address or
``localhost`` when the server listens on loopback or on every address, or a name given with
``--allowed-host`` (any port). ``Host`` must name the server with its port (421 otherwise); an
``Origin``, when present, must be an http(s) origin of such a host, any port (403 otherwise). A web
page cannot choose either header, so a page of another site is refused even when its name resolves
to this machine.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from .errors import InvalidInput

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _address(host: str) -> Address | None:
    """The IP address ``host`` spells, in any spelling the socket layer takes ('127.1', '0x7f.0.0.2',
    '0:0::1', '[::1]'), or None for a name."""
    text = host.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if re.fullmatch(r"[0-9a-fA-FxX.]+", text):  # inet_aton takes trailing junk after a space: never give it any
        try:
            return ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    return None


def is_loopback(host: str) -> bool:
    address = _address(host)
    return host.strip().lower() == "localhost" if address is None else address.is_loopback


_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOST_NAME = re.compile(rf"(?=.{{1,253}}\Z){_LABEL}(?:\.{_LABEL})*")


def check_host_name(name: str) -> str:
    """``name`` lower-cased, or the address it spells, when it is a host name or an IP address (what
    ``--allowed-host`` takes)."""
    text = name.strip().lower()
    address = _address(text)
    if address is not None:
        return str(address)
    if not _HOST_NAME.fullmatch(text):
        raise InvalidInput(f"--allowed-host {name[:80]!r} is not a host name or an IP address; give the name clients "
                           "use in their URL, without scheme, port or wildcard, e.g. --allowed-host mcp.example.org")
    return text


@dataclass(frozen=True)
class AllowedHosts:
    """Which ``Host`` and ``Origin`` values a server bound to one address and port answers (see the
    module docstring for the rule)."""

    port: int
    addresses: frozenset[Address] = frozenset()
    names: frozenset[str] = frozenset()  # lower-case: the bound name, "localhost" on loopback
    any_loopback: bool = False
    extra: frozenset[str] = frozenset()  # --allowed-host names and addresses: any port

    @classmethod
    def of(cls, host: str, port: int, allowed_hosts: Iterable[str] = ()) -> AllowedHosts:
        address = _address(host)
        loopback = is_loopback(host) or (address is not None and address.is_unspecified)
        names = {host.strip().lower()} if address is None else set()
        if loopback:
            names.add("localhost")
        addresses = {address} if address is not None and not address.is_unspecified else set()
        return cls(port, frozenset(addresses), frozenset(names), loopback,
                   frozenset(check_host_name(n) for n in allowed_hosts))

    def host(self, header: str) -> bool:
        """Whether a ``Host`` header names this server: one of its hosts with its port, or an extra
        host with any port."""
        name, port = _split_host(header)
        if name is None:
            return False
        if self._is_extra(name):
            return True
        return (port if port is not None else 80) == self.port and self._is_ours(name)  # no port: HTTP's 80

    def origin(self, header: str) -> bool:
        """Whether an ``Origin`` header is an http(s) origin of one of this server's hosts, any port."""
        try:
            parts = urlsplit(header.strip())
            _ = parts.port  # raises ValueError on a port that is not a number
        except ValueError:
            return False
        if (parts.scheme.lower() not in ("http", "https") or not parts.hostname or "@" in parts.netloc
                or parts.path or parts.query or parts.fragment):
            return False
        return self._is_extra(parts.hostname) or self._is_ours(parts.hostname)

    def _is_ours(self, name: str) -> bool:
        address = _address(name)
        if address is None:
            return name.lower() in self.names
        return address in self.addresses or (self.any_loopback and address.is_loopback)

    def _is_extra(self, name: str) -> bool:
        address = _address(name)
        return (name.lower() if address is None else str(address)) in self.extra


def _split_host(header: str) -> tuple[str | None, int | None]:
    """A ``Host`` header as (name, port); (None, None) when it is malformed."""
    text = header.strip()
    if text.startswith("["):
        name, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return None, None
        port_text = rest[1:] if rest else None
    else:
        name, colon, port_text = text.rpartition(":")
        if not colon:
            name, port_text = text, None
        if ":" in name:  # an IPv6 address goes in brackets
            return None, None
    if not name or (port_text is not None and not (port_text.isascii() and port_text.isdigit())):
        return None, None
    return name, int(port_text) if port_text is not None else None


class CheckHostAndOrigin:
    """ASGI wrapper: a request whose ``Host`` does not name this server gets 421, one whose ``Origin``
    is not an origin of it gets 403, before the MCP app (or the token check) sees it. Against DNS
    rebinding: a web page cannot choose either header, so a page of another site is refused even when
    its name resolves to this machine."""

    def __init__(self, app: ASGIApp, allowed: AllowedHosts) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = self._refusal(Headers(scope=scope)) if scope["type"] == "http" else None  # no websockets here
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _refusal(self, headers: Headers) -> JSONResponse | None:
        hosts = headers.getlist("host")
        if len(hosts) != 1 or not self.allowed.host(hosts[0]):
            given = repr(hosts[0][:80]) if len(hosts) == 1 else f"{len(hosts)} Host headers"
            return JSONResponse({"error": "misdirected_request",
                                 "error_description": f"Host {given} is not this server; use the address it "
                                                      "listens on, or start it with --allowed-host NAME"},
                                status_code=421)
        for origin in headers.getlist("origin"):
            if not self.allowed.origin(origin):
                return JSONResponse({"error": "forbidden_origin",
                                     "error_description": f"Origin {origin[:80]!r} may not use this server: only "
                                                          "pages served from its own hosts may"},
                                    status_code=403)
        return None
