"""Which items ``Store.select`` reads: a typed query, so that no caller writes SQL and every backend
builds its own from the same fields.

A field left at its default matches every row; the fields set combine with AND. A tuple of values
("one of these") matches a row whose column holds one of them, so an empty tuple matches no row
(an empty list of rowids reads nothing). Times are seconds since the epoch. Each row comes back
as a dict of the columns asked for, with its ``rowid``, in one of the fixed ``ORDERS``; ``offset``
skips that many of them first (a page), and ``Store.count`` says how many match in all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Literal, get_args

from ..errors import InvalidInput

# every column of the items table, in the order rows are written
ITEM_COLUMNS = (
    "id kind scope content content_key tags source confidence category importance created_at updated_at "
    "last_accessed access_count expires_at superseded_by supersedes pinned reinforced action context "
    "context_key outcome insight applied_count name entity_kind aliases attributes notes"
).split()
# the columns ``holding`` looks in: every one a person's words can reach
TEXT_COLUMNS = ("content", "source", "tags", "action", "context", "insight", "name", "aliases", "attributes", "notes")

Order = Literal["rowid", "id", "name", "created_at", "newest", "lessons", "most_used", "importance", "accessed"]
# what each order means; strings compare by code point, and ties fall to the rowid unless said
ORDERS: dict[str, str] = {
    "rowid": "rowid, ascending (the order items were inserted in)",
    "id": "id",
    "name": "name (entities)",
    "created_at": "created_at, oldest first",
    "newest": "created_at, newest first; of the same time the later rowid first",
    "lessons": "negative outcome, then neutral, then the rest; then applied_count and updated_at, highest first",
    "most_used": "access_count + reinforced, highest first; then id",
    "importance": "importance, highest first; of the same importance the later rowid first",
    "accessed": "last_accessed, most recent first, never accessed last; then the later rowid first",
}
assert set(ORDERS) == set(get_args(Order))

_MEMBERS = ("rowids", "ids", "scopes", "kinds", "categories", "holding", "sources")  # "one of these", None for any
_TEXTS = ("tags",)  # "every one of these"
_NUMBERS = ("live_at", "expired_at", "min_confidence", "created_since", "created_until", "idle_before",
            "importance_below")
_COUNTS = ("max_access", "min_uses", "limit", "offset")
_FLAGS = ("superseded", "supersedes", "pinned")
_STRINGS = ("outcome", "entity_kind", "context_holds")
# the fields (and order) that read the access counts, which a store may hold back (``store.access``)
ACCESS_FIELDS = ("idle_before", "max_access", "min_uses")


@dataclass(frozen=True)
class ItemQuery:
    rowids: tuple[int, ...] | None = None  # rowid is one of these
    ids: tuple[str, ...] | None = None  # id is one of these
    scopes: tuple[str, ...] | None = None  # scope is one of these
    kinds: tuple[str, ...] | None = None  # kind is one of these ("fact", "lesson", "entity")
    categories: tuple[str, ...] | None = None  # category is one of these (models.CATEGORIES)
    superseded: bool | None = None  # True: superseded_by is set; False: current items only
    supersedes: bool | None = None  # True: the item corrects another (supersedes is set); False: it corrects none
    pinned: bool | None = None  # pinned is this
    live_at: float | None = None  # not expired at this time: no expires_at, or expires_at after it
    expired_at: float | None = None  # expired by this time: expires_at at or before it
    tags: tuple[str, ...] = ()  # tags holds every one of these
    outcome: str | None = None  # a lesson's outcome is this
    entity_kind: str | None = None  # an entity's kind is this
    context_holds: str | None = None  # context_key contains this text (give it normalised, as context_key is)
    holding: tuple[str, ...] | None = None  # a TEXT_COLUMNS value contains one of these, ignoring ASCII case
    sources: tuple[str, ...] | None = None  # source is one of these; an entry ending in "*" is a prefix
    min_confidence: float | None = None  # confidence at least this
    created_since: float | None = None  # created_at at or after this
    created_until: float | None = None  # created_at at or before this
    idle_before: float | None = None  # last accessed (never accessed: created) before this time
    max_access: int | None = None  # access_count at most this
    importance_below: float | None = None  # importance under this
    min_uses: int | None = None  # access_count + reinforced at least this
    order: Order = "rowid"  # one of ORDERS
    limit: int | None = None  # at most this many rows
    offset: int | None = None  # skip this many rows first (in ``order``)
    columns: tuple[str, ...] | None = None  # these ITEM_COLUMNS (rowid always comes too); None: all

    def __post_init__(self) -> None:
        for name in _TEXTS:
            if getattr(self, name) is None:
                object.__setattr__(self, name, ())
        for name in (*_MEMBERS, *_TEXTS, "columns"):
            if (value := getattr(self, name)) is not None:  # any sequence (a list, a numpy array) becomes a tuple
                object.__setattr__(self, name, _rowids(value) if name == "rowids" else _texts(name, value))
        for f in fields(self):
            _check(f.name, getattr(self, f.name))
        if self.columns is not None and (unknown := [c for c in self.columns if c not in ITEM_COLUMNS]):
            raise InvalidInput(f"ItemQuery columns {unknown} are not columns of the items table; "
                               f"pick from {', '.join(ITEM_COLUMNS)} (rowid always comes with each row)")

    @property
    def reads_access_counts(self) -> bool:
        """Whether it filters or sorts by the access counts (a store must hold them all to answer)."""
        return self.order in ("most_used", "accessed") or any(getattr(self, f) is not None for f in ACCESS_FIELDS)

    def source_patterns(self) -> tuple[list[str], list[str]]:
        """``sources`` split into the exact values and the prefixes (the entries ending in "*", without it)."""
        values = self.sources or ()
        return [s for s in values if not s.endswith("*")], [s[:-1] for s in values if s.endswith("*")]


def _check(name: str, value: Any) -> None:
    if name in _NUMBERS and value is not None:
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            raise InvalidInput(f"ItemQuery {name} must be a number (seconds or a score), got {value!r}")
    elif name in _COUNTS and value is not None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidInput(f"ItemQuery {name} must be a whole number >= 0, got {value!r}")
    elif name in _FLAGS and value is not None and not isinstance(value, bool):
        raise InvalidInput(f"ItemQuery {name} must be True, False or None, got {value!r}")
    elif name in _STRINGS and value is not None and not isinstance(value, str):
        raise InvalidInput(f"ItemQuery {name} must be a string or None, got {value!r}")
    elif name == "order" and value not in ORDERS:
        raise InvalidInput(f"ItemQuery order {value!r} is not one of {', '.join(ORDERS)}")


def _rowids(value: Any) -> tuple[int, ...]:
    try:
        items = list(value)
    except TypeError:
        raise InvalidInput(f"ItemQuery rowids must be a sequence of whole numbers, got {value!r}") from None
    out = []
    for v in items:
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise InvalidInput(f"ItemQuery rowids must be whole numbers, got {v!r}")
        out.append(int(v.__index__()))  # a numpy integer becomes a plain int
    return tuple(out)


def _texts(name: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        raise InvalidInput(f"ItemQuery {name} must be a sequence of strings, not one string: {value!r}; "
                           f"write ({value!r},)")
    try:
        items = tuple(value)
    except TypeError:
        raise InvalidInput(f"ItemQuery {name} must be a sequence of strings, got {value!r}") from None
    if bad := [v for v in items if not isinstance(v, str)]:
        raise InvalidInput(f"ItemQuery {name} must hold strings only, got {bad[0]!r}")
    return items


__all__ = ["ITEM_COLUMNS", "ORDERS", "TEXT_COLUMNS", "ItemQuery", "Order"]
