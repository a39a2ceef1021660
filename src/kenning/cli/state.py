"""What every command shares: the chosen data directory and database, the lazily opened store, and
the option types and flags that several commands use.

The store is opened only by commands that need it, and ``kenning.api`` is imported only then, so
``kenning --help`` and ``kenning path`` never touch the database or the embedding model.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import click

from kenning.errors import InvalidInput
from kenning.timeutil import parse_when

if TYPE_CHECKING:
    from kenning.api import Kenning

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class State:
    """The group's options, kept on the root context for the subcommands."""

    home: Path | None = None
    database: str | None = None  # --db


def home_of(ctx: click.Context) -> Path | None:
    state = ctx.find_object(State)
    return state.home if state else None


def database_of(ctx: click.Context) -> str | None:
    """``--db``, if given: handed to ``Kenning.open`` / ``load_settings``, which read the rest."""
    state = ctx.find_object(State)
    return state.database if state else None


def open_kenning(ctx: click.Context, *, allow_embedder_change: bool = False, project_dir: Path | None = None) -> Kenning:
    """Open the data directory for this command; it is closed when the command's context ends."""
    from kenning.api import Kenning  # numpy, SQLite and the embedder only for commands that need them

    kb = Kenning.open(home_of(ctx), actor="cli", allow_embedder_change=allow_embedder_change,
                      project_dir=project_dir, database=database_of(ctx))
    ctx.call_on_close(kb.close)
    return kb


def pass_kenning(func: Callable[Concatenate[Kenning, P], R]) -> Callable[P, R]:
    """Give the command the opened ``Kenning`` as its first argument."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        return func(open_kenning(click.get_current_context()), *args, **kwargs)

    return wrapper


class When(click.ParamType):
    """A point in time read with ``kenning.timeutil.parse_when``: an ISO date or time, or a duration.

    A bare duration points forward ("expires in 7d") unless ``past`` is set: for filters such as
    ``--since 7d`` people mean seven days *ago* ("+7d" and "-7d" always say which).
    """

    name = "when"

    def __init__(self, past: bool = False) -> None:
        self.past = past

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> datetime:
        if isinstance(value, datetime):
            return value
        what = param.opts[0] if param is not None and param.opts else "time"
        when = parse_when(str(value).strip(), what, past=self.past)
        if when is None:
            raise InvalidInput(f"{what} is empty; give a date (2026-12-31) or a duration (7d, 12h)")
        return when


WHEN = When()
WHEN_AGO = When(past=True)

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
id_scope_option = click.option("--scope", help="Refuse the item unless it is in this scope.")
scope_option = click.option("--scope", default="default", show_default=True, help="Memory scope, e.g. 'user:alice'.")
# the project whose skills come first (commands that open the skills library, and `kenning mcp`)
project_option = click.option(
    "--project", "project_dir", type=click.Path(file_okay=False, path_type=Path),
    help="Project whose .agents/skills, .kenning/skills and .claude/skills come first (default: current directory).",
)
