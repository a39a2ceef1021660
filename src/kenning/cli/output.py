"""Printing: rich tables for people, JSON for programs.

Every user-supplied string goes into a table as ``rich.text.Text``, so text such as "[bold]" in a
stored fact is shown as written instead of being read as markup. JSON goes to stdout untouched by
rich (no wrapping, no colour) so that ``kenning … --json | jq`` always works.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import click
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from kenning.models import AuditEntry, Entity, Fact, Hit, Item, Lesson

CONTENT_WIDTH = 80
_FIRST_FIELDS = ("id", "kind", "content", "scope")
# short columns that read badly when folded; the text columns give way instead
_NO_WRAP = frozenset({"#", "id", "item", "seq", "score", "kind", "importance", "recalled", "applied", "outcome",
                      "created", "at", "found", "exists", "status", "action"})


def console(stderr: bool = False) -> Console:
    """A console made per use, so it sees the current terminal (or test runner) width."""
    return Console(stderr=stderr, highlight=False)


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def show(*renderables: Any) -> None:
    out = console()
    for renderable in renderables:
        out.print(renderable)


def truncate(text: str, width: int = CONTENT_WIDTH) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else ""


def cell(value: Any) -> Text:
    """One value as plain text: lists joined, mappings as key=value, None as nothing."""
    if value is None:
        return Text("")
    if isinstance(value, Mapping):
        return Text(", ".join(f"{k}={v}" for k, v in value.items()))
    if isinstance(value, list | tuple):
        return Text(", ".join(str(v) for v in value))
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    return Text(str(value))


def table(title: str | None, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Table:
    out = Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD)
    for name in columns:
        out.add_column(name, overflow="fold", no_wrap=name in _NO_WRAP)
    for row in rows:
        out.add_row(*(cell(v) for v in row))
    return out


def item_table(item: Item, title: str | None = None) -> Table:
    """Every field of one item, one per row; empty fields left out."""
    data = item.to_dict()
    keys = [k for k in _FIRST_FIELDS if k in data] + [k for k in data if k not in _FIRST_FIELDS]
    rows = [(k, data[k]) for k in keys if data[k] not in (None, "", [], {})]
    return table(title, ("field", "value"), rows)


def hits_table(hits: Sequence[Hit], title: str | None = None) -> Table:
    rows = [
        (rank, f"{hit.score:.3f}", hit.item.kind, hit.item.id, truncate(hit.item.content), hit.why)
        for rank, hit in enumerate(hits, 1)
    ]
    return table(title, ("#", "score", "kind", "id", "content", "why"), rows)


def fact_status(fact: Fact) -> str:
    if fact.superseded_by:
        return "superseded"
    if fact.expires_at and fact.expires_at <= datetime.now(fact.expires_at.tzinfo):
        return "expired"
    return "pinned" if fact.pinned else "current"


FACT_COLUMNS = ("id", "content", "importance", "recalled", "status")
HISTORY_COLUMNS = ("id", "content", "created", "status")


def facts_table(facts: Sequence[Fact], title: str | None = None, columns: Sequence[str] = FACT_COLUMNS) -> Table:
    """Facts one per row; a scope column is added when they come from several scopes."""
    if len({f.scope for f in facts}) > 1:
        columns = [*columns[:2], "scope", *columns[2:]]
    rows = []
    for f in facts:
        values = {"id": f.id, "content": truncate(f.content), "scope": f.scope, "created": when(f.created_at),
                  "importance": f"{f.importance:.2f}", "recalled": f.access_count, "status": fact_status(f)}
        rows.append([values[c] for c in columns])
    return table(title, columns, rows)


def lessons_table(lessons: Sequence[Lesson], title: str | None = None) -> Table:
    rows = [(x.id, x.outcome, x.context, x.action, x.insight, x.applied_count) for x in lessons]
    return table(title, ("id", "outcome", "context", "action", "insight", "applied"), rows)


def entities_table(entities: Sequence[Entity], title: str | None = None) -> Table:
    rows = [(e.id, e.name, e.entity_kind, e.aliases, e.attributes, truncate(e.notes, 40)) for e in entities]
    return table(title, ("id", "name", "kind", "aliases", "attributes", "notes"), rows)


def audit_table(entries: Sequence[AuditEntry]) -> Table:
    rows = [(e.seq, when(e.at), e.action, e.kind, e.item_id, e.actor, e.reason) for e in entries]
    return table("Audit log (newest first)", ("seq", "at", "action", "kind", "item", "actor", "reason"), rows)
