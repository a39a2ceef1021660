"""``kenning context``: everything an agent should know for a task, within a token budget."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from rich.text import Text

from . import output
from .state import json_option, pass_kenning

if TYPE_CHECKING:
    from kenning.api import Kenning


@click.command()
@click.argument("task")
@click.option("--budget", "budget_tokens", type=int, default=4000, show_default=True,
              help="Most tokens the context may take.")
@click.option("--scope", default="default", show_default=True, help="Memory scope of the facts, lessons, entities.")
@json_option
@pass_kenning
def context(kb: Kenning, task: str, budget_tokens: int, scope: str, as_json: bool) -> None:
    """Print what an agent should know for TASK, within a token budget, as Markdown for a prompt:
    hot memory, skills catalog, matching skills, facts, lessons, entities, notes.

    \b
    Example:
      kenning context "deploy the web app to staging" --budget 4000
      kenning context "修复登录页面的错误" --budget 1500 --json
    """
    result = kb.context(task, budget_tokens, scope=scope)
    if as_json:
        output.print_json(result.to_dict())
        return
    click.echo(result.markdown.rstrip("\n"))
    summary = ", ".join(f"{s.name} {s.tokens}" for s in result.sections)
    cut = f"; cut: {len(result.cut)} (see --json)" if result.cut else ""
    output.show(Text(f"\n{result.tokens} of {result.budget_tokens} tokens ({summary}){cut}", style="dim"))


COMMANDS = (context,)
