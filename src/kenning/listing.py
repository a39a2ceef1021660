"""Every item without a query: ``kb.items(...)``, one page at a time.

A listing is one ``ItemQuery`` with a LIMIT and an OFFSET and one COUNT over the same filters, so
a store of any size is read a page at a time, never whole. Filters combine with AND; by default a
listing shows what recall would consider (live, current items of every scope). Ties in every sort
fall to the rowid, so pages follow one another without gaps or repeats while nothing is written.
Listing is not an access: it leaves ``access_count`` and ``last_accessed`` alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .checks import check_scope, check_tags
from .errors import InvalidInput
from .models import CATEGORIES, Item
from .records import item_from_row
from .retrieval import check_kinds
from .store import ItemQuery, Store
from .store.query import Order
from .timeutil import parse_when, to_epoch, utcnow

MAX_LIMIT = 1000  # a page; more is a loop over pages
# the sorts a listing offers, and the store order each one is
SORTS: dict[str, Order] = {"recent": "newest", "importance": "importance", "accessed": "accessed"}
SORT_HELP = {
    "recent": "created, newest first",
    "importance": "importance, highest first",
    "accessed": "last accessed, most recent first; never accessed last",
}


@dataclass(frozen=True)
class ItemPage:
    """One page of a listing: ``items`` from ``offset`` on, ``total`` matching in all."""

    items: tuple[Item, ...]
    total: int
    offset: int
    limit: int

    @property
    def next_offset(self) -> int | None:
        """The ``offset`` of the next page; None when this one is the last."""
        end = self.offset + len(self.items)
        return end if self.items and end < self.total else None

    def to_dict(self) -> dict[str, Any]:
        return {"items": [i.to_dict() for i in self.items], "total": self.total, "offset": self.offset,
                "limit": self.limit, "next_offset": self.next_offset}


def list_items(
    store: Store,
    *,
    kinds: Sequence[str] | str | None = None,
    scope: str | None = None,
    category: str | None = None,
    tags: Sequence[str] | str = (),
    pinned: bool | None = None,
    expired: bool | None = False,
    superseded: bool | None = False,
    since: Any = None,
    sort: str = "recent",
    limit: int = 50,
    offset: int = 0,
) -> ItemPage:
    """The page of items that match (see ``Kenning.items``)."""
    query = item_query(kinds=kinds, scope=scope, category=category, tags=tags, pinned=pinned, expired=expired,
                       superseded=superseded, since=since, sort=sort, limit=limit, offset=offset)
    rows = store.select(query)
    total = store.count(query)
    return ItemPage(items=tuple(item_from_row(r) for r in rows), total=total, offset=offset, limit=limit)


def item_query(
    *,
    kinds: Sequence[str] | str | None,
    scope: str | None,
    category: str | None,
    tags: Sequence[str] | str,
    pinned: bool | None,
    expired: bool | None,
    superseded: bool | None,
    since: Any,
    sort: str,
    limit: int,
    offset: int,
) -> ItemQuery:
    """The store query of a listing, every argument checked."""
    if category is not None and category not in CATEGORIES:
        raise InvalidInput(f"category {category!r} is not one of {', '.join(CATEGORIES)}")
    if sort not in SORTS:
        raise InvalidInput(f"sort {sort!r} is not one of {', '.join(SORTS)}")
    for name, flag in (("pinned", pinned), ("expired", expired), ("superseded", superseded)):
        if flag is not None and not isinstance(flag, bool):
            raise InvalidInput(f"{name} must be True, False or None (either), got {flag!r}")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be a whole number from 1 to {MAX_LIMIT}, got {limit!r}; page with offset")
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidInput(f"offset must be a whole number >= 0, got {offset!r}")
    created = parse_when(since, "since", past=True)
    now = to_epoch(utcnow())
    return ItemQuery(
        kinds=check_kinds(kinds),
        scopes=None if scope is None else (check_scope(scope),),
        categories=None if category is None else (category,),
        tags=tuple(check_tags(tags)),
        pinned=pinned,
        live_at=now if expired is False else None,
        expired_at=now if expired is True else None,
        superseded=superseded,
        created_since=None if created is None else to_epoch(created),
        order=SORTS[sort],
        limit=limit,
        offset=offset,
    )


__all__ = ["ItemPage", "MAX_LIMIT", "SORTS", "list_items"]
