"""The ``kenning`` command line: a thin face over ``kenning.api.Kenning``.

Each command parses its arguments, calls one library method and prints a rich table, or JSON with
``--json``. A command's module is imported only when that command runs (or when help lists the
commands: ``COMMAND_MODULES``), and the store only by the commands that need it
(``state.open_kenning``), so that what agent clients run and wait for (``kenning hook``, ``kenning
mcp``) and ``kenning --version`` load nothing they do not use. Errors are translated in exactly one
place, ``translated_errors``: a one-line message on stderr, exit 2 for bad input, 1 for the rest.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from kenning import __version__
from kenning.errors import InvalidInput, KenningError

from .state import State

# module of kenning.cli -> the commands it defines (its COMMANDS; tests/test_cli.py checks that they agree)
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "facts": ("remember", "recall", "show", "supersede", "history", "forget", "pin", "unpin", "delete", "expire"),
    "lessons": ("lesson",), "entities": ("entity",), "skills": ("skill",),
    "admin": ("audit", "stats", "path", "reindex", "purge"), "notes": ("note",), "hot": ("hot", "maintain"),
    "context": ("context",), "consolidate": ("consolidate",), "integrations": ("install", "uninstall"),
    "hook": ("hook",), "demo": ("demo",), "mcp": ("mcp",), "conflicts": ("conflicts",), "migrate": ("migrate",),
    "listing": ("list",), "edit": ("edit",),
    "ui": ("ui",),
    "exchange": ("export", "import"),
    "access": ("access",),
}
_MODULE_OF = {name: module for module, names in COMMAND_MODULES.items() for name in names}


class CliError(click.ClickException):
    """A one-line ``Error: …`` on stderr; exit code 1."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))


class CliUsageError(CliError):
    """Bad input: exit code 2, as click uses for usage errors."""

    exit_code = 2


@contextmanager
def translated_errors() -> Iterator[None]:
    """The one place where errors become a one-line ``Error: …`` and an exit code: 2 for bad input
    (InvalidInput, click usage errors), 1 for every other KenningError. No traceback for either."""
    try:
        yield
    except click.exceptions.NoArgsIsHelpError:
        raise  # `kenning lesson` alone shows that group's help, as click does
    except click.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        raise CliUsageError(exc.format_message() + hint) from None
    except InvalidInput as exc:
        raise CliUsageError(str(exc)) from None
    except KenningError as exc:
        raise CliError(str(exc)) from None


class KenningGroup(click.Group):
    """The root group: its commands imported as they are asked for (``COMMAND_MODULES``); parsing its
    own options and running every subcommand go through ``translated_errors``."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *_MODULE_OF})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = _MODULE_OF.get(cmd_name)
        if cmd_name not in self.commands and module is not None:
            for command in importlib.import_module(f"{__name__}.{module}").COMMANDS:
                self.add_command(command)
        return self.commands.get(cmd_name)

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        with translated_errors():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        with translated_errors():
            return super().invoke(ctx)


@click.group(cls=KenningGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    help="Data directory (default: $KENNING_HOME, else ~/.kenning).",
)
@click.option(
    "--db", "database", metavar="URL",
    help="Database: a SQLite file, sqlite:///abs/path.db or postgresql://... (default: $KENNING_DATABASE_URL, "
         "else [store] url in kenning.toml, else kenning.db in the data directory).",
)
@click.version_option(__version__)  # not package_name: reading the installed metadata costs 20 ms
@click.pass_context
def cli(ctx: click.Context, home: Path | None, database: str | None) -> None:
    """Lasting memory for AI agents: facts, lessons and entities, recalled by words and meaning
    in English and Chinese.

    \b
    Example:
      kenning remember "nginx proxy_read_timeout defaults to 60s" --tag nginx
      kenning recall "websocket drops after a minute"
      kenning demo
      kenning --db ~/team/kenning.db recall "deploy steps"
    """
    ctx.obj = State(home, database)


def main() -> None:
    """The console script."""
    cli(prog_name="kenning")


__all__ = ["cli", "main", "CliError", "CliUsageError", "KenningGroup", "COMMAND_MODULES"]
