"""Installing skills from elsewhere: ``kenning skill install|verify|update|uninstall`` (see kenning.skills.install).

Each command builds one ``Installer`` over ``kb.skills`` with the data directory's settings and calls
it; what needs a person (caution findings) is asked here, between the library's prepare and apply.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from . import output
from .skills import _done, reason_option
from .state import json_option, open_kenning, project_option

if TYPE_CHECKING:
    from kenning.skills.install import Candidate, Installer, Plan, Update

_VERDICT_STYLE = {"dangerous": "bold red", "caution": "bold yellow", "safe": "bold green"}

to_option = click.option("--to", "target", type=click.Choice(("user", "project")), default="user", show_default=True,
                         help="Your own skills ($KENNING_HOME/skills) or the project's (.agents/skills unless another "
                              "folder exists).")
yes_option = click.option("--yes", "-y", is_flag=True, help="Accept caution findings without asking (never dangerous).")


def pass_installer(func: Callable[..., None]) -> Callable[..., None]:
    """Give the command an ``Installer`` over the skills of ``--project``, as its first argument."""

    @project_option
    @functools.wraps(func)
    def wrapper(*args: Any, project_dir: Path | None = None, **kwargs: Any) -> None:
        kb = open_kenning(click.get_current_context(), project_dir=project_dir)
        func(kb.installer, *args, **kwargs)

    return wrapper


def _show_candidate(c: Candidate, title: str) -> None:
    report = c.report
    if report.findings:
        rows = [(f.severity, f.kind, f.file + (f":{f.line}" if f.line else ""), f.match, f.reason)
                for f in report.findings]
        output.show(output.table(f"{len(rows)} findings in {c.name}", ("severity", "kind", "where", "match", "why"),
                                 rows))
    counts = ", ".join(f"{n} {s}" for s, n in report.counts().items() if n) or "no findings"
    output.show(Text(f"{title}: {report.verdict} ({counts}); trust {c.level}", style=_VERDICT_STYLE[report.verdict]))
    if c.left_out:
        output.show(Text("  left out (hidden, never loaded or versioned): " + ", ".join(c.left_out), style="dim"))
    masked = c.masker.found if c.masker else []
    if masked:  # before a person confirms: what lands is the masked text
        output.show(Text("  secrets masked: " + "; ".join(f"{m.kind} x{m.count} at {m.where}" for m in masked),
                         style="yellow"))


def _accepts(candidates: Sequence[Candidate], accept: bool, as_json: bool, verb: str) -> bool:
    """Whether caution findings are accepted: by the flags, else by a person at a terminal. Declining
    (or no terminal) leaves it to the library, which refuses and audits the refusal."""
    asking = [c for c in candidates if c.decision.outcome == "ask"]
    if accept or not asking or not sys.stdin.isatty():
        return accept
    names = ", ".join(repr(c.name) for c in asking)
    return click.confirm(f"{verb} {names} with these caution findings?", default=False, err=as_json)


@click.command(name="install")
@click.argument("source")
@to_option
@click.option("--skill", "only", multiple=True, metavar="NAME",
              help="The skill to install when SOURCE holds several (repeatable; a folder name or path in SOURCE).")
@click.option("--name", help="Install the skill under this name (its SKILL.md name is changed to match).")
@click.option("--force", is_flag=True, help="Replace a skill of the same name, and accept caution findings.")
@yes_option
@reason_option
@json_option
@pass_installer
def install(installer: Installer, source: str, target: str, only: tuple[str, ...], name: str | None, force: bool,
            yes: bool, reason: str, as_json: bool) -> None:
    """Install a skill from a folder, a .zip or .skill archive, or a git repository.

    SOURCE is a path or a git URL, with @REF (branch, tag or commit) and #SUBDIR (the folder inside
    it). The skill is unpacked into a quarantine folder (links, device files, paths leading out,
    more than 200 files or a file over 1 MiB refuse it), checked, scanned, and moved into place only
    if the trust policy allows: dangerous is never installed; caution from a source not listed in
    [skills] trusted is asked about (--yes or --force accepts it; without a terminal it is refused).
    The install is a skill version (history, rollback) and goes into skills.lock beside the skills
    folder.

    \b
    Example:
      kenning skill install ./downloads/pdf-tools
      kenning skill install ./pdf.skill --to project
      kenning skill install https://github.com/acme/skills@v1.2#skills/pdf
      kenning skill install ~/code/team-skills --skill deploy --skill lint --yes
    """
    with installer.prepare(source, target=target, name=name, only=only, force=force) as plan:
        if not as_json:
            _show_plan(plan)
        accept = _accepts(plan.candidates, force or yes, as_json, "Install")
        done = installer.apply(plan, accept_caution=accept, reason=reason)
    if as_json:
        output.print_json({"success": True, "source": str(plan.spec), "commit": plan.commit,
                           "installed": [d.to_dict() for d in done]})
        return
    for item in done:
        _done(item.to_dict(), False)


def _show_plan(plan: Plan) -> None:
    where = str(plan.spec) + (f" at {plan.commit[:12]}" if plan.commit else "")
    output.show(Text(f"From {where}:", style="bold"))
    for c in plan.candidates:
        _show_candidate(c, f"{c.name} -> {c.dest.path}" + (" (replaces the folder there)" if c.replaces else ""))


@click.command(name="verify")
@json_option
@pass_installer
def verify(installer: Installer, as_json: bool) -> None:
    """Re-hash every installed skill against skills.lock and report drift: changed (edited since it
    was installed), missing (its folder is gone) and not locked (a skill beside installed ones that
    the lock does not name). Exit code 1 on any drift.

    \b
    Example:
      kenning skill verify
      kenning skill verify --project ~/code/app --json || echo "drift"
    """
    rows = installer.verify()
    drift = [r for r in rows if r.status != "ok"]
    if as_json:
        output.print_json({"success": not drift, "drift": len(drift), "skills": [r.to_dict() for r in rows]})
    elif not rows:
        output.show("No skills.lock here: nothing was installed with `kenning skill install`.")
    else:
        table = [(r.name, r.source, r.status, str(r.path), r.installed_from or "") for r in rows]
        output.show(output.table("Installed skills", ("name", "source", "status", "path", "installed from"), table))
        output.show(Text(f"{len(drift)} of {len(rows)} drifted." if drift else f"All {len(rows)} match skills.lock.",
                         style="bold red" if drift else "bold green"))
    if drift:
        click.get_current_context().exit(1)


@click.command(name="update")
@click.argument("name", required=False)
@click.option("--force", is_flag=True, help="Overwrite local edits (they stay in the history), and accept caution.")
@yes_option
@reason_option
@json_option
@pass_installer
def update(installer: Installer, name: str | None, force: bool, yes: bool, reason: str, as_json: bool) -> None:
    """Fetch installed skills (NAME, or all of them) from their source again, scan them, show the
    difference and replace them.

    A skill edited here since it was installed (its files no longer match skills.lock) is not
    overwritten without --force. The trust policy applies as for install.

    \b
    Example:
      kenning skill update
      kenning skill update pdf --yes
      kenning skill update pdf --force
    """
    with installer.prepare_update(name, force=force) as updates:
        if not as_json:
            _show_updates(updates)
        changed = [u.candidate for u in updates if u.candidate is not None]
        accept = _accepts(changed, force or yes, as_json, "Update")
        done = installer.apply_update(updates, accept_caution=accept, reason=reason)
    if as_json:
        output.print_json({"success": True, "updates": [u.to_dict() for u in updates],
                           "updated": [d.to_dict() for d in done]})
        return
    for item in done:
        _done(item.to_dict(), False)
    if not done:
        output.show("Nothing to update.")


def _show_updates(updates: Sequence[Update]) -> None:
    for u in updates:
        output.show(Text(f"{u.entry.name} ({u.root.name}, from {u.entry.source}): {u.status}", style="bold"))
        if u.diff:
            click.echo(u.diff.rstrip("\n"))
        if u.candidate is not None:
            _show_candidate(u.candidate, f"{u.entry.name} upstream")


@click.command(name="uninstall")
@click.argument("name")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@reason_option
@json_option
@pass_installer
def uninstall(installer: Installer, name: str, yes: bool, reason: str, as_json: bool) -> None:
    """Remove an installed skill and its skills.lock entry; its history stays, so rollback can
    restore it.

    \b
    Example:
      kenning skill uninstall pdf --yes
    """
    if not yes:
        found = installer.skills.get(name)
        if not sys.stdin.isatty():
            raise click.UsageError(f"refusing to uninstall skill {found.name!r} without confirmation; pass --yes")
        click.confirm(f"Uninstall skill {found.name!r} at {found.path}?", abort=True)
    _done(installer.uninstall(name, reason=reason), as_json)


SKILL_COMMANDS: tuple[click.Command, ...] = (install, verify, update, uninstall)
