"""``kenning mcp``: serve kenning to MCP clients (Claude Desktop, Claude Code, Cursor, …).

The MCP SDK is imported only here, when the command runs: it is an optional extra
(``pip install 'kenning[mcp]'``) and slow to import (about a second), and no other command needs
it. Over stdio it is imported behind ``kenning.mcp.front``, which answers the client's handshake
first; over HTTP, before the server listens.
"""

from __future__ import annotations

import importlib.util
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kenning.checks import check_scope
from kenning.models import DEFAULT_SCOPE

from .state import database_of, home_of, project_option

if TYPE_CHECKING:
    from kenning.api import Kenning

# what `from kenning.mcp import server` needs from outside kenning: missing means the extra is not installed
_SDK_MODULES = frozenset({"mcp", "mcp_types", "starlette", "uvicorn", "anyio", "pydantic", "pydantic_core"})


@click.command()
@click.option("--http", "http", is_flag=True, help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="With --http: the address to listen on; only loopback unless --allow-remote.")
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True, help="With --http: the port.")
@click.option("--allow-remote", is_flag=True, help="With --http: allow a non-loopback --host (needs --token).")
@click.option("--token", envvar="KENNING_MCP_TOKEN", show_envvar=True,
              help="With --http: refuse (401) requests without 'Authorization: Bearer TOKEN'; at least 16 "
                   "characters, e.g. from `openssl rand -hex 16`.")
@click.option("--allowed-host", "allowed_hosts", multiple=True, envvar="KENNING_MCP_ALLOWED_HOSTS", show_envvar=True,
              metavar="NAME", help="With --http: another host name clients reach the server by (a remote or proxied "
                                   "server); requests naming any other host are refused (421). Repeatable.")
@click.option("--scope", default=DEFAULT_SCOPE, show_default=True, envvar="KENNING_MCP_SCOPE", show_envvar=True,
              help="The memory scope every tool acts in unless a call names another one, e.g. 'user:alice'.")
@project_option
@click.pass_context
def mcp(ctx: click.Context, http: bool, host: str, port: int, allow_remote: bool, token: str | None,
        allowed_hosts: tuple[str, ...], scope: str, project_dir: Path | None) -> None:
    """Serve memory, lessons, entities, notes, hot memory and skills to MCP clients.

    Over stdio by default (the client starts `kenning mcp` itself); --http serves streamable HTTP
    on this machine only, and only to requests addressed to it (their Host and Origin). Memories
    are read and changed in --scope unless a tool call names another scope. Skills a client
    creates or changes are saved as drafts until you run `kenning skill review approve NAME`,
    unless [mcp] direct_skill_writes = true in kenning.toml.

    \b
    Example:
      kenning mcp                                  # stdio: put this command in the client's config
      kenning mcp --project ~/code/web             # with that project's .agents/skills
      kenning mcp --scope user:alice               # Alice's memories unless a call says otherwise
      kenning mcp --http --port 8765 --token "$(openssl rand -hex 16)"
    """
    scope = check_scope(scope)  # before anything loads, as the checks below
    _check_sdk()
    try:
        with _sdk_import_errors():
            if http:
                _serve_http(ctx, host, port, allow_remote, token, allowed_hosts, scope, project_dir)
            else:  # the front answers the handshake at once; the SDK and the store load behind it
                from kenning.mcp import front, handshake

                # The client that started the server stops it with SIGINT and, 100 ms later (Claude
                # Code), SIGTERM: end at once, as SIGTERM would. Every write is atomic (a transaction
                # or a renamed file), so an end at any moment leaves the store as before or after it.
                signal.signal(signal.SIGINT, signal.SIG_DFL)

                front.serve(lambda: _open(ctx, project_dir), scope,
                            lambda: handshake.skill_sources(home_of(ctx), project_dir))
    except KeyboardInterrupt:
        pass  # Ctrl-C is how a person stops a server by hand


def _serve_http(ctx: click.Context, host: str, port: int, allow_remote: bool, token: str | None,
                allowed_hosts: tuple[str, ...], scope: str, project_dir: Path | None) -> None:
    from kenning.mcp import server

    server.check_bind(host, allow_remote, token, allowed_hosts)
    kb = _open(ctx, project_dir)  # before listening: the person who started it sees at once if it fails
    ctx.call_on_close(kb.close)
    where = f"[{host}]" if ":" in host else host
    click.echo(f"kenning: MCP server at http://{where}:{port}/mcp" + (" (bearer token required)" if token else ""),
               err=True)
    server.serve_http(kb, host, port, token, scope, allowed_hosts)


def _open(ctx: click.Context, project_dir: Path | None) -> Kenning:
    from kenning.api import Kenning  # numpy, SQLite and the embedder: after the front has started

    return Kenning.open(home_of(ctx), actor="mcp", project_dir=project_dir, database=database_of(ctx))


def _check_sdk() -> None:
    """Refuse at once when the extra is not installed (looked up, not imported: that takes a second)."""
    missing = sorted(name for name in _SDK_MODULES if importlib.util.find_spec(name) is None)
    if missing:
        raise click.ClickException(f"kenning mcp needs the MCP SDK (missing: {', '.join(missing)}); install it "
                                   "with: pip install 'kenning[mcp]'")


@contextmanager
def _sdk_import_errors() -> Iterator[None]:
    try:
        yield
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in _SDK_MODULES:
            raise
        raise click.ClickException(f"kenning mcp needs the MCP SDK ({exc}); install it with: "
                                   "pip install 'kenning[mcp]'") from None


COMMANDS = (mcp,)
