"""Looking after a data directory: audit, stats, path, reindex."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kenning.config import load_settings

from . import output
from .state import WHEN_AGO, database_of, home_of, json_option, open_kenning, pass_kenning

if TYPE_CHECKING:
    from rich.table import Table

    from kenning.api import Kenning
    from kenning.purge import Purge


@click.command()
@json_option
@click.pass_context
def path(ctx: click.Context, as_json: bool) -> None:
    """Show where the data directory's files are, and the database kenning uses.

    Needs no database and no embedder, so it works even when the store cannot be opened.

    \b
    Example:
      kenning --home /tmp/kb path --json
    """
    paths = load_settings(home_of(ctx), database=database_of(ctx)).paths()
    if as_json:
        output.print_json(paths)
        return
    rows = [(name, where, "yes" if Path(where).exists() else "no") for name, where in paths.items()]
    output.show(output.table("Where kenning keeps its data", ("what", "path", "exists"), rows))


@click.command()
@click.option("--item", "item_id", metavar="ID", help="Only entries about this item.")
@click.option("--actor", help="Only entries by this actor (cli, mcp:…, ui, api, …).")
@click.option("--action", help="Only entries of this action (remember, edit, purge, …).")
@click.option("--since", type=WHEN_AGO, help="Made at or after: a date, or a duration ago (7d).")
@click.option("--until", type=WHEN_AGO, help="Made at or before: a date, or a duration ago.")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(min=1), help="At most this many.")
@json_option
@pass_kenning
def audit(kb: Kenning, item_id: str | None, actor: str | None, action: str | None, since: datetime | None,
          until: datetime | None, limit: int, as_json: bool) -> None:
    """Show the audit log, newest first.

    Every change to the store: what it was, before and after, who made it and why.

    \b
    Example:
      kenning audit --item f_1a2b3c4d5e6f --limit 10
      kenning audit --actor ui --since 7d
    """
    entries = kb.audit(item_id, limit, actor=actor, action=action, since=since, until=until)
    if as_json:
        output.print_json([entry.to_dict() for entry in entries])
        return
    output.show(output.audit_table(entries))


@click.command()
@click.option("--scope", help="Only this scope (default: every scope).")
@json_option
@pass_kenning
def stats(kb: Kenning, scope: str | None, as_json: bool) -> None:
    """Count stored items per scope and kind.

    Also shows the data directory, the embedder that wrote the vectors and the schema version.

    \b
    Example:
      kenning stats --scope default
    """
    data = kb.stats(scope)
    if as_json:
        output.print_json(data)
        return
    summary = [(k, v) for k, v in data.items() if k != "counts"]
    counts = [(c["scope"], c["kind"], c["total"], c["current"], c["pinned"]) for c in data["counts"]]
    output.show(
        output.table("Store", ("what", "value"), summary),
        output.table("Items", ("scope", "kind", "total", "current", "pinned"), counts),
    )


@click.command()
@json_option
@click.pass_context
def reindex(ctx: click.Context, as_json: bool) -> None:
    """Re-embed every item with the configured embedder.

    Run it after changing the embedder in kenning.toml or the environment.

    \b
    Example:
      KENNING_EMBEDDER=openai kenning reindex
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # 60 ms: only here

    kb = open_kenning(ctx, allow_embedder_change=True)
    total = sum(int(c["total"]) for c in kb.stats()["counts"])
    columns = (TextColumn("re-embedding"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=output.console(stderr=True), disable=as_json) as bar:
        task = bar.add_task("reindex", total=total)
        done = kb.reindex(progress=lambda n: bar.advance(task, n))
    if as_json:
        output.print_json({"reindexed": done, "embedder": kb.embedder.name})
        return
    output.show(f"Re-embedded {done} item{'' if done == 1 else 's'} with {kb.embedder.name}.")


@click.command()
@click.argument("item_id", metavar="[ID]", required=False)
@click.option("--scope", help="Purge this whole scope (alone), or only within it (with --match).")
@click.option("--match", "match", metavar="TEXT", help="Purge every item, entry, note and message holding TEXT.")
@click.option("--dry-run", is_flag=True, help="Count what would be removed; remove nothing.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@json_option
@pass_kenning
def purge(kb: Kenning, item_id: str | None, scope: str | None, match: str | None, dry_run: bool, yes: bool,
          as_json: bool) -> None:
    """Remove an item, a scope or a text from everywhere, for good.

    Unlike `forget`, nothing of it stays in the audit log: the rows, the full-text index, the
    vectors, the audit entries' text, hot memory, notes and archived transcripts are cleaned, and
    the database file is rebuilt so the bytes leave the disk. Audited as a purge, without the text.

    \b
    Example:
      kenning purge f_1a2b3c4d5e6f
      kenning purge --scope user:alice --dry-run
      kenning purge --match "vault code 4711" --yes
    """
    if not dry_run and not yes:
        if as_json or not sys.stdin.isatty():
            raise click.UsageError("purge removes text for good: pass --yes to confirm (or --dry-run to look first)")
        output.show(_purge_table(kb.purge(item_id, scope=scope, match=match, dry_run=True), "Would purge"))
        click.confirm("Purge this for good?", abort=True)
    result = kb.purge(item_id, scope=scope, match=match, dry_run=dry_run)
    if as_json:
        output.print_json(result.to_dict())
        return
    output.show(_purge_table(result, "Would purge" if dry_run else "Purged"))
    if result.vacuum:
        output.show(f"Note: {result.vacuum}")


def _purge_table(done: Purge, title: str) -> Table:
    rows = [("items", len(done.items)), ("audit entries blanked", done.audit_entries),
            ("hot memory entries", done.hot_entries), ("note paragraphs", done.note_paragraphs),
            ("transcript messages", done.transcript_messages), ("skill feedback notes", done.feedback_notes),
            ("skill drafts", done.skill_drafts), ("skill version files", done.skill_version_files),
            ("files and folders", ", ".join(done.removed_paths) or "-"),
            ("still in skill files (edit them, then purge again)", ", ".join(done.live_skill_files) or "-")]
    return output.table(title, ("what", "how many"), rows)


COMMANDS = (audit, stats, path, reindex, purge)
