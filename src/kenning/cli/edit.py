"""``kenning edit ID``: correct a fact, lesson or entity (``Kenning.edit``), by options or in $EDITOR.

With no field option the item's editable fields are written as a small TOML file, each with a
comment saying what it takes, and $VISUAL / $EDITOR opens it. What differs when the editor exits
is applied in one ``Kenning.edit`` call; a key left out or left as it was stays as it is. An editor
that fails, or a file that is not TOML, changes nothing and says why.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tomllib
from datetime import datetime
from typing import TYPE_CHECKING, Any

import click

from kenning.errors import InvalidInput
from kenning.models import CATEGORIES, OUTCOMES, Entity
from kenning.timeutil import parse_when

from . import output
from .state import id_scope_option, json_option, pass_kenning

if TYPE_CHECKING:
    from kenning.api import Kenning
    from kenning.models import Item

NEVER = "never"  # --expires never: no expiry

# per kind: (key in the file, keyword of Kenning.edit, the comment above it)
_FIELDS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "fact": (
        ("content", "content", "What the fact says. Changing it supersedes the fact; the old text stays in its history."),
        ("category", "category", f"One of {', '.join(CATEGORIES)}."),
        ("tags", "tags", 'A list of words: ["ops", "db"]; [] for none.'),
        ("importance", "importance", "0-1; 0.7 or more keeps it from `kenning forget`."),
        ("confidence", "confidence", "How sure, 0-1."),
        ("expires", "expires_at", 'When it stops being true: "2027-01-31", "30d" from now, or "" for never.'),
        ("pinned", "pinned", "true: never forgotten automatically."),
    ),
    "lesson": (
        ("action", "action", "What was done."),
        ("context", "context", "Where, or in what situation."),
        ("outcome", "outcome", f"One of {', '.join(OUTCOMES)}."),
        ("insight", "insight", "What to do next time."),
        ("tags", "tags", 'A list of words: ["ops", "db"]; [] for none.'),
    ),
    "entity": (
        ("kind", "entity_kind", 'What it is: "person", "service", ...; "" for nothing.'),
        ("aliases", "aliases", 'Other names it goes by: ["Ada", "AL"] (the whole list).'),
        ("attributes", "attributes", "Facts about it: { team = \"core\", desk = 4 } (the whole table)."),
        ("notes", "notes", 'Free text ("\\n" for a new line).'),
    ),
}


class _Expires(click.ParamType):
    """A date, a duration from now, or "never" (remove the expiry)."""

    name = "when|never"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> datetime | str:
        text = str(value).strip()
        if text.lower() == NEVER:
            return NEVER
        when = parse_when(text, "--expires")
        if when is None:
            raise InvalidInput("--expires is empty; give a date (2026-12-31), a duration (30d) or 'never'")
        return when


@click.command()
@click.argument("item_id", metavar="ID")
@click.option("--content", help="A fact's new text (supersedes it; the old text stays in its history).")
@click.option("--category", type=click.Choice(CATEGORIES), help="A fact's category.")
@click.option("--tag", "tags", multiple=True, help="The tags, replacing the old ones; repeat for several.")
@click.option("--importance", type=float, help="A fact's importance, 0-1.")
@click.option("--confidence", type=float, help="How sure a fact is, 0-1.")
@click.option("--expires", type=_Expires(), help="When a fact stops being true: a date, a duration from now, or 'never'.")
@click.option("--pin/--unpin", "pinned", default=None, help="Pin a fact (never forgotten automatically), or unpin it.")
@click.option("--action", help="A lesson's action.")
@click.option("--context", "lesson_context", help="A lesson's context.")
@click.option("--outcome", type=click.Choice(OUTCOMES), help="A lesson's outcome.")
@click.option("--insight", help="A lesson's insight.")
@click.option("--entity-kind", help="What an entity is ('person', 'service', ...).")
@click.option("--alias", "aliases", multiple=True, help="An entity's aliases, replacing the old ones; repeatable.")
@click.option("--attributes-json", "attributes", metavar="JSON",
              help="An entity's attributes as one JSON object, replacing the old ones.")
@click.option("--notes", help="An entity's notes, replacing the old ones.")
@click.option("--reason", default="", help="Why (kept in the audit log).")
@id_scope_option
@json_option
@pass_kenning
def edit(kb: Kenning, item_id: str, reason: str, scope: str | None, as_json: bool, **options: Any) -> None:
    """Change fields of item ID; with no field option, open it in $EDITOR.

    A fact's new content supersedes it (history kept); every other field changes in place and
    the audit log keeps its old and new values.

    \b
    Example:
      kenning edit f_1a2b3c4d5e6f --category pitfall --tag nginx --tag proxy --pin
      kenning edit f_1a2b3c4d5e6f --expires never --reason "still true"
      kenning edit e_1a2b3c4d5e6f      # opens $EDITOR on its fields
    """
    given = _from_options(options)
    before = kb.get(item_id, scope)
    if not given:
        given, reason = _from_editor(before, reason)
        if not given:
            output.show(f"Nothing changed in {before.kind} {before.id}.")
            return
    after = kb.edit(before.id, reason=reason, scope=scope, **given)
    if as_json:
        output.print_json(after.to_dict())
        return
    output.show(_said(before, after), output.item_table(after))


def _from_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options given, as ``Kenning.edit`` keywords."""
    given: dict[str, Any] = {}
    for name, value in options.items():
        if value is None or value == ():
            continue
        if name == "expires":
            given["expires_at"] = None if value == NEVER else value
        elif name == "lesson_context":
            given["context"] = value
        elif name == "attributes":
            given["attributes"] = _json_object(value)
        else:
            given[name] = list(value) if isinstance(value, tuple) else value
    return given


def _json_object(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise InvalidInput(f"--attributes-json must be a JSON object such as '{{\"team\": \"core\"}}': {exc}") from None


def _said(before: Item, after: Item) -> str:
    """One line saying what changed."""
    old, new = before.to_dict(), after.to_dict()
    if after.id != before.id:
        return f"Superseded {before.kind} {before.id} by {after.id} (the old text stays in its history)."
    changed = [k for k in new if k not in ("updated_at", "content") and old.get(k) != new[k]]
    if not changed:
        return f"Nothing changed in {after.kind} {after.id}."
    return f"Edited {after.kind} {after.id}: {', '.join(changed)}."


# -- the editor ----------------------------------------------------------------------------------


def _from_editor(item: Item, reason: str) -> tuple[dict[str, Any], str]:
    """The fields changed in $EDITOR, and the reason (the file's, else the one given)."""
    if not (os.environ.get("VISUAL") or os.environ.get("EDITOR")) and not sys.stdin.isatty():
        raise InvalidInput(f"no field to change was given and there is no terminal for an editor: pass an option "
                           f"such as --tag, or set $EDITOR (see 'kenning edit --help')")
    values = _editable(item)
    text = render(item, values, reason)
    try:
        edited = click.edit(text, extension=".toml", require_save=True)
    except click.ClickException as exc:  # the editor could not start or exited non-zero
        raise InvalidInput(f"nothing changed: {exc.format_message()}") from None
    if edited is None or edited == text:
        return {}, reason
    found = _parse(edited)
    return changes(item, values, found), str(found.get("reason", reason))


def _editable(item: Item) -> dict[str, Any]:
    """The file's keys and their values as the item holds them (None: not writable in TOML)."""
    data = item.to_dict()
    values: dict[str, Any] = {}
    for key, keyword, _ in _FIELDS[item.kind]:
        value = data.get(keyword)
        if keyword == "expires_at":
            value = value or ""
        values[key] = value
    return values


def render(item: Item, values: dict[str, Any], reason: str = "") -> str:
    """The TOML text of the editable fields, each under a comment saying what it takes."""
    label = f"entity {item.name!r}" if isinstance(item, Entity) else f"{item.kind} {item.id}"
    lines = [f"# Editing {label} (scope {item.scope}). Save and close to apply; a key you remove or leave as it",
             "# is stays as it is. Text goes in double quotes: \\n for a new line, \\\" for a quote.", ""]
    for key, _, comment in _FIELDS[item.kind]:
        lines.append(f"# {comment}")
        try:
            lines.append(f"{key} = {_toml(values[key])}")
        except ValueError:
            lines.append(f"# ({key} holds a null, which TOML cannot write: change it with --attributes-json instead)")
        lines.append("")
    lines += ["# Why (kept in the audit log).", f"reason = {_toml(reason)}", ""]
    return "\n".join(lines)


def changes(item: Item, values: dict[str, Any], found: dict[str, Any]) -> dict[str, Any]:
    """The ``Kenning.edit`` keywords for what differs in the edited file (``found``) from ``values``."""
    keywords = {key: keyword for key, keyword, _ in _FIELDS[item.kind]}
    if unknown := [k for k in found if k not in keywords and k != "reason"]:
        raise InvalidInput(f"nothing changed: {', '.join(map(repr, unknown))} is not a field of a {item.kind}; "
                           f"the fields are {', '.join(keywords)} and reason")
    out: dict[str, Any] = {}
    for key, value in found.items():
        if key == "reason" or value == values.get(key):
            continue
        if key == "expires":
            value = None if value == "" else value
        out[keywords[key]] = value
    return out


def _parse(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"nothing changed: the edited file is not TOML ({exc}); run `kenning edit` again") from None


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml(value: Any) -> str:
    """One value as TOML; ValueError for None (TOML has no null)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        # a JSON string is a TOML basic string, but for DEL, which TOML wants escaped
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        pairs = [f"{k if _BARE_KEY.fullmatch(k) else _toml(k)} = {_toml(v)}" for k, v in value.items()]
        return "{ " + ", ".join(pairs) + " }" if pairs else "{}"
    raise ValueError(f"TOML cannot write {value!r}")


COMMANDS = (edit,)

__all__ = ["COMMANDS", "changes", "render"]
