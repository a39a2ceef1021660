"""Copying the database to another backend: ``kenning migrate --to URL_OR_PATH [--from URL_OR_PATH]``."""

from __future__ import annotations

import click

from kenning.config import load_settings
from kenning.store.url import locate

from . import CliError, output
from .state import database_of, home_of, json_option


@click.command()
@click.option("--to", "to", required=True, metavar="URL_OR_PATH",
              help="The database to copy into: postgresql://user@host/db, a SQLite file or sqlite:///abs/path.db.")
@click.option("--from", "from_", metavar="URL_OR_PATH",
              help="The database to copy from (default: the one kenning uses; see `kenning path`).")
@json_option
@click.pass_context
def migrate(ctx: click.Context, to: str, from_: str | None, as_json: bool) -> None:
    """Copy every row of one database into another: items, vectors, audit, skill versions, usage.

    Rows the target already holds are skipped, so running it again copies nothing, and an
    interrupted copy completes when run again. A target holding other content under the same keys
    is refused before anything is written. Ends by comparing each table's row count and checksum
    on both sides; exits 1 when they differ.

    \b
    Example:
      kenning migrate --to postgresql://kenning@db.internal/kenning
      kenning migrate --from postgresql://kenning@db.internal/kenning --to ~/backup/kenning.db
    """
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn,  # 60 ms: only here
                               TimeElapsedColumn)

    from kenning.api import make_embedder
    from kenning.store.transfer import migrate as copy_store

    settings = load_settings(home_of(ctx), database=database_of(ctx))
    source = locate(from_, setting="--from") if from_ else settings.database
    target = locate(to, setting="--to")
    embedder = make_embedder(settings)  # opens a source that records no embedder; both keep the source's
    columns = (TextColumn("{task.description:<22}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=output.console(stderr=True), disable=as_json) as bar:
        tasks: dict[str, TaskID] = {}

        def advance(table: str, done: int, total: int) -> None:
            if table not in tasks:
                tasks[table] = bar.add_task(table, total=total)
            bar.update(tasks[table], completed=done)

        report = copy_store(source, target, embedder.name, embedder.dim, progress=advance)
    if as_json:
        output.print_json({"from": source.shown, "to": target.shown, **report.to_dict()})
    else:
        rows = [(t.table, t.source_rows, t.copied, t.skipped, t.target_rows, t.source_sha256[:12],
                 t.target_sha256[:12], "yes" if t.verified else "NO") for t in report.tables]
        output.show(output.table(f"{source.shown} -> {target.shown}", ("table", "rows", "copied", "skipped",
                                                                        "target rows", "sha256", "target sha256",
                                                                        "verified"), rows))
        output.show(f"Copied {report.copied} row{'' if report.copied == 1 else 's'}; "
                    f"{'every table verified' if report.verified else 'TABLES DIFFER'}.")
    if not report.verified:
        differ = ", ".join(t.table for t in report.tables if not t.verified)
        raise CliError(f"{target.shown} differs from {source.shown} in {differ} after the copy; it may hold rows "
                       "the source lacks, or the source changed meanwhile: compare with `kenning stats` on both")


COMMANDS = [migrate]
