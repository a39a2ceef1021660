"""``kenning conflicts``: possible conflicts between current facts, and settling them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from . import output
from .state import id_scope_option, json_option, open_kenning, scope_option

if TYPE_CHECKING:
    from rich.table import Table

    from kenning.gate import PossibleConflict


@click.group(invoke_without_command=True)
@scope_option
@json_option
@click.pass_context
def conflicts(ctx: click.Context, scope: str, as_json: bool) -> None:
    """List possible conflicts: pairs of current facts that the write gate kept side by side
    because it could not tell whether the newer one corrects the older ("the report is monthly" /
    "the report is long"). Settle each with `kenning conflicts resolve A B --keep A|B|both`.

    \b
    Example:
      kenning conflicts
      kenning conflicts --scope user:alice --json
      kenning conflicts resolve f_1a2b3c4d5e6f f_6f5e4d3c2b1a --keep B
    """
    if ctx.invoked_subcommand is not None:
        return
    found = open_kenning(ctx).conflicts(scope)
    if as_json:
        output.print_json([c.to_dict() for c in found])
        return
    if not found:
        output.show(f"No possible conflicts in scope {scope!r}.")
        return
    output.show(_table(found, scope))


def _table(found: list[PossibleConflict], scope: str) -> Table:
    rows = [(c.a.id, output.truncate(c.a.content, 50), c.b.id, output.truncate(c.b.content, 50), c.rule)
            for c in found]
    return output.table(f"Possible conflicts in {scope!r}: settle with `kenning conflicts resolve A B --keep A|B|both`",
                        ("A", "stored first", "B", "stored later", "why"), rows)


@conflicts.command()
@click.argument("first", metavar="A")
@click.argument("second", metavar="B")
@click.option("--keep", required=True, type=click.Choice(["A", "B", "both"], case_sensitive=False),
              help="A keeps the first fact (B is superseded by it), B the second, both keeps the two.")
@click.option("--reason", default="", help="Why (kept in the audit log).")
@id_scope_option
@json_option
@click.pass_context
def resolve(ctx: click.Context, first: str, second: str, keep: str, reason: str, scope: str | None,
            as_json: bool) -> None:
    """Settle the possible conflict between facts A and B.

    Keeping one supersedes the other by it (the normal supersede path: history kept, audited);
    keeping both marks the two as true together, and the pair is not listed again.

    \b
    Example:
      kenning conflicts resolve f_1a2b3c4d5e6f f_6f5e4d3c2b1a --keep B --reason "moved in May"
      kenning conflicts resolve f_1a2b3c4d5e6f f_6f5e4d3c2b1a --keep both
    """
    done = open_kenning(ctx).resolve_conflict(first, second, keep, reason=reason, scope=scope)
    if as_json:
        output.print_json(done.to_dict())
        return
    if done.current is None:
        output.show(f"Kept both {first} and {second}; they are no longer listed as a conflict.")
        return
    dropped = second if done.keep == "a" else first
    output.show(output.item_table(done.current, f"Kept {done.kept[0]}; {dropped} is superseded by"))


COMMANDS = (conflicts,)
