"""Skill pages: the library (source, trust, scan verdict, availability, usage), one skill with its
linked files, its recorded versions with diffs and rollback, and the review queue of drafts with
their findings and diffs, to approve or reject. Viewing here reads the files only: it is not a use
of the skill, so unlike ``skill_view`` it records no usage."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from ..consolidate.drafts import DraftConflict, UnsafeDraft
from ..errors import InvalidInput
from ..skills import files
from ..skills.library import CURRENT
from ..skills.model import MAX_FILE_BYTES, SKILL_FILE
from .app import Page, redirect


def library(page: Page) -> Response:
    listed = page.kb.skills.skills_list()
    usage = {u.name: u for u in page.kb.skills.stats()}
    return page.render("skills.html", listed=listed, usage=usage)


def view(page: Page) -> Response:
    """A skill's SKILL.md (or, with ``?file=``, one of its files) and the list of its files."""
    skill = page.kb.skills.get(page.request.path_params["name"])
    rel = page.arg("file") or SKILL_FILE
    target = skill.skill_md if rel == SKILL_FILE else files.inside_skill(skill.path, files.clean_rel_path(rel))
    if not target.is_file():
        raise InvalidInput(f"skill {skill.name!r} has no file {rel!r}; its files are listed on its page")
    data = files.read_limited(target, rel, MAX_FILE_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = f"[binary file, {len(data):,} bytes: not shown]"
    linked, more = files.linked_files(skill.path)
    usage = page.kb.skills.stats(skill.name)
    return page.render("skill.html", skill=skill, rel=rel, text=text, linked=linked, more=more,
                       usage=usage[0] if usage else None, recent=page.kb.skills.recent_usage(skill.name, 10))


def versions(page: Page) -> Response:
    """Every recorded version, and the diff between two of them (default: the newest against the files now)."""
    name = page.request.path_params["name"]
    skill = page.kb.skills.get(name)
    history = page.kb.skills.history(name)
    change = None
    if history:
        old = page.arg("from") or str(history[-1].number)
        change = page.kb.skills.diff(name, old, page.arg("to") or CURRENT)
    return page.render("versions.html", skill=skill, history=list(reversed(history)), change=change,
                       modified=page.kb.skills.modified_since_recorded(name), message=page.arg("done"))


def rollback(page: Page) -> Response:
    name = page.request.path_params["name"]
    result: dict[str, Any] = page.kb.skills.rollback(name, page.arg("version"), reason=page.arg("reason"))
    return redirect(f"/skills/{name}/versions", done=str(result.get("message") or f"restored version "
                                                                                  f"{page.arg('version')}"))


def queue(page: Page) -> Response:
    return page.render("review.html", drafts=page.kb.drafts.review(page.kb.skills), message=page.arg("done"))


def draft(page: Page, problem: str = "", status: int = 200) -> Response:
    (item,) = page.kb.drafts.review(page.kb.skills, page.request.path_params["name"])
    return page.render("draft.html", status, item=item, report=item.draft.scan, problem=problem)


def approve(page: Page) -> Response:
    name = page.request.path_params["name"]
    try:
        page.kb.drafts.approve(name, page.kb.skills, force=page.arg("force") == "1",
                               accept_caution=page.arg("accept") == "1", reviewed=page.arg("reviewed") or None)
    except (DraftConflict, UnsafeDraft) as exc:  # shown beside the draft, with its findings and diff
        return draft(page, problem=exc.summary, status=409 if isinstance(exc, DraftConflict) else 403)
    return redirect("/review", done=f"approved {name}")


def reject(page: Page) -> Response:
    name = page.request.path_params["name"]
    if not page.arg("reason"):
        raise InvalidInput("say why the draft is rejected (the reason is kept in the audit log)")
    page.kb.drafts.reject(name, page.arg("reason"))
    return redirect("/review", done=f"rejected {name}")


ROUTES = (
    ("/skills", library, ("GET",)),
    ("/skills/{name}", view, ("GET",)),
    ("/skills/{name}/versions", versions, ("GET",)),
    ("/skills/{name}/rollback", rollback, ("POST",)),
    ("/review", queue, ("GET",)),
    ("/review/{name}", draft, ("GET",)),
    ("/review/{name}/approve", approve, ("POST",)),
    ("/review/{name}/reject", reject, ("POST",)),
)
