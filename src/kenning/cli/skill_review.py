"""Review of what agents propose: ``kenning skill drafts`` (list, approve, reject)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.text import Text

from kenning.errors import Conflict

from . import output
from .skills import _done, reason_option
from .state import json_option, open_kenning, project_option


@click.group(invoke_without_command=True)
@json_option
@click.pass_context
def drafts(ctx: click.Context, as_json: bool) -> None:
    """Skill drafts proposed by consolidation: invisible to list, search and the catalog until a
    person approves one (through the normal strict create) or rejects it.

    \b
    Example:
      kenning skill drafts
      kenning skill drafts approve deploy-staging
      kenning skill drafts reject deploy-staging --reason "too specific"
    """
    if ctx.invoked_subcommand is not None:
        return
    kb = open_kenning(ctx)
    found = [d.to_dict() for d in kb.drafts.list()]
    if as_json:
        output.print_json({"success": True, "count": len(found), "drafts": found})
        return
    if not found:
        output.show("No skill drafts.")
        return
    rows = [(d["name"], output.truncate(d["description"], 70), d["created_at"], d["origin"]) for d in found]
    output.show(output.table(f"{len(found)} skill drafts", ("name", "description", "created", "from"), rows))


@drafts.command()
@click.argument("name")
@click.option("--force", is_flag=True, help="Apply it even if the skill changed since the draft was written (the "
                                            "current text stays in history) or a skill with a close meaning exists.")
@json_option
@project_option
def approve(name: str, force: bool, as_json: bool, project_dir: Path | None) -> None:
    """Apply draft NAME (strict validation, near-duplicate check) and drop the draft.

    Refused when the skill changed since the draft was written, or a new skill's name was taken
    since: both differences are shown (base -> draft, base -> current); --force applies it anyway.

    \b
    Example:
      kenning skill drafts approve deploy-staging
      kenning skill drafts approve deploy-staging --force
    """
    from kenning.consolidate.drafts import DraftConflict

    kb = open_kenning(click.get_current_context(), project_dir=project_dir)
    try:
        result = kb.drafts.approve(name, kb.skills, force=force)
    except DraftConflict as exc:  # the differences on stdout; the one-line error as for any conflict
        if as_json:
            output.print_json(exc.to_dict())
        else:
            click.echo(exc.diffs().rstrip("\n"))
        raise Conflict(exc.summary) from None
    _done(result, as_json)


@drafts.command()
@click.argument("name")
@reason_option
@json_option
def reject(name: str, reason: str, as_json: bool) -> None:
    """Reject draft NAME (kept under drafts/rejected/, never registered).

    \b
    Example:
      kenning skill drafts reject deploy-staging --reason "one-off"
    """
    kb = open_kenning(click.get_current_context())
    draft = kb.drafts.reject(name, reason)
    if as_json:
        output.print_json({"success": True, "rejected": draft.to_dict()})
        return
    output.show(Text(f"Rejected skill draft {draft.name!r}."))


SKILL_COMMANDS: tuple[click.Command, ...] = (drafts,)
