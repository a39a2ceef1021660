"""``kenning ui``: the local web inspector (``kenning.ui``), on this machine only.

Starlette, uvicorn and Jinja2 come with the ``ui`` extra; they are imported only here, when the
command runs.
"""

from __future__ import annotations

import importlib.util
import webbrowser
from pathlib import Path

import click

from kenning.checks import check_scope
from kenning.errors import InvalidInput
from kenning.models import DEFAULT_SCOPE

from .state import database_of, home_of, project_option

_NEEDS = ("starlette", "uvicorn", "jinja2")


@click.command()
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="The port (default: a free one).")
@click.option("--host", default="127.0.0.1", show_default=True, help="A loopback address to listen on.")
@click.option("--no-open", is_flag=True, help="Do not open a browser; only print the address.")
@click.option("--scope", default=DEFAULT_SCOPE, show_default=True,
              help="The scope the pages show first (each page can show another one).")
@project_option
@click.pass_context
def ui(ctx: click.Context, port: int, host: str, no_open: bool, scope: str, project_dir: Path | None) -> None:
    """Inspect and correct memory and skills in a web browser, on this machine only.

    Prints its address, with a one-time token, on the first line, and opens it in a browser unless
    --no-open. The token opens one session, which the browser's cookie carries on; once it has, it
    opens no other, and the next address (for another browser) is printed on stderr. Requests
    without a session are refused; so is every change from a page of another origin. Memories,
    search, hot memory, skills and their versions, the review queue of skill drafts, notes, the
    audit log and stats; every change goes through the same library calls as the CLI and is
    audited. Stop it with Ctrl-C.

    \b
    Example:
      kenning ui
      kenning ui --port 8766 --no-open --scope user:alice
    """
    from kenning.httpguard import is_loopback

    scope = check_scope(scope)
    missing = [name for name in _NEEDS if importlib.util.find_spec(name) is None]
    if missing:
        raise click.ClickException(f"kenning ui needs {', '.join(missing)}: install the ui extra with "
                                   "pip install 'kenning[ui]'")
    if not is_loopback(host):
        raise InvalidInput(f"kenning ui listens on this machine only: --host {host!r} is not a loopback address; "
                           "use 127.0.0.1, ::1 or localhost")
    from kenning.api import Kenning
    from kenning.ui.app import serve

    # its own actor, so that the audit log tells changes made here from the CLI's and the agents'
    kb = Kenning.open(home_of(ctx), actor="ui", project_dir=project_dir, database=database_of(ctx))
    ctx.call_on_close(kb.close)

    def ready(url: str) -> None:
        click.echo(url)  # the first line: what a person (or a script) opens
        click.echo("Press Ctrl-C to stop.", err=True)
        if not no_open:
            webbrowser.open(url)

    def renewed(url: str) -> None:
        click.echo(f"That address has opened a session. For another browser: {url}", err=True)

    try:
        serve(kb, host, port, scope, ready, renewed)
    except KeyboardInterrupt:
        pass


COMMANDS = (ui,)
