"""Export: every item of a store (or of one scope) as JSON lines, or a readable Markdown dump.

JSON lines: a header (``{"format": "kenning-export", "version": 1, ...}`` with the kenning version,
the embedder, the time and the item counts per scope and kind), then one line per item: ``{"item":
{...every field...}, "history": [earlier versions, oldest first, each {"item": ...}]}``, with
``"audit"`` (its audit entries, oldest first) and ``"vector"`` (base64 float32, with the embedder's
name) on each entry when asked for. A fact superseded by the next one of its chain appears only in
that one's history, so every item is written once.

The store is read a page at a time in rowid order (``Store.transfer_page``), so memory stays
constant however large the store. A file is written to a temporary file beside it and renamed into
place at the end: an interrupted export leaves the old file (or none), never half of one.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .. import __version__
from ..checks import check_scope
from ..errors import InvalidInput, StoreError
from ..fileio import fsync_dir, temporary_prefix
from ..models import CATEGORIES, Entity, Fact, Item, Lesson
from ..records import item_from_row
from ..timeutil import from_epoch, utcnow
from .codec import item_record
from .reader import EXPORT_FORMAT

if TYPE_CHECKING:
    from ..api import Kenning

VERSION = 1
PAGE = 500
MAX_AUDIT_PER_ITEM = 10_000
EXPORT_FORMATS = ("jsonl", "markdown")
Progress = Callable[[int, int], None]  # (items written, items to write)


def export(kb: Kenning, out: str | os.PathLike[str] | IO[str] | None, *, scope: str | None = None,
           audit: bool = False, vectors: bool = False, format: str = "jsonl",
           progress: Progress | None = None) -> int:
    """Write the export to ``out`` (a path, written atomically; a text stream; None for stdout);
    how many items it holds (history included)."""
    if format not in EXPORT_FORMATS:
        raise InvalidInput(f"export format {format!r} is not one of {', '.join(EXPORT_FORMATS)}")
    where = None if scope is None else check_scope(scope)
    if format == "markdown" and (audit or vectors):
        raise InvalidInput("--audit and --vectors belong to the JSON lines export; leave them out for Markdown")
    kb.store.flush_touches()  # access counts held back are part of what is exported
    counts = _counts(kb, where)
    total = sum(n for kinds in counts.values() for n in kinds.values())
    writer = _Writer(kb, where, audit=audit, vectors=vectors, total=total, progress=progress)
    lines = writer.jsonl(counts) if format == "jsonl" else markdown(kb, counts)
    if out is None:
        _write_lines(sys.stdout, lines)
    elif isinstance(out, str | os.PathLike):
        _write_file(Path(out), lines)
    else:
        _write_lines(out, lines)
    return total


def _counts(kb: Kenning, scope: str | None) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for s, kind, total, _current, _pinned in kb.store.counts(scope):
        out.setdefault(s, {})[kind] = int(total)
    return out


def _write_lines(stream: IO[str], lines: Iterator[str]) -> None:
    for line in lines:
        stream.write(line + "\n")
    stream.flush()


def _write_file(path: Path, lines: Iterator[str]) -> None:
    """``lines`` into ``path`` through a temporary file beside it, fsynced and renamed at the end."""
    if path.is_dir():
        raise InvalidInput(f"cannot export to {path}: it is a folder; give a file name such as {path / 'kenning.jsonl'}")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InvalidInput(f"cannot export to {path}: the folder {folder} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=temporary_prefix(path), suffix=".tmp", dir=folder)
    except OSError as exc:
        raise StoreError(f"cannot write in {folder}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            _write_lines(fh, lines)
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(folder)


def pages(kb: Kenning, scope: str | None) -> Iterator[dict[str, Any]]:
    """Every item row (of ``scope`` when given), in rowid order, a page at a time."""
    after: tuple[Any, ...] | None = None
    while True:
        rows = kb.store.transfer_page("items", after, PAGE)
        if not rows:
            return
        after = (rows[-1]["rowid"],)
        for row in rows:
            if scope is None or row["scope"] == scope:
                yield row


class _Writer:
    def __init__(self, kb: Kenning, scope: str | None, *, audit: bool, vectors: bool, total: int,
                 progress: Progress | None) -> None:
        self.kb, self.scope, self.audit, self.vectors = kb, scope, audit, vectors
        self.total, self.done, self.progress = total, 0, progress

    def jsonl(self, counts: dict[str, dict[str, int]]) -> Iterator[str]:
        header = {"format": EXPORT_FORMAT, "version": VERSION, "kenning": __version__,
                  "embedder": self.kb.embedder.name, "dim": self.kb.embedder.dim,
                  "exported_at": utcnow().isoformat(), "scope": self.scope, "counts": counts,
                  "audit": self.audit, "vectors": self.vectors}
        yield json.dumps(header, ensure_ascii=False)
        for row in pages(self.kb, self.scope):
            if self._in_successors_history(row):
                continue
            yield json.dumps(self._line(row), ensure_ascii=False, allow_nan=False)

    def _in_successors_history(self, row: dict[str, Any]) -> bool:
        """A fact its successor names back (``supersedes``) is written in that one's history."""
        if row["kind"] != "fact" or not row["superseded_by"]:
            return False
        successor = self.kb.store.get(row["superseded_by"])
        return successor is not None and successor["supersedes"] == row["id"]

    def _line(self, row: dict[str, Any]) -> dict[str, Any]:
        chain = [row]
        seen = {row["id"]}
        while chain[-1]["kind"] == "fact" and chain[-1]["supersedes"]:
            before = self.kb.store.get(chain[-1]["supersedes"])
            if before is None or before["id"] in seen or before["superseded_by"] != chain[-1]["id"]:
                break
            seen.add(before["id"])
            chain.append(before)
        vecs = self._vectors([r["rowid"] for r in chain]) if self.vectors else {}
        entries = [self._entry(r, vecs) for r in reversed(chain)]
        self.done += len(chain)
        if self.progress is not None:
            self.progress(self.done, self.total)
        return {**entries[-1], "history": entries[:-1]}

    def _entry(self, row: dict[str, Any], vecs: dict[int, bytes]) -> dict[str, Any]:
        item = item_from_row(row)
        entry: dict[str, Any] = {"item": item_record(item)}
        if self.vectors and row["rowid"] in vecs:
            raw = vecs[row["rowid"]]
            entry["vector"] = {"embedder": self.kb.embedder.name, "dim": len(raw) // 4,
                               "float32_b64": base64.b64encode(raw).decode()}
        if self.audit:
            entry["audit"] = [_audit_record(a) for a in reversed(self.kb.store.audit_rows(item.id, MAX_AUDIT_PER_ITEM))]
        return entry

    def _vectors(self, rowids: list[int]) -> dict[int, bytes]:
        rows = self.kb.store.transfer_rows_of_items("vectors", rowids)
        return {int(r["item_rowid"]): bytes(r["vec"]) for r in rows if r["vec"] is not None}


def _audit_record(row: dict[str, Any]) -> dict[str, Any]:
    at = from_epoch(row["at"])
    return {"seq": row["seq"], "at": at.isoformat() if at else None, "action": row["action"],
            "actor": row["actor"], "reason": row["reason"],
            "before": json.loads(row["before"]) if row["before"] else None,
            "after": json.loads(row["after"]) if row["after"] else None}


# -- Markdown ------------------------------------------------------------------------------------


def markdown(kb: Kenning, counts: dict[str, dict[str, int]]) -> Iterator[str]:
    """A readable dump: per scope, current facts by category, lessons, entities with attributes.
    Superseded versions are left out (the JSON lines export keeps them). One pass over the store
    per section, so memory stays constant."""
    now = utcnow()
    yield f"<!-- kenning {__version__} export of {now:%Y-%m-%d %H:%M} UTC: current items only -->"
    for scope in sorted(counts):
        yield ""
        yield f"# Scope `{scope}`"
        for category in CATEGORIES:
            yield from _section(kb, scope, f"## Facts: {category}", _facts_of(category, now))
        yield from _section(kb, scope, "## Lessons", lambda i: _lesson_lines(i) if isinstance(i, Lesson) else None)
        yield from _section(kb, scope, "## Entities", lambda i: _entity_lines(i) if isinstance(i, Entity) else None)


def _facts_of(category: str, now: datetime) -> Callable[[Item], str | None]:
    def render(item: Item) -> str | None:
        if isinstance(item, Fact) and item.category == category and not item.superseded_by:
            return _fact_line(item, now)
        return None

    return render


def _section(kb: Kenning, scope: str, title: str, render: Callable[[Item], str | None]) -> Iterator[str]:
    """``title`` and the lines ``render`` gives for the items of ``scope`` (None: not in this section)."""
    first = True
    for row in pages(kb, scope):
        text = render(item_from_row(row))
        if text is None:
            continue
        if first:
            yield from ("", title, "")
            first = False
        yield text


def _flat(text: str) -> str:
    return " ".join(text.split())


def _fact_line(fact: Fact, now: datetime) -> str:
    marks = [f"`#{t}`" for t in fact.tags]
    if fact.pinned:
        marks.append("*pinned*")
    if fact.expires_at:
        marks.append("*expired*" if fact.expires_at <= now else f"*until {fact.expires_at:%Y-%m-%d}*")
    return f"- {_flat(fact.content)}" + (f" — {' '.join(marks)}" if marks else "")


def _lesson_lines(lesson: Lesson) -> str:
    return (f"- **{_flat(lesson.insight)}** ({lesson.outcome}; when {_flat(lesson.context)}: "
            f"{_flat(lesson.action)})")


def _entity_lines(entity: Entity) -> str:
    head = f"- **{_flat(entity.name)}**" + (f" ({_flat(entity.entity_kind)})" if entity.entity_kind else "")
    if entity.aliases:
        head += ", also " + ", ".join(_flat(a) for a in entity.aliases)
    parts = [head]
    for key, value in entity.attributes.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        parts.append(f"  - {_flat(key)}: {_flat(str(shown))}")
    if entity.notes:
        parts.append(f"  - notes: {_flat(entity.notes)}")
    return "\n".join(parts)
