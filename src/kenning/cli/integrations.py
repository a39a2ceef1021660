"""``kenning install`` / ``kenning uninstall``: kenning's MCP server (and the clients' hooks) in an
agent client's own config files; what those hooks run is ``kenning hook`` (``cli.hook``)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import click
from rich.text import Text

from kenning.config import CONFIG_FILE, DATABASE_ENV, configured_database, load_settings, resolve_home
from kenning.integrations import clients, verify
from kenning.integrations import install as installing  # the module

from . import output
from .state import database_of, home_of, json_option

project_option = click.option(
    "--project", type=click.Path(exists=True, file_okay=False, path_type=Path), default=".",
    show_default=True, help="The project folder, for the local and project scopes.")
scope_option = click.option(
    "--scope", type=click.Choice(clients.SCOPES),
    help="local: this project, only you (Claude Code's default); user: every project, only you (the default "
         "for codex and cursor); project: the project's committed files (same as --shared).")
shared_option = click.option(
    "--shared", is_flag=True, help="Write the project's committed files, with a portable entry for the team.")
dry_run_option = click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")


def chosen_home(ctx: click.Context) -> Path | None:
    """The data directory to name in a client's config: only one the user chose (--home or
    KENNING_HOME); a client started from a desktop does not see the shell's variables."""
    chosen = home_of(ctx) or os.environ.get("KENNING_HOME")
    return resolve_home(chosen) if chosen else None


def chosen_scope(client: str, scope: str | None, shared: bool) -> str:
    if shared and scope not in (None, "project"):
        raise click.UsageError(f"--shared writes the project scope; it cannot be combined with --scope {scope}")
    return "project" if shared else scope or clients.default_scope(client)


def unseen_database(ctx: click.Context, client: str) -> list[str]:
    """A note when this shell's database comes from ``--db`` or ``KENNING_DATABASE_URL``: the server
    and hooks a client starts are told the data directory only (a desktop client sees none of the
    shell's variables, and Codex passes few), so they would open another database. A URL is not
    written into the client's files: it may hold a password, and hooks pass their options on a
    command line that ``ps`` shows."""
    from kenning.store.url import masked  # text only, no database driver

    home = resolve_home(home_of(ctx))
    store = load_settings(home, database=database_of(ctx)).store
    if store.url is None or store.setting not in ("--db", DATABASE_ENV):
        return []
    written = configured_database(home)
    if written == store.url:
        return []
    other = f"[store] url of {home / CONFIG_FILE}, {masked(written)}" if written else str(home / "kenning.db")
    return [f"the database {masked(store.url)} comes from {store.setting}, which the kenning that {client} starts "
            f"does not see: it would open {other}. Put url = \"...\" under [store] in {home / CONFIG_FILE} "
            "so that its server and hooks use that database too."]


@click.command()
@click.argument("client", type=click.Choice([*clients.CLIENTS, "generic"]))
@scope_option
@shared_option
@project_option
@click.option("--no-check", is_flag=True, help="Write the command line without running it once first.")
@dry_run_option
@json_option
@click.pass_context
def install(ctx: click.Context, client: str, scope: str | None, shared: bool, project: Path, no_check: bool,
            dry_run: bool, as_json: bool) -> None:
    """Add kenning's MCP server (`kenning mcp`) to an agent client's config, with hooks that load
    kenning's context when a session starts and consolidate the conversation before compaction and
    when the session ends.

    By default it writes your own config, not the project's committed files: Claude Code's local
    scope (~/.claude.json for this project, hooks in .claude/settings.local.json), Codex's and
    Cursor's user config. The command written is this kenning's absolute path, run once first with
    PATH=/usr/bin:/bin as a client started from a desktop would. --shared writes the project's files
    instead (.mcp.json, .claude/settings.json, .codex/, .cursor/) with a plain `kenning` every
    teammate installs.

    Merges with what is there (other servers, settings and hooks stay, and the rest of each file
    keeps its layout), backs each changed file up into $KENNING_HOME/backups/, refuses a file that
    is not valid JSON/TOML, and changes nothing when run again. What it added is recorded in
    $KENNING_HOME/integrations.json for uninstall. 'generic' prints the entry for any other MCP
    client and writes nothing.

    \b
    Example:
      kenning install claude-code                  # this project, only you
      kenning install claude-code --shared         # .mcp.json + .claude/settings.json, for the team
      kenning install cursor --dry-run
      kenning install codex                        # ~/.codex/config.toml
      kenning install generic
    """
    kenning_home = chosen_home(ctx)
    if client == "generic":
        output.print_json(clients.generic_config(kenning_home))  # JSON either way: it is meant to be pasted
        return
    scope = chosen_scope(client, scope, shared)
    launch = clients.portable_kenning() if scope == "project" else clients.this_kenning()
    checked = None if no_check else verify.check_launch(launch, kenning_home)
    report = installing.install(client, scope, project, resolve_home(home_of(ctx)), kenning_home, dry_run=dry_run,
                                launch=launch)
    notes = clients.notes(client, scope) if report.changed else []
    if importlib.util.find_spec("mcp") is None:
        notes.insert(0, "`kenning mcp` needs the MCP SDK: pip install 'kenning[mcp]'")
    notes += report.notes + installing.ignore_warnings(report) + unseen_database(ctx, client)
    if checked is not None and checked.answer is None:
        notes.append(f"`{launch.argv[0]}` is not on this shell's PATH: the shared entry runs it from PATH, so install "
                     "kenning where your client finds it (e.g. `pipx install 'kenning[mcp]'`) to use it here too.")
    written = {"command": launch.shell(), "checked": checked.answer if checked else None,
               "checked_with_path": checked.path if checked else None}
    show_report(report, notes, as_json, written)


@click.command()
@click.argument("client", type=click.Choice(clients.CLIENTS))
@scope_option
@shared_option
@project_option
@dry_run_option
@json_option
@click.pass_context
def uninstall(ctx: click.Context, client: str, scope: str | None, shared: bool, project: Path, dry_run: bool,
              as_json: bool) -> None:
    """Take out exactly what `kenning install` added to a client's config.

    A file nobody changed since is restored byte for byte (from $KENNING_HOME/backups/); otherwise
    only kenning's entries and hooks are taken out (where they still hold what install wrote), a
    value install replaced is put back, and everything else, including your edits since, stays.
    Changed files are backed up first.

    \b
    Example:
      kenning uninstall claude-code
      kenning uninstall cursor --dry-run
      kenning uninstall claude-code --shared
    """
    scope = chosen_scope(client, scope, shared)
    report = installing.uninstall(client, scope, project, resolve_home(home_of(ctx)), dry_run=dry_run)
    show_report(report, [], as_json)


def show_report(report: installing.Report, notes: list[str], as_json: bool,
                written: dict[str, str | None] | None = None) -> None:
    if as_json:
        output.print_json({**report.to_dict(), **(written or {}), "notes": notes})
        return
    where = f"{report.client} ({report.scope} scope)"
    if not report.changed:
        title = (f"Nothing to change: kenning is already installed in {where}." if report.action == "install"
                 else f"Nothing to change: none of kenning's entries are left in {where}.")
    elif report.dry_run:
        title = f"Dry run: what kenning {report.action} would change in {where} (nothing was written)."
    else:
        title = f"kenning {'installed into' if report.action == 'install' else 'uninstalled from'} {where}."
    rows = [(str(f.path), c["change"], c["action"]) for f in report.files for c in f.changes]
    output.show(output.table(title, ("file", "change", "action"), rows))
    for f in report.files:
        if f.backup:
            output.show(Text(f"backup of {f.path}: {f.backup}", style="dim"))
        if f.deleted:
            output.show(Text(f"removed {f.path} (kenning had created it)", style="dim"))
    if written:
        checked = (f"; checked: `{written['command']} --version` answered {written['checked']!r} with "
                   f"PATH={written['checked_with_path']}" if written["checked"] else "; not run here")
        output.show(Text(f"command written: {written['command']}{checked}", style="dim"))
    for note in notes:
        output.show(Text(note))


COMMANDS = (install, uninstall)
