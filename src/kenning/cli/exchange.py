"""Export and import commands: ``kenning export`` and ``kenning import`` (``kenning.exchange``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from . import output
from .state import json_option, pass_kenning

if TYPE_CHECKING:
    from kenning.api import Kenning
    from kenning.exchange import ImportSummary


def _bar(what: str, enabled: bool) -> tuple[object, Callable[[int, int], None]]:
    """A progress bar on stderr (off when ``enabled`` is False) and the callback that moves it."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # 60 ms: only here

    bar = Progress(TextColumn(what), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=output.console(stderr=True), disable=not enabled)
    task = bar.add_task(what, total=None)

    def advance(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total or None)

    return bar, advance


@click.command(name="export")
@click.option("--scope", help="Only this scope (default: every scope).")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="File to write, replaced atomically (default: stdout).")
@click.option("--audit", is_flag=True, help="Add each item's audit entries (JSON lines only).")
@click.option("--vectors", is_flag=True, help="Add each item's vector, base64 float32 (JSON lines only).")
@click.option("--format", "fmt", type=click.Choice(("jsonl", "markdown")), default="jsonl", show_default=True,
              help="JSON lines (for `kenning import`) or a readable Markdown dump per scope.")
@click.option("--json", "as_json", is_flag=True, help="With --out: print what was written as JSON.")
@pass_kenning
def export_cmd(kb: Kenning, scope: str | None, out: Path | None, audit: bool, vectors: bool, fmt: str,
               as_json: bool) -> None:
    """Write every item, with its history, as JSON lines or Markdown.

    The first line is a header (format, version, embedder, time, counts); then one line per item
    with every field and its earlier versions, oldest first. `kenning import` reads it back.

    \b
    Example:
      kenning export --out backup.jsonl --audit --vectors
      kenning export --scope user:alice --format markdown --out alice.md
    """
    if as_json and out is None:
        raise click.UsageError("--json prints the summary of an export written to --out; without --out the "
                               "export itself goes to stdout")
    bar, advance = _bar("exporting", out is not None)
    with bar:  # type: ignore[attr-defined]
        total = kb.export(out, scope=scope, audit=audit, vectors=vectors, format=fmt, progress=advance)
    if as_json:
        output.print_json({"out": str(out), "format": fmt, "scope": scope, "items": total, "audit": audit,
                           "vectors": vectors})
    elif out is not None:
        output.console(stderr=True).print(f"Exported {total} item{'' if total == 1 else 's'} to {out}.",
                                          markup=False)


@click.command(name="import")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(("kenning", "mem0", "markdown")),
              help="What FILE is (default: guessed from its content, and said).")
@click.option("--scope", help="Keep the import in this scope: every mem0 memory and Markdown bullet goes "
                              "there (default: a mem0 memory's user or agent, else 'default'); of a kenning "
                              "export only this scope's items come in (default: every scope it holds).")
@click.option("--dry-run", is_flag=True, help="Say what would happen; write nothing.")
@json_option
@pass_kenning
def import_cmd(kb: Kenning, file: Path, fmt: str | None, scope: str | None, dry_run: bool, as_json: bool) -> None:
    """Import a kenning export, mem0's get_all JSON, or a Markdown list.

    Every item passes the write gate: secrets masked (or refused), restatements merged into the
    stored fact. A malformed file is refused whole, naming the line, before anything is written.
    Importing the same file again changes nothing. A file someone sent you: give --scope, and
    try --dry-run first.

    \b
    Example:
      kenning import backup.jsonl
      kenning import mem0.json --format mem0 --dry-run
      kenning import CLAUDE.md --scope project:web
      kenning import from-bob.json --scope user:bob --dry-run
    """
    from kenning.exchange.reader import check_file

    check_file(file)  # a missing file or a folder is said before a progress bar starts
    bar, advance = _bar("importing", not as_json)
    with bar:  # type: ignore[attr-defined]
        summary = kb.import_file(file, format=fmt, scope=scope, dry_run=dry_run, progress=advance)
    if as_json:
        output.print_json(summary.to_dict())
        return
    _show(summary)


def _show(summary: ImportSummary) -> None:
    from rich.text import Text  # reasons quote stored text and kenning.toml ("[gate]"): never markup

    if summary.guessed:
        output.show(Text(f"Read {summary.path} as {summary.format}: {summary.guessed}."))
    verb = "Would import" if summary.dry_run else "Imported"
    rows = summary.rows()
    totals = ("total", "", summary.added, summary.merged, summary.unchanged, summary.refused)
    output.show(output.table(f"{verb} {summary.path}", ("scope", "kind", "added", "merged", "unchanged", "refused"),
                             [*rows, totals]))
    if summary.skipped:
        output.show(Text(f"Skipped {summary.skipped} line{'' if summary.skipped == 1 else 's'} that are no items "
                    "(prose, labels, code)."))
    for refusal in summary.refusals[:20]:
        output.show(Text(f"refused, {summary.position} {refusal.line}: {refusal.reason}"))
    if summary.refused > 20:
        output.show(f"... {summary.refused - 20} more refusals: see --json")
    for note in summary.notes[:20]:
        output.show(Text(f"note: {note}"))


COMMANDS = (export_cmd, import_cmd)
