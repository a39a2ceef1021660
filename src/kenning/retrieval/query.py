"""What a search is asked, checked once at the edge: the query text, how many hits, which kinds and
the relevance floor. Memory recall, notes and skill search take the same arguments and refuse bad
ones with the same messages."""

from __future__ import annotations

from ..errors import InvalidInput
from ..models import KINDS
from ..text import check_unicode

MAX_QUERY_CHARS = 10_000


def check_query(query: object) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("the query is empty; say what to look for")
    if "\x00" in query:
        raise InvalidInput("the query contains a NUL byte; remove it")
    check_unicode(query, "the query")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(f"the query is {len(query):,} characters; keep it under {MAX_QUERY_CHARS:,}")
    return query.strip()


def check_k(k: object, most: int) -> int:
    """How many hits to return: a whole number from 1 to ``most``."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= most:
        raise InvalidInput(f"k must be a whole number from 1 to {most}, got {k!r}")
    return k


def check_kinds(kinds: object) -> tuple[str, ...] | None:
    if kinds is None:
        return None
    if isinstance(kinds, str):
        kinds = [kinds]
    if not isinstance(kinds, list | tuple | set | frozenset):
        raise InvalidInput(f"kinds must be a list of {', '.join(KINDS)}")
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise InvalidInput(f"unknown kind {bad[0]!r}; use one of {', '.join(KINDS)}")
    return tuple(dict.fromkeys(kinds)) or None


def check_min_relevance(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InvalidInput(f"min_relevance must be a number from 0 to 1 (0 keeps every hit), got {value!r}")
    return float(value)
