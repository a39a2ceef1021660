"""``kenning list``: every stored item without a query, a page at a time (``Kenning.items``)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import click

from kenning.models import CATEGORIES, KINDS, Fact

from . import output
from .state import WHEN_AGO, json_option, pass_kenning

if TYPE_CHECKING:
    from rich.table import Table

    from kenning.api import Kenning
    from kenning.listing import ItemPage

_SORTS = ("recent", "importance", "accessed")  # kenning.listing.SORTS, without importing the store here


@click.command(name="list")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(KINDS), help="Only this kind; repeatable.")
@click.option("--scope", help="Only this scope (default: every scope).")
@click.option("--category", type=click.Choice(CATEGORIES), help="Only facts of this category.")
@click.option("--tag", "tags", multiple=True, help="Only items carrying this tag; repeat: all of them.")
@click.option("--pinned/--unpinned", default=None, help="Only pinned, or only unpinned, items.")
@click.option("--expired", is_flag=True, help="Only facts whose expiry has passed.")
@click.option("--superseded", is_flag=True, help="Only old versions of changed facts.")
@click.option("--all", "everything", is_flag=True, help="Expired and superseded facts too.")
@click.option("--since", type=WHEN_AGO, help="Created at or after: a date, or a duration ago (7d).")
@click.option("--sort", type=click.Choice(_SORTS), default="recent", show_default=True,
              help="recent: newest first; importance: highest first; accessed: last recalled first.")
@click.option("--limit", default=50, show_default=True, help="How many per page (at most 1000).")
@click.option("--offset", default=0, show_default=True, help="Skip this many first (the next page's offset).")
@json_option
@pass_kenning
def list_items(
    kb: Kenning, kinds: tuple[str, ...], scope: str | None, category: str | None, tags: tuple[str, ...],
    pinned: bool | None, expired: bool, superseded: bool, everything: bool, since: datetime | None, sort: str,
    limit: int, offset: int, as_json: bool,
) -> None:
    """List stored facts, lessons and entities, without a query.

    Shows live, current items of every scope unless told otherwise, a page at a time; the last
    line says where the next page starts. Listing does not count as recalling.

    \b
    Example:
      kenning list --kind fact --tag nginx --sort importance
      kenning list --scope user:alice --limit 20 --offset 20 --json
    """
    page = kb.items(kinds=kinds or None, scope=scope, category=category, tags=tags, pinned=pinned,
                    expired=True if expired else None if everything else False,
                    superseded=True if superseded else None if everything else False,
                    since=since, sort=sort, limit=limit, offset=offset)
    if as_json:
        output.print_json(page.to_dict())
        return
    if not page.items:
        output.show(f"Nothing to list ({page.total} match{'' if page.total == 1 else 'es'}, offset {page.offset}).")
        return
    output.show(_page_table(page, one_scope=scope is not None, sort=sort, mixed=expired or superseded or everything),
                _footer(page))


def _page_table(page: ItemPage, *, one_scope: bool, sort: str, mixed: bool) -> Table:
    """The page as a table whose content keeps room on an 80-column terminal (ten columns left it none):
    the scope only when several are listed, the day created under the id, the status under the kind
    when expired or superseded items are listed too, importance or recall counts when sorted by them."""
    from rich import box
    from rich.table import Table

    out = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    optional = {"scope": not one_scope, "importance": sort == "importance", "recalled": sort == "accessed"}
    for name in ("id", "kind", "scope", "content", "tags", "importance", "recalled"):
        if optional.get(name, True):
            wide = name in ("content", "tags")
            out.add_column(name, no_wrap=not wide, overflow="fold", ratio={"content": 3, "tags": 1}.get(name),
                           min_width=16 if name == "content" else None)
    for item in page.items:
        fact = item if isinstance(item, Fact) else None
        created = item.created_at.strftime("%Y-%m-%d") if item.created_at else ""
        kind = f"{item.kind}/{fact.category}" if fact else item.kind
        status = f"\n{output.fact_status(fact)}" if fact and mixed else ""
        values = {"id": f"{item.id}\n{created}", "kind": kind + status, "scope": item.scope,
                  "content": output.truncate(item.content, 200), "tags": ", ".join(getattr(item, "tags", ())),
                  "importance": f"{fact.importance:.2f}" if fact else "", "recalled": str(item.access_count)}
        out.add_row(*(output.cell(values[c.header]) for c in out.columns))  # type: ignore[index]
    return out


def _footer(page: ItemPage) -> str:
    shown = f"{page.offset + 1}-{page.offset + len(page.items)} of {page.total}"
    return f"Items {shown}; next page: --offset {page.next_offset}" if page.next_offset is not None else f"Items {shown}."


COMMANDS = (list_items,)
