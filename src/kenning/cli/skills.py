"""Skill commands: ``kenning skill list|view|search|catalog|check|scan|approve|create|patch|edit|delete|write-file|
remove-file|history|diff|rollback|feedback|stats``, and those of skill_install (install, verify, update,
uninstall), skill_review (review, drafts) and skill_curate (curate, restore, pin, unpin), which join this
group. Each calls one library method; ``--json`` prints what the library returned."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import click
from rich.text import Text

from kenning import fileio
from kenning.errors import Conflict, InvalidInput
from kenning.skills.files import MAX_FILE_BYTES as LINKED_FILE_BYTES

from . import output
from .state import home_of, json_option, open_kenning, project_option

if TYPE_CHECKING:
    from kenning.skills import Skills

P = ParamSpec("P")
R = TypeVar("R")
OUTCOMES = ("helped", "failed", "not-relevant")  # kenning.skills.OUTCOMES, without importing the library
SKILL_MD_BYTES = 400_000  # 100,000 characters (the SKILL.md limit) take at most this many bytes in UTF-8

reason_option = click.option("--reason", default="", help="Why (kept with the version and in the audit log).")
from_option = click.option("--from", "source", metavar="FILE", help="Read the content from FILE ('-': stdin).")
content_option = click.option("--content", "text", help="The content itself.")


def pass_skills(func: Callable[Concatenate[Skills, P], R]) -> Callable[..., R]:
    """Give the command ``kb.skills`` as its first argument, opened for ``--project``."""

    @project_option
    @functools.wraps(func)
    def wrapper(*args: Any, project_dir: Path | None = None, **kwargs: Any) -> R:
        kb = open_kenning(click.get_current_context(), project_dir=project_dir)
        return func(kb.skills, *args, **kwargs)

    return wrapper


def _read_input(source: str | None, text: str | None, what: str, limit: int) -> bytes:
    """The bytes given by ``--from FILE`` (``-`` for stdin) or ``--content TEXT``; a file's size is
    checked before it is read, and no more than ``limit`` bytes are ever read."""
    if (source is None) == (text is None):
        raise click.UsageError(f"give the {what} with --from FILE (or --from - for stdin) or with --content TEXT")
    if text is not None:
        return text.encode("utf-8")
    if source == "-":
        data = sys.stdin.buffer.read(limit + 1)
        if len(data) > limit:
            raise InvalidInput(f"the {what} on stdin is more than {limit:,} bytes, the limit for it")
        return data
    return fileio.read_limited(Path(str(source)).expanduser(), limit, what=f"the {what} {source}")


def _as_text(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"the {what} is not UTF-8 text") from None



def _done(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        output.print_json(result)
        return
    output.show(Text(result["message"][:1].upper() + result["message"][1:] + "."))
    for similar in result.get("similar", []):
        output.show(Text(f"  near-duplicate: {similar['name']} ({similar['source']}, {similar['similarity']})"))
    for masked in result.get("masked", []):
        where = f"{masked['file']} line {masked['line']}" if masked.get("file") else "reason"
        output.show(Text(f"  masked: {where}: {masked['count']} {masked['kind']}"))


def _missing(row: dict[str, Any]) -> str:
    return "yes" if row["available"] else "no: " + ", ".join(row["missing"])


def _marks(row: dict[str, Any]) -> str:
    """What the curator noticed, after the name: pinned, stale (unused a month), failing (mostly failed)."""
    marks = [m for m in ("pinned", "stale", "failing") if row.get(m)]
    return f" ({', '.join(marks)})" if marks else ""


def _verdict(row: dict[str, Any]) -> str:
    if row["held"]:
        return "dangerous: held back"
    return "built-in" if row["source"] == "builtin" else str(row["verdict"])  # shipped, so never scanned


# -- the group -------------------------------------------------------------------------------------


@click.group(name="skill")
def skill() -> None:
    """Skills: folders of instructions an agent loads when a task needs them.

    Skills come from the project (.agents/skills, .kenning/skills, .claude/skills), then
    $KENNING_HOME/skills, then kenning's built-in skills, then [skills] extra_dirs. Every change is
    versioned.

    \b
    Example:
      kenning skill list
      kenning skill view kenning-memory
    """


@skill.command(name="list")
@click.option("--category", help="Only this category (and its sub-categories).")
@json_option
@pass_skills
def list_skills(skills: Skills, category: str | None, as_json: bool) -> None:
    """List skills: name, description, where each comes from, whether it can run here.

    \b
    Example:
      kenning skill list --category devops
    """
    result = skills.skills_list(category)
    if as_json:
        output.print_json(result)
        return
    if not result["skills"]:
        output.show("No skills found." + (f" (category {category!r})" if category else ""))
    else:
        rows = [(r["name"] + _marks(r), r["category"], r["source"], _missing(r), _verdict(r),
                 output.truncate(r["description"], 70)) for r in result["skills"]]
        output.show(output.table(f"{result['count']} skills", ("name", "category", "source", "available", "scan",
                                                              "description"), rows))
    if result["shadowed"]:
        shadowed = [(s["name"], s["source"], s["path"], s["shadowed_by"]) for s in result["shadowed"]]
        output.show(output.table("Shadowed by a higher source", ("name", "source", "path", "shadowed by"), shadowed))
    for dup in result["duplicates"]:
        output.show(Text(f"Duplicate name {dup['name']!r} in the {dup['source']} source: use "
                         + " or ".join(dup["use"])))
    if result["skipped"]:
        output.show(Text(f"{result['skipped']} skill folder(s) could not be loaded: `kenning skill check` says why."))
    if result["held"]:
        output.show(Text(f"{result['held']} skill(s) scanned as dangerous are held back from the catalog, search and "
                         "context: `kenning skill scan NAME` shows why, `kenning skill approve NAME` lets one in."))


@skill.command()
@click.argument("name")
@click.argument("file_path", required=False)
@json_option
@pass_skills
def view(skills: Skills, name: str, file_path: str | None, as_json: bool) -> None:
    """Show a skill's SKILL.md and its linked files, or one file of it (FILE_PATH).

    \b
    Example:
      kenning skill view kenning-memory
      kenning skill view docker-deploy references/compose.md
    """
    result = skills.skill_view(name, file_path)
    if as_json:
        output.print_json(result)
        return
    where = f"{result['name']} ({result['source']}: {result['path']})"
    if not result["available"]:
        where += "  unavailable here: " + ", ".join(result["missing"])
    output.show(Text(where, style="bold"))
    click.echo(result["content"].rstrip("\n"))
    linked = [f for group in result["linked_files"].values() for f in group]
    if linked and file_path is None:
        more = f" (and {result['files_not_listed']} more)" if result.get("files_not_listed") else ""
        output.show(Text("\nLinked files: " + ", ".join(linked) + more))


@skill.command()
@click.argument("task")
@click.option("-k", "k", type=click.IntRange(1, 100), default=5, show_default=True, help="How many skills.")
@click.option("--min-relevance", type=click.FloatRange(0, 1),
              help="Leave out skills less likely to fit than this (0-1; 0 lists all k). "
                   "Default: the skill relevance floor.")
@json_option
@pass_skills
def search(skills: Skills, task: str, k: int, min_relevance: float | None, as_json: bool) -> None:
    """Find the skills that fit a task, by words and meaning (English and Chinese alike).

    Each skill's relevance estimates how likely it fits, on one scale for every task; skills
    below the floor are left out, so a task no skill fits lists none. Skills marked
    `always: true` are listed after the matches.

    \b
    Example:
      kenning skill search "roll back a failed deployment"
      kenning skill search "备份数据库" -k 3
      kenning skill search "bake sourdough bread" --min-relevance 0 --json
    """
    result = skills.skills_search(task, k, min_relevance=min_relevance)
    if as_json:
        output.print_json(result)
        return
    if not result["skills"]:
        output.show(result["message"] if result.get("message", "").startswith("no skill fits")
                    else "No skills yet: `kenning skill create` adds one.")
        return
    rows = [(f"{r['relevance']:.2f}", f"{r['score']:.2f}", r["name"] + ("" if r["available"] else " (unavailable)"),
             output.truncate(r["description"], 50), r["why"]) for r in result["skills"]]
    output.show(output.table(f"Skills for: {output.truncate(task, 60)}",
                             ("relevance", "score", "name", "description", "why"), rows))
    if result.get("message"):
        output.show(result["message"])


@skill.command()
@click.option("--budget", "budget_tokens", type=int, default=2000, show_default=True,
              help="Most tokens the catalog may take.")
@click.option("--task", help="Put the skills matching this task first, with their whole descriptions.")
@click.option("--category", help="Only this category (and its sub-categories).")
@json_option
@pass_skills
def catalog(skills: Skills, budget_tokens: int, task: str | None, category: str | None, as_json: bool) -> None:
    """Print the skill index a model sees in its system prompt, within a token budget.

    Descriptions are shortened evenly when the budget is tight, then skills are listed by name
    only, then left out with a count.

    \b
    Example:
      kenning skill catalog --budget 1500
      kenning skill catalog --budget 800 --task "deploy the web app"
    """
    result = skills.skills_catalog(budget_tokens, task=task, category=category)
    if as_json:
        output.print_json(result)
        return
    click.echo(result["text"].rstrip("\n"))
    output.show(Text(
        f"\n{result['tokens']} of {result['budget_tokens']} tokens; {result['skills']} skills: {result['full']} in full, "
        f"{result['shortened']} shortened, {result['name_only']} by name, {result['omitted']} left out"
        + (" (from cache)" if result["cached"] else ""), style="dim"))


@skill.command()
@json_option
@pass_skills
def check(skills: Skills, as_json: bool) -> None:
    """Report skills that could not be loaded, warnings, duplicates and shadowed skills.

    \b
    Example:
      kenning skill check --project ~/code/app
    """
    notes = skills.check()
    if as_json:
        output.print_json([n.to_dict() for n in notes])
        return
    roots = [(s.name, str(s.root), "yes" if s.writable else "no", "yes" if s.root.is_dir() else "no")
             for s in skills.sources]
    output.show(output.table("Sources, highest first", ("source", "root", "writable", "exists"), roots))
    if not notes:
        output.show(f"All {len(skills.index().skills)} skills load cleanly.")
        return
    rows = [(n.level, n.source, str(n.path), n.message) for n in notes]
    output.show(output.table("Diagnostics", ("level", "source", "path", "message"), rows))


DANGEROUS_EXIT = 3  # beside click's 1 (error) and 2 (usage), so a script can tell "refuse" from "broken"


@skill.command()
@click.argument("target", metavar="PATH|NAME")
@json_option
@project_option
def scan(target: str, as_json: bool, project_dir: Path | None) -> None:
    """Scan a skill for prompt injection, exfiltration, download-and-run, destructive commands,
    reverse shells, credential reads, persistence, secrets, hidden Unicode, binaries, archives,
    links out of the folder and oversize content.

    PATH is a skill folder (with SKILL.md); otherwise NAME is looked up like `skill view` does.
    The verdict: dangerous (a critical finding), caution (a high one) or safe. Reports are
    cached by content in the data directory's cache/ folder.

    Exit code: 0 for safe or caution, 3 for dangerous (1 and 2 remain errors and bad usage).

    \b
    Example:
      kenning skill scan ./downloads/pdf-tools
      kenning skill scan docker-deploy --json
      kenning skill scan ./new-skill || echo "refused"
    """
    from kenning.config import load_settings
    from kenning.skills.scan import scan_skill

    ctx = click.get_current_context()
    folder = Path(target).expanduser()
    if folder.is_dir() and (folder / "SKILL.md").is_file():
        cache_dir = load_settings(home_of(ctx)).cache_dir
    else:  # a name: the library's lookup, with its candidates and hints on a miss
        kb = open_kenning(ctx, project_dir=project_dir)
        folder, cache_dir = kb.skills.get(target).path, kb.settings.cache_dir
    report = scan_skill(folder, cache_dir=cache_dir)
    if as_json:
        output.print_json(report.to_dict())
    else:
        if report.findings:
            rows = [(f.severity, f.kind, f.file + (f":{f.line}" if f.line else ""), f.match, f.reason)
                    for f in report.findings]
            output.show(output.table(f"{len(rows)} findings in {report.path}", ("severity", "kind", "where", "match",
                                                                                 "why"), rows))
        style = {"dangerous": "bold red", "caution": "bold yellow", "safe": "bold green"}[report.verdict]
        counts = ", ".join(f"{n} {s}" for s, n in report.counts().items() if n) or "no findings"
        output.show(Text(f"Verdict: {report.verdict} ({counts})" + (" (from cache)" if report.cached else ""),
                         style=style))
    if report.verdict == "dangerous":
        ctx.exit(DANGEROUS_EXIT)


@skill.command()
@click.argument("name")
@reason_option
@json_option
@pass_skills
def approve(skills: Skills, name: str, reason: str, as_json: bool) -> None:
    """Let skill NAME, held back because the scanner called it dangerous, into the catalog, search and
    context, as its files are now (a later change is scanned again). Read `kenning skill scan NAME`
    first. Audited.

    \b
    Example:
      kenning skill scan pentest-notes
      kenning skill approve pentest-notes --reason "teaching material, reviewed"
    """
    result = skills.approve(name, reason=reason)
    if as_json:
        output.print_json(result)
        return
    output.show(Text(result["message"][:1].upper() + result["message"][1:] + "."))


@skill.command()
@click.argument("name")
@from_option
@content_option
@click.option("--category", help="Folder to put it in, e.g. 'devops' or 'devops/aws'.")
@click.option("--to", "target", type=click.Choice(("user", "project")), default="user", show_default=True,
              help="Your own skills, or the project's (.agents/skills unless another folder exists).")
@click.option("--force", is_flag=True, help="Create it even if a skill with a close meaning exists.")
@reason_option
@json_option
@pass_skills
def create(skills: Skills, name: str, source: str | None, text: str | None, category: str | None, target: str,
           force: bool, reason: str, as_json: bool) -> None:
    """Create skill NAME from a whole SKILL.md (front matter + body).

    Refused when a skill with a close meaning exists, unless --force.

    \b
    Example:
      kenning skill create docker-deploy --from SKILL.md --category devops --to project
    """
    content = _as_text(_read_input(source, text, "SKILL.md", SKILL_MD_BYTES), "SKILL.md")
    _done(skills.skill_manage("create", name, content=content, category=category, target=target, force=force,
                              reason=reason), as_json)


@skill.command()
@click.argument("name")
@click.option("--old", "old_string", required=True, help="The passage to replace, copied from the skill.")
@click.option("--new", "new_string", required=True, help="What to put instead.")
@click.option("--replace-all", is_flag=True, help="Replace every exact occurrence.")
@click.option("--file", "file_path", help="Patch this linked file instead of SKILL.md (e.g. references/api.md).")
@reason_option
@json_option
@pass_skills
def patch(skills: Skills, name: str, old_string: str, new_string: str, replace_all: bool, file_path: str | None,
          reason: str, as_json: bool) -> None:
    """Replace one passage of a skill.

    Differences in whitespace, indentation and line endings are tolerated; on a miss the error
    quotes the closest passage.

    \b
    Example:
      kenning skill patch docker-deploy --old "docker-compose up" --new "docker compose up -d"
    """
    _done(skills.skill_manage("patch", name, old_string=old_string, new_string=new_string,
                              replace_all=replace_all, file_path=file_path, reason=reason), as_json)


@skill.command()
@click.argument("name")
@from_option
@content_option
@reason_option
@json_option
@pass_skills
def edit(skills: Skills, name: str, source: str | None, text: str | None, reason: str, as_json: bool) -> None:
    """Replace a skill's whole SKILL.md.

    \b
    Example:
      kenning skill edit docker-deploy --from ./SKILL.md --reason "compose v2"
    """
    content = _as_text(_read_input(source, text, "SKILL.md", SKILL_MD_BYTES), "SKILL.md")
    _done(skills.skill_manage("edit", name, content=content, reason=reason), as_json)


@skill.command()
@click.argument("name")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@reason_option
@json_option
@pass_skills
def delete(skills: Skills, name: str, yes: bool, reason: str, as_json: bool) -> None:
    """Delete a skill folder; its history stays, so rollback can restore it.

    \b
    Example:
      kenning skill delete docker-deploy --yes
    """
    if not yes:
        found = skills.get(name)
        if not sys.stdin.isatty():
            raise click.UsageError(f"refusing to delete skill {found.name!r} without confirmation; pass --yes")
        click.confirm(f"Delete skill {found.name!r} at {found.path}?", abort=True)
    _done(skills.skill_manage("delete", name, reason=reason), as_json)


@skill.command(name="write-file")
@click.argument("name")
@click.argument("file_path")
@from_option
@content_option
@reason_option
@json_option
@pass_skills
def write_file(skills: Skills, name: str, file_path: str, source: str | None, text: str | None, reason: str,
               as_json: bool) -> None:
    """Write a file under references/, templates/, scripts/ or assets/ of a skill (1 MiB at most).

    \b
    Example:
      kenning skill write-file docker-deploy references/compose.md --from compose-notes.md
    """
    data = _read_input(source, text, "file content", LINKED_FILE_BYTES)
    _done(skills.skill_manage("write_file", name, file_path=file_path, file_content=data, reason=reason), as_json)


@skill.command(name="remove-file")
@click.argument("name")
@click.argument("file_path")
@reason_option
@json_option
@pass_skills
def remove_file(skills: Skills, name: str, file_path: str, reason: str, as_json: bool) -> None:
    """Remove a file from a skill's references/, templates/, scripts/ or assets/.

    \b
    Example:
      kenning skill remove-file docker-deploy references/old-notes.md
    """
    _done(skills.skill_manage("remove_file", name, file_path=file_path, reason=reason), as_json)


@skill.command()
@click.argument("name")
@json_option
@pass_skills
def history(skills: Skills, name: str, as_json: bool) -> None:
    """List the recorded versions of a skill, oldest first.

    \b
    Example:
      kenning skill history docker-deploy
    """
    found = skills.history(name)
    if as_json:
        output.print_json([v.to_dict() for v in found])
        return
    if not found:
        output.show(Text(f"No versions of {name!r} recorded yet: kenning records one at the first change."))
        return
    rows = [(v.number, output.when(v.at), v.action, v.version_field, v.actor, v.reason,
             "deleted" if v.deleted else f"{len(v.files)} file(s)") for v in found]
    output.show(output.table(f"Versions of {found[-1].name} ({found[-1].path})",
                             ("#", "at", "action", "version", "actor", "reason", "files"), rows))
    if skills.modified_since_recorded(name):
        output.show(Text("The files on disk differ from the last version (edited by hand); "
                         "the next change records them first."))


@skill.command()
@click.argument("name")
@click.argument("old")
@click.argument("new", required=False, default="current")
@json_option
@pass_skills
def diff(skills: Skills, name: str, old: str, new: str, as_json: bool) -> None:
    """Show what changed between versions OLD and NEW of a skill (NEW: 'current', the files on disk).

    \b
    Example:
      kenning skill diff docker-deploy 1 3
    """
    result = skills.diff(name, old, new)
    if as_json:
        output.print_json(result.to_dict())
        return
    if not result.changed:
        output.show(Text(f"No difference between {result.old} and {result.new}."))
        return
    click.echo(result.text.rstrip("\n"))


@skill.command()
@click.argument("name")
@click.argument("version")
@reason_option
@json_option
@pass_skills
def rollback(skills: Skills, name: str, version: str, reason: str, as_json: bool) -> None:
    """Restore VERSION of a skill (a deleted skill too); the result is a new version.

    \b
    Example:
      kenning skill rollback docker-deploy 2 --reason "the patch broke deploys"
    """
    _done(skills.rollback(name, version, reason=reason), as_json)


@skill.command()
@click.argument("name")
@click.argument("outcome", type=click.Choice(OUTCOMES))
@click.option("--note", default="", help="What happened.")
@json_option
@pass_skills
def feedback(skills: Skills, name: str, outcome: str, note: str, as_json: bool) -> None:
    """Record how a skill worked out: helped, failed or not-relevant.

    \b
    Example:
      kenning skill feedback docker-deploy failed --note "compose v1 is gone on the new hosts"
    """
    _done(skills.skill_feedback(name, outcome, note), as_json)


@skill.command()
@click.argument("name", required=False)
@json_option
@pass_skills
def stats(skills: Skills, name: str | None, as_json: bool) -> None:
    """Show how often skills were viewed and how they worked out; NAME adds its recent events.

    \b
    Example:
      kenning skill stats docker-deploy
    """
    found = skills.stats(name)
    if as_json:
        output.print_json([s.to_dict() for s in found])
        return
    if not found:
        output.show("No skill usage recorded yet.")
        return
    rows = [(s.name, s.views, s.uses, s.helped, s.failed, s.not_relevant, output.when(s.last_used)) for s in found]
    output.show(output.table("Skill usage", ("name", "views", "uses", "helped", "failed", "not relevant",
                                             "last"), rows))
    if name:
        events = skills.recent_usage(name)
        recent = [(output.when(e.at), e.event, e.outcome, e.actor, e.detail) for e in events]
        output.show(output.table("Recent events", ("at", "event", "outcome", "actor", "detail"), recent))


# the skill commands defined in other modules (install and locks, review of drafts, the curator): SKILL_COMMANDS,
# not COMMANDS, since they join this group rather than the root
from . import skill_curate, skill_install, skill_review  # noqa: E402  (they import this module's helpers)

for _module in (skill_install, skill_review, skill_curate):
    for _command in _module.SKILL_COMMANDS:
        skill.add_command(_command)

COMMANDS = (skill,)
