"""Import kenning's own export: ids, times, counters, pins, expiry and supersede chains kept.

Two passes. The first reads every line and checks it (JSON, the header, every field of every
item, audit entry and vector; ids and links across the file and against the store, ``links``):
one bad line refuses the whole file, with its number, before anything is written. The second
writes ``BATCH_LINES`` lines per transaction: a store failing midway (a full disk) leaves whole
batches, and importing the file again completes it. Each item goes through the write gate's
redaction (masked, or refused per item in "refuse" mode), then:

    its id is stored with the same content          unchanged
    its id is stored with other content            refused (the stored item is kept)
    a current item of its scope has its content    merged into that one (tags, confidence,
                                                   importance, pin); unchanged if nothing is new
    an entity of its scope has its name            merged by ``Entities.upsert``, unchanged if nothing is new
    otherwise                                      added as it was, with its audit entries

A version the gate refuses is cut out of its chain as a delete would: its neighbours are linked to
each other. The audit entries a file brings are what the exporting store recorded, so they are
marked as imported (actor ``import:<file>``, the original actor in the reason) and masked like
any write.

Near duplicates are not merged: the store that exported them already judged them, and merging
them here would make a round trip lose items. So importing the same file twice changes nothing
the second time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import audit
from ..entities import check_attributes, name_key
from ..errors import Conflict, InvalidInput
from ..gate import Scrub
from ..gate.redact import placeholder, secret_field
from ..models import render_entity, render_lesson
from ..records import item_from_row
from ..text import content_key, normalize
from .codec import audit_of, row_of, vector_of
from .links import LINKS, Ids
from .reader import EXPORT_FORMAT, file_label, lines, parse_json
from .summary import ImportSummary

if TYPE_CHECKING:
    from ..api import Kenning

BATCH_LINES = 64
Progress = Callable[[int, int], None]


class _Entry:
    """One item of a line: its row (checked, then masked), its vector if the file's is usable, and
    its exported audit entries (checked, then masked)."""

    def __init__(self, row: dict[str, Any], vec: np.ndarray | None, audit_rows: list[dict[str, Any]]) -> None:
        self.row, self.vec, self.audit = row, vec, audit_rows
        self.refused: str | None = None


def _entries(line: dict[str, Any], embedder: str | None, dim: int) -> list[_Entry]:
    """The line's history (oldest first), then its item."""
    history = line.get("history", [])
    if not isinstance(history, list):
        raise InvalidInput("\"history\" must be a list of earlier versions")
    out = []
    for part in [*history, line]:
        if not isinstance(part, dict) or "item" not in part:
            raise InvalidInput("each entry must be an object with \"item\"")
        row = row_of(part["item"])
        vec = vector_of(part.get("vector"), embedder, dim) if embedder else None
        rows = part.get("audit", [])
        if not isinstance(rows, list):
            raise InvalidInput("\"audit\" must be a list of audit entries")
        out.append(_Entry(row, vec, [_audit_entry(row["id"], n, a) for n, a in enumerate(rows, 1)]))
    return out


def _audit_entry(item_id: str, n: int, record: object) -> dict[str, Any]:
    try:
        return audit_of(record)
    except InvalidInput as exc:
        raise InvalidInput(f"audit entry {n} of {item_id}: {exc}") from None


def _refusal(path: Path, number: int, exc: Exception) -> InvalidInput:
    return InvalidInput(f"{path.name} line {number}: {exc}; nothing was imported")


def _parsed(path: Path, embedder: str, dim: int) -> Iterator[tuple[int, list[_Entry]]]:
    """(line number, entries) of every item line, after the header; InvalidInput naming the line."""
    use_vectors: str | None = None
    for number, text in lines(path):
        if not text.strip():
            continue
        try:
            data = parse_json(text, path.name, number)
        except InvalidInput:
            raise
        except ValueError as exc:
            raise InvalidInput(f"{path.name} line {number}: not JSON ({exc}); nothing was imported") from None
        if use_vectors is None:  # the first line that is not blank
            header = _check_header(path, number, data)
            use_vectors = embedder if header.get("embedder") == embedder and header.get("dim") == dim else ""
            continue
        if not isinstance(data, dict):
            raise InvalidInput(f"{path.name} line {number}: an item line must be a JSON object; nothing was imported")
        try:
            entries = _entries(data, use_vectors or None, dim)
        except InvalidInput as exc:
            raise _refusal(path, number, exc) from None
        yield number, entries
    if use_vectors is None:
        raise InvalidInput(f"{path.name} is empty: a kenning export starts with its header line")


def _check_header(path: Path, number: int, data: object) -> dict[str, Any]:
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise InvalidInput(f"{path.name} line {number}: not a kenning export header (\"format\": \"{EXPORT_FORMAT}\"); "
                           "the header must come first. For other files pass --format mem0 or markdown")
    if data.get("version") != 1:
        raise InvalidInput(f"{path.name} line {number}: export version {data.get('version')!r} is not one this "
                           "kenning reads (1); upgrade kenning to import it")
    return data


@dataclass
class _Checked:
    """What the first pass found: every id and link, how many items, and whether all have vectors."""

    ids: Ids
    total: int = 0
    kept: int = 0  # of the scope imported
    embeds: bool = True


def _check(kb: Kenning, path: Path, scope: str | None) -> _Checked:
    """Pass 1: every line, then every link, checked; nothing is written."""
    checked = _Checked(Ids(kb.store))
    for number, entries in _parsed(path, kb.embedder.name, kb.embedder.dim):
        try:
            for entry in entries:
                checked.ids.add(number, entry.row)
                if scope is None or entry.row["scope"] == scope:
                    checked.ids.check_store(entry.row)
                    checked.kept += 1
        except InvalidInput as exc:
            raise _refusal(path, number, exc) from None
        checked.total += len(entries)
        checked.embeds = checked.embeds and all(e.vec is not None for e in entries)
    checked.ids.check_links(path.name)
    return checked


def import_kenning(kb: Kenning, path: Path, summary: ImportSummary, *, scope: str | None, dry_run: bool,
                   progress: Progress | None) -> None:
    checked = _check(kb, path, scope)
    if not checked.embeds:
        summary.note(f"items without a vector of {kb.embedder.name} in the file are embedded anew")
    if checked.kept < checked.total:
        summary.note(f"{checked.total - checked.kept} items of scopes other than {scope!r} were left out (--scope)")
    writer = _Writer(kb, path, summary, dry_run=dry_run)
    done = 0
    batch: list[tuple[int, list[_Entry]]] = []
    for number, entries in _parsed(path, kb.embedder.name, kb.embedder.dim):
        if not all(checked.ids.same(number, e.row) for e in entries):
            raise InvalidInput(f"{path.name} line {number}: it changed after the file was checked (something "
                               "writes to the file); the lines before it may have been imported. Import the file "
                               "again once nothing writes to it")
        kept = [e for e in entries if scope is None or e.row["scope"] == scope]
        if kept:
            batch.append((number, kept))
        done += len(entries)
        if len(batch) >= BATCH_LINES:
            writer.batch(batch)
            batch = []
            if progress is not None:
                progress(done, checked.total)
    writer.batch(batch)
    if progress is not None:
        progress(done, checked.total)


class _Writer:
    def __init__(self, kb: Kenning, path: Path, summary: ImportSummary, *, dry_run: bool) -> None:
        self.kb, self.store, self.summary, self.dry_run = kb, kb.store, summary, dry_run
        self.name, label = path.name, file_label(path)
        self.reason = f"imported from {label}"
        self.actor = f"import:{label}"  # of the audit entries the file brings: never taken for this store's own
        self.pending: set[str] = set()  # ids and content a dry run would have added
        self.placed: dict[str, str] = {}  # an imported id -> the stored item it is (itself, or the one it merged into)
        self.cut: dict[str, tuple[str | None, str | None]] = {}  # a version the gate refused -> its links (LINKS)

    def batch(self, batch: list[tuple[int, list[_Entry]]]) -> None:
        scrubs = self._mask(batch)
        if self.dry_run:
            for number, entries in batch:
                for entry in entries:
                    self._decide(number, entry)
            return
        self._embed([e for _, entries in batch for e in entries if not e.refused and e.vec is None
                     and self.store.get(e.row["id"]) is None])
        number = batch[0][0] if batch else 0
        try:
            with self.store.transaction():
                for number, entries in batch:
                    for entry in entries:
                        if self._decide(number, entry) == "add":
                            self._add(entry, *scrubs[id(entry)])
        except InvalidInput as exc:  # every field was checked in the first pass: this is the store's own refusal
            raise InvalidInput(f"{self.name} line {number}: {exc}; lines {batch[0][0]} to {batch[-1][0]} were not "
                               "imported, those before them were. Fix the line and import the file again (what came "
                               "in already stays unchanged)") from None

    def _mask(self, batch: list[tuple[int, list[_Entry]]]) -> dict[int, tuple[Scrub, Scrub]]:
        """Every entry of ``batch`` redacted before any is written, so that a version the gate refuses
        is cut out of its chain before its neighbours are written."""
        scrubs = {}
        for _, entries in batch:
            for entry in entries:
                kind = entry.row["kind"]
                scrub, past = self.kb.gate.scrub(kind), self.kb.gate.scrub(kind, mask_only=True)
                scrubs[id(entry)] = (scrub, past)
                try:
                    entry.row = _masked(entry.row, scrub)
                except InvalidInput as exc:
                    entry.refused = str(exc)
                    if entry.row["kind"] == "fact":
                        self.cut[entry.row["id"]] = (entry.row["supersedes"], entry.row["superseded_by"])
                    continue
                entry.audit = [self._replayed(old, past) for old in entry.audit]
        for _, entries in batch:
            for entry in entries:
                if not entry.refused and entry.row["kind"] == "fact":
                    entry.row = self._uncut(entry.row)
        return scrubs

    def _uncut(self, row: dict[str, Any]) -> dict[str, Any]:
        """``row`` linked past the versions the gate refused, to their own neighbours."""
        out = dict(row)
        for n, link in enumerate(LINKS):
            target, seen = row[link], set()
            while target in self.cut and target not in seen:
                seen.add(target)
                target = self.cut[target][n]
            out[link] = None if target == row["id"] else target
        return out

    def _replayed(self, old: dict[str, Any], scrub: Scrub) -> dict[str, Any]:
        """An exported audit entry as this store keeps it: its action and time, the original actor in
        the reason, and what it holds masked as the gate masks a write."""
        said = f": {old['reason']}" if old["reason"] else ""
        reason = scrub(f"recorded by {old['actor'] or 'an unnamed actor'!r} in the exporting store{said}", "reason")
        return {"at": old["at"], "action": old["action"], "actor": self.actor, "reason": reason,
                "before": _scrubbed(old["before"], scrub, "audit before"),
                "after": _scrubbed(old["after"], scrub, "audit after")}

    def _embed(self, entries: list[_Entry]) -> None:
        if entries:
            vecs = self.kb.embedder.embed_passages([e.row["content"] for e in entries])
            for entry, vec in zip(entries, vecs):
                entry.vec = np.asarray(vec, dtype=np.float32)

    def _decide(self, number: int, entry: _Entry) -> str:
        """Count the entry's outcome; "add" when it is still to be written (never in a dry run)."""
        row, kind, scope = entry.row, entry.row["kind"], entry.row["scope"]
        if entry.refused:
            self.summary.refuse(number, entry.refused, scope=scope, kind=kind, item_id=row["id"])
            return "refused"
        stored = self.store.get(row["id"])
        if stored is not None or row["id"] in self.pending:
            if stored is None or (stored["kind"], stored["scope"], stored["content_key"]) == (
                    kind, scope, row["content_key"]):
                self.placed[row["id"]] = row["id"]
                self.summary.count(scope, kind, "unchanged")
                return "unchanged"
            self.summary.refuse(number, f"id {row['id']} already names another {stored['kind']} in scope "
                                f"{stored['scope']!r} ({str(stored['content'])[:60]!r}); the stored one was kept",
                                scope=scope, kind=kind, item_id=row["id"])
            return "refused"
        twin = self._twin(row)
        if twin is not None:
            outcome = self._merge(number, twin, entry)
            if outcome != "refused":
                if not twin.get("pending"):
                    self.placed[row["id"]] = twin["id"]
                self.summary.count(scope, kind, outcome)  # type: ignore[arg-type]
            return outcome
        self.summary.count(scope, kind, "added")
        self.placed[row["id"]] = row["id"]
        if self.dry_run:
            self.pending.update((row["id"], f"{scope}\0{kind}\0{row['content_key']}"))
            return "added"
        return "add"

    def _twin(self, row: dict[str, Any]) -> dict[str, Any] | None:
        """The stored item this one restates: a current item with its content, an entity with its name."""
        if row["kind"] == "fact" and row.get("superseded_by"):
            return None  # an old version is history, never a restatement
        if row["kind"] == "entity":  # by its name, else by one of its aliases
            for name in (row["name"], *row["aliases"]):
                rowid = self.store.entity_rowid(row["scope"], name_key(name))
                if rowid is not None:
                    return self.store.get_rowid(rowid)
            return None
        if self.dry_run and f"{row['scope']}\0{row['kind']}\0{row['content_key']}" in self.pending:
            return {"id": "(earlier in the file)", "pending": True}
        return self.store.find_current(row["scope"], row["kind"], row["content_key"])

    def _merge(self, number: int, twin: dict[str, Any], entry: _Entry) -> str:
        row = entry.row
        if twin.get("pending"):
            return "unchanged"
        if row["kind"] == "entity":
            return self._merge_entity(number, twin, entry)
        before = item_from_row(twin)
        old_tags = list(before.tags)  # type: ignore[union-attr]
        changes: dict[str, Any] = {}
        if new_tags := [t for t in row["tags"] if t not in old_tags]:
            changes["tags"] = old_tags + new_tags
        if row["kind"] == "fact":
            for name in ("confidence", "importance"):
                if row[name] > float(twin[name]):
                    changes[name] = row[name]
            if row["pinned"] and not twin["pinned"]:
                changes["pinned"] = True
        if not changes:
            return "unchanged"
        if not self.dry_run:
            self.store.update_item(twin["rowid"], changes)
            after = item_from_row(self.store.get_rowid(twin["rowid"]))  # type: ignore[arg-type]
            audit.record(self.store, "reinforce", before=before, after=after, actor=self.kb.actor,
                         reason=f"{self.reason}: restated by {row['id']}")
        return "merged"

    def _merge_entity(self, number: int, twin: dict[str, Any], entry: _Entry) -> str:
        row, stored = entry.row, item_from_row(twin)
        known = {name_key(stored.name), *(name_key(a) for a in stored.aliases)}  # type: ignore[union-attr]
        new = (any(name_key(a) not in known for a in [row["name"], *row["aliases"]])
               or any(stored.attributes.get(k) != v for k, v in row["attributes"].items())  # type: ignore[union-attr]
               or (row["notes"] and row["notes"] not in stored.notes)  # type: ignore[union-attr]
               or (row["entity_kind"] and row["entity_kind"] != stored.entity_kind))  # type: ignore[union-attr]
        if not new:
            return "unchanged"
        if self.dry_run:
            return "merged"
        try:
            self.kb.entities.upsert(stored.name, kind=row["entity_kind"] or None,  # type: ignore[union-attr]
                                    aliases=[row["name"], *row["aliases"]], attributes=row["attributes"],
                                    notes=row["notes"] or None, scope=row["scope"],
                                    reason=f"{self.reason}: restated by {row['id']}")
        except (Conflict, InvalidInput) as exc:
            self.summary.refuse(number, str(exc), scope=row["scope"], kind="entity", item_id=row["id"])
            return "refused"
        return "merged"

    def _add(self, entry: _Entry, scrub: Scrub, past: Scrub) -> None:
        row = dict(entry.row)
        for link in LINKS:  # a version merged into a stored fact of the scope is linked as that one
            if row.get(link):
                row[link] = self.placed.get(row[link], row[link])
        vec = entry.vec if entry.vec is not None else self.kb.embedder.embed_passages([row["content"]])[0]
        rowid = self.store.insert_item(row, row["content"], vec)
        if row["kind"] == "entity":
            self.store.add_entity_names(row["scope"], rowid, [name_key(n) for n in [row["name"], *row["aliases"]]])
        item = item_from_row(self.store.get_rowid(rowid))  # type: ignore[arg-type]
        for old in entry.audit:  # its own history first, as the exporting store recorded it (``_replayed``)
            self.store.append_audit({**old, "item_id": item.id, "kind": item.kind, "scope": item.scope})
        audit.record(self.store, "import", after=item, actor=self.kb.actor, reason=self.reason)
        self.kb.gate.audit(scrub, scope=item.scope, item_id=item.id)
        self.kb.gate.audit(past, scope=item.scope, item_id=item.id, of="its imported audit entries")


def _masked(row: dict[str, Any], scrub: Scrub) -> dict[str, Any]:
    """``row`` with the gate's redaction applied to every text a person wrote, and the keys derived
    again from the masked text (in "refuse" mode a finding raises InvalidInput)."""
    out = {**row, "source": scrub(row["source"], "source")}
    if row["kind"] != "entity":
        out["tags"] = [scrub(t, "tag") for t in row["tags"]]
    if row["kind"] == "fact":
        out["content"] = scrub(row["content"], "content")
    elif row["kind"] == "lesson":
        for slot in ("action", "context", "insight"):
            out[slot] = scrub(row[slot], slot)
        out["content"] = render_lesson(out["action"], out["context"], out["outcome"], out["insight"])
        out["context_key"] = normalize(out["context"])
    else:
        scrub.check(row["name"], "name")
        for alias in row["aliases"]:
            scrub.check(alias, "alias")
        out["attributes"] = check_attributes(scrub.fields(row["attributes"]))  # a placeholder can be longer
        out["notes"] = scrub(row["notes"], "notes") if row["notes"] else ""
        out["entity_kind"] = scrub(row["entity_kind"], "kind") if row["entity_kind"] else ""
        out["content"] = render_entity(out["name"], out["entity_kind"], out["aliases"], out["attributes"], out["notes"])
        return out
    out["content_key"] = content_key(out["content"])
    return out


def _scrubbed(value: Any, scrub: Scrub, field: str) -> Any:
    """A JSON value masked as the gate masks an entity's attributes: every string, keys too, and the
    whole value of a field named like a secret (``{"password": "hunter2"}`` has no "password=" in
    its text to give it away)."""
    if isinstance(value, str):
        return scrub(value, field)
    if isinstance(value, list):
        return [_scrubbed(v, scrub, field) for v in value]
    if not isinstance(value, dict):
        return value
    looks = scrub.policy.active and "secrets" in scrub.policy.categories
    out = {}
    for key, item in value.items():
        kind = secret_field(key) if looks else None
        if kind and item not in (None, "", [], {}) and not isinstance(item, bool):
            out[scrub(key, field)] = placeholder(kind)
        else:
            out[scrub(key, field)] = _scrubbed(item, scrub, field)
    return out
