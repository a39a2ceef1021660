"""Review of what agents propose: ``kenning skill review`` (list, show, diff, approve, reject).

Drafts come from MCP ``skill_manage`` and from consolidation (``kenning.consolidate.drafts``);
each is scanned. The list shows each draft's verdict, findings, whether it creates or edits (and
which live skill) and the size of its change; ``show`` and ``diff`` look at one. ``approve`` never
applies a ``dangerous`` draft, asks before a ``caution`` one (``--yes`` for scripts) and refuses an
edit whose skill changed since, showing both differences, unless ``--force``. ``kenning skill
drafts`` is the same group under its older name, so existing scripts keep running.

A draft's text is shown with control and invisible characters spelled out (``<U+202E>``): the
reviewer sees what the agent would read, and a draft cannot drive the terminal.
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from kenning.errors import Conflict, Forbidden, InvalidInput

from . import output
from .skills import _done, reason_option
from .state import json_option, open_kenning, project_option

if TYPE_CHECKING:
    from kenning.consolidate.drafts import DraftReview
    from kenning.skills.scan import Finding, ScanReport

_VERDICT_STYLE = {"dangerous": "bold red", "caution": "bold yellow", "safe": "bold green"}
_LIST_FINDINGS = 3  # findings quoted under the list, per draft


def _visible(text: str) -> str:
    """``text`` with control, format (bidi, zero-width) and other invisible characters written as
    ``<U+XXXX>``; newlines and tabs kept."""
    out = []
    for ch in text:
        if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"):
            out.append(ch)
        else:
            out.append(f"<U+{ord(ch):04X}>")
    return "".join(out)


def _counts(report: ScanReport | None) -> str:
    if report is None:
        return ""
    return ", ".join(f"{n} {s}" for s, n in report.counts().items() if n) or "none"


def _findings_title(name: str, report: ScanReport) -> str:
    n = len(report.findings)
    return f"Skill draft {name}: {n} finding{'' if n == 1 else 's'}"


def _where(f: Finding) -> str:
    return f.file + (f":{f.line}" if f.line else "")


def _findings_table(report: ScanReport, title: str) -> Any:
    rows = [(f.severity, f.kind, _where(f), _visible(f.match), f.reason) for f in report.findings]
    return output.table(title, ("severity", "kind", "where", "match", "why"), rows)


def _verdict_line(report: ScanReport) -> Text:
    return Text(f"Verdict: {report.verdict} ({_counts(report)})", style=_VERDICT_STYLE.get(report.verdict, "bold"))


def _what(item: DraftReview) -> str:
    draft = item.draft
    if item.problem:
        return f"{draft.action} (SKILL.md not read)"
    if draft.action == "edit":
        return f"edit {item.live or draft.skill + ' (deleted since)'}"
    return "create" + (f" (name taken since by {item.live})" if item.live else "")


def _list(as_json: bool, project_dir: Path | None) -> None:
    kb = open_kenning(click.get_current_context(), project_dir=project_dir)
    found = kb.drafts.review(kb.skills)
    if as_json:
        # each draft's text is in its diff already (for a create, all of it): not twice
        listed = [{k: v for k, v in r.to_dict().items() if k != "content"} for r in found]
        output.print_json({"success": True, "count": len(found), "drafts": listed})
        return
    if not found:
        output.show("No skill drafts.")
        return
    rows = [(r.draft.name, _what(r) + ("; changed since: needs --force" if r.conflict else ""), r.draft.verdict,
             _counts(r.draft.scan), f"+{r.added} -{r.removed}", r.draft.origin,
             output.truncate(r.draft.description, 60)) for r in found]
    output.show(output.table(f"{len(found)} skill drafts", ("name", "action", "verdict", "findings", "diff", "from",
                                                            "description"), rows))
    for r in found:
        report = r.draft.scan
        if report is None or not report.findings:
            continue
        output.show(Text(f"{r.draft.name}: {r.draft.verdict}", style=_VERDICT_STYLE.get(r.draft.verdict, "bold")))
        for f in report.findings[:_LIST_FINDINGS]:
            output.show(Text(f"  {f.severity} {f.kind} at {_where(f)}: {_visible(f.match)}"))
        if len(report.findings) > _LIST_FINDINGS:
            output.show(Text(f"  … {len(report.findings) - _LIST_FINDINGS} more: kenning skill review show "
                             f"{r.draft.name}"))


@click.group(invoke_without_command=True)
@json_option
@project_option
@click.pass_context
def review(ctx: click.Context, as_json: bool, project_dir: Path | None) -> None:
    """Skill drafts that agents proposed (MCP skill_manage, consolidation), each scanned: invisible
    to list, search and the catalog until a person approves one (through the normal strict create
    or edit) or rejects it. Lists each draft's verdict, findings, whether it creates or edits (and
    which live skill), and the size of its change.

    \b
    Example:
      kenning skill review
      kenning skill review show deploy-staging
      kenning skill review diff deploy-staging
      kenning skill review approve deploy-staging
      kenning skill review reject deploy-staging --reason "too specific"
    """
    if ctx.invoked_subcommand is None:
        _list(as_json, project_dir)


@click.group(invoke_without_command=True)
@json_option
@project_option
@click.pass_context
def drafts(ctx: click.Context, as_json: bool, project_dir: Path | None) -> None:
    """The older name of `kenning skill review`, kept for existing scripts: the same list and the
    same show, diff, approve and reject (here --reason is optional).

    \b
    Example:
      kenning skill drafts
      kenning skill drafts approve deploy-staging
      kenning skill drafts reject deploy-staging --reason "too specific"
    """
    if ctx.invoked_subcommand is None:
        _list(as_json, project_dir)


@click.command()
@click.argument("name")
@json_option
@project_option
def show(name: str, as_json: bool, project_dir: Path | None) -> None:
    """Show draft NAME: its SKILL.md, where it came from, what it changes, and every finding of its
    scan (file, line, what matched, why).

    \b
    Example:
      kenning skill review show deploy-staging
      kenning skill review show deploy-staging --json
    """
    kb = open_kenning(click.get_current_context(), project_dir=project_dir)
    (item,) = kb.drafts.review(kb.skills, name)
    draft, report, content = item.draft, item.draft.scan, item.content
    if as_json:
        output.print_json({"success": True, **item.to_dict()})
        return
    fields = [("name", draft.name), ("action", _what(item)), ("live skill", item.live_path or ""),
              ("description", _visible(draft.description)), ("from", draft.origin),
              ("created", output.when(draft.created_at)), ("path", draft.path),
              ("base checksum", draft.base_checksum or ""), ("verdict", draft.verdict),
              ("findings", _counts(report)), ("diff", f"+{item.added} -{item.removed}"),
              ("conflict", item.conflict or ""), ("problem", item.problem or "")]
    output.show(output.table(f"Skill draft {draft.name}", ("field", "value"), [(k, v) for k, v in fields if v != ""]))
    output.show(Text("SKILL.md:", style="bold"), Text(_visible(content).rstrip("\n")))
    if report is not None:
        if report.findings:
            output.show(_findings_table(report, _findings_title(draft.name, report)))
        output.show(_verdict_line(report))


@click.command("diff")
@click.argument("name")
@json_option
@project_option
def diff_command(name: str, as_json: bool, project_dir: Path | None) -> None:
    """Show the unified diff of draft NAME against the live skill (for a new skill, against nothing).

    \b
    Example:
      kenning skill review diff deploy-staging
      kenning skill review diff deploy-staging --json | jq -r .diff
    """
    kb = open_kenning(click.get_current_context(), project_dir=project_dir)
    (item,) = kb.drafts.review(kb.skills, name)
    if item.problem:
        raise InvalidInput(item.problem)
    if as_json:
        output.print_json({"success": True, "name": item.draft.name, "action": item.draft.action,
                           "live": item.live, "diff": item.diff, "added": item.added, "removed": item.removed,
                           "conflict": item.conflict})
        return
    if not item.diff:
        output.show(Text(f"Draft {item.draft.name!r} is the same as the live skill {item.live}."))
        return
    click.echo(_visible(item.diff).rstrip("\n"))


@click.command()
@click.argument("name")
@click.option("--force", is_flag=True, help="Apply it even if the skill changed since the draft was written (the "
                                            "current text stays in history) or a skill with a close meaning exists. "
                                            "Never applies a dangerous draft.")
@click.option("--yes", "-y", is_flag=True, help="Accept a caution draft's findings without asking (for scripts).")
@json_option
@project_option
def approve(name: str, force: bool, yes: bool, as_json: bool, project_dir: Path | None) -> None:
    """Apply draft NAME (strict validation, near-duplicate check) and drop the draft.

    A dangerous draft is never applied: edit its SKILL.md or reject it. A caution draft shows its
    findings and asks first (--yes in scripts; without a terminal it is refused). Refused when the
    skill changed since the draft was written, or a new skill's name was taken since: both
    differences are shown (base -> draft, base -> current); --force applies it anyway.

    \b
    Example:
      kenning skill review approve deploy-staging
      kenning skill review approve deploy-staging --yes --json
      kenning skill review approve deploy-staging --force
    """
    from kenning.consolidate.drafts import DraftConflict, UnsafeDraft

    kb = open_kenning(click.get_current_context(), project_dir=project_dir)
    (item,) = kb.drafts.review(kb.skills, name)
    report = item.draft.scan
    accept = yes
    # ask only when the library would otherwise go ahead: not for a dangerous draft, not past a conflict
    if (report is not None and report.verdict == "caution" and not yes and not as_json and sys.stdin.isatty()
            and (item.conflict is None or force)):
        output.show(_findings_table(report, _findings_title(item.draft.name, report)), _verdict_line(report))
        click.confirm(f"Approve skill draft {item.draft.name!r} ({_what(item)}) with these findings?", abort=True)
        accept = True
    try:
        result = kb.drafts.approve(name, kb.skills, force=force, accept_caution=accept,
                                   reviewed=None if report is None else report.content_hash)
    except DraftConflict as exc:  # the differences on stdout; the one-line error as for any conflict
        if as_json:
            output.print_json(exc.to_dict())
        else:
            click.echo(_visible(exc.diffs()).rstrip("\n"))
        raise Conflict(exc.summary) from None
    except UnsafeDraft as exc:  # every finding on stdout; the one-line refusal on stderr
        if as_json:
            output.print_json(exc.to_dict())
        else:
            output.show(_findings_table(exc.report, _findings_title(exc.draft.name, exc.report)),
                        _verdict_line(exc.report))
        if exc.needs_confirmation:
            raise click.UsageError(exc.summary) from None
        raise Forbidden(exc.summary) from None
    _done(result, as_json)


def _reject_command(reason_required: bool) -> click.Command:
    """``reject``: ``--reason`` is required under ``review``, optional under the older ``drafts``."""
    reason = (click.option("--reason", required=True, help="Why (kept in the audit log).") if reason_required
              else reason_option)

    @click.command()
    @click.argument("name")
    @reason
    @json_option
    def reject(name: str, reason: str, as_json: bool) -> None:
        """Reject draft NAME (kept under drafts/rejected/, never registered; the reason and the scan's
        verdict go into the audit log).

        \b
        Example:
          kenning skill review reject deploy-staging --reason "one-off"
        """
        kb = open_kenning(click.get_current_context())
        draft = kb.drafts.reject(name, reason)
        if as_json:
            output.print_json({"success": True, "rejected": draft.to_dict()})
            return
        output.show(Text(f"Rejected skill draft {draft.name!r} ({draft.verdict})."))

    return reject


for _command in (show, diff_command, approve, _reject_command(reason_required=True)):
    review.add_command(_command)
for _command in (show, diff_command, approve, _reject_command(reason_required=False)):
    drafts.add_command(_command)

SKILL_COMMANDS: tuple[click.Command, ...] = (review, drafts)
