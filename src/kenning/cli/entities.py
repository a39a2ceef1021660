"""``kenning entity``: named things (people, services, projects) found by name or alias."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from . import output
from .state import json_option, pass_kenning, scope_option

if TYPE_CHECKING:
    from kenning.api import Kenning


@click.group()
def entity() -> None:
    """Named people, services and projects.

    \b
    Example:
      kenning entity get "张伟"
    """


def parse_attributes(pairs: tuple[str, ...], raw_json: str | None) -> dict[str, Any] | None:
    """``--attributes-json`` first, then each ``--attr key=value`` on top of it."""
    attributes: dict[str, Any] = {}
    if raw_json is not None:
        try:
            loaded = json.loads(raw_json)
        except json.JSONDecodeError as exc:
            raise click.BadParameter(f"not valid JSON ({exc.msg})", param_hint="--attributes-json") from None
        if not isinstance(loaded, dict):
            raise click.BadParameter('must be a JSON object such as {"role": "lead"}', param_hint="--attributes-json")
        attributes.update(loaded)
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{pair!r} is not key=value", param_hint="--attr")
        attributes[key.strip()] = value
    return attributes or None


@entity.command()
@click.argument("name")
@click.option("--kind", help="What it is: person, service, project, …")
@click.option("--alias", "aliases", multiple=True, help="Another name; repeatable.")
@click.option("--attr", "attrs", multiple=True, metavar="KEY=VALUE", help="An attribute; repeatable.")
@click.option("--attributes-json", metavar="JSON", help="Attributes as one JSON object.")
@click.option("--notes", help="Free text, appended to earlier notes.")
@scope_option
@json_option
@pass_kenning
def upsert(
    kb: Kenning, name: str, kind: str | None, aliases: tuple[str, ...], attrs: tuple[str, ...],
    attributes_json: str | None, notes: str | None, scope: str, as_json: bool,
) -> None:
    """Create or update an entity.

    Attributes are merged key by key, aliases are added and notes appended.

    \b
    Example:
      kenning entity upsert "Zhang Wei" --kind person --alias 张伟 --attr role=manager
    """
    attributes = parse_attributes(attrs, attributes_json)
    item = kb.entities.upsert(name, kind=kind, aliases=list(aliases), attributes=attributes, notes=notes,
                              scope=scope, source="cli")
    if as_json:
        output.print_json(item.to_dict())
        return
    output.show(output.item_table(item, "Entity"))


@entity.command()
@click.argument("name")
@scope_option
@json_option
@pass_kenning
def get(kb: Kenning, name: str, scope: str, as_json: bool) -> None:
    """Look an entity up by name or alias.

    Case and full/half width are ignored.

    \b
    Example:
      kenning entity get ＺＨＡＮＧ ＷＥＩ
    """
    item = kb.entities.get(name, scope)
    if as_json:
        output.print_json(item.to_dict())
        return
    output.show(output.item_table(item))


@entity.command(name="list")
@scope_option
@click.option("--kind", help="Only entities of this kind.")
@json_option
@pass_kenning
def list_entities(kb: Kenning, scope: str, kind: str | None, as_json: bool) -> None:
    """List the entities of a scope, by name.

    \b
    Example:
      kenning entity list --kind person
    """
    found = kb.entities.list(scope, kind)
    if as_json:
        output.print_json([item.to_dict() for item in found])
        return
    output.show(output.entities_table(found, f"{len(found)} entit{'y' if len(found) == 1 else 'ies'}"))


COMMANDS = (entity,)
