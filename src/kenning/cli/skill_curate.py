"""The curator: ``kenning skill curate``, ``restore``, ``pin`` and ``unpin`` (see kenning.skills.curate)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.progress import Progress
from rich.text import Text

from . import output
from .skills import _done, reason_option
from .state import json_option, open_kenning, project_option

if TYPE_CHECKING:
    from kenning.api import Kenning
    from kenning.skills.curate import Curator, Report


def _curator(ctx: click.Context, project_dir: Path | None) -> tuple[Kenning, Curator]:
    from kenning.skills.curate import Curator  # the library only for commands that run

    kb = open_kenning(ctx, project_dir=project_dir)
    return kb, Curator.of(kb.skills, kb.home)


@contextmanager
def _progress(show: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar for embedding the descriptions, drawn only once embedding starts (the
    vectors of descriptions seen before are kept, so a usual run draws none)."""
    if not show:
        yield None
        return
    state: dict[str, Any] = {}

    def advance(done: int, total: int) -> None:
        if "bar" not in state:
            state["bar"] = Progress(console=output.console(stderr=True), transient=True)
            state["bar"].start()
            state["task"] = state["bar"].add_task("Comparing skill descriptions", total=total)
        state["bar"].update(state["task"], completed=done)

    try:
        yield advance
    finally:
        if "bar" in state:
            state["bar"].stop()


@click.command()
@click.option("--dry-run", is_flag=True, help="Change nothing; print what would happen.")
@click.option("--restore", "restore_name", metavar="NAME", help="Put the archived skill NAME back instead.")
@click.option("--stale-days", type=click.IntRange(min=1), default=30, show_default=True,
              help="Unused for this many days: marked stale.")
@click.option("--archive-days", type=click.IntRange(min=1), default=90, show_default=True,
              help="Unused for this many days: archived (user and project skills only).")
@reason_option
@json_option
@project_option
def curate(dry_run: bool, restore_name: str | None, stale_days: int, archive_days: int, reason: str, as_json: bool,
           project_dir: Path | None) -> None:
    """Tend the skills: mark unused ones stale, archive long-unused ones, flag failing ones and list
    near-duplicate pairs (across languages too) with a merge suggestion.

    A skill is unused from its last view or reported outcome (or its last change, if later).
    Archived skills move under the data directory with a version and an audit row, and come back
    with `kenning skill restore NAME`; pinned skills are never touched; built-in and extra skills
    are only marked.

    \b
    Example:
      kenning skill curate --dry-run
      kenning skill curate
      kenning skill curate --restore docker-deploy
    """
    from kenning.skills.curate import Policy

    ctx = click.get_current_context()
    kb, curator = _curator(ctx, project_dir)
    if restore_name is not None:
        _restore(kb, curator, restore_name, reason, dry_run, as_json)
        return
    policy = Policy(stale_days=stale_days, archive_days=archive_days)
    with _progress(not as_json and sys.stderr.isatty()) as progress:
        report = curator.run(kb.skills.index(), dry_run=dry_run, policy=policy, progress=progress, reason=reason)
    if as_json:
        output.print_json(report.to_dict())
        return
    _show(report)


def _show(report: Report) -> None:
    head = "Dry run: nothing was changed. " if report.dry_run else ""
    output.show(Text(f"{head}{report.message[:1].upper()}{report.message[1:]}."))

    def idle(entry: Any) -> str:
        return f"{entry.mark.idle_days}d"

    rows: list[tuple[Any, ...]]

    if report.stale:
        rows = [(e.skill.name, e.skill.source, idle(e), output.when(e.mark.last_used) or "never", e.note)
                for e in report.stale]
        output.show(output.table(f"Stale (unused for {report.policy.stale_days} days or more)",
                                 ("name", "source", "idle", "last used", "note"), rows))
    if report.archived:
        title = "Would archive" if report.dry_run else "Archived"
        rows = [(e.skill.name, e.skill.source, idle(e), output.when(e.mark.last_used) or "never", str(e.skill.path))
                for e in report.archived]
        output.show(output.table(f"{title} (unused for {report.policy.archive_days} days or more)",
                                 ("name", "source", "idle", "last used", "from"), rows))
    if report.not_archived:
        rows = [(e.skill.name, e.skill.source, e.note) for e in report.not_archived]
        output.show(output.table("Could not archive (left in place)", ("name", "source", "why"), rows))
    if report.failing:
        rows = [(e.skill.name, e.skill.source, f"{e.mark.failed} of {e.mark.outcomes}",
                 output.when(e.mark.last_used)) for e in report.failing]
        output.show(output.table("Failing (most reported outcomes are 'failed')",
                                 ("name", "source", "failed", "last used"), rows))
    if report.duplicates:
        rows = [(p.keep.qualified, p.merge.qualified, f"{p.similarity:.3f}", "yes" if p.cross_language else "no",
                 p.suggestion) for p in report.duplicates]
        output.show(output.table("Near-duplicates", ("keep", "merge", "alike", "across languages", "suggestion"),
                                 rows))
    if report.in_archive:
        names = ", ".join(a.qualified for a in report.in_archive)
        output.show(Text(f"In the archive: {names}. `kenning skill restore NAME` puts one back."))


def _restore(kb: Kenning, curator: Curator, name: str, reason: str, dry_run: bool, as_json: bool) -> None:
    index = kb.skills.index()
    if not dry_run:
        _done(curator.restore(index, name, reason=reason).to_dict(), as_json)
        return
    entry = curator.restorable(index, name)
    message = f"dry run: would restore skill {entry.location.name!r} from {entry.place} to {entry.location.path}"
    _done({"success": True, "dry_run": True, "action": "restore", **entry.to_dict(), "message": message}, as_json)


@click.command()
@click.argument("name")
@click.option("--dry-run", is_flag=True, help="Check that it can be restored; change nothing.")
@reason_option
@json_option
@project_option
def restore(name: str, dry_run: bool, reason: str, as_json: bool, project_dir: Path | None) -> None:
    """Put an archived skill back where it was (refused if something now occupies its place).

    \b
    Example:
      kenning skill restore docker-deploy
      kenning skill restore user:devops/docker-deploy --reason "needed again"
    """
    kb, curator = _curator(click.get_current_context(), project_dir)
    _restore(kb, curator, name, reason, dry_run, as_json)


@click.command()
@click.argument("name")
@reason_option
@json_option
@project_option
def pin(name: str, reason: str, as_json: bool, project_dir: Path | None) -> None:
    """Pin a skill: the curator never marks it stale nor archives it (audited).

    \b
    Example:
      kenning skill pin release-checklist --reason "used once a quarter"
    """
    kb, curator = _curator(click.get_current_context(), project_dir)
    _done(curator.pin(kb.skills.get(name), reason=reason).to_dict(), as_json)


@click.command()
@click.argument("name")
@reason_option
@json_option
@project_option
def unpin(name: str, reason: str, as_json: bool, project_dir: Path | None) -> None:
    """Unpin a skill: the curator treats it like any other again (audited).

    \b
    Example:
      kenning skill unpin release-checklist
    """
    kb, curator = _curator(click.get_current_context(), project_dir)
    _done(curator.unpin(kb.skills.get(name), reason=reason).to_dict(), as_json)


SKILL_COMMANDS: tuple[click.Command, ...] = (curate, restore, pin, unpin)
