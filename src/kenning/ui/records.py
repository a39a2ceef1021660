"""Hot memory (MEMORY.md and USER.md with their budget gauges, each entry linked to its fact, and
its add / replace / remove), the daily notes and HISTORY.md of a scope, the audit log filtered by
actor, action, item and time, and the store's stats (counts per scope and kind, size, hot budgets)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from starlette.responses import Response

from ..checks import check_scope
from ..errors import InvalidInput
from ..tiers.hotfile import SECTIONS
from ..tiers.maintain import scopes
from ..timeutil import parse_when
from .app import Page, redirect
from .memories import whole

AUDIT_SUGGESTED = 500  # newest entries whose actors and actions the filter fields suggest
_DAY_FILE = re.compile(r"\d{4}-\d{2}-\d{2}\.md")


def _scope(page: Page) -> str:
    return check_scope(page.arg("scope") or page.ui.scope)


def hot(page: Page) -> Response:
    scope = _scope(page)
    shown = page.kb.hot_in(scope).show()
    return page.render("hot.html", scope=scope, files=shown["files"], sections=SECTIONS, message=page.arg("done"),
                       scopes=scopes(page.kb))


def hot_change(page: Page) -> Response:
    """Add, replace or remove one entry: the hot tier's own calls (its fact follows, audited)."""
    scope = _scope(page)
    memory = page.kb.hot_in(scope)
    action, reason = page.arg("action"), page.arg("reason")
    if action == "add":
        done = memory.add(page.arg("text"), page.arg("section") or "other", reason=reason)
    elif action == "replace":
        done = memory.replace(page.form.get("entry", ""), page.arg("text"), reason=reason)
    elif action == "remove":
        done = memory.remove(page.form.get("entry", ""), reason=reason)
    else:
        raise InvalidInput(f"action must be add, replace or remove, got {action[:40]!r}")
    return redirect("/hot", scope=scope if scope != page.ui.scope else "", done=str(done.get("message", action)))


def notes(page: Page) -> Response:
    """The days with notes (newest first), one day's text, HISTORY.md, and a search of them."""
    scope = _scope(page)
    book = page.kb.notes_in(scope)
    days = sorted((p.stem for p in (book.home / "daily").glob("*.md") if _DAY_FILE.fullmatch(p.name)), reverse=True)
    day = page.arg("day") or (days[0] if days else "")
    text = book.read(day) if day else ""
    q = page.arg("q")
    hits = book.search(q, days_back=None, include_archive=True, min_relevance=0) if q else None
    history = _read(book.home / "HISTORY.md")
    return page.render("notes.html", scope=scope, days=days, day=day, text=text, q=q, hits=hits, history=history,
                       scopes=scopes(page.kb))


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def audit(page: Page) -> Response:
    """The newest entries matching every filter given (actor, action, item, from, until)."""
    actor, action, item = page.arg("actor"), page.arg("action"), page.arg("item")
    since = parse_when(page.arg("since") or None, "since", past=True)
    until = parse_when(page.arg("until") or None, "until", past=True)
    limit = whole(page, "limit", 100, 1, 1000)
    kept = page.kb.audit(item or None, limit, actor=actor or None, action=action or None, since=since, until=until)
    recent = page.kb.audit(limit=AUDIT_SUGGESTED)  # what the actor and action fields suggest
    return page.render("audit.html", entries=kept, actor=actor, action=action, item=item,
                       since=page.arg("since"), until=page.arg("until"), limit=limit,
                       actions=sorted({e.action for e in recent}), actors=sorted({e.actor for e in recent}))


def stats(page: Page) -> Response:
    data = page.kb.stats()
    by_scope: dict[str, dict[str, Any]] = {}
    for row in data["counts"]:
        by_scope.setdefault(row["scope"], {})[row["kind"]] = row
    budgets = {scope: page.kb.hot_in(scope).budget() for scope in scopes(page.kb)}
    return page.render("stats.html", data=data, by_scope=by_scope, budgets=budgets, sizes=_sizes(page))


def _sizes(page: Page) -> list[tuple[str, int]]:
    """Bytes on disk of the database files (SQLite) and of the data directory as a whole."""
    out: list[tuple[str, int]] = []
    paths = page.kb.paths()
    for name in ("database", "database WAL"):
        path = Path(paths.get(name, ""))
        if name in paths and path.is_file():
            out.append((name, path.stat().st_size))
    total = sum(p.stat().st_size for p in page.kb.home.rglob("*") if p.is_file() and not p.is_symlink())
    out.append(("data directory in all", total))
    return out


ROUTES = (
    ("/hot", hot, ("GET",)),
    ("/hot/change", hot_change, ("POST",)),
    ("/notes", notes, ("GET",)),
    ("/audit", audit, ("GET",)),
    ("/stats", stats, ("GET",)),
)
