"""``kenning note``: daily notes (add, search, show, promote) and the archive of old days (archive, restore)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click
from rich.table import Table
from rich.text import Text

from kenning.retrieval.relevance import DEFAULT_MIN_RELEVANCE
from kenning.tiers.notefile import check_day

from . import output
from .state import json_option, pass_kenning, scope_option

if TYPE_CHECKING:
    from kenning.api import Kenning
    from kenning.tiers.notes import Move, Note, NoteHit


@click.group()
def note() -> None:
    """Daily notes: what happened today, searchable by words and meaning; old days archived.

    \b
    Example:
      kenning note add "rolled back the 14:00 release: the health check failed"
      kenning note search "why did we roll back" --days-back 7
    """


@note.command()
@click.argument("text")
@click.option("--date", "day", metavar="YYYY-MM-DD", help="The day the note belongs to (default: today).")
@json_option
@scope_option
@pass_kenning
def add(kb: Kenning, scope: str, text: str, day: str | None, as_json: bool) -> None:
    """Append TEXT to the day's notes (daily/YYYY-MM-DD.md), stamped with the current time.

    \b
    Example:
      kenning note add "Alice prefers the weekly report on Monday"
      kenning note add "forgot to note: backup restored fine" --date 2026-11-28
    """
    notes = kb.notes_in(scope).write(text, day)
    if as_json:
        output.print_json([n.to_dict() for n in notes])
        return
    output.show(_notes_table(notes, f"Added to {notes[0].path}" if notes else "Added"))


@note.command()
@click.argument("query")
@click.option("--days-back", default=30, show_default=True, help="Only notes of the last this many days.")
@click.option("--archive", "include_archive", is_flag=True, help="Also search archived days.")
@click.option("--no-history", is_flag=True, help="Leave out HISTORY.md.")
@click.option("-k", "k", default=10, show_default=True, help="How many results.")
@click.option("--min-relevance", type=click.FloatRange(0, 1),
              help=f"Leave out notes less likely relevant than this, 0-1 (default {DEFAULT_MIN_RELEVANCE}; "
                   "0 keeps all).")
@json_option
@scope_option
@pass_kenning
def search(
    kb: Kenning, scope: str, query: str, days_back: int, include_archive: bool, no_history: bool, k: int,
    min_relevance: float | None, as_json: bool,
) -> None:
    """Find note paragraphs matching QUERY by words and meaning (English and Chinese, across them).

    Each hit says how likely it is relevant (0-1, on recall's scale); when no note is relevant
    enough the answer is empty and says how the best one scored.

    \b
    Example:
      kenning note search "what went wrong with the deploy" --days-back 90 --archive -k 5
      kenning note search "部署为什么回滚" --min-relevance 0 --json
    """
    hits = kb.notes_in(scope).search(query, days_back=days_back, k=k, include_archive=include_archive,
                                     include_history=not no_history,
                                     min_relevance=DEFAULT_MIN_RELEVANCE if min_relevance is None else min_relevance)
    if as_json:
        output.print_json([hit.to_dict() for hit in hits])
        return
    if not hits:
        reason = hits.empty_reason()
        output.show(Text(f"No note of the last {days_back} days matches." if reason == "nothing matches"
                         else f"No note of the last {days_back} days: {reason}."))
        return
    output.show(_hits_table(hits))


@note.command()
@click.argument("day", metavar="DATE")
@json_option
@scope_option
@pass_kenning
def show(kb: Kenning, scope: str, day: str, as_json: bool) -> None:
    """Print one day's notes (archived days too).

    \b
    Example:
      kenning note show 2026-11-29
    """
    text = kb.notes_in(scope).read(day)
    if as_json:
        output.print_json({"date": check_day(day).isoformat(), "text": text})
        return
    click.echo(text.rstrip("\n"))


@note.command(name="archive")
@click.option("--older-than", "older_than", default=90, show_default=True, metavar="DAYS",
              help="Archive days more than this many days old.")
@click.option("--dry-run", is_flag=True, help="Only show what would be archived.")
@json_option
@scope_option
@pass_kenning
def archive_days(kb: Kenning, scope: str, older_than: int, dry_run: bool, as_json: bool) -> None:
    """Move old daily notes into archive/daily/YYYY-MM-DD.md.gz.

    Archived days stay readable (`note show`) and searchable (`note search --archive`).

    \b
    Example:
      kenning note archive --older-than 90 --dry-run
    """
    moves = kb.notes_in(scope).archive(older_than, dry_run=dry_run)
    if as_json:
        output.print_json([m.to_dict() for m in moves])
        return
    verb = "Would archive" if dry_run else "Archived"
    title = f"{verb} {len(moves)} day{'' if len(moves) == 1 else 's'}"
    output.show(_moves_table(moves, title) if moves else Text(title + "."))


@note.command()
@click.argument("day", metavar="DATE")
@json_option
@scope_option
@pass_kenning
def restore(kb: Kenning, scope: str, day: str, as_json: bool) -> None:
    """Move an archived day back to daily/ (merged with that day's notes if there are new ones).

    \b
    Example:
      kenning note restore 2026-08-01
    """
    move = kb.notes_in(scope).restore(day)
    if as_json:
        output.print_json(move.to_dict())
        return
    output.show(_moves_table([move], "Restored"))


@note.command()
@click.argument("text_or_id")
@click.option("--section", type=click.Choice(("user", "project", "pitfalls", "other"), case_sensitive=False),
              default="other", show_default=True, help="The hot-memory section to put it in.")
@json_option
@scope_option
@pass_kenning
def promote(kb: Kenning, scope: str, text_or_id: str, section: str, as_json: bool) -> None:
    """Put a note (by its id from `note search`) or a text into hot memory (MEMORY.md / USER.md).

    \b
    Example:
      kenning note promote daily/2026-11-29.md#2 --section pitfalls
    """
    result = kb.notes_in(scope).promote(text_or_id, section)
    if as_json:
        output.print_json(result)
        return
    output.show(Text(result["message"][:1].upper() + result["message"][1:] + f": {result['entry']}"))


def _notes_table(notes: Sequence[Note], title: str) -> Table:
    rows = [(n.id, n.time.strftime("%H:%M") if n.time else "", output.truncate(n.text)) for n in notes]
    return output.table(title, ("id", "time", "text"), rows)


def _hits_table(hits: Sequence[NoteHit]) -> Table:
    rows = [(rank, f"{h.relevance:.2f}", f"{h.score:.3f}", h.date.isoformat() if h.date else "", h.id,
             output.truncate(h.text), h.why) for rank, h in enumerate(hits, 1)]
    return output.table(None, ("#", "relevance", "score", "date", "id", "text", "why"), rows)


def _moves_table(moves: Sequence[Move], title: str) -> Table:
    rows = [(m.date.isoformat(), m.source, m.target, m.size, "yes" if m.merged else "") for m in moves]
    return output.table(title, ("date", "from", "to", "bytes", "merged"), rows)


COMMANDS = (note,)
