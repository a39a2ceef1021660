"""``kenning hot``: MEMORY.md and USER.md, the memory loaded into every session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from . import output
from .state import json_option, pass_kenning, scope_option

if TYPE_CHECKING:
    from kenning.api import Kenning

SECTION = click.Choice(("user", "project", "pitfalls", "other"), case_sensitive=False)
FILE = click.Choice(("MEMORY.md", "USER.md"), case_sensitive=False)
reason_option = click.option("--reason", default="", help="Why (kept in the audit log).")


@click.group()
def hot() -> None:
    """The hot memory: MEMORY.md and USER.md in the data directory, each under a token budget.

    Every entry is a bullet line linked to a stored fact; you may edit the files by hand, and
    kenning picks the edit up on its next read.

    \b
    Example:
      kenning hot add "Never deploy on Friday afternoon" --section pitfalls
      kenning hot budget
    """


@hot.command()
@click.option("--file", "file", type=FILE, help="Only this file.")
@json_option
@scope_option
@pass_kenning
def show(kb: Kenning, scope: str, file: str | None, as_json: bool) -> None:
    """Show the hot memory as a model sees it.

    \b
    Example:
      kenning hot show --file USER.md
    """
    result = kb.hot_in(scope).show(file)
    if as_json:
        output.print_json(result)
        return
    for f in result["files"]:
        output.show(Text(f"{f['file']}: {f['tokens']} of {f['budget']} tokens, {len(f['entries'])} entries",
                         style="dim"))
        click.echo(f["text"].rstrip("\n") if f["entries"] else f"# {f['file']}\n(empty)")


@hot.command()
@click.argument("text")
@click.option("--section", type=SECTION, default="other", show_default=True,
              help="user goes to USER.md; project, pitfalls and other to MEMORY.md.")
@click.option("--make-room", is_flag=True, help="Compress the file when the entry would exceed its budget.")
@reason_option
@json_option
@scope_option
@pass_kenning
def add(kb: Kenning, scope: str, text: str, section: str, make_room: bool, reason: str, as_json: bool) -> None:
    """Add an entry (and the fact it stands for).

    \b
    Example:
      kenning hot add "Prefers answers in Chinese" --section user
      kenning hot add "CI runs on the self-hosted runner" --section project --make-room
    """
    _done(kb.hot_in(scope).add(text, section, make_room=make_room, reason=reason), as_json)


@hot.command()
@click.argument("old")
@click.argument("new")
@reason_option
@json_option
@scope_option
@pass_kenning
def replace(kb: Kenning, scope: str, old: str, new: str, reason: str, as_json: bool) -> None:
    """Replace the one entry containing OLD by NEW (its fact is superseded).

    \b
    Example:
      kenning hot replace "port 8080" "The API server listens on port 9090"
    """
    _done(kb.hot_in(scope).replace(old, new, reason=reason), as_json)


@hot.command()
@click.argument("text")
@click.option("--force", is_flag=True, help="Allow removing more than half of a file's entries.")
@reason_option
@json_option
@scope_option
@pass_kenning
def remove(kb: Kenning, scope: str, text: str, force: bool, reason: str, as_json: bool) -> None:
    """Remove the one entry containing TEXT (its fact expires).

    \b
    Example:
      kenning hot remove "pnpm"
    """
    _done(kb.hot_in(scope).remove(text, reason=reason, force=force), as_json)


@hot.command()
@click.option("--file", "file", type=FILE, help="Only this file.")
@click.option("--dry-run", is_flag=True, help="Show what would change; change nothing.")
@click.option("--force", is_flag=True, help="Allow demoting more than half of a file's entries.")
@reason_option
@json_option
@scope_option
@pass_kenning
def compress(kb: Kenning, scope: str, file: str | None, dry_run: bool, force: bool, reason: str, as_json: bool) -> None:
    """Bring the files within budget: drop [deprecated] entries, merge near-duplicates, demote the
    lowest-scored entries to the warm tier (they stay in recall).

    \b
    Example:
      kenning hot compress --dry-run
    """
    reports = [r.to_dict() for r in kb.hot_in(scope).compress(file, dry_run=dry_run, reason=reason, force=force)]
    if as_json:
        output.print_json({"success": True, "files": reports})
        return
    for r in reports:
        verb = "would" if r["dry_run"] else "did"
        output.show(Text(f"{r['file']}: {r['tokens_before']} -> {r['tokens_after']} of {r['budget']} tokens "
                         f"({verb}: drop {len(r['dropped_deprecated'])}, merge {len(r['merged'])}, "
                         f"demote {len(r['demoted'])})"))
        for text in r["dropped_deprecated"]:
            output.show(Text(f"  drop    {text}"))
        for pair in r["merged"]:
            output.show(Text(f"  merge   {pair['removed']}  ->  {pair['kept']}"))
        for text in r["demoted"]:
            output.show(Text(f"  demote  {text}"))


@hot.command()
@json_option
@scope_option
@pass_kenning
def budget(kb: Kenning, scope: str, as_json: bool) -> None:
    """A gauge of the tokens each hot file uses of its budget.

    \b
    Example:
      kenning hot budget
    """
    rows = kb.hot_in(scope).budget()
    if as_json:
        output.print_json({"success": True, "files": rows})
        return
    table = Table(title="Hot memory budget", title_justify="left")
    for column in ("file", "used", "", "budget", "entries"):
        table.add_column(column, justify="right" if column in ("used", "budget", "entries") else "left")
    for row in rows:
        style = "red" if row["tokens"] > row["budget"] else "yellow" if row["share"] > 0.8 else "green"
        bar = ProgressBar(total=row["budget"], completed=min(row["tokens"], row["budget"]), width=30,
                          complete_style=style, finished_style=style)
        table.add_row(row["file"], f"{row['tokens']:,}", bar, f"{row['budget']:,}", str(row["entries"]))
    output.show(table)


def _done(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        output.print_json(result)
        return
    output.show(Text(result["message"][:1].upper() + result["message"][1:] + f": {result['entry']}"))
    report = result.get("compression")
    if report:
        output.show(Text(f"  made room: dropped {len(report['dropped_deprecated'])}, merged {len(report['merged'])}, "
                         f"demoted {len(report['demoted'])}"))


@click.command()
@click.option("--apply", "apply", is_flag=True, help="Carry out the plan (without it, nothing changes).")
@click.option("--dry-run", is_flag=True, hidden=True, help="The default: print the plan, change nothing.")
@click.option("--archive-after", "archive_after", type=click.IntRange(0, 100_000), default=90, show_default=True,
              help="Archive daily notes older than this many days.")
@json_option
@pass_kenning
def maintain(kb: Kenning, apply: bool, dry_run: bool, archive_after: int, as_json: bool) -> None:
    """Plan, or with --apply carry out, the moves between tiers in every scope: compress hot files
    over their budget, archive old daily notes, unpin expired facts, promote what is used often,
    merge the full-text index.

    Without --apply nothing changes, so it is safe from cron; --apply makes the same plan and
    carries out exactly what it prints.

    \b
    Example:
      kenning maintain
      kenning maintain --apply --archive-after 60
    """
    if apply and dry_run:
        raise click.UsageError("--apply and --dry-run contradict each other; leave out --dry-run to apply")
    result = kb.maintain(apply=apply, archive_after_days=archive_after).to_dict()
    if as_json:
        output.print_json(result)
        return
    title = "Maintenance (carried out)" if apply else "Maintenance plan (nothing changed; --apply carries it out)"
    rows = [(step["step"], step["summary"]) for step in result["steps"]]
    output.show(output.table(title, ("step", "result"), rows))
    for step in result["steps"]:
        if step["step"] == "demote" and step["items"]:
            entries = [(i["scope"], i["file"], i["action"], output.truncate(i["entry"], 60),
                        output.truncate(i.get("into", ""), 60)) for i in step["items"]]
            output.show(output.table("Hot memory", ("scope", "file", "action", "entry", "into / alike"), entries))
        if step["step"] == "promote" and step["items"]:
            promos = [(s["scope"], s["section"], output.truncate(s["text"], 70), s["why"],
                       s.get("result", "suggested")) for s in step["items"]]
            output.show(output.table("Promotions", ("scope", "section", "text", "why", "result"), promos))


COMMANDS = (hot, maintain)
