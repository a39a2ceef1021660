"""``kenning lesson``: record what was tried and how it went, find lessons, count their use."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from kenning.models import OUTCOMES

from . import output
from .state import id_scope_option, json_option, pass_kenning, scope_option

if TYPE_CHECKING:
    from kenning.api import Kenning

OUTCOME = click.Choice(OUTCOMES, case_sensitive=False)


@click.group()
def lesson() -> None:
    """What was tried, how it went, what to do next time.

    \b
    Example:
      kenning lesson find --context deploy --outcome negative
    """


@lesson.command()
@click.option("--action", required=True, help="What was done.")
@click.option("--context", required=True, help="Where / in what situation.")
@click.option("--outcome", required=True, type=OUTCOME, help="How it went.")
@click.option("--insight", required=True, help="What to do next time.")
@click.option("--tag", "tags", multiple=True, help="A tag; repeat for several.")
@scope_option
@json_option
@pass_kenning
def record(
    kb: Kenning, action: str, context: str, outcome: str, insight: str, tags: tuple[str, ...], scope: str,
    as_json: bool,
) -> None:
    """Record a lesson.

    Recording the same lesson again reinforces it instead of adding a copy.

    \b
    Example:
      kenning lesson record --action "deployed on Friday" --context "production release" \\
        --outcome negative --insight "release on Monday morning instead"
    """
    item = kb.lessons.record(action, context, outcome, insight, tags=tags, scope=scope, source="cli")
    if as_json:
        output.print_json(item.to_dict())
        return
    output.show(output.item_table(item, "Recorded lesson"))


@lesson.command()
@click.option("--context", help="Context contains this text (case and width ignored).")
@click.option("--outcome", type=OUTCOME, help="Only this outcome.")
@click.option("--tag", "tags", multiple=True, help="Only lessons carrying this tag; repeatable.")
@scope_option
@click.option("--limit", default=20, show_default=True, help="At most this many.")
@json_option
@pass_kenning
def find(
    kb: Kenning, context: str | None, outcome: str | None, tags: tuple[str, ...], scope: str, limit: int,
    as_json: bool,
) -> None:
    """List lessons by context and outcome.

    Negative lessons (what to avoid) come first, then the most applied, then the newest.

    \b
    Example:
      kenning lesson find --context websocket --outcome positive
    """
    found = kb.lessons.find(context, outcome, scope=scope, tags=tags, limit=limit)
    if as_json:
        output.print_json([item.to_dict() for item in found])
        return
    output.show(output.lessons_table(found, f"{len(found)} lesson{'' if len(found) == 1 else 's'}"))


@lesson.command()
@click.argument("lesson_id", metavar="ID")
@click.option("--reason", default="", help="Why (kept in the audit log).")
@id_scope_option
@json_option
@pass_kenning
def applied(kb: Kenning, lesson_id: str, reason: str, scope: str | None, as_json: bool) -> None:
    """Count one more time that a lesson was acted on.

    \b
    Example:
      kenning lesson applied l_1a2b3c4d5e6f
    """
    item = kb.lessons.applied(lesson_id, reason, scope=scope)
    if as_json:
        output.print_json(item.to_dict())
        return
    output.show(output.lessons_table([item], "Applied"))


COMMANDS = (lesson,)
