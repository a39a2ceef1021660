"""Fact commands: remember, recall, show, supersede, history, forget, pin, unpin, delete, expire."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import TYPE_CHECKING

import click

from kenning.models import CATEGORIES, KINDS
from kenning.retrieval.relevance import DEFAULT_MIN_RELEVANCE

from . import output
from .state import WHEN, WHEN_AGO, id_scope_option, json_option, pass_kenning, scope_option

if TYPE_CHECKING:
    from rich.table import Table

    from kenning.api import Kenning
    from kenning.retrieval import Hits, RecallHit


@click.command()
@click.argument("text")
@click.option("--tag", "tags", multiple=True, help="A tag; repeat for several.")
@scope_option
@click.option("--category", type=click.Choice(CATEGORIES), help="What kind of fact (default: general).")
@click.option("--confidence", type=float, help="How sure, 0-1 (default 1).")
@click.option("--importance", type=float, help="0-1; 0.7 or more protects it from `forget` (default: inferred).")
@click.option("--expires", type=WHEN, help="When it stops being true: a date or a duration from now (30d).")
@click.option("--source", default="cli", show_default=True, help="Where the fact came from.")
@click.option("--pin", is_flag=True, help="Never forget it automatically.")
@json_option
@pass_kenning
def remember(
    kb: Kenning, text: str, tags: tuple[str, ...], scope: str, category: str | None, confidence: float | None,
    importance: float | None, expires: datetime | None, source: str, pin: bool, as_json: bool,
) -> None:
    """Store a fact.

    The same text again in the same scope reinforces the fact instead of adding a copy.

    \b
    Example:
      kenning remember "nginx proxy_read_timeout defaults to 60s" --tag nginx --category pitfall
    """
    fact = kb.remember(text, tags=tags, scope=scope, category=category, confidence=confidence,
                       importance=importance, expires_at=expires, source=source, pinned=pin)
    if as_json:
        output.print_json(fact.to_dict())
        return
    output.show(output.item_table(fact, "Remembered"))


@click.command()
@click.argument("query")
@click.option("-k", "k", default=10, show_default=True, help="How many results.")
@scope_option
@click.option("--kind", "kinds", multiple=True, type=click.Choice(KINDS), help="Only this kind; repeatable.")
@click.option("--tag", "tags", multiple=True, help="Only items carrying this tag; repeatable.")
@click.option("--min-confidence", type=float, help="Only items at least this sure (0-1).")
@click.option("--since", type=WHEN_AGO, help="Created at or after: a date, or a duration ago (7d).")
@click.option("--until", type=WHEN_AGO, help="Created at or before: a date, or a duration ago (1d).")
@click.option("--include-superseded", is_flag=True, help="Also old versions of changed facts.")
@click.option("--include-expired", is_flag=True, help="Also facts whose expiry has passed.")
@click.option("--min-relevance", type=click.FloatRange(0, 1),
              help=f"Leave out hits less likely relevant than this, 0-1 (default {DEFAULT_MIN_RELEVANCE}; 0 keeps all).")
@json_option
@pass_kenning
def recall(
    kb: Kenning, query: str, k: int, scope: str, kinds: tuple[str, ...], tags: tuple[str, ...],
    min_confidence: float | None, since: datetime | None, until: datetime | None,
    include_superseded: bool, include_expired: bool, min_relevance: float | None, as_json: bool,
) -> None:
    """Find items matching QUERY by words and meaning.

    Works across English and Chinese; each hit says why it matched and how likely it is relevant
    (0-1, comparable across queries). When nothing is relevant enough the answer is empty and says
    how the best candidate scored.

    \b
    Example:
      kenning recall "websocket drops after a minute" -k 5 --kind fact
      kenning recall "数据库备份" --min-relevance 0 --json
    """
    hits = kb.recall(query, k, scope=scope, kinds=kinds or None, tags=tags, min_confidence=min_confidence,
                     since=since, until=until, include_superseded=include_superseded,
                     include_expired=include_expired,
                     min_relevance=DEFAULT_MIN_RELEVANCE if min_relevance is None else min_relevance)
    if as_json:
        output.print_json([hit.to_dict() for hit in hits])
        return
    if not hits:
        reason = hits.empty_reason()
        output.show(f"Nothing in scope {scope!r} matches." if reason == "nothing matches"
                    else f"Nothing in scope {scope!r}: {reason}.")
        return
    output.show(_hits_table(hits))


def _hits_table(hits: Hits[RecallHit]) -> Table:
    rows = [(rank, f"{hit.relevance:.2f}", f"{hit.score:.3f}", hit.item.kind, hit.item.id,
             output.truncate(hit.item.content), hit.why) for rank, hit in enumerate(hits, 1)]
    return output.table(None, ("#", "relevance", "score", "kind", "id", "content", "why"), rows)


@click.command(name="show")
@click.argument("item_id", metavar="ID")
@id_scope_option
@json_option
@pass_kenning
def show_item(kb: Kenning, item_id: str, scope: str | None, as_json: bool) -> None:
    """Show every field of one fact, lesson or entity.

    \b
    Example:
      kenning show f_1a2b3c4d5e6f
    """
    item = kb.get(item_id, scope)
    if as_json:
        output.print_json(item.to_dict())
        return
    output.show(output.item_table(item))


@click.command()
@click.argument("item_id", metavar="ID")
@click.argument("new_text")
@click.option("--reason", default="", help="Why it changed (kept in the audit log).")
@id_scope_option
@json_option
@pass_kenning
def supersede(kb: Kenning, item_id: str, new_text: str, reason: str, scope: str | None, as_json: bool) -> None:
    """Replace fact ID by NEW_TEXT, keeping the history.

    The old version leaves recall; `kenning history` still shows it.

    \b
    Example:
      kenning supersede f_1a2b3c4d5e6f "The staging database moved to db-02" --reason migration
    """
    fact = kb.supersede(item_id, new_text, reason=reason, scope=scope)
    if as_json:
        output.print_json(fact.to_dict())
        return
    output.show(output.item_table(fact, f"Superseded {item_id} by"))


@click.command()
@click.argument("item_id", metavar="ID")
@id_scope_option
@json_option
@pass_kenning
def history(kb: Kenning, item_id: str, scope: str | None, as_json: bool) -> None:
    """Show every version of a fact, oldest first.

    \b
    Example:
      kenning history f_1a2b3c4d5e6f
    """
    chain = kb.history(item_id, scope)
    if as_json:
        output.print_json([fact.to_dict() for fact in chain])
        return
    output.show(output.facts_table(chain, "History (oldest first)", output.HISTORY_COLUMNS))


@click.command()
@click.option("--days", default=90.0, show_default=True, help="Idle for more than this many days.")
@click.option("--max-access", default=1, show_default=True, help="Recalled at most this many times.")
@click.option("--scope", help="Only this scope (default: every scope).")
@click.option("--dry-run", is_flag=True, help="Only show what would be forgotten.")
@json_option
@pass_kenning
def forget(kb: Kenning, days: float, max_access: int, scope: str | None, dry_run: bool, as_json: bool) -> None:
    """Remove stale and expired facts.

    Stale: idle for more than --days and recalled at most --max-access times. Pinned facts,
    important ones (importance 0.7 or more), supersede history, lessons and entities are kept.

    \b
    Example:
      kenning forget --days 90 --max-access 1 --dry-run
    """
    gone = kb.forget_stale(days, max_access, scope=scope, dry_run=dry_run)
    if as_json:
        output.print_json([fact.to_dict() for fact in gone])
        return
    verb = "Would forget" if dry_run else "Forgot"
    title = f"{verb} {len(gone)} fact{'' if len(gone) == 1 else 's'}"
    output.show(output.facts_table(gone, title) if gone else title + ".")


@click.command()
@click.argument("item_id", metavar="ID")
@click.option("--reason", default="", help="Why (kept in the audit log).")
@id_scope_option
@json_option
@pass_kenning
def pin(kb: Kenning, item_id: str, reason: str, scope: str | None, as_json: bool) -> None:
    """Pin a fact so that `forget` never removes it.

    \b
    Example:
      kenning pin f_1a2b3c4d5e6f --reason "asked to keep"
    """
    fact = kb.pin(item_id, reason, scope=scope)
    if as_json:
        output.print_json(fact.to_dict())
        return
    output.show(output.facts_table([fact], "Pinned"))


@click.command()
@click.argument("item_id", metavar="ID")
@click.option("--reason", default="", help="Why (kept in the audit log).")
@id_scope_option
@json_option
@pass_kenning
def unpin(kb: Kenning, item_id: str, reason: str, scope: str | None, as_json: bool) -> None:
    """Unpin a fact; `forget` may remove it again.

    Only once it is stale: idle, rarely recalled and not important.

    \b
    Example:
      kenning unpin f_1a2b3c4d5e6f
    """
    fact = kb.unpin(item_id, reason, scope=scope)
    if as_json:
        output.print_json(fact.to_dict())
        return
    output.show(output.facts_table([fact], "Unpinned"))


@click.command()
@click.argument("item_id", metavar="ID")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@click.option("--reason", default="", help="Why (kept in the audit log).")
@id_scope_option
@json_option
@pass_kenning
def delete(kb: Kenning, item_id: str, yes: bool, reason: str, scope: str | None, as_json: bool) -> None:
    """Delete an item for good.

    Its last state stays in the audit log. Asks first unless --yes is given.

    \b
    Example:
      kenning delete f_1a2b3c4d5e6f --yes
    """
    if not yes:
        item = kb.get(item_id, scope)
        if not sys.stdin.isatty():
            raise click.UsageError(f"refusing to delete {item.kind} {item.id} without confirmation; pass --yes")
        click.confirm(f"Delete {item.kind} {item.id} ({output.truncate(item.content, 60)!r})?", abort=True)
    item = kb.delete(item_id, reason, scope=scope)
    if as_json:
        output.print_json(item.to_dict())
        return
    output.show(f"Deleted {item.kind} {item.id}.")


@click.command()
@click.argument("item_id", metavar="ID")
@click.option("--at", "at", type=WHEN, help="When it leaves recall: a date or a duration from now (default: now).")
@click.option("--reason", default="", help="Why (kept in the audit log).")
@id_scope_option
@json_option
@pass_kenning
def expire(kb: Kenning, item_id: str, at: datetime | None, reason: str, scope: str | None, as_json: bool) -> None:
    """Set when a fact stops being true (default: now).

    An expired fact leaves recall and goes at the next `kenning forget`.

    \b
    Example:
      kenning expire f_1a2b3c4d5e6f --at 2026-12-31
    """
    fact = kb.expire(item_id, at, reason, scope=scope)
    if as_json:
        output.print_json(fact.to_dict())
        return
    output.show(output.item_table(fact, "Expiry set"))


COMMANDS = (remember, recall, show_item, supersede, history, forget, pin, unpin, delete, expire)
