"""``kenning hook``: what the hooks ``kenning install`` sets up run, at every session's start and end.

Apart from ``integrations`` (install, uninstall) so that a hook, which a client runs at the start of
every session and waits for, imports neither rich nor the install machinery.
"""

from __future__ import annotations

import sys

import click

from kenning.config import resolve_home
from kenning.errors import KenningError
from kenning.integrations import hooks, hookspecs

from .state import home_of, open_kenning


@click.command()
@click.argument("event", metavar="EVENT")
@click.option("--client", type=click.Choice(hookspecs.CLIENTS), default="claude-code", show_default=True,
              help="Whose hook input comes on stdin, and in whose form to answer.")
@click.option("--budget", type=int, default=hookspecs.SESSION_START_BUDGET, show_default=True,
              help="session-start: most tokens the context may take.")
@click.option("--detach", is_flag=True,
              help="pre-compact, session-end: consolidate in a background process and return at once.")
@click.pass_context
def hook(ctx: click.Context, event: str, client: str, budget: int, detach: bool) -> None:
    """Run one agent client hook; EVENT is session-start, pre-compact or session-end, and the hook's
    JSON input comes on stdin. `kenning install` sets these hooks up.

    session-start prints the context for the working directory in the form the client adds to the
    session; pre-compact and session-end consolidate what the session's transcript holds since the
    last consolidation (without a transcript there is nothing to do). A hook never fails the agent:
    an error is logged to $KENNING_HOME/logs/hooks.log, one line is printed and the exit code is 0.

    \b
    Example:
      echo '{"session_id": "s1", "cwd": "'"$PWD"'"}' | kenning hook session-start
      kenning hook session-end --client codex --detach < hook-input.json
    """
    home = resolve_home(home_of(ctx))
    with hooks.logging_to(home) as log_path:
        try:
            raw = "" if sys.stdin.isatty() else sys.stdin.read()  # run by hand, nothing piped in: say so, don't wait
            result = hooks.run(event, raw, lambda project: open_kenning(ctx, project_dir=project), home,
                               budget=budget, client=client, detach=detach)
        except Exception as exc:  # a hook must not fail the agent (exit 2 would block compaction): log it, exit 0
            hooks.log.error("%s hook failed: %s", event, exc, exc_info=not isinstance(exc, KenningError))
            where = f" (logged in {log_path})" if log_path else ""
            click.echo(f"kenning {event} hook: {' '.join(str(exc).split())}{where}", err=True)
            return
        hooks.log.info("%s %s hook: %s", client, event, result.summary)
    if result.output:
        click.echo(result.output)


COMMANDS = (hook,)
