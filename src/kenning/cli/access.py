"""Row-level security of a PostgreSQL database shared by several people: ``kenning access enable``,
``grant``, ``revoke``, ``list`` and ``vacuum`` (``kenning.store.postgres_security``). Each runs on
the configured database (``--db``, ``KENNING_DATABASE_URL``, ``[store] url``); all but ``list``
are the tables' owner's."""

from __future__ import annotations

from datetime import datetime, timezone

import click

from kenning.config import load_settings
from kenning.errors import ConfigError
from kenning.store.url import StoreLocation

from . import output
from .state import database_of, home_of, json_option


def _server(ctx: click.Context) -> StoreLocation:
    where = load_settings(home_of(ctx), database=database_of(ctx)).database
    if where.backend != "postgresql" or where.url is None:
        raise ConfigError(f"row security is PostgreSQL's, but {where.setting} names the SQLite file {where.shown}; "
                          "give --db postgresql://owner@host/db")
    return where


@click.group()
def access() -> None:
    """Keep each PostgreSQL role to its scopes, enforced by the server itself (row-level security).

    The database's owner enables it once and grants each role the scopes it may read or write;
    a role then sees and changes only those, through kenning or raw SQL alike.

    \b
    Example:
      kenning --db postgresql://owner@db/kenning access enable
      kenning --db postgresql://owner@db/kenning access grant alice user:alice
      kenning --db postgresql://owner@db/kenning access grant bob 'team:*' --read-only
    """


@access.command()
@click.pass_context
def enable(ctx: click.Context) -> None:
    """Turn row-level security on (the tables' owner; running it again is harmless).

    Opens the store once (its schema and embedder are recorded), then forces the policies on
    every table in one transaction and grants the owner every scope.

    \b
    Example:
      kenning --db postgresql://owner@db.internal/kenning access enable
    """
    from kenning.api import make_embedder
    from kenning.store import open_store
    from kenning.store.postgres_security import connect
    from kenning.store.postgres_security import enable as turn_on

    where = _server(ctx)
    assert where.url is not None
    settings = load_settings(home_of(ctx), database=database_of(ctx))
    embedder = make_embedder(settings)
    open_store(where, embedder.name, embedder.dim).close()  # migrated, and the embedder recorded
    with connect(where.url, where.shown) as conn:
        changed = turn_on(conn, where.shown)
    output.show(f"Row security {'enabled' if changed else 'was on already (policies made again)'} in {where.shown}; "
                "grant each role its scopes: kenning access grant ROLE SCOPE")


@access.command()
@click.argument("role")
@click.argument("scope")
@click.option("--read-only", is_flag=True, help="Let the role read the scope but not write it.")
@click.pass_context
def grant(ctx: click.Context, role: str, scope: str, read_only: bool) -> None:
    """Let ROLE read and write SCOPE ('user:alice', 'team:*' for every team scope, '*' for all).

    Also gives ROLE the table privileges it needs. Granting a scope again replaces its access.

    \b
    Example:
      kenning access grant alice user:alice
      kenning access grant bob 'team:*' --read-only
    """
    from kenning.store.postgres_security import connect
    from kenning.store.postgres_security import grant as give

    where = _server(ctx)
    assert where.url is not None
    with connect(where.url, where.shown) as conn:
        done = give(conn, where.shown, role, scope, read_only=read_only)
    output.show(f"{done.role} may now {'read' if read_only else 'read and write'} {done.scope} in {where.shown}.")


@access.command()
@click.argument("role")
@click.argument("scope")
@click.pass_context
def revoke(ctx: click.Context, role: str, scope: str) -> None:
    """Take ROLE's grant of SCOPE away; it takes effect at the role's next statement.

    A role left with no grant loses its table privileges too.

    \b
    Example:
      kenning access revoke bob team:web
    """
    from kenning.store.postgres_security import connect
    from kenning.store.postgres_security import revoke as take

    where = _server(ctx)
    assert where.url is not None
    with connect(where.url, where.shown) as conn:
        gone = take(conn, where.shown, role, scope)
    output.show(f"{role} no longer holds {scope} in {where.shown}." if gone
                else f"{role} held no grant of {scope} in {where.shown}; nothing changed.")


@access.command(name="list")
@json_option
@click.pass_context
def list_(ctx: click.Context, as_json: bool) -> None:
    """Show the grants (the owner sees every role's, a role its own).

    \b
    Example:
      kenning access list
      kenning access list --json
    """
    from kenning.store.postgres_security import connect, grants

    where = _server(ctx)
    assert where.url is not None
    with connect(where.url, where.shown) as conn:
        found = grants(conn, where.shown)
    if as_json:
        output.print_json({"database": where.shown, "grants": [g.to_dict() for g in found]})
        return
    rows = [(g.role, g.scope, g.access, datetime.fromtimestamp(g.granted_at, timezone.utc).strftime("%Y-%m-%d %H:%M"),
             g.granted_by) for g in found]
    output.show(output.table(f"Grants in {where.shown}", ("role", "scope", "access", "granted (UTC)", "by"), rows))


@access.command()
@click.pass_context
def vacuum(ctx: click.Context) -> None:
    """Rewrite the tables' files without deleted and purged text (VACUUM FULL; the owner).

    A purge by a role that does not own the tables leaves this to the owner.

    \b
    Example:
      kenning --db postgresql://owner@db.internal/kenning access vacuum
    """
    from kenning.api import make_embedder
    from kenning.errors import Forbidden
    from kenning.store import open_store

    where = _server(ctx)
    embedder = make_embedder(load_settings(home_of(ctx), database=database_of(ctx)))
    store = open_store(where, embedder.name, embedder.dim)
    try:
        note = store.vacuum()
    finally:
        store.close()
    if note:
        raise Forbidden(note)
    output.show(f"Rewrote the tables of {where.shown}.")


COMMANDS = [access]
