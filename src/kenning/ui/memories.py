"""Memory pages: the list with the filters of ``kb.items``, search through ``kb.recall`` (each hit's
relevance and why), one item with its supersede chain and audit, and its edit, pin, expiry and purge
(through a confirmation page). Every change is one library call, as the CLI makes it."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from ..checks import CATEGORIES
from ..errors import InvalidInput
from ..models import Entity, Fact, Item
from .app import Page, redirect

KINDS = ("fact", "lesson", "entity")
SORTS = ("recent", "importance", "accessed")
PAGE_SIZES = (25, 50, 100, 200)


def whole(page: Page, name: str, default: int, low: int = 0, high: int = 10_000) -> int:
    text = page.arg(name)
    if not text:
        return default
    if not text.isdigit() or not low <= int(text) <= high:
        raise InvalidInput(f"{name} must be a whole number from {low} to {high}, got {text[:40]!r}")
    return int(text)


def number(page: Page, name: str) -> float | None:
    text = page.arg(name)
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        raise InvalidInput(f"{name} must be a number from 0 to 1, got {text[:40]!r}") from None


def tag_list(text: str) -> list[str]:
    return [t.strip() for t in text.replace("\n", ",").split(",") if t.strip()]


def listing(page: Page) -> Response:
    """Every item without a query, paged, with the filters of ``kb.items``."""
    kind = page.arg("kind")
    if kind and kind not in KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(KINDS)}, got {kind[:40]!r}")
    sort = page.arg("sort") or "recent"
    pinned = {"": None, "yes": True, "no": False}.get(page.arg("pinned"))
    scope = page.arg("scope") if "scope" in page.request.query_params else page.ui.scope
    filters: dict[str, Any] = dict(kinds=[kind] if kind else None, scope=scope or None,
                                   category=page.arg("category") or None, tags=tag_list(page.arg("tag")),
                                   pinned=pinned, expired=None if page.arg("expired") == "1" else False,
                                   superseded=None if page.arg("superseded") == "1" else False, since=page.arg("since") or None,
                                   sort=sort)
    limit = whole(page, "limit", 50, 1, 500)
    result = page.kb.items(**filters, limit=limit, offset=whole(page, "offset", 0))
    query = {k: v for k, v in page.request.query_params.items() if k != "offset"}
    return page.render("memories.html", result=result, query=query, kinds=KINDS, sorts=SORTS, scope=scope,
                       page_sizes=PAGE_SIZES, pinned=page.arg("pinned"), categories=CATEGORIES)


def search(page: Page) -> Response:
    """``kb.recall``: the best hits, each with its relevance, score and why."""
    q = page.arg("q")
    scope = page.arg("scope") or page.ui.scope
    k = whole(page, "k", 10, 1, 100)
    hits = page.kb.recall(q, k, scope=scope, min_relevance=0) if q else None
    return page.render("search.html", q=q, scope=scope, k=k, hits=hits)


def detail(page: Page) -> Response:
    """One item: every field, its supersede chain (facts), its audit entries and the forms that change it."""
    item = page.kb.get(page.request.path_params["item_id"])
    chain = page.kb.history(item.id) if isinstance(item, Fact) else []
    return page.render("memory.html", item=item, fields=fields(item), chain=chain,
                       audit=page.kb.audit(item.id, 100), message=page.arg("done"),
                       categories=CATEGORIES)


def fields(item: Item) -> list[tuple[str, Any]]:
    data = item.to_dict()
    return [(k, v) for k, v in data.items() if k not in ("content", "kind") and v not in (None, "", [], {})]


TEXT_FIELDS = {"fact": ("content", "category"), "lesson": ("action", "context", "outcome", "insight"),
               "entity": ("entity_kind", "notes")}


def edit(page: Page) -> Response:
    """``kb.edit`` with the fields the form changed (a changed fact text supersedes it: a new id)."""
    item = page.kb.get(page.request.path_params["item_id"])
    changes: dict[str, Any] = {}
    for name in TEXT_FIELDS[item.kind]:
        if name in page.form and page.form[name].strip() != str(getattr(item, name)):
            changes[name] = page.form[name].strip()
    if isinstance(item, Fact):
        for name in ("importance", "confidence"):
            value = number(page, name)
            if value is not None and value != getattr(item, name):
                changes[name] = value
    listed = ("aliases",) if isinstance(item, Entity) else ("tags",)
    for name in listed:
        if name in page.form and tuple(tag_list(page.form[name])) != tuple(getattr(item, name)):
            changes[name] = tag_list(page.form[name])
    if not changes:
        return redirect(f"/memory/{item.id}", done="nothing changed")
    edited = page.kb.edit(item.id, **changes, reason=page.arg("reason"))
    return redirect(f"/memory/{edited.id}", done="saved")


def pin(page: Page) -> Response:
    item_id = page.request.path_params["item_id"]
    if page.arg("pinned") == "1":
        page.kb.pin(item_id, page.arg("reason"))
    else:
        page.kb.unpin(item_id, page.arg("reason"))
    return redirect(f"/memory/{item_id}", done="pinned" if page.arg("pinned") == "1" else "unpinned")


def expire(page: Page) -> Response:
    item_id = page.request.path_params["item_id"]
    page.kb.expire(item_id, page.arg("when") or None, page.arg("reason"))
    return redirect(f"/memory/{item_id}", done="expiry set")


def purge(page: Page) -> Response:
    """GET: what a purge would remove, and the button; POST: the purge itself."""
    item_id = page.request.path_params["item_id"]
    if page.request.method == "GET":
        item = page.kb.get(item_id)
        return page.render("purge.html", item=item, plan=page.kb.purge(item_id, dry_run=True))
    return page.render("purged.html", result=page.kb.purge(item_id))


ROUTES = (
    ("/", listing, ("GET",)),
    ("/search", search, ("GET",)),
    ("/memory/{item_id}", detail, ("GET",)),
    ("/memory/{item_id}/edit", edit, ("POST",)),
    ("/memory/{item_id}/pin", pin, ("POST",)),
    ("/memory/{item_id}/expire", expire, ("POST",)),
    ("/memory/{item_id}/purge", purge, ("GET", "POST")),
)
