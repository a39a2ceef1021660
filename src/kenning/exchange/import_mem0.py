"""Import mem0's ``get_all`` output: each memory a fact, through the whole write gate.

Accepted shapes: the old list (``[{"id", "memory", "user_id", "metadata", "created_at", ...}]``),
the newer ``{"results": [...]}`` (also ``{"memories": [...]}``), one memory object, or JSON lines
of memories. ``memory`` is the text. With ``--scope`` every memory goes into that scope, its
``user_id`` / ``agent_id`` kept as a tag (``user:<id>``, ``agent:<id>``): a file from someone else
cannot write into another scope. Without it ``user_id`` gives the scope ``user:<id>``, else
``agent_id`` ``agent:<id>``, else "default"; an id is folded to a valid scope name (lower case,
other characters as "-") and the summary notes it. ``metadata.category`` naming a
kenning category sets it, any other category and ``metadata.tags``, mem0's ``categories``,
``app_id``/``run_id`` and short scalar metadata become tags (``key:value``); what cannot be kept
is noted. ``created_at``/``updated_at`` are kept on facts the import adds, ``expiration_date`` as
the expiry when still ahead.

A file that is not such JSON, or a memory without text, refuses the whole file before anything is
written (the message names the line and column, or the memory's position).
"""

from __future__ import annotations

import json
import re
import unicodedata
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..checks import check_scope
from ..errors import InvalidInput
from ..models import CATEGORIES, DEFAULT_SCOPE
from .gated import GatedWriter, Statement
from .reader import file_label, parse_json, read_document
from .summary import ImportSummary

if TYPE_CHECKING:
    from ..api import Kenning
    from .import_kenning import Progress

_NOT_IN_SCOPE = re.compile(r"[^\w.-]+")


def memories(path: Path) -> list[dict[str, Any]]:
    """Every memory object of the file, checked for shape; InvalidInput naming where it is wrong."""
    text = read_document(path)
    try:
        data: Any = parse_json(text, path.name)
    except InvalidInput:
        raise
    except json.JSONDecodeError as exc:
        if exc.msg != "Extra data":
            raise InvalidInput(f"{path.name} line {exc.lineno} column {exc.colno}: not JSON ({exc.msg}); nothing was "
                               "imported") from None
        data = _json_lines(path.name, text)
    if isinstance(data, dict):
        found = next((data[k] for k in ("results", "memories") if isinstance(data.get(k), list)), None)
        data = found if found is not None else [data] if "memory" in data else None
    if not isinstance(data, list):
        raise InvalidInput(f"{path.name} is not mem0's get_all output: expected a list of memories, "
                           "{\"results\": [...]} or JSON lines of memories; nothing was imported")
    for n, memory in enumerate(data, 1):
        if not isinstance(memory, dict) or not isinstance(memory.get("memory"), str) or not memory["memory"].strip():
            raise InvalidInput(f"{path.name} memory {n}: each memory must be an object with a non-empty \"memory\" text; "
                               "nothing was imported")
    return data


def _json_lines(name: str, text: str) -> list[Any]:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                out.append(parse_json(line, name, number))
            except InvalidInput:
                raise
            except ValueError as exc:
                raise InvalidInput(f"{name} line {number}: not JSON ({exc}); nothing was imported") from None
    return out


def _owners(memory: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(field, scope kind, id) of the memory's ``user_id`` and ``agent_id``, when given."""
    out = []
    for field, prefix in (("user_id", "user"), ("agent_id", "agent")):
        value = memory.get(field)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
            out.append((field, prefix, str(value).strip()))
    return out


def scope_of(memory: dict[str, Any], fallback: str, summary: ImportSummary) -> str:
    for field, prefix, raw in _owners(memory)[:1]:
        name = _NOT_IN_SCOPE.sub("-", unicodedata.normalize("NFKC", raw).lower()).strip("-._")[:190] or "unnamed"
        scope = check_scope(f"{prefix}:{name}")
        if name != raw:
            summary.note(f"mem0 {field} {raw[:60]!r} became scope {scope!r}")
        return scope
    return fallback


def _placed(memory: dict[str, Any], scope: str | None, summary: ImportSummary) -> tuple[str, list[str]]:
    """The memory's scope, and the tags that keep its user and agent when ``scope`` decides instead."""
    if scope is None:
        return scope_of(memory, DEFAULT_SCOPE, summary), []
    owners = _owners(memory)
    if owners:
        summary.note(f"--scope {scope}: every memory went there; mem0's user_id and agent_id were kept as tags "
                     "(user:<id>, agent:<id>). Leave out --scope to import each into its own user or agent scope")
    return scope, [f"{prefix}:{raw}" for _, prefix, raw in owners]


def _time(memory: dict[str, Any], field: str, n: int, summary: ImportSummary) -> datetime | None:
    value = memory.get(field)
    if value in (None, ""):
        return None
    try:
        at = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        summary.note(f"memory {n}: {field} {str(value)[:40]!r} is not an ISO time; the import time was used")
        return None
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def _tags_and_category(memory: dict[str, Any], n: int, summary: ImportSummary) -> tuple[list[str], str | None]:
    tags: list[str] = []
    category: str | None = None
    meta = memory.get("metadata") or {}
    if not isinstance(meta, dict):
        summary.note(f"memory {n}: metadata is not an object; it was not kept")
        meta = {}
    for key, value in meta.items():
        if key == "category" and value in CATEGORIES:
            category = str(value)
        elif key in ("tags", "categories") and isinstance(value, list):
            tags += [str(v) for v in value if isinstance(v, str | int | float) and not isinstance(v, bool)]
        elif key == "category" and isinstance(value, str):
            tags.append(value)
        elif isinstance(value, str | int | float | bool) and len(f"{key}:{value}") <= 100:
            tags.append(f"{key}:{value}")
        else:
            summary.note(f"memory {n}: metadata {str(key)[:40]!r} is not a short value; it was not kept")
    cats = memory.get("categories")
    if isinstance(cats, list):
        tags += [str(c) for c in cats if isinstance(c, str)]
    for field in ("app_id", "run_id"):
        if isinstance(memory.get(field), str | int) and str(memory[field]).strip():
            tags.append(f"{field[:-3]}:{memory[field]}")
    return [t.strip()[:100] for t in dict.fromkeys(tags) if t.strip()], category


def import_mem0(kb: Kenning, path: Path, summary: ImportSummary, *, scope: str | None, dry_run: bool,
                progress: Progress | None) -> None:
    found = memories(path)  # the whole file checked before anything is written
    summary.position = "memory"
    writer = GatedWriter(kb, summary, source="mem0", reason=f"imported from {file_label(path)} (mem0)",
                         dry_run=dry_run)
    where = check_scope(scope) if scope else None
    for n, memory in enumerate(found, 1):
        tags, category = _tags_and_category(memory, n, summary)
        place, owners = _placed(memory, where, summary)
        tags = [t.strip()[:100] for t in dict.fromkeys(owners + tags) if t.strip()]
        writer.write(Statement(n, memory["memory"], place, tuple(tags), category,
                               _time(memory, "created_at", n, summary), _time(memory, "updated_at", n, summary),
                               _time(memory, "expiration_date", n, summary)))
        if progress is not None:
            progress(n, len(found))
