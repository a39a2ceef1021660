"""What a store promises: every method the rest of kenning calls on one, and nothing else.

Rows go in and out as plain Python values (dicts keyed by column name, numbers, strings, bytes,
numpy arrays); no backend's own types appear here. Every write joins the transaction open on the
store, if any: ``with store.transaction():`` around several calls makes them land together or not
at all, and a store method called inside it sees what the calls before it wrote. Every string a
store writes passes its ``redactor`` first (the gate's masking once more, at the edge).

``tests/test_store_contract.py`` checks these promises against every backend.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

from .audit_where import AuditFilter
from .query import ItemQuery

if TYPE_CHECKING:
    import numpy as np

    from ..gate.edge import EdgeRedactor
    from .vectors import VectorIndex


class SkillVersionRow(TypedDict):
    """One recorded state of a skill folder (``kenning.skills.versions``)."""

    number: int  # from 1, per location (root, rel_path)
    name: str
    source: str
    root: str
    rel_path: str
    action: str
    checksum: str
    version_field: str | None
    at: float  # seconds since the epoch
    actor: str
    reason: str
    deleted: bool


class SkillUsageCounts(TypedDict):
    """How often a skill (by name, or by name and location) was viewed and reported on."""

    name: str
    root: str | None  # None when counted by name, or for rows recorded without a location
    rel_path: str | None
    views: int
    helped: int
    failed: int
    not_relevant: int
    last_at: float | None


class SkillUsageEvent(TypedDict):
    at: float
    name: str
    event: str  # "view" | "use" | "feedback"
    outcome: str | None
    detail: str
    actor: str


class ConflictRow(TypedDict):
    """A pair of facts the write gate kept side by side (``kenning.gate.conflicts``)."""

    a: str  # the fact stored first
    b: str
    scope: str
    rule: str
    cosine: float | None
    found_at: float
    settled: str | None  # None, "a", "b" or "both"


class Store(Protocol):
    """The storage seam: one implementation per backend, chosen by ``kenning.store.open_store``."""

    # -- lifecycle and transactions -----------------------------------------------------------

    @property
    def redactor(self) -> EdgeRedactor:
        """What masks every string the store writes (callers that write files mask with it too)."""

    @property
    def schema_version(self) -> int:
        """The last migration applied (migrations run when the store opens)."""

    def transaction(self) -> AbstractContextManager[None]:
        """A write transaction; nested calls join the outer one, and an exception raised inside
        the outermost one undoes every write made in it."""

    def close(self) -> None:
        """Write what is pending (access counts) and release the database."""

    def meta(self) -> dict[str, str]:
        """The store's own settings (``embedder``, ``dim``, ``store_id``, ...)."""

    def set_embedder(self, name: str, dim: int) -> None:
        """Record the embedder the vectors are made with (after a reindex)."""

    # -- items (facts, lessons, entities) -----------------------------------------------------

    def insert_item(self, row: dict[str, Any], text: str, vec: np.ndarray) -> int:
        """Store an item with its vector and ``text`` for the full-text index; its rowid."""

    def update_item(self, rowid: int, changes: dict[str, Any]) -> None:
        """Change some columns of an item."""

    def replace_index(self, rowid: int, text: str, vec: np.ndarray) -> None:
        """New full-text row and vector for an item whose text changed."""

    def delete_item(self, rowid: int) -> None:
        """Remove an item with its full-text row, vector and entity names."""

    def get(self, item_id: str) -> dict[str, Any] | None:
        """The item with this id (with its ``rowid``), or None."""

    def get_rowid(self, rowid: int) -> dict[str, Any] | None:
        """The item with this rowid, or None."""

    def find_current(self, scope: str, kind: str, content_key: str) -> dict[str, Any] | None:
        """The unsuperseded item of ``scope`` and ``kind`` with this content key, or None."""

    def current_keys(self, scope: str, kind: str, content_keys: Sequence[str]) -> set[str]:
        """Which of ``content_keys`` an unsuperseded item of ``scope`` and ``kind`` holds (one read
        for a batch, where ``find_current`` is one per key)."""

    def select(self, query: ItemQuery) -> list[dict[str, Any]]:
        """The items ``query`` matches (``kenning.store.query``: its fields combine with AND), in its
        order, each a dict of the columns it names with the item's ``rowid``."""

    def count(self, query: ItemQuery) -> int:
        """How many items ``query`` matches, whatever its order, limit, offset and columns."""

    def touch(self, rowids: Iterable[int], now: float) -> None:
        """Count an access on each item (may be written behind; rows read show it at once)."""

    def flush_touches(self) -> None:
        """Write the pending access counts now."""

    def counts(self, scope: str | None) -> list[tuple[str, str, int, int, int]]:
        """(scope, kind, total, current, pinned) per scope and kind."""

    # -- entity names -------------------------------------------------------------------------

    def entity_rowid(self, scope: str, name_key: str) -> int | None:
        """The entity of ``scope`` that has this normalised name or alias."""

    def entity_names(self, scope: str) -> list[tuple[str, int]]:
        """Every (normalised name or alias, item rowid) of the entities of ``scope``."""

    def add_entity_names(self, scope: str, rowid: int, keys: Iterable[str]) -> None:
        """Name an entity by more keys (a key already taken in the scope is left as it is)."""

    def drop_entity_names(self, rowid: int) -> None:
        """Forget every name and alias of an entity (before naming it anew: an edit of its aliases)."""

    # -- lexical: the full-text index over segmented text --------------------------------------

    def postings(self, terms: Sequence[str]) -> list[np.ndarray]:
        """For each term, the rowids (int64) of the items of any scope whose text holds it."""

    def bodies(self, rowids: Sequence[int]) -> dict[int, str]:
        """The segmented full-text body of each given item."""

    def doc_freq(self, terms: Sequence[str]) -> dict[str, int]:
        """In how many items (of all scopes) each term occurs; terms in none are left out."""

    def index_pages(self) -> int:
        """How fragmented the full-text index is (pages or segments; grows with writes)."""

    def optimize_index(self) -> None:
        """Merge the full-text index into as few parts as it can."""

    # -- vectors --------------------------------------------------------------------------------

    def fresh_vectors(self) -> VectorIndex:
        """Every item's vector with its scope, kind and language, up to date with every commit."""

    def all_bodies(self) -> Iterator[tuple[int, str]]:
        """(rowid, content) of every item, in rowid order, for re-embedding."""

    def rewrite_vectors(self, rowids: Sequence[int], vecs: np.ndarray) -> None:
        """Replace the vectors of these items (a reindex)."""

    # -- passage vectors: embeddings of texts that are not items --------------------------------

    def passage_vectors(self, embedder: str, shas: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored float32 vectors of ``embedder`` for these text hashes (missing ones left out)."""

    def save_passage_vectors(self, embedder: str, vectors: Mapping[str, np.ndarray], at: float) -> None:
        """Keep these vectors by text hash (replacing any stored under the same hash)."""

    def forget_passage_vectors(self, shas: Sequence[str]) -> int:
        """Remove the vectors of these text hashes, of every embedder; how many rows went."""

    # -- skill versions ---------------------------------------------------------------------------

    def add_skill_version(self, *, name: str, source: str, root: str, rel_path: str, action: str, checksum: str,
                          version_field: str | None, at: float, actor: str, reason: str, deleted: bool,
                          files: Mapping[str, bytes]) -> int:
        """Record the next state of the skill at (root, rel_path) with its files (their bytes
        masked for secrets, stored once per content); its number."""

    def replace_skill_blob(self, sha256: str, content: bytes) -> None:
        """Put ``content`` (masked) in place of the stored file bytes ``sha256`` in every version listing
        them, and delete the old bytes (a purge: the versions stay, the text goes); joins the open
        transaction."""

    def skill_history(self, root: str, rel_path: str, *, last: bool = False) -> list[SkillVersionRow]:
        """The recorded states of the skill at (root, rel_path), oldest first (only the newest with ``last``)."""

    def skill_version_sizes(self, root: str, rel_path: str) -> dict[int, list[tuple[str, int]]]:
        """Version number -> (path, size) of each of its files, by path."""

    def skill_version_files(self, root: str, rel_path: str, number: int) -> dict[str, bytes] | None:
        """The files of one version (None when there is no such version)."""

    def skill_file_hashes(self, root: str, rel_path: str) -> set[tuple[str, str]]:
        """Every (path, SHA-256 of the stored bytes) any state of the skill had."""

    def last_skill_versions(self, skip_actions: Sequence[str] = ()) -> list[SkillVersionRow]:
        """The newest version of every recorded location, versions whose action is in
        ``skip_actions`` passed over."""

    def skill_locations_named(self, name: str) -> list[tuple[str, str, str]]:
        """(source, root, rel_path) of every location that recorded a skill called ``name``,
        most recently changed first."""

    # -- skill usage ------------------------------------------------------------------------------

    def add_skill_usage(self, *, at: float, name: str, event: str, outcome: str | None, detail: str, actor: str,
                        root: str | None, rel_path: str | None) -> None:
        """Record a view or an outcome of a skill (``detail`` masked)."""

    def skill_usage_counts(self, name: str | None = None, *, by_location: bool = False) -> list[SkillUsageCounts]:
        """Counts per skill name (only ``name`` when given), or per name and location."""

    def skill_usage_events(self, name: str, limit: int) -> list[SkillUsageEvent]:
        """The newest events about one skill, newest first."""

    def blank_usage_notes(self, needles: Sequence[str], *, dry_run: bool = False) -> int:
        """Empty the feedback notes holding one of ``needles`` (any case); how many (would be)."""

    # -- skill pins -------------------------------------------------------------------------------

    def skill_pins(self) -> dict[tuple[str, str], float]:
        """Every pin: (root, rel_path) -> when it was pinned."""

    def add_skill_pin(self, *, root: str, rel_path: str, name: str, source: str, at: float, actor: str,
                      reason: str) -> bool:
        """Pin the skill at (root, rel_path); False when it already was."""

    def remove_skill_pin(self, root: str, rel_path: str) -> bool:
        """Unpin it; False when it was not pinned."""

    # -- possible conflicts and consolidated messages ---------------------------------------------

    def add_conflict(self, *, a: str, b: str, scope: str, rule: str, cosine: float | None, found_at: float,
                     found_by: str) -> bool:
        """Record that fact ``b`` may contradict ``a``; False when the pair was recorded before."""

    def open_conflicts(self, scope: str | None) -> list[ConflictRow]:
        """Unsettled pairs of ``scope`` (every scope when None), oldest first."""

    def conflict_between(self, first: str, second: str) -> ConflictRow | None:
        """The pair of these two facts, in either order."""

    def settle_conflict(self, a: str, b: str, *, settled: str, at: float, by: str) -> None:
        """Mark the pair (a, b) settled by keeping ``settled`` ("a", "b" or "both")."""

    def consolidated_keys(self, scope: str, keys: Sequence[str]) -> set[str]:
        """The message identities among ``keys`` that ``scope`` has consolidated."""

    def add_consolidated(self, scope: str, keys: Iterable[str], at: float) -> None:
        """Record message identities as consolidated in ``scope`` (again: no change)."""

    # -- audit ------------------------------------------------------------------------------------

    def append_audit(self, entry: dict[str, Any]) -> None:
        """Append one row (at, action, item_id, kind, scope, actor, reason, before, after)."""

    def audit_rows(self, item_id: str | None, limit: int, where: AuditFilter | None = None) -> list[dict[str, Any]]:
        """The newest rows (about ``item_id`` when given, matching ``where``), newest first; before /
        after as JSON text."""

    def audit_count(self) -> int:
        """How many rows the log holds."""

    def audit_to_blank(self, item_ids: Sequence[str], needles: Sequence[str],
                       scope: str | None) -> list[dict[str, Any]]:
        """The rows a purge blanks: about one of ``item_ids``, of ``scope``, or holding one of
        ``needles`` (any case) in their reason, before or after; rows blanked already left out."""

    def blank_audit(self, rows: Iterable[dict[str, Any]]) -> None:
        """Replace each row's before / after by the SHA-256 of what they held and empty its reason
        (the one change of the log a store allows)."""

    # -- copying between stores (``kenning.store.transfer``) ---------------------------------------

    def transfer_page(self, table: str, after: Sequence[Any] | None, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` rows of one copied table (``transfer.TABLES``) whose key follows ``after``
        (from the first when None), in key order, every column as stored (vectors as float32 bytes)."""

    def transfer_rows_of_items(self, table: str, rowids: Sequence[int]) -> list[dict[str, Any]]:
        """The rows of a table of item companions (full text, vectors, entity names) of these items."""

    def import_rows(self, table: str, rows: Sequence[dict[str, Any]]) -> None:
        """Write rows read by ``transfer_page`` from another store exactly (keys, numbers and text as
        they are: no masking, no derived keys), joining the open transaction; serial keys continue
        above the numbers written."""

    # -- maintenance ------------------------------------------------------------------------------

    def vacuum(self) -> str | None:
        """Make deleted text leave the storage for good (a purge ends with this); a note saying who
        must run it instead when this connection may not (a PostgreSQL role that does not own the tables)."""
