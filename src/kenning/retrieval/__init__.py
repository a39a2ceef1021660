"""Retrieval: finding what answers a query among memories, notes and skills, by words and meaning.

* ``query``: the arguments every search takes (query text, k, kinds, floor), checked at the edge;
* ``lexical``: full-text candidates, chosen by the score recall ranks by;
* ``fusion``: how much of the query's information a document's words carry, and how that combines
  with meaning;
* ``mixed``: the per-query null of each language, which puts cosines of two languages on one scale;
* ``relevance``: how likely one hit is relevant, on one scale for every query and store;
* ``ranker``: the one scoring of a query's candidates (meaning, words, cross-language credit, fusion,
  relevance, why), which memory recall, notes and skills hand their candidates to;
* ``hits``: the one answer type of every search: its hits, the floor, what the floor left out;
* ``memories``: memory recall (facts, lessons, entities) from the store.

The names below are imported on first use: memory recall pulls in numpy and the store, and what
only reads the relevance floor (the MCP front, ``kenning --help``) should not wait for them.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .hits import Hits
    from .memories import LEXICAL_WEIGHT, Filters, RecallHit, recall
    from .query import check_k, check_kinds, check_min_relevance, check_query
    from .ranker import cross_language_share

# each public name, and the module of the package that holds it
_HOME = {
    "LEXICAL_WEIGHT": "memories",
    "Filters": "memories",
    "Hits": "hits",
    "RecallHit": "memories",
    "check_k": "query",
    "check_kinds": "query",
    "check_min_relevance": "query",
    "check_query": "query",
    "cross_language_share": "ranker",
    "recall": "memories",
}

__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{_HOME[name]}", __name__), name)
    globals()[name] = value  # found once: the next look-up does not come here
    return value
