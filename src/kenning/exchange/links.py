"""The ids and supersede links of a kenning export, checked across the whole file (and against the
store) before anything is written.

Ids are unique across scopes, so a file could otherwise graft its items onto another scope's
history: a fact imported into ``user:mallory`` that "supersedes" a fact of ``user:alice`` shows
Alice's fact in its history, and ``kenning purge`` of it deletes hers. So:

    an id                 comes once in the file; if the store holds it, in the same scope; if a
                          stored item links to it (a version its store deleted), from the same scope
    supersedes,           another fact of the same file and scope, or an id the store does not hold
    superseded_by         (a version the exporting store deleted: the link is kept, as it was there)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput
from ..store import ItemQuery, Store

LINKS = ("supersedes", "superseded_by")


@dataclass(frozen=True)
class Place:
    line: int
    scope: str
    kind: str


class Ids:
    """Every id of a file with where it is; the links, checked once every id is known."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.places: dict[str, Place] = {}
        self.links: list[tuple[int, str, str, str]] = []  # (line, item id, link, target)
        self._named: dict[str, set[str]] | None = None  # an id stored facts link to -> their scopes

    def add(self, line: int, row: dict[str, Any]) -> None:
        """Note ``row`` (from line ``line``); InvalidInput when its id came before."""
        earlier = self.places.get(row["id"])
        if earlier is not None:
            raise InvalidInput(f"id {row['id']} is also on line {earlier.line}; an export holds each item once. "
                               "Remove one of the two")
        self.places[row["id"]] = Place(line, row["scope"], row["kind"])
        self.links += [(line, row["id"], link, row[link]) for link in LINKS if row.get(link)]

    def check_links(self, name: str) -> None:
        """InvalidInput naming the first line with a link that leaves the file or the item's scope."""
        for line, item_id, link, target in self.links:
            why = self.link_error(item_id, link, target)
            if why:
                raise InvalidInput(f"{name} line {line}: {why}; nothing was imported. A link may only name a "
                                   f"fact of the same file and scope: remove \"{link}\" or fix it")

    def link_error(self, item_id: str, link: str, target: str) -> str | None:
        here, there = self.places[item_id], self.places.get(target)
        if target == item_id:
            return f"{link} {target} names the fact itself"
        if there is None:
            stored = self.store.get(target)
            if stored is not None:
                return f"{link} {target} names no item of this file but one of this store's (scope {stored['scope']!r})"
            return None  # a version the exporting store deleted: nothing here to reach
        if there.scope != here.scope:
            return f"{link} {target} names an item of scope {there.scope!r} (line {there.line}), not of {here.scope!r}"
        if there.kind != "fact":
            return f"{link} {target} names a {there.kind} (line {there.line}); facts supersede facts only"
        return None

    def same(self, line: int, row: dict[str, Any]) -> bool:
        """Whether ``row``, read again by the second pass, is where the first saw it, with links that
        still pass (the file could change between the passes)."""
        return self.places.get(row["id"]) == Place(line, row["scope"], row["kind"]) and not any(
            row.get(link) and self.link_error(row["id"], link, row[link]) for link in LINKS)

    def check_store(self, row: dict[str, Any]) -> None:
        """InvalidInput when ``row``'s id belongs to another scope of the store: stored there, or
        named by a link of an item there (importing it would join that item's history)."""
        stored = self.store.get(row["id"])
        if stored is not None and stored["scope"] != row["scope"]:
            raise InvalidInput(f"id {row['id']} is stored already in scope {stored['scope']!r}, and this item is of "
                               f"scope {row['scope']!r}; ids are unique across scopes, and kenning's own export never "
                               "gives an item an id of another scope's. Remove the line")
        others = sorted(self._linked_from().get(row["id"], set()) - {row["scope"]}) if stored is None else []
        if others:
            raise InvalidInput(f"id {row['id']} is named by a supersede link of an item of scope {others[0]!r} in "
                               f"this store, and this item is of scope {row['scope']!r}; it would join that item's "
                               "history. Remove the line")

    def _linked_from(self) -> dict[str, set[str]]:
        """Every id a stored fact links to, with the linking facts' scopes (read once per import)."""
        if self._named is None:
            self._named = {}
            for link, query in (
                    ("supersedes", ItemQuery(kinds=("fact",), supersedes=True, columns=("scope", "supersedes"))),
                    ("superseded_by", ItemQuery(kinds=("fact",), superseded=True, columns=("scope", "superseded_by")))):
                for row in self.store.select(query):
                    self._named.setdefault(str(row[link]), set()).add(str(row["scope"]))
        return self._named
